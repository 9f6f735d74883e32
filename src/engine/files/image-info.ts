/**
 * Width, height and metadata of a stored image, read from its header by sharp (nothing is decoded). Formats sharp
 * cannot read give nothing, not an error: the file is kept, without dimensions.
 */
import sharp from 'sharp';
import type { Readable } from 'node:stream';

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

export async function imageInfo(source: Readable): Promise<ImageInfo> {
  const reader = sharp({ failOn: 'none' });
  source.on('error', (error) => reader.destroy(error));
  source.pipe(reader);
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
        exif: meta.exif ? true : undefined,
        iptc: meta.iptc ? true : undefined,
      },
    };
  } catch {
    return { width: null, height: null, metadata: null };
  } finally {
    source.unpipe(reader);
    source.destroy();
  }
}
