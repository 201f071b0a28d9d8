// Local storage's temporary files (src/server/storage/storage.ts): a file is written under a
// temporary name and renamed once synced; one left by a process killed mid-write is listed, so the
// sweeps of files no row names remove it, while one still being written is not.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { localStorage } from '../../src/server/storage/storage.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function keys(storage: ReturnType<typeof localStorage>, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const object of storage.list(prefix)) out.push(object.key);
  return out.sort();
}

describe('local storage', () => {
  it('lists a temporary file whose writer died, not one of this process or a live one, and deletes it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'transact-storage-'));
    roots.push(root);
    const storage = localStorage(root);
    await storage.put('inbound/a/raw', Readable.from([Buffer.from('whole')]));
    mkdirSync(path.join(root, 'inbound/b'), { recursive: true });
    const dead = `inbound/b/raw.partial-${deadPid()}-1700000000000`;
    const mine = `inbound/b/raw.partial-${process.pid}-1700000000000`;
    const live = `inbound/b/raw.partial-${process.ppid}-1700000000000`;
    for (const key of [dead, mine, live]) writeFileSync(path.join(root, key), 'half');

    expect(await keys(storage, 'inbound/')).toEqual(['inbound/a/raw', dead]);
    await storage.delete(dead);
    expect(readdirSync(path.join(root, 'inbound/b')).sort()).toEqual([path.basename(mine), path.basename(live)].sort());
  });
});
