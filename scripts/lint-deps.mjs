// `npm run lint:deps`: the layering rules of .dependency-cruiser.cjs (docs/architecture.md §3) over src/,
// against the baseline of violations that existed when the rules came in
// (.dependency-cruiser-known-violations.json, dependency-cruiser's own baseline format). Fails on a
// violation the baseline does not list, and on a listed one that is gone (the baseline only shrinks:
// regenerate it in the commit that fixes one). Prints the baseline's count by rule.
//
//   node scripts/lint-deps.mjs            check (CI)
//   node scripts/lint-deps.mjs --update   drop fixed violations from the baseline; adds none
//   node scripts/lint-deps.mjs --update --accept-new
//                                         write every current violation (only to start a baseline, or
//                                         with a reason in the commit message)
//
// Why not `depcruise --ignore-known` alone: dependency-cruiser does not apply the baseline to
// folder-level rules (our no-folder-cycles), and it tells a cycle by its whole path, so a known cycle
// between two folders that takes another route after an unrelated change would read as new. Here a
// violation is its rule, its two ends and, for an import, whether it is type-only.
//
// dependency-cruiser cannot parse .astro files, so their imports (frontmatter and <script>) are read
// here and held to the config's path rules: a page importing a store fails like an island would.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASELINE = path.join(root, '.dependency-cruiser-known-violations.json');
const update = process.argv.includes('--update');
const acceptNew = process.argv.includes('--accept-new');

const run = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'),
    'src',
    '--config',
    '.dependency-cruiser.cjs',
    '--output-type',
    'json',
  ],
  { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
);
if (run.status !== 0 && !run.stdout) {
  process.stderr.write(run.stderr);
  process.exit(run.status ?? 2);
}
const { summary } = JSON.parse(run.stdout);
for (const issue of summary.environment?.issues ?? [])
  process.stderr.write(`lint:deps: ${issue.name}: ${issue.description}\n`);

/** Every .astro file below src/, as a path from the root. */
const astroFiles = readdirSync(path.join(root, 'src'), { recursive: true })
  .filter((f) => f.endsWith('.astro'))
  .map((f) => path.posix.join('src', f.split(path.sep).join('/')));
/** The relative imports of an .astro file (static, side-effect and dynamic), resolved from the root. */
function astroImports(file) {
  const text = readFileSync(path.join(root, file), 'utf8');
  const statics = [...text.matchAll(/\bimport\s+(type\s+)?(?:[^'"()]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/g)];
  const dynamics = [...text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]/g)];
  return [
    ...statics.map(([, type, spec]) => ({ spec, typeOnly: Boolean(type) })),
    ...dynamics.map(([, spec]) => ({ spec, typeOnly: false })),
  ].map(({ spec, typeOnly }) => ({ to: path.posix.join(path.posix.dirname(file), spec), typeOnly }));
}
const matches = (pattern, file) => pattern === undefined || new RegExp(pattern).test(file);
const misses = (pattern, file) => pattern === undefined || !new RegExp(pattern).test(file);
// the rules that name only paths (a folder cycle needs the whole graph)
const pathRules = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')).forbidden.filter(
  (r) => r.scope !== 'folder' && r.to.circular === undefined,
);
const astroViolations = astroFiles.flatMap((from) =>
  astroImports(from).flatMap(({ to, typeOnly }) =>
    pathRules
      .filter(
        (r) =>
          matches(r.from.path, from) &&
          misses(r.from.pathNot, from) &&
          matches(r.to.path, to) &&
          misses(r.to.pathNot, to) &&
          !(typeOnly && r.to.dependencyTypesNot?.includes('type-only')),
      )
      .map((r) => ({
        type: 'dependency',
        from,
        to,
        rule: { name: r.name, severity: r.severity },
        dependencyTypes: typeOnly ? ['type-only'] : [],
      })),
  ),
);

const key = (v) =>
  [v.rule.name, v.type, v.from, v.to, v.dependencyTypes?.includes('type-only') ? 'type-only' : ''].join('|');
const current = [...summary.violations, ...astroViolations].filter((v) => v.rule.severity !== 'ignore');
const known = existsSync(BASELINE) ? JSON.parse(readFileSync(BASELINE, 'utf8')) : [];
const knownKeys = new Set(known.map(key));
const currentKeys = new Set(current.map(key));
const added = current.filter((v) => !knownKeys.has(key(v)));
const fixed = known.filter((v) => !currentKeys.has(key(v)));

const describe = (v) =>
  v.type === 'cycle'
    ? `${v.rule.name}: ${v.from} → ${v.to} (round ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')})`
    : `${v.rule.name}: ${v.from} → ${v.to}${v.dependencyTypes?.includes('type-only') ? ' (type-only)' : ''}`;
const byRule = (list) =>
  Object.entries(Object.groupBy(list, (v) => v.rule.name))
    .map(([rule, vs]) => `${rule} ${vs.length}`)
    .join(', ');

if (update) {
  const kept = acceptNew ? current : current.filter((v) => knownKeys.has(key(v)));
  writeFileSync(BASELINE, `${JSON.stringify(kept, null, 2)}\n`);
  console.log(
    `lint:deps: baseline written: ${kept.length} known violations (${byRule(kept) || 'none'}); ` +
      `${fixed.length} fixed ones dropped${acceptNew ? `, ${added.length} new ones added` : ''}`,
  );
  if (!acceptNew && added.length) {
    console.log(`lint:deps: ${added.length} new violations were NOT added (fix them, or --accept-new with a reason):`);
    for (const v of added) console.log(`  ${describe(v)}`);
    process.exit(1);
  }
  process.exit(0);
}

console.log(
  `lint:deps: ${summary.totalCruised} modules, ${summary.totalDependenciesCruised} dependencies, ` +
    `${astroFiles.length} .astro files; ` +
    `baseline ${known.length} known violations (${byRule(known) || 'none'})`,
);
for (const v of added) console.log(`  new   ${describe(v)}`);
for (const v of fixed) console.log(`  fixed ${describe(v)}`);
if (added.length) {
  const rules = new Map(summary.ruleSetUsed.forbidden.map((r) => [r.name, r.comment]));
  for (const name of new Set(added.map((v) => v.rule.name))) console.log(`\n${name}: ${rules.get(name) ?? ''}`);
  console.log(`\nlint:deps: ${added.length} new violations of the layering (docs/development.md)`);
}
if (fixed.length)
  console.log(
    `lint:deps: ${fixed.length} known violations are fixed: run \`npm run lint:deps:baseline\` and commit the ` +
      `smaller baseline`,
  );
process.exit(added.length || fixed.length ? 1 : 0);
