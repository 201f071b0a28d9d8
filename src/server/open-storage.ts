// Picks the storage backend from the settings: the local directory DATA_DIR/files by default (a
// temporary directory for an in-memory database), or S3-compatible storage with STORAGE_URL=s3://….
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from './core/config.ts';
import { parseS3Url, s3Storage } from './storage/s3-storage.ts';
import { localStorage, type Storage } from './storage/storage.ts';

export function openStorage(config: Config): Storage {
  if (config.storageUrl) {
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
