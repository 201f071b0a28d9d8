#!/usr/bin/env node
// Rewrites citations of documents that are not in the repository (the product spec's two parts and
// DESIGN.md) into citations of the documents under docs/ that took their place, so comments and the
// README cite files a reader can open:
//   "spec part two §N" (also "part two §N")          → "docs/console-reports.md §N"
//   "spec core §N", "spec §N" (also "core §N")       → "docs/console.md §N"
//   "DESIGN.md" (and "spec DESIGN", "../shared/DESIGN.md") → "docs/architecture.md §N", by the file's
//   subject (DESIGN_SECTIONS below)
// An unqualified "spec §N" means the part the file cites around it (the nearest qualified citation
// before it, else after it, else part one); the few where that guess is wrong are listed in
// OVERRIDES. Bare "§N" that continue a list ("spec core §2, §4") are left as they are: they read as
// the document just named.
//
// Usage: node scripts/cite-docs.mjs [--dry-run] [--root DIR] [--verbose]
// Walks src/, tests/, scripts/ and README.md under the root (default: this repository), prints what
// it changed and every mention it could not map; --dry-run writes nothing.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CONSOLE = 'docs/console.md';
const REPORTS = 'docs/console-reports.md';
const ARCH = 'docs/architecture.md';

/**
 * Which section of docs/architecture.md each file's plain "DESIGN.md" means (by path; by file name when the path
 * moved).
 */
const DESIGN_SECTIONS = {
  'src/server/sending/mail.schema.ts': '§7',
  'src/server/sending/sending.service.ts': '§5.1',
  'src/server/credentials/credentials.service.ts': '§8',
  'src/server/bounces/bounces.repository.ts': '§5.3',
  'src/server/bounces/receiver.ts': '§5.3',
  'src/server/stats/stats.repository.ts': '§4.2',
  'src/server/delivery/smtp-reply.ts': '§5',
  'src/server/delivery/queue.repository.ts': '§6.1',
  'src/server/core/secrets.ts': '§8',
  'src/server/server.ts': '§2',
  'src/server/storage/storage.ts': '§4.3',
  'src/server/message/tracking-rewrite.ts': '§4.1',
  'src/server/db/migrations/002-sending.ts': '§6',
  'src/server/db/migrations/004-tracking.ts': '§4.1',
  'src/server/db/migrations/007-transaction-counts.ts': '§4.2',
  'src/server/webhooks/webhook-requests.repository.ts': '§6.1',
  'src/server/reports/groups.repository.ts': '§4.2',
  'src/server/dashboard/dashboard.service.ts': '§4.2',
  'src/server/http/session-cookie.ts': '§8',
  'src/styles/console.scss': '§9',
  'src/components/charts/charts.ts': '§9',
  'src/components/date-picker.ts': '§9',
  'src/lib/unsubscribe-view.ts': '§8',
  'tests/integration/send-rules.test.ts': '§5',
  'tests/integration/webhooks-two-workers.test.ts': '§6',
  'tests/integration/two-workers.test.ts': '§2',
  'scripts/durability.mjs': '§5.1',
  'README.md': '§4.2',
};

/** DESIGN.md phrases that read better rewritten whole (tried before the per-file section). */
const DESIGN_PHRASES = [
  [/`?\.\.\/shared\/DESIGN\.md`?/g, () => `[${ARCH}](${ARCH})`],
  [/\bspec DESIGN\b/g, () => `${ARCH} §8`],
  [/DESIGN\.md "Data"/g, () => `${ARCH} §4.2`],
  [/DESIGN\.md "asynchronous DSN: delivered → bounced"/g, () => `${ARCH} §5.3`],
  [/DESIGN\.md "Transaction status"/g, () => `${ARCH} §5 "Transaction status"`],
  [/DESIGN\.md "the database is the queue"/g, () => `${ARCH} §6 "The database is the queue"`],
  [/DESIGN\.md "Send"/g, () => `${ARCH} §7 "Send"`],
  [/DESIGN\.md `links`/g, () => `${ARCH} §4.1 \`links\``],
];

/**
 * Citations the generic rules would get wrong, matched by file and text (robust to line moves).
 * `doc` decides an unqualified "spec §N"; `replace` rewrites the text itself.
 */
const OVERRIDES = [
  // the file's first line cites part one and part two; this is part one's rule (an empty auth type is null)
  { file: 'src/server/webhooks/webhooks.service.ts', text: 'spec §5: an empty authentication type', doc: CONSOLE },
  {
    file: 'src/server/unsubscribe/unsubscribe.service.ts',
    text: 'The spec\'s "Unsubscribe response" (§3)',
    replace: `The "Unsubscribe response" of ${REPORTS} §3`,
  },
  { file: 'src/lib/next-path.ts', text: 'spec part two, route guard', replace: `${REPORTS} §2, route guard` },
  { file: 'tests/unit/next-path.test.ts', text: 'spec part two, route guard', replace: `${REPORTS} §2, route guard` },
  {
    file: 'src/server/dashboard/dashboard.service.ts',
    text: "named like part two's dailyStats entry",
    replace: `named like the dailyStats entry of ${REPORTS} §3`,
  },
  {
    file: 'src/server/reports/groups.service.ts',
    text: "(part two's group list shows Requests)",
    replace: `(the group list of ${REPORTS} §2 shows Requests)`,
  },
  {
    file: 'src/server/exports/exports.service.ts',
    text: 'spec part two: EXPORT_RETENTION_DAYS',
    replace: `${REPORTS} §9: EXPORT_RETENTION_DAYS`,
  },
];

// Words of one citation may be split over two comment lines ("spec core\n// §2"): a separator is
// blanks, or a line break with the next line's comment marker.
const SEP = String.raw`(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:\/\/|\*|#)?[ \t]*)`;
const PART_TWO = new RegExp(String.raw`\b(?:[Ss]pec(${SEP}))?part(${SEP})two(${SEP})§`, 'g');
const CORE = new RegExp(String.raw`\b(?:[Ss]pec(${SEP}))?core(${SEP})§`, 'g');
const PLAIN = new RegExp(String.raw`\b[Ss]pec(${SEP})§`, 'g');
const WHICH = new RegExp(String.raw`\b(?:(?:[Ss]pec${SEP})?part${SEP}two|(?:[Ss]pec${SEP})?core)${SEP}§`, 'g');

const EXTENSIONS = new Set(['.ts', '.tsx', '.astro', '.mjs', '.js', '.cjs', '.scss', '.css', '.md']);
const SELF = 'scripts/cite-docs.mjs';

function parseArgs(argv) {
  const opts = {
    dryRun: false,
    verbose: false,
    root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--dry-run') opts.dryRun = true;
    else if (argv[i] === '--verbose') opts.verbose = true;
    else if (argv[i] === '--root') opts.root = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]} (use --dry-run, --verbose, --root DIR)`);
  }
  return opts;
}

function* walk(root, rel) {
  const full = path.join(root, rel);
  let st;
  try {
    st = statSync(full);
  } catch {
    return;
  }
  if (st.isFile()) {
    yield rel;
    return;
  }
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const child = path.posix.join(rel, entry.name);
    if (entry.isDirectory()) yield* walk(root, child);
    else if (EXTENSIONS.has(path.extname(entry.name))) yield child;
  }
}

/** The separator to keep: the one holding a line break, else the last one. */
function keptSeparator(...seps) {
  const present = seps.filter((s) => s !== undefined);
  return present.find((s) => s.includes('\n')) ?? present.at(-1) ?? ' ';
}

const lineOf = (text, index) => text.slice(0, index).split('\n').length;

function designSection(rel) {
  if (DESIGN_SECTIONS[rel]) return DESIGN_SECTIONS[rel];
  const base = path.posix.basename(rel);
  const same = Object.keys(DESIGN_SECTIONS).filter((k) => path.posix.basename(k) === base);
  return same.length === 1 ? DESIGN_SECTIONS[same[0]] : undefined;
}

/** Rewrites one file's text; answers the new text, counts and the notes for the report. */
export function rewrite(rel, text) {
  const counts = { reports: 0, console: 0, plainToConsole: 0, plainToReports: 0, design: 0, override: 0 };
  const notes = [];
  let out = text;

  for (const o of OVERRIDES) {
    if (o.replace && rel === o.file && out.includes(o.text)) {
      out = out.split(o.text).join(o.replace);
      counts.override++;
    }
  }

  // unqualified "spec §N": decide before the qualified ones are rewritten (their positions tell)
  const qualified = [...out.matchAll(WHICH)].map((m) => ({ at: m.index, doc: /part/.test(m[0]) ? REPORTS : CONSOLE }));
  const plainDocs = [];
  for (const m of out.matchAll(PLAIN)) {
    const override = OVERRIDES.find((o) => o.doc && rel === o.file && out.startsWith(o.text, m.index));
    const before = qualified.filter((q) => q.at < m.index).at(-1);
    const after = qualified.find((q) => q.at > m.index);
    const doc = override?.doc ?? before?.doc ?? after?.doc ?? CONSOLE;
    const how = override
      ? 'override'
      : before
        ? 'nearest citation before'
        : after
          ? 'nearest citation after'
          : 'default (part one)';
    plainDocs.push(doc);
    const line = out.split('\n')[lineOf(out, m.index) - 1].trim();
    notes.push(`  ${rel}:${lineOf(out, m.index)} → ${doc} (${how}): ${line.slice(0, 110)}`);
  }

  out = out.replace(PART_TWO, (_m, s1, s2, s3) => {
    counts.reports++;
    return `${REPORTS}${keptSeparator(s1, s2, s3)}§`;
  });
  out = out.replace(CORE, (_m, s1, s2) => {
    counts.console++;
    return `${CONSOLE}${keptSeparator(s1, s2)}§`;
  });
  let k = 0;
  out = out.replace(PLAIN, (_m, s1) => {
    const doc = plainDocs[k++];
    if (doc === REPORTS) counts.plainToReports++;
    else counts.plainToConsole++;
    return `${doc}${s1}§`;
  });

  for (const [re, to] of DESIGN_PHRASES) {
    out = out.replace(re, () => {
      counts.design++;
      return to();
    });
  }
  const section = designSection(rel);
  out = out.replace(/\bDESIGN\.md\b/g, (m, index) => {
    if (!section) {
      notes.push(`  UNMAPPED ${rel}:${lineOf(out, index)} DESIGN.md (no section for this file in DESIGN_SECTIONS)`);
      return m;
    }
    counts.design++;
    return `${ARCH} ${section}`;
  });
  return { out, counts, notes };
}

/** Mentions left behind that still point outside the repository, for a person to look at. */
function leftovers(rel, text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    if (/\/shared\/|DESIGN\.md/.test(line)) found.push(`  ${rel}:${i + 1} ${line.trim().slice(0, 140)}`);
    else if (/\bSTYLE(\.md)? §/.test(line)) found.push(`  ${rel}:${i + 1} (STYLE) ${line.trim().slice(0, 140)}`);
    else if (/\b[Ss]pec(?:'s|’s)? (?:part|core)\b/.test(line) || /\bpart two's\b/.test(line))
      found.push(`  ${rel}:${i + 1} ${line.trim().slice(0, 140)}`);
  });
  return found;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const totals = { files: 0, reports: 0, console: 0, plainToConsole: 0, plainToReports: 0, design: 0, override: 0 };
  const notes = [];
  const left = [];
  let longer = 0;
  const files = ['src', 'tests', 'scripts', 'README.md']
    .flatMap((r) => [...walk(opts.root, r)])
    .filter((rel) => rel !== SELF);
  for (const rel of files) {
    const full = path.join(opts.root, rel);
    const text = readFileSync(full, 'utf8');
    const { out, counts, notes: n } = rewrite(rel, text);
    notes.push(...n);
    left.push(...leftovers(rel, out));
    if (out === text) continue;
    totals.files++;
    for (const key of Object.keys(counts)) totals[key] += counts[key];
    const before = new Set(text.split('\n').filter((l) => l.length > 120));
    longer += out.split('\n').filter((l) => l.length > 120 && !before.has(l)).length;
    if (opts.verbose) console.log(`${rel}: ${JSON.stringify(counts)}`);
    if (!opts.dryRun) writeFileSync(full, out);
  }
  const replaced =
    totals.reports + totals.console + totals.plainToConsole + totals.plainToReports + totals.design + totals.override;
  console.log(`${opts.dryRun ? 'dry run: would change' : 'changed'} ${totals.files} files, ${replaced} replacements:`);
  console.log(`  part two → ${REPORTS}: ${totals.reports}; core → ${CONSOLE}: ${totals.console}`);
  console.log(`  unqualified "spec §N" → ${CONSOLE}: ${totals.plainToConsole}, → ${REPORTS}: ${totals.plainToReports}`);
  console.log(`  DESIGN.md → ${ARCH}: ${totals.design}; whole-phrase overrides: ${totals.override}`);
  console.log(`  lines newly over 120 characters: ${longer}`);
  console.log(
    `unqualified "spec §N" and how each was decided (${notes.filter((n) => !n.includes('UNMAPPED')).length}):`,
  );
  for (const n of notes) console.log(n);
  console.log(`mentions still pointing outside the repository or at "the spec" by part (${left.length}):`);
  for (const l of left) console.log(l);
}

main();
