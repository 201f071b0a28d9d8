// Migrations live in code and run on every start; Kysely's migrator takes a lock, so several
// processes starting together on one PostgreSQL database apply each migration once.
import { type Migration, Migrator } from 'kysely/migration';
import type { Database } from './database.ts';
import * as m001 from './migrations/001-accounts.ts';
import * as m002 from './migrations/002-sending.ts';
import * as m003 from './migrations/003-domains-settings.ts';
import * as m004 from './migrations/004-tracking.ts';
import * as m005 from './migrations/005-reports.ts';
import * as m006 from './migrations/006-report-speed.ts';
import * as m007 from './migrations/007-transaction-counts.ts';
import * as m008 from './migrations/008-webhooks.ts';
import * as m009 from './migrations/009-group-reports.ts';
import * as m010 from './migrations/010-templates.ts';
import * as m011 from './migrations/011-attachments.ts';
import * as m013 from './migrations/013-attachment-downloads.ts';
import * as m014 from './migrations/014-delivery-sites.ts';
import * as m015 from './migrations/015-template-published-version.ts';
import * as m016 from './migrations/016-transactions-fillfactor.ts';
import * as m017 from './migrations/017-machine-hits.ts';
import * as m018 from './migrations/018-complaints.ts';
import * as m019 from './migrations/019-resend-surface.ts';
import * as m020 from './migrations/020-domain-removal.ts';
import * as m021 from './migrations/021-api-keys.ts';
import * as m022 from './migrations/022-several-webhooks.ts';
import * as m023 from './migrations/023-suppression-ids.ts';
import * as m024 from './migrations/024-template-variables.ts';
import * as m025 from './migrations/025-domain-options.ts';
import * as m027 from './migrations/027-inbound.ts';
import * as m028 from './migrations/028-received-content.ts';
import * as m029 from './migrations/029-figures.ts';

const migrations: Record<string, Migration> = {
  '001-accounts': m001,
  '002-sending': m002,
  '003-domains-settings': m003,
  '004-tracking': m004,
  '005-reports': m005,
  '006-report-speed': m006,
  '007-transaction-counts': m007,
  '008-webhooks': m008,
  '009-group-reports': m009,
  '010-templates': m010,
  '011-attachments': m011,
  '013-attachment-downloads': m013,
  '014-delivery-sites': m014,
  '015-template-published-version': m015,
  '016-transactions-fillfactor': m016,
  '017-machine-hits': m017,
  '018-complaints': m018,
  '019-resend-surface': m019,
  '020-domain-removal': m020,
  '021-api-keys': m021,
  '022-several-webhooks': m022,
  '023-suppression-ids': m023,
  '024-template-variables': m024,
  '025-domain-options': m025,
  '027-inbound': m027,
  '028-received-content': m028,
  '029-figures': m029,
};

/** A migrator over this project's migrations (tests step it down and up again). */
export function migrator(db: Database): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Database): Promise<void> {
  const { error, results } = await migrator(db).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    // the cause tells "the database is unreachable" apart: main.ts waits for it at start-up
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`, {
      cause: error,
    });
  }
}
