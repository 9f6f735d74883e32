/**
 * `GET /assets/{id}`: which bytes answer, under the caller's rules. The caller must be able to read the file's row;
 * what the row says of the bytes is then read as the service. An original is served from its storage; a transform
 * (query parameters or a preset, as storage_asset_transform allows) is made once per variant, kept in the same
 * storage beside the original (`<id>__<hash>.<ext>`) and served from there afterwards.
 */
import { createHash } from 'node:crypto';
import type { Sharp } from 'sharp';
import type { Readable } from 'node:stream';
import type { StorageConfig } from '../../config/storage-config.js';
import {
  ForbiddenError,
  IllegalAssetTransformationError,
  ServiceError,
  ServiceUnavailableError,
} from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { AssetSettings } from '../../project/settings-service.js';
import { transformSpec, type AssetRequest, type TransformSpec } from '../../request/asset-query.js';
import type { ByteRange, StoredObject } from '../../storage/storage-driver.js';
import { variantKey } from '../../storage/storage-keys.js';
import type { StorageLocations } from '../../storage/storage-locations.js';
import { NO_MARKS, type ItemsService } from '../read/items-service.js';
import { FILES } from './files-service.js';
import { IMAGE_TYPES } from './image-info.js';
import { checkSizes, imageTransformer, VARIANT_TYPES, variantFormat } from './image-transform.js';
import { TransformQueue } from './transform-queue.js';

/** What an asset answer serves: where its bytes are, their type and size, and the name a download gets. */
export interface ServedAsset {
  storage: string;
  key: string;
  type: string;
  size: number;
  modified: Date;
  filename: string;
  etag: string;
}

interface FileRow {
  id: string;
  storage: string;
  filename_disk: string | null;
  filename_download: string;
  type: string | null;
  width: number | null;
  height: number | null;
  focal_point_x: number | null;
  focal_point_y: number | null;
}

export interface AssetServiceDeps {
  config: StorageConfig;
  storage: StorageLocations;
  items: ItemsService;
  settings: () => Promise<AssetSettings>;
}

const SERVICE: Accountability = { user: null, role: null, roles: [], policies: [], admin: true, app: true, ip: null };
const ROW_FIELDS = [
  'id',
  'storage',
  'filename_disk',
  'filename_download',
  'type',
  'width',
  'height',
  'focal_point_x',
  'focal_point_y',
];

export class AssetService {
  private readonly queue: TransformQueue;

  constructor(private readonly deps: AssetServiceDeps) {
    this.queue = new TransformQueue(deps.config.transforms.maxConcurrent);
  }

  async resolve(
    id: string,
    request: AssetRequest,
    accountability: Accountability,
    accept: string,
  ): Promise<ServedAsset> {
    const file = await this.fileRow(id, accountability);
    if (!file.filename_disk) throw new ForbiddenError();
    const spec = await this.transformFor(request);
    const type = file.type ?? 'application/octet-stream';
    // Transforms apply to images sharp reads; other files are served as they are (as Directus does).
    if (!spec || !IMAGE_TYPES.has(type)) return this.served(file, file.filename_disk, type, file.filename_download);
    return this.variant(file, spec, accept);
  }

  /** The asset's bytes (all, or `range`). */
  async read(asset: ServedAsset, range?: ByteRange): Promise<Readable> {
    const stream = await this.deps.storage.run(asset.storage, (driver) => driver.read(asset.key, range));
    if (!stream) throw new ForbiddenError();
    return stream;
  }

  private async fileRow(id: string, accountability: Accountability): Promise<FileRow> {
    const { items } = this.deps;
    // The caller's read rule on the row decides (FORBIDDEN for a row it may not read, or none); then the service reads.
    await items.readOne(FILES, id, { fields: ['id'] }, accountability, NO_MARKS, { system: true });
    const { data } = await items.rowsOne(FILES, id, { fields: ROW_FIELDS }, SERVICE, NO_MARKS, { system: true });
    return data as FileRow;
  }

  /** The transform asked for, as the settings allow it: parameters (all), a preset's (all, presets), none. */
  private async transformFor(request: AssetRequest): Promise<TransformSpec | null> {
    if (!request.key && !request.transform) return null;
    const settings = await this.deps.settings();
    if (settings.transform === 'none') throw new IllegalAssetTransformationError('transforms are disabled');
    if (request.key) {
      const preset = settings.presets.get(request.key);
      if (!preset) throw new IllegalAssetTransformationError(`there is no preset "${request.key}"`);
      return transformSpec(preset, Number.MAX_SAFE_INTEGER);
    }
    if (settings.transform === 'presets') throw new IllegalAssetTransformationError('only presets may be used');
    return request.transform;
  }

  private async variant(file: FileRow, spec: TransformSpec, accept: string): Promise<ServedAsset> {
    const { maxDimension, timeoutMs } = this.deps.config.transforms;
    if ((file.width ?? 0) > maxDimension || (file.height ?? 0) > maxDimension)
      throw new IllegalAssetTransformationError(`the image is larger than ${maxDimension} pixels`);
    checkSizes(spec, maxDimension);
    const format = variantFormat(spec, file.type ?? '', accept);
    const { type, extension } = VARIANT_TYPES[format];
    const focalX = spec.focalPointX ?? file.focal_point_x;
    const focalY = spec.focalPointY ?? file.focal_point_y;
    const focal =
      focalX !== null && focalX !== undefined && focalY !== null && focalY !== undefined && file.width && file.height
        ? { x: focalX, y: focalY, width: file.width, height: file.height }
        : null;
    // The focal point a crop is cut around is part of its name: a moved focal point makes a new variant.
    const hash = createHash('sha256')
      .update(JSON.stringify([file.filename_disk, format, spec, focal]))
      .digest('hex')
      .slice(0, 24);
    const key = variantKey(file.id, hash, extension);
    const name = `${file.filename_download.replace(/\.[^.]*$/, '')}${extension}`;
    const existing = await this.stat(file.storage, key);
    if (existing) return this.asset(file.storage, key, type, name, existing);
    await this.queue.once(key, () =>
      this.make(file, key, (input) => imageTransformer(spec, format, focal, { maxDimension, timeoutMs }, input)),
    );
    return this.served(file, key, type, name);
  }

  private async make(file: FileRow, key: string, transformer: (input?: string) => Sharp) {
    const { storage, config } = this.deps;
    const driver = storage.driver(file.storage);
    const path = driver.localPath?.(file.filename_disk!);
    const image = transformer(path);
    let output: Readable = image;
    if (!path) {
      const source = await storage.run(file.storage, (d) => d.read(file.filename_disk!));
      if (!source) throw new ForbiddenError();
      source.on('error', (error) => image.destroy(error));
      output = source.pipe(image);
    }
    const timer = setTimeout(
      () => image.destroy(new ServiceUnavailableError('assets', 'The image transform took too long')),
      config.transforms.timeoutMs,
    );
    try {
      await driver.write(key, output);
    } catch (error) {
      image.destroy();
      throw transformError(file.storage, error);
    } finally {
      clearTimeout(timer);
    }
  }

  private async served(file: FileRow, key: string, type: string, filename: string): Promise<ServedAsset> {
    const stat = await this.stat(file.storage, key);
    if (!stat) throw new ForbiddenError();
    return this.asset(file.storage, key, type, filename, stat);
  }

  private stat(storage: string, key: string): Promise<StoredObject | null> {
    return this.deps.storage.run(storage, (driver) => driver.stat(key));
  }

  private asset(storage: string, key: string, type: string, filename: string, stat: StoredObject): ServedAsset {
    const etag = createHash('sha1').update(`${key}:${stat.size}:${stat.modified.getTime()}`).digest('hex').slice(0, 27);
    return { storage, key, type, size: stat.size, modified: stat.modified, filename, etag: `"${etag}"` };
  }
}

/** Why a transform failed, for the client: its limits and bad images are 400, a storage failure 503. */
function transformError(storage: string, error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const message = (error as Error)?.message ?? '';
  if (/pixel limit|unsupported image format|Input buffer|corrupt|VipsJpeg|bad seek|premature end/i.test(message))
    return new IllegalAssetTransformationError('the image cannot be transformed within the limits');
  if (/timeout/i.test(message)) return new ServiceUnavailableError('assets', 'The image transform took too long');
  return new ServiceUnavailableError(`storage:${storage}`, 'The storage could not be reached');
}
