// PGlite is one connection inside this process. Kysely's Postgres dialect expects a pool, so this
// file presents PGlite as a pool of exactly one client, handed out under a mutex: a Kysely
// transaction holds it from BEGIN to COMMIT and no other query can interleave with it.
import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { PgliteSync } from './pglite-sync.ts';

/** A FIFO mutex; `acquire` resolves with the function that releases it. */
class Mutex {
  #tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

/**
 * Wraps a PGlite instance as a single-client pool for Kysely's PostgresDialect. With `sync`, a
 * statement that ends a write returns only once its WAL is on disk (pglite-sync.ts).
 */
export function pglitePool(pglite: PGlite, sync?: PgliteSync): PostgresPool {
  const mutex = new Mutex();
  return {
    options: {},
    async connect(): Promise<PostgresPoolClient> {
      const release = await mutex.acquire();
      let released = false;
      return {
        async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          // a statement without parameters (BEGIN, COMMIT, SET LOCAL, …) goes by the simple query
          // protocol: one message instead of Parse/Bind/Describe/Execute/Sync, about half the CPU of
          // PGlite's extended-protocol round trip (docs/benchmarks.md)
          const result =
            parameters.length === 0
              ? ((await pglite.exec(sql)).at(-1) as Awaited<ReturnType<typeof pglite.query<R>>>)
              : await pglite.query<R>(sql, parameters as unknown[]);
          const command = ((result as { command?: string }).command ?? 'SELECT') as PostgresQueryResult<R>['command'];
          await sync?.afterStatement(pglite, command);
          return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
        },
        release() {
          if (released) return;
          released = true;
          release();
        },
      } as PostgresPoolClient;
    },
    async end() {
      await pglite.close();
      // closing ran a shutdown checkpoint: everything it wrote, then pg_control
      await sync?.close();
    },
  };
}
