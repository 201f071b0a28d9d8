// A local S3-compatible server for tests (s3rver, files in a temporary directory), so the S3
// storage backend runs against real HTTP and real S3 XML, not a mock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface TestS3 {
  /** STORAGE_URL and credentials for loadConfig. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'transact'): Promise<TestS3> {
  const directory = mkdtempSync(path.join(tmpdir(), 'transact-s3-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  return {
    env: {
      STORAGE_URL: `s3://${bucket}?endpoint=http://127.0.0.1:${port}&region=us-east-1`,
      // s3rver's fixed credentials
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
