// What every part of the service is handed: settings, the database, the logger, the metrics, and the
// state the process keeps (caches, readings, the queues that group writes). Created once per process
// in create-context.ts (or per test); no module keeps state of its own beside it.
// Fields whose type belongs to a domain (the accept queue of sending/, tracking's writers, ...) are
// declared by that domain's module (`declare module '../core/context.ts'`), so core imports no domain.
import type { EventEmitter } from 'node:events';
import type { Resolver } from 'node:dns/promises';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from '../db/database.ts';
import type { LookupCaches } from './lookup-cache.ts';
import type { Metrics } from './metrics.ts';
import type { Reading } from './reading.ts';
import type { Secrets } from './secrets.ts';
import type { Storage } from '../storage/storage.ts';

export interface AppContext {
  readonly config: Config;
  readonly db: Database;
  readonly engine: 'pglite' | 'postgres';
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Files: report exports, attachments, logos. */
  readonly storage: Storage;
  /**
   * Where the process is in its life: `starting` until every role (web, SMTP, workers) has
   * started, `draining` from a stop signal on; /readyz answers 200 only while `running`.
   */
  readonly lifecycle: { state: 'starting' | 'running' | 'draining' };
  /** Sealing and digests under TRANSACT_SECRET, derived once. */
  readonly secrets: Secrets;
  /** The send path's read-through caches (core/lookup-cache.ts). */
  readonly lookups: LookupCaches;
  /** Emits `queued` when mail is queued here, to wake this process's delivery workers (core/queue-signal.ts). */
  readonly queueSignal: EventEmitter;
  /** Bytes free under DATA_DIR, read at most once a second (core/free-space.ts). */
  readonly freeSpace: Reading<number | null>;
  /** Whether the database answers, asked at most once a second (SMTP asks before MAIL FROM and RCPT TO). */
  readonly databaseProbe: Reading<boolean>;
  /** DNS lookups through DNS_SERVERS, for the domains' record checks. */
  readonly resolver: Resolver;
  /** When each named API key was last marked used by this process (credentials/api-keys.service.ts). */
  readonly apiKeyTouches: Map<string, number>;
}
