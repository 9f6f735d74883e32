/**
 * The configured storage locations (STORAGE_LOCATIONS), each with its driver. A driver's failure reaches callers as
 * 503 SERVICE_UNAVAILABLE naming the location (`unavailable`), never as the SDK's or the file system's message.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { StorageConfig } from '../config/storage-config.js';
import { InvalidPayloadError, ServiceError, ServiceUnavailableError } from '../errors/catalogue.js';
import { LocalDriver } from './local-driver.js';
import { S3Driver } from './s3-driver.js';
import type { StorageDriver } from './storage-driver.js';

export class StorageLocations {
  private readonly drivers = new Map<string, StorageDriver>();
  readonly defaultLocation: string;

  constructor(config: StorageConfig, drivers?: Map<string, StorageDriver>) {
    for (const location of config.locations)
      this.drivers.set(
        location.name,
        drivers?.get(location.name) ??
          (location.driver === 's3' ? new S3Driver(location) : new LocalDriver(location.root)),
      );
    this.defaultLocation = config.locations[0]!.name;
  }

  names(): string[] {
    return [...this.drivers.keys()];
  }

  /** The driver of `name`; INVALID_PAYLOAD for a location that is not configured. */
  driver(name: string): StorageDriver {
    const driver = this.drivers.get(name);
    if (!driver) throw new InvalidPayloadError(`Storage location "${name}" is not configured`);
    return driver;
  }

  /** Runs a storage operation; its failure (not a catalogue error) becomes 503 naming the location. */
  async run<T>(name: string, operation: (driver: StorageDriver) => Promise<T>): Promise<T> {
    const driver = this.driver(name);
    try {
      return await operation(driver);
    } catch (error) {
      throw unavailable(name, error);
    }
  }

  /** Writes, reads back and deletes a small object in `name` (the health check); fails as any storage operation. */
  async probe(name: string): Promise<void> {
    const key = `health-${randomBytes(8).toString('hex')}`;
    const content = Buffer.from(key);
    await this.run(name, async (driver) => {
      try {
        await driver.write(key, Readable.from([content]));
        const back = await driver.read(key);
        const chunks: Buffer[] = [];
        for await (const chunk of back ?? []) chunks.push(chunk as Buffer);
        if (!Buffer.concat(chunks).equals(content)) throw new Error('read back differs');
      } finally {
        await driver.delete(key);
      }
    });
  }

  close(): void {
    for (const driver of this.drivers.values()) (driver as { close?: () => void }).close?.();
  }
}

export function unavailable(location: string, error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceUnavailableError(`storage:${location}`, 'The storage could not be reached');
}
