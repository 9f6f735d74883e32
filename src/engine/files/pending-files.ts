/**
 * The rows of resumable (tus) uploads. A row is written when the upload is created, under the caller's create rule,
 * with `tus_id` set (the upload's id, which is also the row's key) and the size the client declared; when the last
 * byte has arrived the parts go through the same step as a POST /files upload (upload guard, sniffed type, image and
 * media information) into the row's storage location, and the row gets the measured fields with `tus_id` cleared.
 * An upload that fails that step, is terminated or expires takes its row with it: no row without bytes.
 */
import { ForbiddenError } from '../../errors/catalogue.js';
import type { IncomingFile } from './incoming-file.js';
import type { FilterNode } from '../../request/query.js';
import type { Payload } from '../../request/write-body.js';
import { extensionOf, originalKey } from '../../storage/storage-keys.js';
import type { ItemsService } from '../read/items-service.js';
import type { ItemsWriter } from '../write/items-writer.js';
import type { OpenedCollection } from '../write/opened-collection.js';
import { keysByQuery } from '../write/write-reread.js';
import {
  ADMIN,
  FILES,
  SERVICE_FIELDS,
  safeName,
  stringField,
  titleOf,
  withoutServiceFields,
  type FilesService,
} from './files-service.js';

/** What the client's Upload-Metadata may set on the row (Directus's tus metadata; `filename`/`filetype` as tus-js-client sends). */
const METADATA_FIELDS = new Set(['title', 'description', 'folder', 'storage', 'location', 'tags', 'filename_download']);

export interface PendingUpload {
  id: string;
  size: number | null;
  metadata: Record<string, string | null>;
}

export class PendingFiles {
  constructor(
    private readonly files: FilesService,
    private readonly writer: ItemsWriter,
    private readonly items: ItemsService,
  ) {}

  /** The row of a new upload, written under the caller's rules (`target`: service_files opened for create). */
  async create(target: OpenedCollection, upload: PendingUpload): Promise<void> {
    const fields = rowFields(upload.metadata);
    const storage = this.files.location(fields);
    const downloadName = safeName(
      stringField(fields, 'filename_download') ?? upload.metadata.filename ?? upload.metadata.name ?? 'file',
    );
    const payload: Payload = {
      ...withoutServiceFields(fields),
      id: upload.id,
      storage,
      filename_disk: originalKey(upload.id, extensionOf(downloadName)),
      filename_download: downloadName,
      title: fields.title ?? titleOf(downloadName),
      type: declaredType(upload.metadata),
      filesize: upload.size ?? 0,
      uploaded_on: new Date().toISOString(),
      tus_id: upload.id,
      tus_data: { size: upload.size, metadata: upload.metadata },
    };
    await this.writer.create(target, [payload], false, { fields: ['id'] });
  }

  /**
   * The parts of upload `id`, complete: stored through the upload step, the row measured and `tus_id` cleared. A
   * refusal (size, type) or a failing storage removes the row (and any bytes) before the error is answered.
   */
  async complete(id: string, file: IncomingFile): Promise<void> {
    const row = (await this.files.storedOf([id])).get(id);
    // Expired or terminated meanwhile: the bytes have no row to go to.
    if (!row?.filename_disk) throw new ForbiddenError();
    let stored;
    try {
      stored = await this.files.store(row.storage, row.filename_disk, file);
    } catch (error) {
      await this.remove(id);
      throw error;
    }
    try {
      const target = await this.writer.open(FILES, 'update', ADMIN, { system: true, serviceFields: SERVICE_FIELDS });
      await this.writer.updateOne(target, id, { ...stored, tus_id: null, tus_data: null }, { fields: ['id'] });
    } catch (error) {
      await this.files.removeBytes(stored.storage, stored.filename_disk);
      await this.remove(id);
      throw error;
    }
  }

  /** Removes the row of an upload still in progress (terminated, expired, failed); a completed file stays. */
  async remove(id: string): Promise<void> {
    const target = await this.writer.open(FILES, 'delete', ADMIN, { system: true });
    const keys = await keysByQuery(this.items, target, { filter: pendingAnd('id', '_eq', id), limit: -1 });
    if (keys.length > 0) await this.writer.delete(target, { kind: 'keys', keys });
  }

  /** Removes the rows of uploads started before `before` and never completed; answers their ids. */
  async expire(before: Date): Promise<string[]> {
    const target = await this.writer.open(FILES, 'delete', ADMIN, { system: true });
    const filter = pendingAnd('uploaded_on', '_lt', before.toISOString());
    const keys = await keysByQuery(this.items, target, { filter, limit: -1 });
    if (keys.length > 0) await this.writer.delete(target, { kind: 'keys', keys });
    return keys.map(String);
  }
}

/** Rows still in progress (tus_id set) that also meet one condition. */
function pendingAnd(field: string, operator: '_eq' | '_lt', value: string): FilterNode {
  return {
    type: 'logical',
    operator: '_and',
    children: [
      { type: 'condition', field: 'tus_id', operator: '_nnull', value: true },
      { type: 'condition', field, operator, value },
    ],
  };
}

function rowFields(metadata: Record<string, string | null>): Payload {
  const fields: Payload = Object.create(null);
  for (const [name, value] of Object.entries(metadata)) {
    if (!METADATA_FIELDS.has(name) || value === null) continue;
    fields[name] = name === 'tags' ? parseTags(value) : value;
  }
  return fields;
}

function parseTags(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value.split(',').map((tag) => tag.trim());
  }
}

function declaredType(metadata: Record<string, string | null>): string {
  const type = metadata.type ?? metadata.filetype ?? 'application/octet-stream';
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type.toLowerCase() : 'application/octet-stream';
}
