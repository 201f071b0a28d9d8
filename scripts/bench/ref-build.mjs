// The builds a benchmark compares: this checkout (rebuilt when dist/ is older than its sources) or
// another git ref, checked out in a worktree of its own under the system's temp folder (named by the
// commit, kept for the next run) with its own `npm ci` and `npm run build`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtStamp, sourceStamp } from '../build-stamp.mjs';

function run(command, args, cwd, log) {
  log(`${path.basename(cwd)}: ${command} ${args.join(' ')}`);
  const res = spawnSync(command, args, { cwd, stdio: ['ignore', process.stderr, process.stderr] });
  if (res.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}`);
}

function git(root, ...args) {
  const res = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr.trim()}`);
  return res.stdout.trim();
}

/**
 * The build of `ref` (null: this checkout as it is), built when it is not: its root, its commit and
 * a label for the output.
 * @param {string} root this checkout
 * @param {string | null} ref
 * @param {(message: string) => void} log
 */
export function buildOf(root, ref, log) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (ref === null) {
    const head = git(root, 'rev-parse', 'HEAD');
    const dirty = git(root, 'status', '--porcelain', '--untracked-files=no', '--', 'src', 'package-lock.json') !== '';
    if (builtStamp(root) !== sourceStamp(root)) run(npm, ['run', 'build'], root, log);
    return { root, commit: head, label: `${head.slice(0, 9)}${dirty ? '+changes' : ''} (this checkout)` };
  }
  const commit = git(root, 'rev-parse', '--verify', `${ref}^{commit}`);
  const dir = path.join(os.tmpdir(), `transact-ref-${commit.slice(0, 12)}`);
  if (!existsSync(path.join(dir, 'package.json'))) {
    git(root, 'worktree', 'prune');
    git(root, 'worktree', 'add', '--detach', '--force', dir, commit);
  }
  if (!existsSync(path.join(dir, 'node_modules/.package-lock.json')))
    run(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], dir, log);
  if (builtStamp(dir) !== sourceStamp(dir)) run(npm, ['run', 'build'], dir, log);
  return { root: dir, commit, label: `${commit.slice(0, 9)} (${ref})` };
}
