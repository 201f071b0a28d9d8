// The layering rules of docs/architecture.md §3, checked by `npm run lint:deps` in CI
// (scripts/lint-deps.mjs). The violations that existed when the rules came in are listed in
// .dependency-cruiser-known-violations.json; any other one fails, and so does a listed one that is
// fixed until `npm run lint:deps:baseline` drops it (docs/development.md).
//
// dependency-cruiser reads the TypeScript under src/; .astro files (pages, layouts, Astro components)
// have no parser here, so scripts/lint-deps.mjs reads their imports itself and holds them to the rules
// below that name only paths (not the folder cycles).
/** Browser code: what ships to the browser or is written for it (docs/architecture.md §3.1). */
const BROWSER = '^src/(components|islands|stores|lib)/';
/** The composition root: the one place that mounts every domain's routes (docs/architecture.md §3.3). */
const COMPOSITION_ROOT = '^src/server/(app|server)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment:
        'Two folders import each other (directly or round a longer loop). Folders are layers or domains; ' +
        'one of them has to depend on the other only: move the shared part below both.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'browser-imports-no-server',
      comment:
        'Browser code imports no server module, not even for a type: wire types come from the API ' +
        'contract (src/contract), which is shared.',
      severity: 'error',
      from: { path: BROWSER },
      to: { path: '^src/server/' },
    },
    {
      name: 'stores-import-no-ui',
      comment:
        'Stores (src/stores: atoms and the actions that change them) sit below the islands and components ' +
        'that read them: a store imports src/lib and src/contract, never an island or a component.',
      severity: 'error',
      from: { path: '^src/stores/' },
      to: { path: '^src/(islands|components)/' },
    },
    {
      name: 'components-import-no-island',
      comment:
        'Islands mount components, so a component (src/components, .tsx or .astro) imports no island; what ' +
        'both need is a store (src/stores) or src/lib.',
      severity: 'error',
      from: { path: '^src/components/' },
      to: { path: '^src/islands/' },
    },
    {
      name: 'lib-imports-no-ui',
      comment:
        'src/lib is the pure code below the stores, islands and components (it runs on both sides): it ' +
        'imports none of them.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/(stores|islands|components)/' },
    },
    {
      name: 'pages-import-no-store',
      comment:
        'Pages and layouts render on the server: the request builders and constants they share with a store ' +
        "are in src/lib (e.g. lib/transaction-query.ts), and the stores are the islands' (browser state).",
      severity: 'error',
      from: { path: '^src/(pages|layouts)/' },
      to: { path: '^src/stores/' },
    },
    {
      name: 'contract-imports-no-server',
      comment: 'The API contract (src/contract) is read by both sides, so it imports no server module.',
      severity: 'error',
      from: { path: '^src/contract/' },
      to: { path: '^src/server/' },
    },
    {
      name: 'repository-imports-no-service',
      comment: 'route → service → repository: a repository runs queries and imports no service (or route).',
      severity: 'error',
      from: { path: '\\.repository\\.ts$' },
      to: { path: '\\.(service|routes)\\.ts$' },
    },
    {
      name: 'domains-know-no-http',
      comment:
        'Services and repositories know no HTTP: errors are DomainError (core/errors.ts), input is checked with ' +
        'core/check.ts; http/ maps them at the edge (docs/architecture.md §3.2).',
      severity: 'error',
      from: { path: '\\.(service|repository)\\.ts$' },
      to: { path: '^src/server/http/' },
    },
    {
      name: 'routes-call-services',
      comment:
        'route → service → repository: a route calls services and runs no query, so it imports no repository ' +
        '(a type from one aside).',
      severity: 'error',
      from: { path: '\\.routes\\.ts$' },
      to: { path: '\\.repository\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'composition-root-calls-services',
      comment:
        'The files at the root of src/server/ (the composition root, the admin CLI, the page bridge, main) ' +
        'wire services together and call them; queries stay behind the services.',
      severity: 'error',
      from: { path: '^src/server/[^/]+\\.ts$' },
      to: { path: '\\.repository\\.ts$' },
    },
    {
      name: 'routes-only-from-composition-root',
      comment:
        'Only the composition root (src/server/app.ts, src/server/server.ts) mounts *.routes.ts; ' +
        'a route module is imported by nothing else (not by http/, a service or another route).',
      severity: 'error',
      from: { path: '^src/', pathNot: COMPOSITION_ROOT },
      to: { path: '\\.routes\\.ts$' },
    },
    {
      name: 'message-layer-imports-no-domain',
      comment:
        'The message layer (src/server/message: MIME, tracking rewrite, List-Unsubscribe, DKIM options, ' +
        'assembly) sits below the domains that build messages: it imports only core/ and db/schema.ts ' +
        '(docs/architecture.md §3.2). What a domain knows (the return-path domain, a sealed key) is passed in.',
      severity: 'error',
      from: { path: '^src/server/message/' },
      to: { path: '^src/server/', pathNot: '^src/server/(message|core)/|^src/server/db/schema\\.ts$' },
    },
    {
      name: 'migrations-are-frozen',
      comment:
        'A migration imports nothing of ours outside src/server/db/migrations/: its data is its own ' +
        'copy, so it means the same on every database forever (docs/architecture.md §3.3).',
      severity: 'error',
      from: { path: '^src/server/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/server/db/migrations/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 has no compiler API for dependency-cruiser; @swc/core parses the sources as written,
    // so `import type` edges are kept (marked type-only) and count like any other: a store importing a
    // server type is a violation. (tsPreCompilationDeps stays unset: it asks for tsc, which swc replaces.)
    parser: 'swc',
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default'],
      mainFields: ['module', 'main', 'types'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
