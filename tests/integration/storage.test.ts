// One suite for both storage backends: the local directory and S3-compatible storage
// (against s3rver started here). Streaming put with a byte limit that leaves nothing behind,
// ranged get, stat, delete and list.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/core/config.ts';
import { openStorage } from '../../src/server/open-storage.ts';
import { type Storage, TooLargeError } from '../../src/server/storage/storage.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';

const backends = ['local', 's3'] as const;

async function keys(storage: Storage, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of storage.list(prefix)) out.push(o.key);
  return out.sort();
}

/** A body of `size` bytes in 64 KB chunks, never whole in memory. */
function bytes(size: number): Readable {
  let left = size;
  return new Readable({
    read() {
      if (left === 0) return this.push(null);
      const n = Math.min(left, 65536);
      left -= n;
      this.push(Buffer.alloc(n, 97));
    },
  });
}

describe.each(backends)('storage: %s', (backend) => {
  let storage: Storage;
  let s3: TestS3 | undefined;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'transact-storage-'));
    let env: Record<string, string> = { DATA_DIR: dir };
    if (backend === 's3') {
      s3 = await startS3();
      env = { ...env, ...s3.env };
    }
    storage = await openStorage(loadConfig(env));
  });
  afterAll(async () => {
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts a stream, stats, gets it whole and by range, lists and deletes', async () => {
    const { size } = await storage.put('test/one.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    expect(size).toBe(11);
    expect((await storage.stat('test/one.txt'))?.size).toBe(11);
    expect(await text((await storage.get('test/one.txt'))!)).toBe('hello world');
    expect(await text((await storage.get('test/one.txt', { start: 6, end: 10 }))!)).toBe('world');
    await storage.put('test/two.txt', Readable.from([Buffer.from('2')]));
    expect(await keys(storage, 'test/')).toEqual(['test/one.txt', 'test/two.txt']);
    await storage.delete('test/one.txt');
    await storage.delete('test/one.txt'); // deleting what is not there is fine
    expect(await storage.stat('test/one.txt')).toBeUndefined();
    expect(await storage.get('test/one.txt')).toBeUndefined();
    expect(await keys(storage, 'test/')).toEqual(['test/two.txt']);
  });

  it('streams a file larger than one multipart part', async () => {
    const size = 9 * 1024 * 1024 + 5;
    expect((await storage.put('big/file', bytes(size))).size).toBe(size);
    expect((await storage.stat('big/file'))?.size).toBe(size);
    const tail = await text((await storage.get('big/file', { start: size - 3, end: size - 1 }))!);
    expect(tail).toBe('aaa');
  });

  it('refuses a body over maxBytes with TooLargeError and leaves nothing behind', async () => {
    await expect(storage.put('limit/small', bytes(1000), { maxBytes: 999 })).rejects.toBeInstanceOf(TooLargeError);
    await expect(
      storage.put('limit/big', bytes(10 * 1024 * 1024), { maxBytes: 8 * 1024 * 1024 + 1 }),
    ).rejects.toBeInstanceOf(TooLargeError);
    expect(await keys(storage, 'limit/')).toEqual([]);
    expect(await storage.stat('limit/big')).toBeUndefined();
    // exactly the limit is fine
    expect((await storage.put('limit/exact', bytes(999), { maxBytes: 999 })).size).toBe(999);
  });

  it('refuses keys it did not make', async () => {
    await expect(storage.put('../escape', bytes(1))).rejects.toThrow(/invalid storage key/);
  });
});
