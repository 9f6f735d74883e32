/**
 * The file library's writes: bytes to a storage location and a service_files row, so that neither outlives the other.
 * An upload stores the bytes first (through the upload guard: size limit, sniffed type, allow list) under a name of
 * its own, then writes the row through the items writer under the caller's rules (with the measured fields set by the
 * service); if the row is refused the bytes are removed. A replacement stores the new bytes under a new name and
 * removes the old ones (and their variants) only once the row points at the new. A delete removes the rows under the
 * caller's rules, then their bytes and variants.
 */
import { randomUUID } from 'node:crypto';
import type { StorageConfig } from '../../config/storage-config.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { Key } from '../../plan/mutation-plan.js';
import type { Query } from '../../request/query.js';
import type { DeleteBody, Payload } from '../../request/write-body.js';
import { extensionOf, originalKey } from '../../storage/storage-keys.js';
import { unavailable, type StorageLocations } from '../../storage/storage-locations.js';
import type { ItemsService } from '../read/items-service.js';
import type { ItemsWriter } from '../write/items-writer.js';
import type { OpenedCollection, Reread, WriteResult } from '../write/opened-collection.js';
import { readKey, readKeys } from '../write/write-reread.js';
import { HEADER_BYTES, IMAGE_TYPES, imageInfo } from './image-info.js';
import { isMedia, mediaDuration } from './media-info.js';
import type { IncomingFile } from './incoming-file.js';
import { UploadGuard } from './upload-guard.js';
import { UrlImport } from './url-import.js';

export const FILES = 'service_files';

/** What the service measures and writes itself; an upload's form fields never set them. */
export const SERVICE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'storage',
  'filename_disk',
  'type',
  'filesize',
  'width',
  'height',
  'duration',
  'metadata',
  'uploaded_on',
  'charset',
  'tus_id',
  'tus_data',
]);

export interface Stored {
  storage: string;
  filename_disk: string;
  type: string;
  filesize: number;
  width: number | null;
  height: number | null;
  duration: number | null;
  metadata: Record<string, unknown> | null;
}

export interface FilesServiceDeps {
  config: StorageConfig;
  storage: StorageLocations;
  writer: ItemsWriter;
  items: ItemsService;
  /** Called with what could not be removed from storage after its row was gone (logged; the answer stands). */
  onOrphan?: (location: string, key: string, error: unknown) => void;
}

export const ADMIN: Accountability = {
  user: null,
  role: null,
  roles: [],
  policies: [],
  admin: true,
  app: true,
  ip: null,
};

export class FilesService {
  private readonly urls: UrlImport;

  constructor(private readonly deps: FilesServiceDeps) {
    this.urls = new UrlImport(deps.config.importFromUrl, deps.config.maxUploadSize);
    // Every path that deletes file rows (REST, GraphQL, /websocket, flows) goes through the writer: the bytes go too.
    deps.writer.onDelete(FILES, async (keys) => {
      const stored = await this.storedOf(keys.map(String));
      return async () => {
        for (const [key, file] of stored) await this.removeFile(key, file);
      };
    });
  }

  /** POST /files/import: the file at `url` stored as an upload with the row's fields `data`; answers its key. */
  async importUrl(target: OpenedCollection, url: URL, data: Payload): Promise<string> {
    const file = await this.urls.fetch(url);
    try {
      return await this.upload(target, data, file);
    } finally {
      file.done();
    }
  }

  /**
   * service_files opened for `action` under the caller's rules (the one check, before the body is read). `measured`:
   * for an upload, whose measured fields (SERVICE_FIELDS) the service writes; a JSON write sets them only as the
   * caller's rules allow.
   */
  open(
    accountability: Accountability,
    action: 'create' | 'update' | 'delete',
    measured: boolean,
  ): Promise<OpenedCollection> {
    const options = measured ? { system: true, serviceFields: SERVICE_FIELDS } : { system: true };
    return this.deps.writer.open(FILES, action, accountability, options);
  }

  /** Stores one uploaded file and writes its row; answers its key. */
  async upload(target: OpenedCollection, fields: Payload, file: IncomingFile): Promise<string> {
    const storage = this.location(fields);
    const id = randomUUID();
    const downloadName = safeName(stringField(fields, 'filename_download') ?? file.filename);
    const stored = await this.store(storage, originalKey(id, extensionOf(downloadName)), file);
    const payload: Payload = {
      ...withoutServiceFields(fields),
      ...stored,
      id,
      ...fromIptc(stored.metadata, fields),
      filename_download: downloadName,
      title: fields.title ?? iptcText(stored.metadata, 'headline') ?? titleOf(downloadName),
      uploaded_on: new Date().toISOString(),
    };
    try {
      await this.deps.writer.create(target, [payload], false, { fields: ['id'] });
    } catch (error) {
      await this.removeBytes(stored.storage, stored.filename_disk);
      throw error;
    }
    return id;
  }

  /** PATCH with a file: new bytes under a new name, the row updated, then the old bytes and variants removed. */
  async replace(target: OpenedCollection, key: string, fields: Payload, file: IncomingFile): Promise<void> {
    const previous = await this.storedOf([key]);
    const old = previous.get(key);
    if (!old) throw new ForbiddenError();
    const storage = stringField(fields, 'storage') ? this.location(fields) : old.storage;
    const downloadName = safeName(stringField(fields, 'filename_download') ?? file.filename);
    const stored = await this.store(storage, originalKey(randomUUID(), extensionOf(downloadName)), file);
    const payload: Payload = {
      ...withoutServiceFields(fields),
      ...stored,
      filename_download: downloadName,
      uploaded_on: new Date().toISOString(),
    };
    try {
      await this.deps.writer.updateOne(target, key, payload, { fields: ['id'] });
    } catch (error) {
      await this.removeBytes(stored.storage, stored.filename_disk);
      throw error;
    }
    await this.removeFile(key, old);
  }

  /** DELETE by keys or query, under the caller's rules; then the bytes and variants of the deleted rows. */
  async delete(target: OpenedCollection<Reread>, body: DeleteBody): Promise<void> {
    // The writer's delete hook (see the constructor) removes the bytes once the rows are gone.
    await this.deps.writer.delete(target, body);
  }

  /** The caller's answer for written files: one object, or a list in key order. */
  reread(target: OpenedCollection, keys: Key[], many: boolean, query: Query): Promise<WriteResult> {
    return many ? readKeys(this.deps.items, target, keys, query) : readKey(this.deps.items, target, keys[0]!, query);
  }

  /** Where each file's bytes are (read as the service: the caller's rules are the write's to apply). */
  async storedOf(keys: string[]): Promise<Map<string, { storage: string; filename_disk: string | null }>> {
    const found = new Map<string, { storage: string; filename_disk: string | null }>();
    if (keys.length === 0) return found;
    const { data } = await this.deps.items.rowsKeys(
      FILES,
      keys,
      { fields: ['id', 'storage', 'filename_disk'], limit: -1 },
      ADMIN,
      { system: true },
    );
    for (const row of (data ?? []) as { id: string; storage: string; filename_disk: string | null }[])
      found.set(row.id, { storage: row.storage, filename_disk: row.filename_disk });
    return found;
  }

  /** The storage location an upload names (or the default); INVALID_PAYLOAD for one not configured. */
  location(fields: Payload): string {
    const name = stringField(fields, 'storage') ?? this.deps.storage.defaultLocation;
    this.deps.storage.driver(name);
    return name;
  }

  /** The bytes through the upload guard to storage under `key`, measured (type, size, image and media info). */
  async store(storage: string, key: string, file: IncomingFile): Promise<Stored> {
    const { config } = this.deps;
    const guard = new UploadGuard(file.mimetype, config.maxUploadSize, config.mimeTypeAllowList);
    file.stream.on('error', (error) => guard.destroy(error));
    await this.deps.storage.run(storage, (driver) => driver.write(key, file.stream.pipe(guard)));
    const stored: Stored = {
      storage,
      filename_disk: key,
      type: guard.type,
      filesize: guard.received,
      width: null,
      height: null,
      duration: null,
      metadata: null,
    };
    if ((IMAGE_TYPES.has(guard.type) || isMedia(guard.type)) && guard.received > 0) {
      try {
        Object.assign(stored, await this.headerInfo(storage, key, guard.type, guard.received));
      } catch (error) {
        await this.removeBytes(storage, key);
        throw error;
      }
    }
    return stored;
  }

  /** An image's dimensions and metadata, from its header: the file itself where local, else its first bytes. */
  private async headerInfo(storage: string, key: string, type: string, size: number): Promise<Partial<Stored>> {
    const driver = this.deps.storage.driver(storage);
    if (isMedia(type)) {
      if (driver.localPath) return { duration: await mediaDuration(driver.localPath(key), type, size) };
      const source = await this.deps.storage.run(storage, (d) => d.read(key));
      return { duration: source ? await mediaDuration(source, type, size) : null };
    }
    if (driver.localPath) return imageInfo(driver.localPath(key));
    const range = { start: 0, end: Math.min(size, HEADER_BYTES) - 1 };
    const source = await this.deps.storage.run(storage, (d) => d.read(key, range));
    return source ? imageInfo(source) : {};
  }

  /** Removes a file's bytes and every variant made of it. */
  private async removeFile(id: string, file: { storage: string; filename_disk: string | null }): Promise<void> {
    if (file.filename_disk) await this.removeBytes(file.storage, file.filename_disk);
    try {
      const driver = this.deps.storage.driver(file.storage);
      const variants: string[] = [];
      for await (const name of driver.list(`${id}__`)) variants.push(name);
      for (const name of variants) await this.removeBytes(file.storage, name);
    } catch (error) {
      this.deps.onOrphan?.(file.storage, `${id}__*`, error);
    }
  }

  async removeBytes(storage: string, key: string): Promise<void> {
    try {
      await this.deps.storage.driver(storage).delete(key);
    } catch (error) {
      this.deps.onOrphan?.(storage, key, unavailable(storage, error));
    }
  }
}

export function stringField(fields: Payload, name: string): string | null {
  const value = fields[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new InvalidPayloadError(`"${name}" must be a string`);
  return value;
}

export function withoutServiceFields(fields: Payload): Payload {
  const payload: Payload = Object.create(null);
  for (const [name, value] of Object.entries(fields)) if (!SERVICE_FIELDS.has(name)) payload[name] = value;
  return payload;
}

/** An IPTC text of the measured metadata (the first, when repeated), or undefined. */
function iptcText(metadata: Record<string, unknown> | null, name: string): string | undefined {
  const iptc = metadata?.iptc as Record<string, unknown> | undefined;
  const value = iptc?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/** As Directus: an upload without a description or tags takes the IPTC caption and keywords. */
function fromIptc(metadata: Record<string, unknown> | null, fields: Payload): Payload {
  const out: Payload = Object.create(null);
  const caption = iptcText(metadata, 'caption');
  if (fields.description == null && caption) out.description = caption;
  const keywords = (metadata?.iptc as Record<string, unknown> | undefined)?.keywords;
  if (fields.tags == null && Array.isArray(keywords) && keywords.length) out.tags = keywords;
  return out;
}

/** The name a download gets: no folders, no control characters, at most 255 characters. */
export function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim();
  return (clean === '' || clean === '.' || clean === '..' ? 'file' : clean).slice(0, 255);
}

/** Directus titles a file from its name: no extension, words split at dashes and underscores, capitalised. */
export function titleOf(name: string): string {
  const stem = name.replace(/\.[^.]*$/, '') || name;
  return stem
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');
}
