// A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on
// the PostgreSQL server named by DATABASE_URL (created here, dropped in close()).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  /** Settings overrides that point a config at this database. */
  env: { DATABASE_URL?: string; DATA_DIR: string };
  close(): Promise<void>;
}

/** Creates an empty database; PGlite ones live only in memory (DATA_DIR=memory://). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) return { env: { DATA_DIR: 'memory://' }, close: async () => {} };
  const name = `transact_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
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
