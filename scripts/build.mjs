// `npm run build`: Astro (pages, islands, assets) → dist/client + dist/server; esbuild (service and
// admin CLI) → dist/main.mjs, dist/admin.mjs and their shared code in dist/chunks/ (code splitting:
// each role's module, imported by main.ts only when the process has the role, is a chunk of its own,
// so a process never reads another role's code; docs/development.md); then every text asset is
// precompressed (.br, .gz) so the server sends compressed files without compressing per request.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { sourceStamp } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();

const astro = spawnSync(process.execPath, [path.join(root, 'node_modules/astro/bin/astro.mjs'), 'build', '--silent'], {
  cwd: root,
  stdio: 'inherit',
});
if (astro.status !== 0) process.exit(astro.status ?? 1);

// the chunks' names carry a hash of their content: a previous build's would stay beside the new ones
rmSync(path.join(root, 'dist/chunks'), { recursive: true, force: true });
await build({
  entryPoints: { main: path.join(root, 'src/server/main.ts'), admin: path.join(root, 'src/server/admin-cli.ts') },
  outdir: path.join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  target: 'node22',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) yield* files(file);
    else yield file;
  }
}
let compressed = 0;
for (const file of files(path.join(root, 'dist/client'))) {
  if (!/\.(js|mjs|css|html|svg|json|txt|map|xml)$/.test(file)) continue;
  const data = readFileSync(file);
  if (data.length < 512) continue;
  writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
  compressed++;
}
writeFileSync(path.join(root, 'dist/.build-stamp'), sourceStamp(root));
console.log(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s (${compressed} assets precompressed)`);
