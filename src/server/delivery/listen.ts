// On PostgreSQL, a dedicated connection LISTENs on transact_queue so idle workers in any process
// wake as soon as mail is accepted anywhere, and on transact_changes so every process drops cached
// lookups when credentials or domains change. (PGlite is one process: in-process signals do it.)
import pg from 'pg';
import type { Logger } from 'pino';

/** Calls `onNotify` for every notification; reconnects after errors. Returns a stop function. */
export function listenForChanges(
  databaseUrl: string,
  logger: Logger,
  handlers: { queued(): void; changed(): void },
): () => Promise<void> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: databaseUrl });
    c.on('notification', (n) => (n.channel === 'transact_changes' ? handlers.changed() : handlers.queued()));
    c.on('error', (err) => {
      logger.warn({ err }, 'queue listener lost its connection; reconnecting');
      client = null;
      retry = setTimeout(() => void connect(), 1000);
    });
    try {
      await c.connect();
      await c.query('listen transact_queue');
      await c.query('listen transact_changes');
      client = c;
      // catch up on anything that happened while not listening
      handlers.changed();
      handlers.queued();
    } catch (err) {
      logger.warn({ err }, 'queue listener could not connect; retrying');
      await c.end().catch(() => {});
      retry = setTimeout(() => void connect(), 1000);
    }
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
