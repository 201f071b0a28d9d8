// S3-compatible object storage: several web processes on different machines share the
// same files. STORAGE_URL=s3://bucket?endpoint=https://…&region=…[&path_style=false]; credentials
// from S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY or the SDK's own chain. Uploads stream as multipart
// uploads (@aws-sdk/lib-storage: parts of 8 MB, at most four in flight, so memory stays bounded);
// a failed or too-large upload is aborted, so no object and no parts are left behind.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Storage, byteLimit, checkKey } from './storage.ts';

export interface S3Options {
  bucket: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** Parses STORAGE_URL=s3://bucket?endpoint=…&region=…; throws on anything else. */
export function parseS3Url(
  url: string,
  credentials: { accessKeyId?: string; secretAccessKey?: string } = {},
): S3Options {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || !parsed.hostname)
    throw new Error(`STORAGE_URL must look like s3://bucket?endpoint=…&region=…, got '${url}'`);
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  return {
    bucket: parsed.hostname,
    endpoint,
    region: parsed.searchParams.get('region') ?? 'us-east-1',
    // most self-hosted servers (MinIO, s3rver, Garage) want path-style addressing
    forcePathStyle: parsed.searchParams.get('path_style') !== 'false' && endpoint !== undefined,
    ...credentials,
  };
}

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

export function s3Storage(options: S3Options): Storage {
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // checksums only where S3 requires them: many compatible servers do not take the SDK's
    // default streaming CRC trailers
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = options.bucket;
  return {
    async put(key, body, opts = {}) {
      checkKey(key);
      const counted = { size: 0 };
      const limited = new PassThrough({ highWaterMark: 1 << 20 });
      const feeding = pipeline(body, byteLimit(opts.maxBytes ?? Number.MAX_SAFE_INTEGER, counted), limited);
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body: limited, ContentType: opts.contentType ?? 'application/octet-stream' },
        queueSize: 4,
        partSize: 8 * 1024 * 1024,
        leavePartsOnError: false,
      });
      const [fed, uploaded] = await Promise.allSettled([feeding, upload.done()]);
      if (fed.status === 'rejected') {
        await upload.abort().catch(() => undefined);
        // a single-part upload may have completed from a truncated body before the limit tripped
        if (uploaded.status === 'fulfilled') await this.delete(key);
        throw fed.reason;
      }
      if (uploaded.status === 'rejected') throw uploaded.reason;
      return { size: counted.size };
    },
    async get(key, range) {
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: checkKey(key),
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        );
        return answer.Body as Readable;
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },
    async stat(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: checkKey(key) }));
        return { key, size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checkKey(key) }));
    },
    async *list(prefix) {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
        for (const item of page.Contents ?? []) {
          if (item.Key) yield { key: item.Key, size: item.Size ?? 0, modifiedAt: item.LastModified ?? new Date(0) };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
  };
}
