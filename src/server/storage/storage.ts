// Where files live (docs/architecture.md §4.3: a storage interface, local directory by default, S3-compatible for
// scale): report exports and online attachments and branding logos. Every
// read and write is a stream, so memory stays bounded whatever the file's size. Keys are made by us
// ('<area>/<uuid>'), never from a user's file name.
import { type Dirent, createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A byte range, both ends inclusive (HTTP Range, RFC 9110 §14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  key: string;
  size: number;
  /** When it was written (for sweeps of blobs whose rows never committed). */
  modifiedAt: Date;
}

/** Thrown by `put` when the body exceeds `maxBytes`; nothing is left behind. */
export class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
  }
}

export interface Storage {
  /** Streams `body` to `key`; the object appears whole or not at all. Answers its size. */
  put(key: string, body: Readable, options?: { maxBytes?: number; contentType?: string }): Promise<{ size: number }>;
  /** Streams the object (or `range` of it); undefined when there is no such object. */
  get(key: string, range?: ByteRange): Promise<Readable | undefined>;
  /** Size and time of the object; undefined when there is none. */
  stat(key: string): Promise<StoredObject | undefined>;
  /** Removes the object; removing what is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`. */
  list(prefix: string): AsyncIterable<StoredObject>;
}

const KEY = /^[a-z0-9-]+(\/[A-Za-z0-9._-]+)+$/;

/** Refuses keys we did not make (no '..', no absolute paths). */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..'))
    throw new Error(`invalid storage key: ${key}`);
  return key;
}

/** Counts bytes through a stream and fails once there are more than `maxBytes`. */
export function byteLimit(maxBytes: number, counted: { size: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      counted.size += chunk.length;
      if (counted.size > maxBytes) done(new TooLargeError(maxBytes));
      else done(null, chunk);
    },
  });
}

/** fsync: the file's data (or a directory's entries) reach the disk before we go on. */
async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Whether `name` is a temporary file (`<key>.partial-<pid>-<ms>`, see put) whose writer is gone: a
 * process killed in the middle of a write. Listed, so the sweeps of files no row names remove it;
 * one still being written, by this process or a live one, is not.
 */
function leftByDeadWriter(name: string): boolean {
  const m = /\.partial-(\d+)-\d+$/.exec(name);
  if (!m) return false;
  const pid = Number(m[1]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Files in a directory (DATA_DIR/files by default): written to a temporary name, synced, then renamed. */
export function localStorage(root: string): Storage {
  const fileOf = (key: string) => path.join(root, checkKey(key));
  return {
    async put(key, body, options = {}) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const partial = `${file}.partial-${process.pid}-${Date.now()}`;
      const counted = { size: 0 };
      try {
        await pipeline(
          body,
          byteLimit(options.maxBytes ?? Number.MAX_SAFE_INTEGER, counted),
          createWriteStream(partial),
        );
        // on disk before it is acknowledged: a received message is answered 250 only after this
        await syncFile(partial);
        await rename(partial, file);
        await syncFile(path.dirname(file));
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      return { size: counted.size };
    },
    async get(key, range) {
      const file = fileOf(key);
      try {
        await stat(file);
      } catch {
        return undefined;
      }
      return createReadStream(file, range ? { start: range.start, end: range.end } : undefined);
    },
    async stat(key) {
      try {
        const s = await stat(fileOf(key));
        return { key, size: s.size, modifiedAt: s.mtime };
      } catch {
        return undefined;
      }
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
    async *list(prefix) {
      const walk = async function* (dir: string): AsyncGenerator<StoredObject> {
        let entries: Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const entry of entries) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) yield* walk(full);
          else if (!entry.name.includes('.partial-') || leftByDeadWriter(entry.name)) {
            const key = path.relative(root, full).split(path.sep).join('/');
            if (key.startsWith(prefix)) {
              const s = await stat(full);
              yield { key, size: s.size, modifiedAt: s.mtime };
            }
          }
        }
      };
      yield* walk(root);
    },
  };
}
