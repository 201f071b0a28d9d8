// `npm run lint` (after `biome check`): the rules Biome does not check, as file:line lines; exits 1 if any.
//   (a) a line over 120 characters in src/, tests/ or scripts/, including the .astro and .scss files Biome
//       does not format (its formatter also leaves long strings and comments as they are)
//   (b) `as unknown as` in src/: a cast that gives up on the type; tests may use it for fakes
//   (c) a citation of a document outside the repository (the product spec, the design notes beside the
//       checkout) in src/, tests/, scripts/, docs/ or README.md: the repository stands on its own, so
//       comments cite docs/ (docs/architecture.md, docs/console.md, docs/console-reports.md)
//   (d) a database transaction begun anywhere in src/server/ but `inTransaction` (src/server/core/transaction.ts):
//       services decide transactions through that one helper, repositories run inside them
//       (docs/architecture.md §3.2); migrations, which the migrator runs, are out
//   (e) one writer per table (docs/architecture.md §5): in src/server/, the rows of events, daily_stats,
//       suppressions and named_api_keys are written only by their repository, and what a message's outcome writes (its
//       events, counters and suppression) only through the lifecycle (src/server/lifecycle/)
//   (f) a function (declaration, expression or arrow) in src/server/ over 100 lines: a long one becomes a short list
//       of named steps; migrations and the route tables (*.routes.ts, a list of small handlers) are out
// Files are those git knows (tracked, or new and not ignored), so build output and node_modules are out.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINE = 120;
const TEXT = /\.(ts|tsx|mjs|cjs|js|astro|scss|sass|md)$/;
// generated once from the template gallery and frozen with migration 010: its lines are data
const GENERATED = new Set(['src/server/db/migrations/010-templates.gallery.ts']);
// built from pieces so this file does not match its own rules
const CAST = ['as', 'unknown', 'as'].join(' ');
const OUTSIDE = [`..${'/'}shared`, `DESIGN${'.'}md`, `spec ${'§'}`];
const BEGIN = ['.transaction', '()'].join('');
const TRANSACTION_HELPER = 'src/server/core/transaction.ts';
// (e): a statement on the table → the one file that may run it; a writer's call → the folders that may make it
const q = (verb, table) => `.${verb}('${table}')`;
const TABLE_WRITERS = [
  [q('insertInto', 'events'), 'src/server/events/events.repository.ts'],
  [q('insertInto', 'daily_stats'), 'src/server/stats/stats.repository.ts'],
  [q('insertInto', 'suppressions'), 'src/server/suppressions/suppressions.repository.ts'],
  [q('deleteFrom', 'suppressions'), 'src/server/suppressions/suppressions.repository.ts'],
  ...['insertInto', 'updateTable', 'deleteFrom'].map((verb) => [
    q(verb, 'named_api_keys'),
    'src/server/credentials/api-keys.repository.ts',
  ]),
];
const LIFECYCLE_WRITES = ['insertEvents(', 'bumpDailyStats(', 'suppressRecipients(', 'removeUnsubscribed('];
const LIFECYCLE = 'src/server/lifecycle';
// (f)
const MAX_FUNCTION_LINES = 100;
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
  cwd: root,
  encoding: 'utf8',
});
if (listed.status !== 0) {
  console.error(listed.stderr);
  process.exit(2);
}
const files = [...new Set(listed.stdout.split('\0').filter(Boolean))].sort();
const inDir = (file, dirs) => dirs.some((dir) => file.startsWith(`${dir}/`));

const problems = [];
for (const file of files) {
  if (!TEXT.test(file)) continue;
  const lengthRule = inDir(file, ['src', 'tests', 'scripts']) && !file.endsWith('.md') && !GENERATED.has(file);
  const castRule = inDir(file, ['src']);
  const beginRule =
    inDir(file, ['src/server']) && !inDir(file, ['src/server/db/migrations']) && file !== TRANSACTION_HELPER;
  const citationRule = inDir(file, ['src', 'tests', 'scripts', 'docs']) || file === 'README.md';
  const writerRule = inDir(file, ['src/server']) && !inDir(file, ['src/server/db/migrations']);
  const functionRule = writerRule && /\.(ts|tsx|mjs|js)$/.test(file) && !file.endsWith('.routes.ts');
  if (!lengthRule && !castRule && !citationRule && !writerRule) continue;
  let text;
  try {
    text = readFileSync(path.join(root, file), 'utf8');
  } catch {
    continue; // deleted in the working tree but still in the index
  }
  text.split('\n').forEach((line, index) => {
    const at = `${file}:${index + 1}`;
    // characters, not UTF-16 units: "§" and "→" count one each
    const length = [...line].length;
    if (lengthRule && length > MAX_LINE) problems.push(`${at}: line of ${length} characters (at most ${MAX_LINE})`);
    if (castRule && line.includes(CAST)) problems.push(`${at}: \`${CAST}\` (give the value a real type)`);
    if (beginRule && line.includes(BEGIN)) problems.push(`${at}: \`${BEGIN}\` (begin it with inTransaction)`);
    if (writerRule) {
      for (const [statement, writer] of TABLE_WRITERS)
        if (line.includes(statement) && file !== writer) problems.push(`${at}: \`${statement}\` (only ${writer})`);
      for (const call of LIFECYCLE_WRITES)
        if (line.includes(call) && !inDir(file, [LIFECYCLE]) && !line.includes('export async function'))
          problems.push(`${at}: \`${call}\` (a message's outcome is written by ${LIFECYCLE}/)`);
    }
    if (citationRule) {
      for (const outside of OUTSIDE) {
        if (line.includes(outside)) problems.push(`${at}: cites "${outside}" (outside the repository; cite docs/)`);
      }
    }
  });
  if (functionRule) problems.push(...longFunctions(file, text));
}

/** (f): the functions of one file longer than MAX_FUNCTION_LINES, as file:line problems. */
function longFunctions(file, text) {
  const { program, errors } = parseSync(file, text);
  if (errors.length > 0) return [`${file}: oxc-parser could not parse it (${errors[0].message})`];
  // offsets of the line starts, to turn a node's offsets into line numbers
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  const found = [];
  // a function's name: its own, or that of the variable, property or method it is the value of
  const names = new WeakMap();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const value = node.init ?? node.value;
    if (value && typeof value === 'object' && node.key?.name !== undefined) names.set(value, node.key.name);
    if (value && typeof value === 'object' && node.id?.name !== undefined) names.set(value, node.id.name);
    if (FUNCTIONS.has(node.type)) {
      const first = lineOf(node.start);
      const lines = lineOf(node.end) - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const named = node.id?.name ?? names.get(node);
        const name = named ? ` ${named}` : '';
        const limit = `at most ${MAX_FUNCTION_LINES}: make it a list of named steps`;
        found.push(`${file}:${first}: function${name} of ${lines} lines (${limit})`);
      }
    }
    for (const key in node) if (key !== 'parent' && typeof node[key] === 'object') visit(node[key]);
  };
  visit(program);
  return found;
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`lint-rules: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(
  `lint-rules: ${files.length} files, no line over ${MAX_LINE}, no \`${CAST}\` in src/, no outside citation, ` +
    'transactions only through inTransaction, one writer per table, ' +
    `no function in src/server/ over ${MAX_FUNCTION_LINES} lines`,
);
