/**
 * One image variant: a sharp pipeline from the original's bytes to the variant's, bounded. The input may declare at
 * most ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION² pixels (sharp checks the header before decoding anything: a
 * decompression bomb is refused, not expanded), every size a transform asks for is at most that dimension, and
 * libvips stops after the time limit.
 */
import sharp, { type Sharp } from 'sharp';
import { IllegalAssetTransformationError } from '../../errors/catalogue.js';
import type { OutputFormat, TransformSpec } from '../../request/asset-query.js';

/** The formats a variant may be written in, and what the original's type gives when no format is asked. */
export type VariantFormat = Exclude<OutputFormat, 'auto'> | 'gif';

export const VARIANT_TYPES: Record<VariantFormat, { type: string; extension: string }> = {
  jpeg: { type: 'image/jpeg', extension: '.jpg' },
  png: { type: 'image/png', extension: '.png' },
  webp: { type: 'image/webp', extension: '.webp' },
  avif: { type: 'image/avif', extension: '.avif' },
  tiff: { type: 'image/tiff', extension: '.tiff' },
  gif: { type: 'image/gif', extension: '.gif' },
};

/** The format a variant of an original of `type` is written in, from `format` (auto: the best the client accepts). */
export function variantFormat(spec: TransformSpec, type: string, accept: string): VariantFormat {
  if (spec.format === 'auto') {
    if (/image\/avif/.test(accept)) return 'avif';
    if (/image\/webp/.test(accept)) return 'webp';
  } else if (spec.format) return spec.format;
  const own = Object.entries(VARIANT_TYPES).find(([, v]) => v.type === type);
  return own ? (own[0] as VariantFormat) : type === 'image/jpg' ? 'jpeg' : 'png';
}

export interface TransformLimits {
  maxDimension: number;
  timeoutMs: number;
}

/** FORBIDDEN-free checks of the sizes a transform asks for: each at most the largest dimension. */
export function checkSizes(spec: TransformSpec, maxDimension: number): void {
  const over = (n: unknown) => typeof n === 'number' && Math.abs(n) > maxDimension;
  const deep = (value: unknown): boolean =>
    over(value) ||
    (Array.isArray(value) && value.some(deep)) ||
    (value !== null && typeof value === 'object' && Object.values(value).some(deep));
  if (over(spec.width) || over(spec.height) || (spec.transforms ?? []).some((op) => op.slice(1).some(deep)))
    throw new IllegalAssetTransformationError(`sizes are limited to ${maxDimension} pixels`);
}

/**
 * A sharp pipeline for `spec`: from the file at `input` (a path on this machine), or a duplex stream (original bytes
 * in, which sharp holds whole, variant bytes out).
 */
export function imageTransformer(
  spec: TransformSpec,
  format: VariantFormat,
  focal: { x: number; y: number; width: number; height: number } | null,
  limits: TransformLimits,
  input?: string,
): Sharp {
  const options = {
    limitInputPixels: limits.maxDimension * limits.maxDimension,
    sequentialRead: true,
    failOn: 'error' as const,
  };
  const image = input ? sharp(input, options) : sharp(options);
  image.rotate();
  if (spec.width || spec.height) {
    const fit = spec.fit ?? 'cover';
    if (fit === 'cover' && focal && spec.width && spec.height) cropAround(image, spec.width, spec.height, focal);
    else image.resize({ width: spec.width, height: spec.height, fit, withoutEnlargement: spec.withoutEnlargement });
  }
  for (const [method, ...args] of spec.transforms ?? []) {
    const operation = (image as unknown as Record<string, unknown>)[method];
    if (typeof operation !== 'function') throw new IllegalAssetTransformationError(`"${method}" is not a transform`);
    try {
      (operation as (...a: unknown[]) => Sharp).apply(image, args);
    } catch (error) {
      throw new IllegalAssetTransformationError(`"${method}": ${(error as Error).message}`);
    }
  }
  const quality = spec.quality;
  image.toFormat(format, quality ? { quality } : {});
  image.timeout({ seconds: Math.max(1, Math.ceil(limits.timeoutMs / 1000)) });
  return image;
}

/** Cover-resize so the focal point stays as near the middle of the crop as the image allows. */
function cropAround(
  image: Sharp,
  width: number,
  height: number,
  focal: { x: number; y: number; width: number; height: number },
): void {
  const scale = Math.max(width / focal.width, height / focal.height);
  const scaledWidth = Math.max(width, Math.round(focal.width * scale));
  const scaledHeight = Math.max(height, Math.round(focal.height * scale));
  const clamp = (value: number, max: number) => Math.min(Math.max(0, Math.round(value)), max);
  image.resize({ width: scaledWidth, height: scaledHeight, fit: 'fill' }).extract({
    left: clamp(focal.x * scale - width / 2, scaledWidth - width),
    top: clamp(focal.y * scale - height / 2, scaledHeight - height),
    width,
    height,
  });
}
