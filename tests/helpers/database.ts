// A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on
// the PostgreSQL server named by DATABASE_URL (created here, dropped in close()). Both start as a
// copy of the run's migrated template (tests/helpers/template-database.ts) when the project has it.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  /** Settings overrides that point a config at this database. */
  env: { DATABASE_URL?: string; DATA_DIR: string };
  /** PGlite: the migrated data directory to start from (createContext's loadDataDir); none without a template. */
  loadDataDir?: Blob;
  close(): Promise<void>;
}

let templateImage: Blob | undefined;

/** The template's tarball, read once per process. */
function pgliteTemplate(): Blob | undefined {
  const tar = inject('pgliteTemplateTar');
  if (!tar) return undefined;
  templateImage ??= new Blob([readFileSync(tar)]);
  return templateImage;
}

/** Creates a database; PGlite ones live only in memory (DATA_DIR=memory://). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) return { env: { DATA_DIR: 'memory://' }, loadDataDir: pgliteTemplate(), close: async () => {} };
  const name = `transact_test_${randomBytes(6).toString('hex')}`;
  const template = inject('postgresTemplate');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: 'memory://' },
    async close() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
