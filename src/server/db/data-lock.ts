// PGlite is single-process: two services, or a service and the admin CLI, must never open one data
// directory together. The holder writes its pid into DATA_DIR/transact.pid (created exclusively);
// a file left by a dead process is taken over.
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';

export class DataDirBusyError extends Error {
  constructor(
    readonly dataPath: string,
    readonly holder: { pid: number; role: string; port?: number },
  ) {
    super(
      `${dataPath} is in use by ${holder.role} (pid ${holder.pid}${holder.port ? `, port ${holder.port}` : ''}). ` +
        'The embedded database allows one process at a time: stop it first, or use DATABASE_URL (PostgreSQL) to run several.',
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the data directory for this process; returns the function that gives it back. */
export function lockDataDir(dataPath: string, info: { role: string; port?: number }): () => void {
  mkdirSync(dataPath, { recursive: true });
  const file = path.join(dataPath, 'transact.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, ...info }));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid: number; role: string; port?: number } | undefined;
      try {
        holder = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        holder = undefined;
      }
      if (holder && holder.pid !== process.pid && alive(holder.pid)) throw new DataDirBusyError(dataPath, holder);
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${dataPath}`);
}
