// `npm start` as a user runs it: npm runs scripts/start.mjs through `sh -c`, and the
// service must stop with npm whatever signal npm gets (SIGTERM from a supervisor, SIGINT, SIGHUP
// when the terminal closes): no service process left behind, the port free for the next start.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtStamp, sourceStamp } from '../../scripts/build-stamp.mjs';
import { freePort, waitReady } from '../../scripts/lib/service-harness.mjs';
import { TEST_SECRET } from '../helpers/server.ts';

const root = path.resolve(import.meta.dirname, '../..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let npm: ChildProcess | undefined;
let servicePid = 0;
let dataDir = '';
afterEach(() => {
  // a failed test must not leave its service behind either
  if (npm && npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
  if (servicePid && alive(servicePid)) process.kill(servicePid, 'SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('runs on the current build (a changed source would make it build first)', () => {
    expect(builtStamp(root), 'run `npm run build` before the e2e tests').toBe(sourceStamp(root));
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`stops the service when the npm process gets ${signal}`, async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'transact-npm-start-'));
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        SMTP_PORT: String(await freePort()),
        BOUNCE_SMTP_PORT: String(await freePort()),
        DNS_CHECK_INTERVAL_MINUTES: '0',
        DATA_DIR: dataDir,
        TRANSACT_SECRET: TEST_SECRET,
        TRANSACT_ADMIN_PASSWORD: 'admin-password-123',
        LOG_LEVEL: 'warn',
      };
      delete env.DATABASE_URL; // the embedded database, whose pid file names the service's process
      let output = '';
      npm = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      npm.stdout!.on('data', (d) => (output += d));
      npm.stderr!.on('data', (d) => (output += d));
      const npmExited = new Promise<void>((resolve) => npm!.once('exit', () => resolve()));

      await waitReady(`http://127.0.0.1:${port}`, { child: npm, output: () => output, timeoutMs: 90_000 });
      servicePid = (JSON.parse(readFileSync(path.join(dataDir, 'transact.pid'), 'utf8')) as { pid: number }).pid;
      expect(servicePid).not.toBe(npm.pid); // npm runs it through a shell: a process of its own

      npm.kill(signal);
      await npmExited;
      await until(`the service (pid ${servicePid}) to exit`, () => !alive(servicePid));
      expect(await portAnswers(port)).toBe(false);
      // it drained: the pid file is given back, so the next start (or `npm run demo`) may take the directory
      expect(() => readFileSync(path.join(dataDir, 'transact.pid'))).toThrow();
    }, 120_000);
  }
});
