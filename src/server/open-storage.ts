// Picks the storage backend from the settings: the local directory DATA_DIR/files by default (a
// temporary directory for an in-memory database), or S3-compatible storage with STORAGE_URL=s3://….
// The S3 SDK is imported only then: a process on local files never loads it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from './core/config.ts';
import { localStorage, type Storage } from './storage/storage.ts';

/** The files' storage the settings name (the S3 client is loaded only for STORAGE_URL=s3://…). */
export async function openStorage(config: Config): Promise<Storage> {
  if (config.storageUrl) {
    const { parseS3Url, s3Storage } = await import('./storage/s3-storage.ts');
    return s3Storage(
      parseS3Url(config.storageUrl, { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey }),
    );
  }
  const root =
    config.dataDir === 'memory://'
      ? mkdtempSync(path.join(tmpdir(), 'transact-files-'))
      : path.join(config.dataPath, 'files');
  return localStorage(root);
}
