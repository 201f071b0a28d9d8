// vitest globalSetup: migrates one database per run that every test database is copied from, so a
// test file starts from a migrated schema instead of running initdb and the migrations itself
// (PGlite's initdb alone costs seconds of CPU per database). PGlite: a migrated data directory as
// a tarball (for in-memory databases) and unpacked on disk (for the built server's DATA_DIR).
// PostgreSQL (DATABASE_URL): a template database that `create database … template` copies. Made
// afresh on every run, so a changed migration (or code a migration imports) is always picked up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { Kysely, PostgresDialect } from 'kysely';
import { type Database, openDatabase } from '../../src/server/db/database.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';
import { pglitePool } from '../../src/server/db/pglite-pool.ts';
import type { Tables } from '../../src/server/db/schema.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: a tarball of a migrated data directory (PGlite's dumpDataDir). */
    pgliteTemplateTar: string;
    /** PGlite: the same data directory unpacked, to copy into a server's DATA_DIR/pg. */
    pgliteTemplateDir: string;
    /** PostgreSQL: the name of the migrated template database ('' on PGlite). */
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'transact-template-'));
  const tar = path.join(dir, 'pgdata.tar');
  const unpacked = path.join(dir, 'pg');
  const { PGlite } = await import('@electric-sql/pglite');
  const memory = await PGlite.create();
  const db: Database = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: pglitePool(memory) }) });
  let image: Blob;
  try {
    await migrateToLatest(db);
    image = await memory.dumpDataDir('none');
  } finally {
    await db.destroy();
  }
  writeFileSync(tar, Buffer.from(await image.arrayBuffer()));
  const onDisk = await PGlite.create({ dataDir: unpacked, loadDataDir: image });
  await onDisk.close();
  project.provide('pgliteTemplateTar', tar);
  project.provide('pgliteTemplateDir', unpacked);

  const adminUrl = process.env.DATABASE_URL;
  let template = '';
  if (adminUrl) {
    template = `transact_template_${randomBytes(6).toString('hex')}`;
    await adminQuery(adminUrl, `create database ${template}`);
    const url = new URL(adminUrl);
    url.pathname = `/${template}`;
    const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
    try {
      await migrateToLatest(handle.db);
    } finally {
      // no session may stay on a template while it is copied
      await handle.close();
    }
  }
  project.provide('postgresTemplate', template);

  return async () => {
    if (adminUrl && template) await adminQuery(adminUrl, `drop database if exists ${template} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  };
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
