// What every part of the service is handed: settings, the database, the logger and the metrics.
// Created once per process in main.ts (or per test); nothing else holds process-wide state.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from '../db/database.ts';
import type { Metrics } from './metrics.ts';
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
}
