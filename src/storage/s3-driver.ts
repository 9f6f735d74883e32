/**
 * An S3-compatible bucket through the AWS SDK v3. Uploads stream in parts (lib-storage's Upload, which aborts the
 * multipart upload when the source fails, so no partial object is left); reads stream the object's body.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { StorageLocationConfig } from '../config/storage-config.js';
import type { ByteRange, StorageDriver, StoredObject } from './storage-driver.js';
import { checkKey } from './storage-keys.js';

const isMissing = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

export class S3Driver implements StorageDriver {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: StorageLocationConfig) {
    const options: S3ClientConfig = {
      region: config.region ?? 'us-east-1',
      forcePathStyle: config.forcePathStyle,
    };
    if (config.endpoint) options.endpoint = config.endpoint;
    if (config.key && config.secret) options.credentials = { accessKeyId: config.key, secretAccessKey: config.secret };
    this.client = new S3Client(options);
    this.bucket = config.bucket!;
  }

  async write(key: string, source: Readable): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: checkKey(key), Body: source },
      leavePartsOnError: false,
    });
    // The SDK reads the source; an error of the source must end the upload, not be left unheard.
    const failed = new Promise<never>((_resolve, reject) => source.once('error', reject));
    failed.catch(() => {});
    try {
      await Promise.race([upload.done(), failed]);
    } catch (error) {
      await upload.abort().catch(() => {});
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: checkKey(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
      return { size: head.ContentLength ?? 0, modified: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
  }

  async *list(prefix: string): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  close(): void {
    this.client.destroy();
  }
}
