// `npm start`: builds when the sources changed since the last build (so a fresh clone needs only
// `npm install && npm start`, and a second start is quick), then runs the service in this process.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtStamp, sourceStamp } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * npm runs scripts through `sh -c`, which would neither pass on the SIGINT and SIGTERM npm
 * forwards nor die with npm: package.json's `exec` makes this process npm's child. npm forwards no
 * SIGHUP, though, and a killed npm forwards nothing: so the service also watches the process it
 * runs under and, once that is gone, sends itself SIGTERM, which drains and exits as any SIGTERM does.
 */
function stopWithParent() {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (alive(parent)) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 250);
  watch.unref();
}

if (builtStamp(root) !== sourceStamp(root)) {
  console.log('transact: building (sources changed since the last build)…');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
// not under init (a container's entrypoint, a service manager): there is no parent to outlive
if (process.ppid > 1) stopWithParent();
process.argv = [process.argv[0], path.join(root, 'dist/main.mjs'), ...process.argv.slice(2)];
await import(path.join(root, 'dist/main.mjs'));
