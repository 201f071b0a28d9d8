import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/core/config.ts';
import { parseS3Url } from '../../src/server/storage/s3-storage.ts';

describe('STORAGE_URL', () => {
  it('reads bucket, endpoint, region and addressing', () => {
    expect(
      parseS3Url('s3://files?endpoint=http://127.0.0.1:9000&region=eu-west-1', {
        accessKeyId: 'a',
        secretAccessKey: 'b',
      }),
    ).toEqual({
      bucket: 'files',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      accessKeyId: 'a',
      secretAccessKey: 'b',
    });
    // AWS itself: no endpoint, virtual-hosted addressing, the default region
    expect(parseS3Url('s3://files')).toMatchObject({
      bucket: 'files',
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: false,
    });
    expect(parseS3Url('s3://files?endpoint=https://s3.example&path_style=false').forcePathStyle).toBe(false);
  });

  it('stops the start on anything but s3://bucket', () => {
    expect(() => loadConfig({ STORAGE_URL: 'https://files.example/bucket' })).toThrow(ConfigError);
    expect(() => loadConfig({ STORAGE_URL: 's3://' })).toThrow(ConfigError);
    expect(loadConfig({ STORAGE_URL: 's3://files?region=eu-west-1' }).storageUrl).toBe('s3://files?region=eu-west-1');
    expect(loadConfig({}).attachmentMaxFileBytes).toBe(100 * 1024 * 1024);
  });
});
