// db/group-write.ts: concurrent callers share one write; a bad caller fails alone.
import { describe, expect, it } from 'vitest';
import { GroupWrite } from '../../src/server/db/group-write.ts';

/** A write that waits for the test to let it finish, recording what each write got. */
function gatedWrite(bad = new Set<number>()) {
  const writes: number[][] = [];
  let open: (() => void)[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      writes.push(items);
      open.push(() => (items.some((i) => bad.has(i)) ? reject(new Error('bad row')) : resolve()));
    });
  const finish = async () => {
    while (open.length === 0) await Promise.resolve();
    const now = open;
    open = [];
    for (const go of now) go();
  };
  return { writes, write, finish };
}

describe('GroupWrite', () => {
  it('writes the first call at once and the calls that came meanwhile together in the next write', async () => {
    const g = gatedWrite();
    const writer = new GroupWrite(g.write);
    const first = writer.add([1]);
    const second = writer.add([2, 3]);
    const third = writer.add([4]);
    expect(g.writes).toEqual([[1]]);
    await g.finish();
    await first;
    await g.finish();
    await Promise.all([second, third]);
    expect(g.writes).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps a batch within maxItems without splitting a caller', async () => {
    const g = gatedWrite();
    const writer = new GroupWrite(g.write, 3);
    const all = [writer.add([1]), writer.add([2, 3]), writer.add([4, 5]), writer.add([6])];
    for (let i = 0; i < 3; i++) await g.finish();
    await Promise.all(all);
    expect(g.writes).toEqual([[1], [2, 3], [4, 5, 6]]);
  });

  it('when a shared write fails, each caller is written alone: only the bad one fails', async () => {
    const g = gatedWrite(new Set([3]));
    const writer = new GroupWrite(g.write);
    const first = writer.add([1]);
    const good = writer.add([2]);
    const bad = writer.add([3]);
    await g.finish();
    await first;
    await g.finish(); // [2, 3] fails
    await g.finish(); // [2] alone
    await good;
    await g.finish(); // [3] alone
    await expect(bad).rejects.toThrow('bad row');
    expect(g.writes).toEqual([[1], [2, 3], [2], [3]]);
  });

  it('an empty call resolves without a write', async () => {
    const g = gatedWrite();
    await new GroupWrite(g.write).add([]);
    expect(g.writes).toEqual([]);
  });
});
