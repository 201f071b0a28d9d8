// Breaks the lines over 120 characters that Biome's formatter leaves long, in .ts/.tsx/.mjs files:
// comments are rewrapped (a one-line JSDoc becomes a block), quoted strings and untagged
// template literals are split at a space into two pieces joined by +, and sql`` templates get a line
// break at a space outside SQL quotes. A trailing comment that makes a line long moves above it.
// In .astro files the frontmatter gets the same, and the template is broken only where the compiled
// page stays the same (see wrapAstro). Run `npm run format` after it (it re-indents the new lines),
// and again both until it changes nothing; `npm run lint` lists what is left for a person (.scss
// files, text inside markup, code Biome cannot break).
//
// With --join, pieces of one string that ended up on one line ('… the ' + 'search') are joined
// first, to be split again at a better place.
//
//   node scripts/wrap-long-lines.mjs [--join] [file ...]
//   default: the .ts, .tsx, .mjs and .astro files in src/, tests/ and scripts/
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX = 120;
const width = (s) => [...s].length;
// words before a backtick that are not a tag
const KEYWORDS = new Set(['return', 'await', 'yield', 'case', 'typeof', 'throw', 'in', 'of', 'new', 'else', 'void']);

/** Every .ts, .tsx and .mjs file git knows under src/, tests/ and scripts/. */
function allFiles() {
  const run = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'tests', 'scripts'], {
    cwd: root,
    encoding: 'utf8',
  });
  return run.stdout
    .split('\n')
    .filter((f) => /\.(ts|tsx|mjs|astro)$/.test(f) && !f.endsWith('010-templates.gallery.ts'));
}

/** Where the type arguments before a tagged template start (sql<Row>`…`), else `at` itself. */
function typeArgumentsStart(text, at) {
  let i = at - 1;
  if (text[i] !== '>') return at;
  let depth = 0;
  for (; i >= 0 && at - i < 2000; i--) {
    if (text[i] === '>') depth++;
    else if (text[i] === '<' && --depth === 0) return i;
  }
  return at;
}

/**
 * The lexical state of every character: 'code', 'line' (// comment), 'block' (block comment), 'sq' and 'dq'
 * (quoted strings), 'tpl' (template text) with the template's tag. Regular expressions are told from division
 * by the character before the slash, which is enough for this codebase.
 */
function scan(text) {
  const state = new Array(text.length);
  const tags = new Array(text.length);
  const ids = new Array(text.length); // which string or template a character belongs to
  const ends = []; // by id: the index of the closing quote or backtick
  const starts = []; // by id: the index of the opening quote or backtick
  let id = -1;
  const tagOf = []; // by id, for templates: the tag ('' for none)
  const stack = []; // for each open template: the brace depth of the ${ } it is in, and its tag
  let mode = 'code';
  let depth = 0;
  let lastSignificant = '';
  let tag = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const next = text[i + 1];
    if (mode === 'code') {
      if (c === '/' && next === '/') {
        mode = 'line';
      } else if (c === '/' && next === '*') {
        mode = 'block';
      } else if (c === "'") {
        mode = 'sq';
        id = ends.push(-1) - 1;
        starts[id] = i;
      } else if (c === '"') {
        mode = 'dq';
        id = ends.push(-1) - 1;
        starts[id] = i;
      } else if (c === '`') {
        const tagEnd = typeArgumentsStart(text, i);
        const before = /([A-Za-z_$][\w$.]*)\s*$/.exec(text.slice(Math.max(0, tagEnd - 40), tagEnd));
        tag = before && !KEYWORDS.has(before[1]) ? before[1] : '';
        state[i] = 'code';
        mode = 'tpl';
        id = ends.push(-1) - 1;
        starts[id] = i;
        tagOf[id] = tag;
        stack.push({ depth, tag, id });
        lastSignificant = c;
        continue;
      } else if (c === '/' && (lastSignificant === '' || '(,=:[!&|?{};+-*%<>~^'.includes(lastSignificant))) {
        mode = 'regex';
      } else if (c === '{') {
        depth++;
      } else if (c === '}') {
        if (stack.length > 0 && stack[stack.length - 1].depth === depth) {
          state[i] = 'code';
          mode = 'tpl';
          tag = stack[stack.length - 1].tag;
          id = stack[stack.length - 1].id;
          continue;
        }
        depth--;
      }
      state[i] = mode === 'code' ? 'code' : mode;
      if (mode === 'code' && !/\s/.test(c)) lastSignificant = c;
      if (mode === 'code' && /[\w$)\]]/.test(c)) lastSignificant = c === ')' || c === ']' ? ')' : 'a';
      continue;
    }
    state[i] = mode;
    tags[i] = tag;
    ids[i] = id;
    if (mode === 'line' && c === '\n') {
      state[i] = 'code';
      mode = 'code';
    } else if (mode === 'block' && c === '*' && next === '/') {
      state[i + 1] = 'block';
      i++;
      mode = 'code';
    } else if ((mode === 'sq' || mode === 'dq' || mode === 'tpl' || mode === 'regex') && c === '\\') {
      state[i + 1] = mode;
      tags[i + 1] = tag;
      ids[i + 1] = id;
      i++;
    } else if ((mode === 'sq' && c === "'") || (mode === 'dq' && c === '"')) {
      ends[id] = i;
      mode = 'code';
      lastSignificant = 'a';
    } else if (mode === 'regex' && c === '[') {
      mode = 'regex-class';
    } else if (mode === 'regex-class' && c === ']') {
      mode = 'regex';
    } else if (mode === 'regex' && (c === '/' || c === '\n')) {
      mode = 'code';
      lastSignificant = 'a';
    } else if (mode === 'tpl' && c === '`') {
      state[i] = 'code';
      ends[stack.pop().id] = i;
      mode = 'code';
      lastSignificant = 'a';
    } else if (mode === 'tpl' && c === '$' && next === '{') {
      state[i] = 'code';
      state[i + 1] = 'code';
      i++;
      mode = 'code';
    }
  }
  return { state, tags, ids, ends, starts, tagOf };
}

/** Greedy word wrap of `words` into lines of `prefix + words` no wider than MAX. */
function fill(prefix, words) {
  const lines = [];
  let current = '';
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (current && width(prefix + candidate) > MAX) {
      lines.push(prefix + current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current) lines.push(prefix + current);
  return lines;
}

// a comment line that continues the paragraph above it (not a list item, a heading or an example)
const isProse = (rest) => /^[a-z(“"']/.test(rest) && !/^[a-z]+:\s/.test(rest);

/** Rewraps long comment lines; the words that overflow go to the next line of the same paragraph. */
function wrapComments(lines) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (width(line) <= MAX) {
      out.push(line);
      continue;
    }
    const slashes = /^(\s*)\/\/ (.*)$/.exec(line);
    const star = /^(\s*) \* (.*)$/.exec(line);
    const oneLiner = /^(\s*)\/\*\* (.*) \*\/$/.exec(line);
    if (oneLiner) {
      const [, indent, body] = oneLiner;
      out.push(`${indent}/**`, ...fill(`${indent} * `, body.split(' ')), `${indent} */`);
      continue;
    }
    const m = slashes ?? star;
    if (!m) {
      out.push(line);
      continue;
    }
    const prefix = slashes ? `${m[1]}// ` : `${m[1]} * `;
    const wrapped = fill(prefix, m[2].split(' '));
    const nextLine = lines[i + 1];
    const nextRest = nextLine?.startsWith(prefix) ? nextLine.slice(prefix.length) : undefined;
    if (wrapped.length > 1 && nextRest !== undefined && isProse(nextRest)) {
      // carry the overflow into the next line, which is wrapped in its turn
      out.push(...wrapped.slice(0, -1));
      lines[i + 1] = `${wrapped[wrapped.length - 1]} ${nextRest}`;
    } else {
      out.push(...wrapped);
    }
  }
  return out;
}

/**
 * Joins the pieces of a string that ended up on one line ('a ' + 'b' → 'a b', `a ` + `b` → `a b`): a
 * split that did not help, or one the formatter put back together. Pieces a member access follows stay.
 */
function joinPieces(text) {
  for (let pass = 0; pass < 50; pass++) {
    const { state, ids, ends, starts, tagOf } = scan(text);
    let at = -1;
    for (let i = 0; i < text.length - 4 && at < 0; i++) {
      const q = text[i];
      if ((q !== "'" && q !== '`') || text.slice(i + 1, i + 4) !== ' + ' || text[i + 4] !== q) continue;
      const closing = q === "'" ? state[i] === 'sq' && ends[ids[i]] === i : ends.indexOf(i) >= 0;
      if (!closing) continue;
      const second = starts.indexOf(i + 4);
      if (second < 0 || ends[second] < 0) continue;
      if (q === '`' && (tagOf[second] !== '' || tagOf[ends.indexOf(i)] !== '')) continue;
      if (/[.[]/.test(text[ends[second] + 1] ?? '')) continue;
      at = i;
    }
    if (at < 0) return text;
    text = text.slice(0, at) + text.slice(at + 5);
  }
  return text;
}

/** The line from `start` to `end` of a scanned text without its trailing // comment (whole if none). */
function codeOf(text, state, start, end) {
  const line = text.slice(start, end);
  for (let i = start; i < end; i++) {
    if (state[i] === 'line' && text[i] === '/') {
      const code = text.slice(start, i);
      return code.trim() ? code.trimEnd() : line;
    }
  }
  return line;
}

/** Moves the trailing comment of a long line above it (not in .tsx, where // can be JSX text). */
function moveTrailingComments(text) {
  const { state } = scan(text);
  let start = 0;
  const out = [];
  for (const line of text.split('\n')) {
    const end = start + line.length;
    const code = width(line) > MAX ? codeOf(text, state, start, end) : line;
    if (code === line) out.push(line);
    else out.push(`${/^\s*/.exec(line)[0]}${line.slice(code.length).trim()}`, code);
    start = end + 1;
  }
  return out.join('\n');
}

/** Splits a long line at a space inside a string: '…' and `…` pieces joined by +, sql`` by a line break. */
function wrapStrings(text, tsx) {
  for (let pass = 0; pass < 20; pass++) {
    const { state, tags, ids, ends, starts } = scan(text);
    // 'a b'.repeat(2) is not 'a ' + 'b'.repeat(2): no split in a string a member access follows
    const followed = (i) => ends[ids[i]] >= 0 && /[.[]/.test(text[ends[ids[i]] + 1] ?? '');
    let changed = false;
    let start = 0;
    const pieces = [];
    for (const line of text.split('\n')) {
      const end = start + line.length;
      let cut = -1;
      const cuts = [];
      if (width(line) > MAX && width(codeOf(text, state, start, end)) > MAX) {
        const indent = /^\s*/.exec(line)[0];
        let sqlQuote = false;
        for (let i = start; i < end; i++) {
          const s = state[i];
          if (s === 'tpl' && tags[i] === 'sql' && text[i] === "'") sqlQuote = !sqlQuote;
          if (text[i] !== ' ' || width(text.slice(start, i + 1)) + 3 > MAX) continue;
          if (width(text.slice(start, i + 1)) <= indent.length + 10) continue;
          const ok =
            s === 'sq' ||
            (s === 'dq' && (!tsx || /[(,:?[+]\s*$|^\s*$/.test(text.slice(start, starts[ids[i]])))) ||
            (s === 'tpl' && tags[i] === '') ||
            (s === 'tpl' && tags[i] === 'sql' && !sqlQuote);
          if (ok && !(tags[i] !== 'sql' && followed(i))) cuts.push(i);
        }
        cut = cuts.length > 0 ? cuts[cuts.length - 1] : -1;
        // a short last piece reads badly ('… and the ' + 'search'): cut nearer the middle of the string
        if (cut >= 0 && Math.min(ends[ids[cut]] < 0 ? end : ends[ids[cut]], end) - cut < 40) {
          const first = Math.max(starts[ids[cut]], start);
          const middle = (first + Math.min(ends[ids[cut]] < 0 ? end : ends[ids[cut]], end)) / 2;
          const same = cuts.filter((i) => ids[i] === ids[cut] && i - first > 10);
          if (same.length > 0) cut = same.reduce((a, b) => (Math.abs(b - middle) < Math.abs(a - middle) ? b : a));
        }
      }
      if (cut < 0) {
        pieces.push(line);
      } else {
        const indent = /^\s*/.exec(line)[0];
        const s = state[cut];
        const head = text.slice(start, cut + 1);
        const tail = text.slice(cut + 1, end);
        if (s === 'sq') pieces.push(`${head}' +`, `${indent}  '${tail}`);
        else if (s === 'dq') pieces.push(`${head}" +`, `${indent}  "${tail}`);
        else if (tags[cut] === '') pieces.push(`${head}\` +`, `${indent}  \`${tail}`);
        else pieces.push(head.trimEnd(), `${indent}  ${tail}`);
        changed = true;
      }
      start = end + 1;
    }
    text = pieces.join('\n');
    if (!changed) break;
  }
  return text;
}

/**
 * An .astro template's long lines, broken where Astro's compiler drops the whitespace (its output stays
 * byte for byte the same): between a tag's attributes, before a tag's >, and after the { of an expression. Text,
 * the frontmatter and <script>/<style> bodies are left to a person.
 */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'wbr']);

function wrapAstro(text) {
  const fence = text.startsWith('---') ? text.indexOf('\n---', 3) : -1;
  const bodyStart = fence < 0 ? 0 : text.indexOf('\n', fence + 1) + 1;
  for (let pass = 0; pass < 50; pass++) {
    // break points of the whole template: index → kind ('space': replace it, 'after': insert after it)
    const points = new Map();
    const stack = ['text'];
    let quote = '';
    let raw = ''; // inside <script> or <style>: until its closing tag
    for (let i = bodyStart; i < text.length; i++) {
      const c = text[i];
      const top = stack[stack.length - 1];
      if (raw) {
        if (text.startsWith(`</${raw}`, i)) raw = '';
        continue;
      }
      if (quote) {
        if (c === quote) quote = '';
        continue;
      }
      if (top === 'tag') {
        if (c === '"' || c === "'") quote = c;
        else if (c === '{') stack.push('js');
        else if (c === ' ') points.set(i, 'space');
        else if (c === '>') {
          // <code\n> and </code\n> compile to <code> and </code>
          if (text[i - 1] !== '/' && text[i - 1] !== ' ') points.set(i - 1, 'after');
          stack.pop();
          const open = text.lastIndexOf('<', i);
          const name = /^<\/?([\w-]+)/.exec(text.slice(open))?.[1] ?? '';
          const closing = text[open + 1] === '/';
          const selfClosing = text[i - 1] === '/';
          if (closing) {
            if (stack.length > 1 && stack[stack.length - 1] === 'text') stack.pop();
          } else if (!selfClosing && !VOID.has(name.toLowerCase())) {
            if (name === 'script' || name === 'style') raw = name;
            else stack.push('text');
          }
        }
      } else if (top === 'js') {
        if (c === '"' || c === "'" || c === '`') quote = c;
        else if (c === '{') stack.push('js');
        else if (c === '}') stack.pop();
        else if (c === '<' && /[a-zA-Z/]/.test(text[i + 1] ?? '')) stack.push('tag');
        else if (c === ' ') points.set(i, 'space');
      } else if (c === '{') {
        stack.push('js');
        points.set(i, 'after');
      } else if (c === '<' && /[a-zA-Z/]/.test(text[i + 1] ?? '')) {
        if (text.startsWith('<!--', i)) continue;
        stack.push('tag');
      }
    }
    let changed = false;
    let start = 0;
    const out = [];
    for (const line of text.split('\n')) {
      const end = start + line.length;
      let cut = -1;
      if (start >= bodyStart && width(line) > MAX) {
        const indent = /^\s*/.exec(line)[0];
        for (let i = start + indent.length + 10; i < end && width(text.slice(start, i + 1)) <= MAX; i++) {
          if (points.has(i)) cut = i;
        }
      }
      if (cut < 0) out.push(line);
      else {
        const indent = /^\s*/.exec(line)[0];
        const head = points.get(cut) === 'space' ? text.slice(start, cut) : text.slice(start, cut + 1);
        out.push(head, `${indent}  ${text.slice(cut + 1, end).trimStart()}`);
        changed = true;
      }
      start = end + 1;
    }
    text = out.join('\n');
    if (!changed) break;
  }
  return text;
}

const join = process.argv.includes('--join');
const named = process.argv.slice(2).filter((a) => a !== '--join');
const files = named.length > 0 ? named : allFiles();
let count = 0;
for (const file of files) {
  const full = path.resolve(root, file);
  const before = readFileSync(full, 'utf8');
  if (file.endsWith('.astro')) {
    // the frontmatter is TypeScript: its comments and strings as in a .ts file
    const fence = before.startsWith('---\n') ? before.indexOf('\n---', 3) : -1;
    const front = fence < 0 ? '' : before.slice(4, fence);
    const wrappedFront = fence < 0 ? '' : wrapStrings(wrapComments(front.split('\n')).join('\n'), false);
    const after = wrapAstro(fence < 0 ? before : `---\n${wrappedFront}${before.slice(fence)}`);
    if (after !== before) {
      writeFileSync(full, after);
      count++;
    }
    continue;
  }
  const joined = join ? joinPieces(before) : before;
  const moved = file.endsWith('.tsx') ? joined : moveTrailingComments(joined);
  const after = wrapStrings(wrapComments(moved.split('\n')).join('\n'), file.endsWith('.tsx'));
  if (after !== before) {
    writeFileSync(full, after);
    count++;
  }
}
console.log(`wrap-long-lines: changed ${count} of ${files.length} files; now run npm run format`);
