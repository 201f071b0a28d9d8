// Rendering templates: Handlebars in subject, HTML and text.
// `{{name}}` is HTML-escaped in the HTML part only; the subject and text part are plain text, so
// they are compiled without escaping (a subject gets its line breaks folded to spaces, so a variable
// can never start a new header). Compiled functions are cached per template version, so a send
// compiles nothing and a publish (a new version) is seen at once.
import Handlebars from 'handlebars';
import { compile as compileConverter } from 'html-to-text';

type Node = hbs.AST.Node;

/** Where a template does not compile: 1-based line and column, and the parser's message. */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly part: 'subject' | 'content_html' | 'content_text',
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

/** Line and column of a parse error; jison only prints them, so they are read from its excerpt. */
function locate(
  source: string,
  err: Error & { lineNumber?: number; column?: number },
): { line: number; column: number } {
  if (typeof err.lineNumber === 'number') return { line: err.lineNumber, column: (err.column ?? 0) + 1 };
  const m = /on line (\d+):\n(.*)\n(-*)\^/.exec(err.message);
  if (!m) return { line: 1, column: 1 };
  const line = Number(m[1]);
  const excerpt = m[2];
  const past = excerpt.slice(0, m[3].length).replace(/^\.\.\./, '');
  const upcoming = excerpt.slice(m[3].length);
  const text = source.split('\n')[line - 1] ?? '';
  // the error sits where the characters before it on this line end the excerpt's past input
  for (let k = text.length; k >= 0; k--) {
    const before = text.slice(Math.max(0, k - past.length), k);
    if (
      past.endsWith(before) &&
      (k < past.length || before === past) &&
      upcoming.startsWith(text.slice(k, k + Math.min(upcoming.length, text.length - k)))
    ) {
      return { line, column: k + 1 };
    }
  }
  return { line, column: 1 };
}

/**
 * The parser's message without what the line and column already say, on one line: jison's is
 * "Parse error on line N:", an excerpt, a caret line and "Expecting 'A', 'B', got 'C'" (the part that
 * says what was wrong); a block mismatch is "each doesn't match if - 1:3".
 */
export function explain(message: string): string {
  const lines = message.split('\n');
  if (/^Parse error on line \d+:$/.test(lines[0]) && lines.length > 1)
    return `parse error: ${lines[lines.length - 1].replace(/^Expecting/, 'expecting')}`;
  return lines.join(' ').replace(/ - \d+:\d+$/, '');
}

function parse(source: string, part: TemplateSyntaxError['part']): hbs.AST.Program {
  try {
    const ast = Handlebars.parse(source);
    // precompiling walks the whole tree: mismatched blocks are found here, not at the first send
    Handlebars.precompile(ast);
    return ast;
  } catch (err) {
    const e = err as Error & { lineNumber?: number; column?: number };
    const { line, column } = locate(source, e);
    throw new TemplateSyntaxError(`${part} line ${line}, column ${column}: ${explain(e.message)}`, part, line, column);
  }
}

/** Throws TemplateSyntaxError for the first part that does not compile (what publish refuses). */
export function checkSyntax(parts: {
  subject?: string | null;
  content_html: string;
  content_text?: string | null;
}): void {
  if (parts.subject) parse(parts.subject, 'subject');
  parse(parts.content_html, 'content_html');
  if (parts.content_text) parse(parts.content_text, 'content_text');
}

const BUILT_IN = new Set(['if', 'unless', 'each', 'with', 'lookup', 'log', 'this']);

/**
 * The variables a template needs: the first segment of every path at the top level of the data,
 * outside #each and #with bodies (their paths belong to the items). A name used only as the
 * condition of #if / #unless, or inside the #if that tests it, is optional — testing for it is
 * the point of the block.
 */
export function variablesOf(ast: hbs.AST.Program): { required: Set<string>; optional: Set<string> } {
  const required = new Set<string>();
  const optional = new Set<string>();
  let guarded = new Set<string>();
  const path = (n: Node | undefined, into: Set<string>) => {
    if (n?.type !== 'PathExpression') return;
    const p = n as hbs.AST.PathExpression;
    if (
      p.data ||
      p.depth > 0 ||
      p.parts.length === 0 ||
      BUILT_IN.has(p.parts[0]) ||
      p.original.startsWith('this') ||
      p.original.startsWith('.')
    )
      return;
    (guarded.has(p.parts[0]) ? optional : into).add(p.parts[0]);
  };
  const expr = (n: Node | undefined) => {
    if (!n) return;
    if (n.type === 'SubExpression') {
      const s = n as hbs.AST.SubExpression;
      s.params.forEach(expr);
      for (const pair of s.hash?.pairs ?? []) expr(pair.value);
    } else path(n, required);
  };
  const walk = (program: hbs.AST.Program | undefined) => {
    for (const st of program?.body ?? []) {
      if (st.type === 'MustacheStatement') {
        const m = st as hbs.AST.MustacheStatement;
        const helper = m.params.length > 0 || (m.hash?.pairs.length ?? 0) > 0;
        if (!helper) path(m.path, required);
        m.params.forEach(expr);
        for (const pair of m.hash?.pairs ?? []) expr(pair.value);
      } else if (st.type === 'BlockStatement') {
        const b = st as hbs.AST.BlockStatement;
        const name = (b.path as hbs.AST.PathExpression).original;
        if (name === 'if' || name === 'unless') for (const p of b.params) path(p, optional);
        else b.params.forEach(expr);
        if (name === 'each' || name === 'with') {
          walk(b.inverse);
        } else if (name === 'if') {
          const outer = guarded;
          const tested =
            b.params[0]?.type === 'PathExpression' ? (b.params[0] as hbs.AST.PathExpression).parts[0] : undefined;
          guarded = tested ? new Set([...outer, tested]) : outer;
          walk(b.program);
          guarded = outer;
          walk(b.inverse);
        } else {
          walk(b.program);
          walk(b.inverse);
        }
      }
    }
  };
  walk(ast);
  for (const name of required) optional.delete(name);
  return { required, optional };
}

export interface CompiledTemplate {
  subject: HandlebarsTemplateDelegate | null;
  html: HandlebarsTemplateDelegate;
  text: HandlebarsTemplateDelegate | null;
  /** Without a text part: the HTML's text with the variables still in place (textFromHtml), when it could be made. */
  derivedText: HandlebarsTemplateDelegate | null;
  /** Variables every send must give. */
  required: string[];
  /** Every variable the template reads (for the preview's sample values). */
  all: string[];
}

export interface RenderSource {
  subject: string | null;
  html: string;
  text: string | null;
}

/** Compiles the three parts (throws TemplateSyntaxError). */
export function compile(source: RenderSource): CompiledTemplate {
  const asts = {
    subject: source.subject ? parse(source.subject, 'subject') : null,
    html: parse(source.html, 'content_html'),
    text: source.text ? parse(source.text, 'content_text') : null,
  };
  const required = new Set<string>();
  const all = new Set<string>();
  for (const ast of [asts.subject, asts.html, asts.text]) {
    if (!ast) continue;
    const v = variablesOf(ast);
    for (const n of v.required) {
      required.add(n);
      all.add(n);
    }
    for (const n of v.optional) all.add(n);
  }
  // strict: false and no prototype access (Handlebars' defaults since 4.6): a variable can only read
  // plain data; knownHelpersOnly keeps a template from calling anything but the built-in helpers
  const opts = { knownHelpersOnly: true } as const;
  return {
    subject: asts.subject ? Handlebars.compile(asts.subject, { ...opts, noEscape: true }) : null,
    html: Handlebars.compile(asts.html, opts),
    text: asts.text ? Handlebars.compile(asts.text, { ...opts, noEscape: true }) : null,
    derivedText: asts.text ? null : textTemplateOf(source.html, opts),
    required: [...required].sort(),
    all: [...all].sort(),
  };
}

const MAX_CACHED = 5000;
const compiled = new Map<string, CompiledTemplate>();

/** The compiled template of one version, compiled on first use. `key` names the version ("uuid:version"). */
export function compiledFor(key: string, source: () => RenderSource): CompiledTemplate {
  let hit = compiled.get(key);
  if (!hit) {
    hit = compile(source());
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, hit);
  }
  return hit;
}

/** The variables the template needs that `variables` lacks (undefined or null). */
export function missingVariables(template: CompiledTemplate, variables: Record<string, unknown>): string[] {
  return template.required.filter((name) => variables[name] === undefined || variables[name] === null);
}

export interface Rendered {
  subject: string | null;
  html: string;
  text: string;
}

/** Plain text from HTML for a template without a text part (links kept as "text [url]"). */
export function htmlToText(html: string): string {
  return tidy(toText(html));
}

// Compiled once: convert() builds its options and selector tables on every call. No hard wrapping
// (clients wrap; a line may be 998 octets) and headings keep their case, so the text of a template
// made before its variables are filled (textTemplateOf) reads the same as the text of the filled HTML.
// Mail lays out with tables: a row is a line, its cells side by side with a space between them
// (html-to-text's default runs a row's cells together: 'Tea × 2£9.00'); a layout cell's blocks stay
// blocks.
const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));
const TABLES = [
  { selector: 'table', format: 'block' },
  { selector: 'tr', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
  ...['td', 'th'].map((selector) => ({ selector, format: 'cell' })),
];
const toText = compileConverter({
  wordwrap: false,
  formatters: {
    cell: (elem, walk, builder) => {
      walk(elem.children, builder);
      builder.addInline(' ');
    },
  },
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ...HEADINGS,
    ...TABLES,
  ],
});

/** No trailing blanks on a line, at most one empty line in a row, none at either end. */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const MUSTACHE = /\{\{[^{}]*\}\}/g;
// what this way of making the text cannot follow: comments that may hold '}}', raw blocks and
// triple-stash output (raw HTML, which must become text at send time), escaped mustaches, white
// space control (it would join the lines the converter made), and our own placeholder characters
const UNSUPPORTED = /\{\{!--|\{\{\{|\\\{\{|\{\{~|~\}\}|[\u0002\u0003]/;
const STRUCTURE = /^\{\{\s*(#|\^|\/|else\b)/;

/**
 * The text part of a template without one, made once per version instead of at every send (which
 * made a template send 0.7× as fast as the same message inline: npm run bench:template). Each
 * `{{…}}` of the HTML stands in the HTML as a placeholder while html-to-text converts it, then is put
 * back; the result renders with the same variables, unescaped, as a text part does. Handlebars drops
 * the lines that hold only a block's open or close tag, so a list's {{#each}} leaves no blank line.
 * Null (the text is then made from the rendered HTML at every send) when the template uses what
 * this cannot follow, or when a block's tags did not come through the conversion whole and in order
 * (a tag inside an attribute, say).
 */
export function textTemplateOf(html: string, opts: CompileOptions): HandlebarsTemplateDelegate | null {
  if (UNSUPPORTED.test(html)) return null;
  const ids = new Map<string, number>();
  const tokens: string[] = [];
  const structure: number[] = [];
  const marked = html.replace(MUSTACHE, (token) => {
    let id = ids.get(token);
    if (id === undefined) {
      id = tokens.push(token) - 1;
      ids.set(token, id);
    }
    if (STRUCTURE.test(token)) structure.push(id);
    return `\u0002${id}\u0003`;
  });
  if (tokens.length === 0) return null;
  const converted = toText(marked);
  // braces the converter decoded from entities, or a backslash before a variable, would be read by
  // Handlebars as template syntax
  if (/\{\{|\}\}|\\\u0002/.test(converted)) return null;
  const seen: number[] = [];
  const text = converted.replace(/\u0002(\d+)\u0003/g, (_, n: string) => {
    const id = Number(n);
    if (STRUCTURE.test(tokens[id])) seen.push(id);
    return tokens[id];
  });
  if (seen.length !== structure.length || seen.some((id, i) => id !== structure[i])) return null;
  try {
    const ast = Handlebars.parse(text);
    Handlebars.precompile(ast);
    return Handlebars.compile(ast, { ...opts, noEscape: true });
  } catch {
    return null;
  }
}

/** Renders every part with `variables`; the text part is made from the HTML when there is none. */
export function render(
  template: CompiledTemplate,
  variables: Record<string, unknown>,
  subjectOverride?: string,
): Rendered {
  const opts = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };
  const subjectFn = subjectOverride !== undefined ? compileInline(subjectOverride) : template.subject;
  const subject = subjectFn
    ? subjectFn(variables, opts)
        .replace(/[\r\n]+/g, ' ')
        .trim()
    : null;
  const html = template.html(variables, opts);
  const text = template.text
    ? template.text(variables, opts)
    : template.derivedText
      ? tidy(template.derivedText(variables, opts))
      : htmlToText(html);
  return { subject, html, text };
}

const inlineSubjects = new Map<string, HandlebarsTemplateDelegate>();

/** A subject given in the send request, rendered with the same variables (cached by its text). */
function compileInline(subject: string): HandlebarsTemplateDelegate {
  let fn = inlineSubjects.get(subject);
  if (!fn) {
    fn = Handlebars.compile(parse(subject, 'subject'), { knownHelpersOnly: true, noEscape: true });
    if (inlineSubjects.size >= MAX_CACHED) inlineSubjects.clear();
    inlineSubjects.set(subject, fn);
  }
  return fn;
}
