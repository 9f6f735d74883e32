/**
 * What a storage location does with bytes, whatever holds them (a folder, an S3-compatible bucket). Keys are flat
 * names made by Strata (storage-keys.ts); a driver refuses any other. Every method streams: no whole file in memory.
 */
import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  modified: Date;
}

/** Inclusive byte range, as HTTP's Range header counts. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StorageDriver {
  /**
   * Stores `source` under `key`, replacing what was there only once every byte arrived: a failure (the source's
   * error included) leaves no partial object and the previous content, if any, untouched.
   */
  write(key: string, source: Readable): Promise<void>;
  /** The bytes (all, or `range`); null when there is no such object. */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  stat(key: string): Promise<StoredObject | null>;
  /** Removes the object; no error when it is not there. */
  delete(key: string): Promise<void>;
  /** Keys that start with `prefix`. */
  list(prefix: string): AsyncIterable<string>;
  /**
   * Where the object is a file on this machine, its path (image work then reads only the parts it needs instead of
   * taking the bytes as a stream, which the image library would hold whole in memory).
   */
  localPath?(key: string): string;
}
