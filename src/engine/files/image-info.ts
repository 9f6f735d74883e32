/**
 * Width, height and metadata of a stored image, read from its header by sharp (nothing is decoded). Formats sharp
 * cannot read give nothing, not an error: the file is kept, without dimensions.
 */
import exifReader from 'exif-reader';
import icc from 'icc';
import sharp from 'sharp';
import type { Readable } from 'node:stream';
import { parseIptc } from './iptc.js';

export const IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
  'image/heif',
  'image/svg+xml',
]);

export interface ImageInfo {
  width: number | null;
  height: number | null;
  metadata: Record<string, unknown> | null;
}

/** How much of the start of a file is read for its header (dimensions and EXIF lie there in common formats). */
export const HEADER_BYTES = 1024 * 1024;

/** From a file on this machine (libvips reads the header only) or the first HEADER_BYTES of one elsewhere. */
export async function imageInfo(source: Readable | string): Promise<ImageInfo> {
  const reader = typeof source === 'string' ? sharp(source, { failOn: 'none' }) : sharp({ failOn: 'none' });
  if (typeof source !== 'string') {
    source.on('error', (error) => reader.destroy(error));
    source.pipe(reader);
  }
  try {
    const meta = await reader.metadata();
    const rotated = (meta.orientation ?? 1) >= 5;
    const width = meta.width ?? null;
    const height = meta.height ?? null;
    return {
      width: rotated ? height : width,
      height: rotated ? width : height,
      metadata: {
        format: meta.format ?? null,
        space: meta.space ?? null,
        channels: meta.channels ?? null,
        density: meta.density ?? null,
        hasAlpha: meta.hasAlpha ?? null,
        orientation: meta.orientation ?? null,
        hasProfile: meta.hasProfile ?? false,
        ...exifGroups(meta.exif),
        ...profiles(meta.icc, meta.iptc),
      },
    };
  } catch {
    return { width: null, height: null, metadata: null };
  } finally {
    if (typeof source !== 'string') {
      source.unpipe(reader);
      source.destroy();
    }
  }
}

/** Longest JSON text of the metadata kept (the column is a text column on every database). */
const MAX_METADATA = 32_000;

/** EXIF as Directus stores it (ifd0, ifd1, exif, gps, interop), with plain JSON values only; nothing when unreadable. */
function exifGroups(exif: Buffer | undefined): Record<string, unknown> {
  if (!exif) return {};
  let tags: Record<string, unknown>;
  try {
    tags = exifReader(exif) as Record<string, unknown>;
  } catch {
    return {};
  }
  const groups: Record<string, unknown> = Object.create(null);
  const names: [string, string][] = [
    ['ifd0', 'Image'],
    ['ifd1', 'ThumbnailTags'],
    ['exif', 'Photo'],
    ['gps', 'GPSInfo'],
    ['interop', 'Iop'],
  ];
  for (const [name, group] of names) {
    const values = plain(tags[group]);
    if (values && typeof values === 'object' && Object.keys(values).length) groups[name] = values;
  }
  return JSON.stringify(groups).length > MAX_METADATA ? {} : groups;
}

/** The ICC profile's description (as the icc package parses it) and the IPTC texts; each only where readable. */
function profiles(profile: Buffer | undefined, iptc: Buffer | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  if (profile) {
    try {
      const parsed = plain(icc.parse(profile));
      if (parsed && typeof parsed === 'object' && JSON.stringify(parsed).length <= MAX_PART) out.icc = parsed;
    } catch {
      // An unreadable profile is left out, as Directus leaves it.
    }
  }
  if (iptc) {
    const parsed = parseIptc(iptc);
    if (Object.keys(parsed).length && JSON.stringify(parsed).length <= MAX_PART) out.iptc = parsed;
  }
  return out;
}

/** Longest JSON text of the ICC or IPTC part (with EXIF's MAX_METADATA, the whole stays a bounded text). */
const MAX_PART = 16_000;

/** Numbers, short strings, dates (as ISO text), and lists and objects of them; buffers and long texts dropped. */
function plain(value: unknown): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length <= 1024 ? value.replace(/\u0000/g, '') : undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return undefined;
  if (Array.isArray(value)) return value.length <= 256 ? value.map(plain).filter((v) => v !== undefined) : undefined;
  if (typeof value === 'object') {
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, inner] of Object.entries(value)) {
      const kept = plain(inner);
      if (kept !== undefined && !['__proto__', 'constructor', 'prototype'].includes(key)) out[key] = kept;
    }
    return out;
  }
  return undefined;
}
