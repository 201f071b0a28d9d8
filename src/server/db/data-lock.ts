// PGlite is single-process: two services, or a service and the admin CLI, must never open one data
// directory together. The holder writes its pid (and, on Linux, its start time) into
// DATA_DIR/transact.pid (created exclusively); a file left by a dead process is taken over. Dead
// includes a zombie not yet reaped by its parent (a restart right after kill -9) and a pid that
// the system has since given to another process (its start time differs).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export class DataDirBusyError extends Error {
  constructor(
    readonly dataPath: string,
    readonly holder: { pid: number; role: string; port?: number },
  ) {
    super(
      `${dataPath} is in use by ${holder.role} (pid ${holder.pid}${holder.port ? `, port ${holder.port}` : ''}). ` +
        'The embedded database allows one process at a time: stop it first, or use DATABASE_URL (PostgreSQL) to run ' +
        'several.',
    );
  }
}

/** State and start time (clock ticks after boot) of a process from /proc (proc(5)); null where there is no /proc. */
function procStat(pid: number): { state: string; started: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], started: fields[19] };
  } catch {
    return null;
  }
}

function alive(pid: number, started?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (!stat) return !existsSync('/proc/self/stat'); // gone between the two looks, or no /proc to ask
  if (stat.state === 'Z' || stat.state === 'X') return false; // exited, waiting to be reaped
  return started === undefined || stat.started === started;
}

/** Takes the data directory for this process; returns the function that gives it back. */
export function lockDataDir(dataPath: string, info: { role: string; port?: number }): () => void {
  mkdirSync(dataPath, { recursive: true });
  const file = path.join(dataPath, 'transact.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      const started = procStat(process.pid)?.started;
      writeSync(fd, JSON.stringify({ pid: process.pid, ...info, ...(started ? { started } : {}) }));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid: number; role: string; port?: number; started?: string } | undefined;
      try {
        holder = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        holder = undefined;
      }
      if (holder && holder.pid !== process.pid && alive(holder.pid, holder.started)) {
        const { started: _, ...named } = holder;
        throw new DataDirBusyError(dataPath, named);
      }
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock ${dataPath}`);
}
