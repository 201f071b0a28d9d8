// PGlite is single-process: a second process on one DATA_DIR must be refused with a message naming
// the holder, and a pid file left by a dead process must not block the next start.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirBusyError, lockDataDir } from '../../src/server/db/data-lock.ts';

const LOCK_MODULE = fileURLToPath(new URL('../../src/server/db/data-lock.ts', import.meta.url));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'transact-lock-'));
}

/** Another process that takes the lock on `dir` and keeps it until killed. */
async function holdInChild(dir: string, info: { role: string; port?: number }): Promise<ChildProcess> {
  const script = `
    const { lockDataDir } = await import(${JSON.stringify(LOCK_MODULE)});
    lockDataDir(${JSON.stringify(dir)}, ${JSON.stringify(info)});
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(
    process.execPath,
    ['--no-warnings', '--experimental-transform-types', '--input-type=module', '-e', script],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk) => (err += chunk));
    child.stdout!.on('data', (chunk) => String(chunk).includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code}: ${err}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL'); // no chance to release: leaves its pid file behind
  await exited;
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', '']);
  return result.pid!;
}

describe('lockDataDir', () => {
  it('refuses a second process on the same directory, naming the holder', async () => {
    const dir = tempDir();
    const holder = await holdInChild(dir, { role: 'the Transact service', port: 4321 });
    let error: unknown;
    try {
      lockDataDir(dir, { role: 'the admin CLI' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DataDirBusyError);
    const busy = error as DataDirBusyError;
    expect(busy.holder).toEqual({ pid: holder.pid, role: 'the Transact service', port: 4321 });
    expect(busy.dataPath).toBe(dir);
    expect(busy.message).toContain(`pid ${holder.pid}`);
    expect(busy.message).toContain('the Transact service');
    expect(busy.message).toContain('port 4321');
    // the holder's file is left alone
    expect(JSON.parse(readFileSync(path.join(dir, 'transact.pid'), 'utf8')).pid).toBe(holder.pid);
  });

  it('takes over the pid file of a process that died without releasing', async () => {
    const dir = tempDir();
    const holder = await holdInChild(dir, { role: 'the Transact service' });
    await kill(holder);
    expect(existsSync(path.join(dir, 'transact.pid'))).toBe(true);
    const release = lockDataDir(dir, { role: 'the admin CLI' });
    expect(JSON.parse(readFileSync(path.join(dir, 'transact.pid'), 'utf8'))).toMatchObject({
      pid: process.pid,
      role: 'the admin CLI',
    });
    release();
  });

  it('takes over a pid file naming a pid that no longer runs', () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'transact.pid'),
      JSON.stringify({ pid: deadPid(), role: 'the Transact service', port: 4321 }),
    );
    const release = lockDataDir(dir, { role: 'the Transact service', port: 4322 });
    expect(JSON.parse(readFileSync(path.join(dir, 'transact.pid'), 'utf8'))).toMatchObject({
      pid: process.pid,
      role: 'the Transact service',
      port: 4322,
    });
    release();
  });

  it('takes over the pid file of a zombie: a process killed but not yet reaped by its parent', {
    timeout: 15_000,
  }, async () => {
    const dir = tempDir();
    // perl (Debian's perl-base is always there) forks a child that exits at once and never reaps it;
    // (sh with `sleep 0 & …; exec sleep 30` could reap its child itself when it exited before the exec)
    const parent = spawn('perl', ['-e', '$| = 1; my $pid = fork(); exit 0 unless $pid; print "$pid\n"; sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(parent);
    const zombie = Number(
      await new Promise<string>((resolve) => parent.stdout!.once('data', (d) => resolve(String(d).trim()))),
    );
    await expect
      .poll(() => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0], { timeout: 10_000 })
      .toBe('Z');
    expect(() => process.kill(zombie, 0)).not.toThrow(); // the signal check alone calls it alive
    writeFileSync(path.join(dir, 'transact.pid'), JSON.stringify({ pid: zombie, role: 'the Transact service' }));
    const release = lockDataDir(dir, { role: 'the Transact service' });
    expect(JSON.parse(readFileSync(path.join(dir, 'transact.pid'), 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('takes over a pid file whose pid now belongs to another process (a different start time)', async () => {
    const dir = tempDir();
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(other);
    writeFileSync(
      path.join(dir, 'transact.pid'),
      JSON.stringify({ pid: other.pid, role: 'the Transact service', started: '1' }),
    );
    const release = lockDataDir(dir, { role: 'the Transact service' });
    expect(JSON.parse(readFileSync(path.join(dir, 'transact.pid'), 'utf8')).pid).toBe(process.pid);
    release();
    // the same pid with its true start time is a live holder
    const holder = await holdInChild(dir, { role: 'the Transact service' });
    expect(JSON.parse(readFileSync(path.join(dir, 'transact.pid'), 'utf8')).started).toMatch(/^\d+$/);
    expect(() => lockDataDir(dir, { role: 'the admin CLI' })).toThrow(DataDirBusyError);
    await kill(holder);
  });

  it('takes over an unreadable pid file', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'transact.pid'), 'not json');
    const release = lockDataDir(dir, { role: 'the admin CLI' });
    expect(JSON.parse(readFileSync(path.join(dir, 'transact.pid'), 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('creates the directory, and release removes the pid file so another process can take it', async () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    const release = lockDataDir(dir, { role: 'the admin CLI' });
    expect(existsSync(path.join(dir, 'transact.pid'))).toBe(true);
    release();
    expect(existsSync(path.join(dir, 'transact.pid'))).toBe(false);
    release(); // a second call is harmless
    const holder = await holdInChild(dir, { role: 'the Transact service' });
    expect(() => lockDataDir(dir, { role: 'the admin CLI' })).toThrow(DataDirBusyError);
    await kill(holder);
  });
});
