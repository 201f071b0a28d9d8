// `npm start`: builds when the sources changed since the last build (so a fresh clone needs only
// `npm install && npm start`, and a second start is quick), then runs the service.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtStamp, sourceStamp } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (builtStamp(root) !== sourceStamp(root)) {
  console.log('transact: building (sources changed since the last build)…');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
process.argv = [process.argv[0], path.join(root, 'dist/main.mjs'), ...process.argv.slice(2)];
await import(path.join(root, 'dist/main.mjs'));
