/**
 * The query string of `GET /assets/{id}` (Directus docs: Files, Assets): `download`, a preset `key`, or transform
 * parameters (`width`, `height`, `fit`, `quality`, `format`, `withoutEnlargement`, `focal_point_x/y`,
 * `transforms=[["blur", 2], ...]`). Parsed into an AssetRequest here, checked against the settings and limits
 * where they are known (engine/files/asset-service.ts). Pure.
 */
import { IllegalAssetTransformationError } from '../errors/catalogue.js';

export type Fit = 'cover' | 'contain' | 'inside' | 'outside';
export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'tiff' | 'auto';

/** One operation of `transforms`: a method of the image library, and its arguments (plain JSON values). */
export type TransformOperation = [string, ...unknown[]];

export interface TransformSpec {
  width?: number;
  height?: number;
  fit?: Fit;
  quality?: number;
  format?: OutputFormat;
  withoutEnlargement?: boolean;
  focalPointX?: number;
  focalPointY?: number;
  transforms?: TransformOperation[];
}

export interface AssetRequest {
  download: boolean;
  /** A preset of storage_asset_presets, by key. */
  key: string | null;
  /** Transform parameters given in the query (null: none). */
  transform: TransformSpec | null;
}

const FITS: ReadonlySet<string> = new Set(['cover', 'contain', 'inside', 'outside']);
const FORMATS: Record<string, OutputFormat> = {
  jpg: 'jpeg',
  jpeg: 'jpeg',
  png: 'png',
  webp: 'webp',
  avif: 'avif',
  tiff: 'tiff',
  auto: 'auto',
};

/**
 * The operations `transforms` may name: sharp's image operations that change pixels. Not those that read or write
 * files, change limits or output options (the format and quality parameters say those).
 */
export const TRANSFORM_METHODS: ReadonlySet<string> = new Set([
  'rotate',
  'flip',
  'flop',
  'sharpen',
  'median',
  'blur',
  'flatten',
  'unflatten',
  'gamma',
  'negate',
  'normalise',
  'normalize',
  'clahe',
  'convolve',
  'threshold',
  'linear',
  'recomb',
  'modulate',
  'tint',
  'greyscale',
  'grayscale',
  'extract',
  'extend',
  'trim',
  'resize',
]);

const bad = (reason: string) => new IllegalAssetTransformationError(reason);

function one(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) || typeof value !== 'string') throw bad(`"${name}" must be given once, as text`);
  return value;
}

function integer(value: unknown, name: string, min: number, max: number): number | undefined {
  const text = one(value, name);
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw bad(`"${name}" must be a whole number from ${min} to ${max}`);
  return Number(text);
}

function flag(value: unknown, name: string): boolean | undefined {
  const text = one(value, name);
  if (text === undefined) return undefined;
  if (text === '' || text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw bad(`"${name}" must be true or false`);
}

/** Parses a `transforms` value: a JSON list of `[method, ...args]` with known methods and JSON arguments. */
export function parseTransforms(value: unknown, maxOperations: number): TransformOperation[] | undefined {
  if (value === undefined || value === '') return undefined;
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      throw bad('"transforms" must be a JSON list');
    }
  }
  if (!Array.isArray(list)) throw bad('"transforms" must be a list');
  if (list.length > maxOperations) throw bad(`"transforms" may hold at most ${maxOperations} operations`);
  return list.map((operation: unknown) => {
    if (!Array.isArray(operation) || typeof operation[0] !== 'string')
      throw bad('each of "transforms" must be a list starting with a method name');
    if (!TRANSFORM_METHODS.has(operation[0])) throw bad(`"${operation[0]}" is not an allowed transform`);
    return operation as TransformOperation;
  });
}

/** The transform a preset or a query describes, from its (text or JSON) values. */
export function transformSpec(raw: Record<string, unknown>, maxOperations: number): TransformSpec | null {
  const text = (value: unknown) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value);
  const spec: TransformSpec = {
    width: integer(text(raw.width), 'width', 1, 100_000),
    height: integer(text(raw.height), 'height', 1, 100_000),
    quality: integer(text(raw.quality), 'quality', 1, 100),
    withoutEnlargement: flag(text(raw.withoutEnlargement), 'withoutEnlargement'),
    focalPointX: integer(text(raw.focal_point_x), 'focal_point_x', 0, 1_000_000),
    focalPointY: integer(text(raw.focal_point_y), 'focal_point_y', 0, 1_000_000),
    transforms: parseTransforms(raw.transforms, maxOperations),
  };
  const fit = one(raw.fit, 'fit');
  if (fit !== undefined && fit !== '') {
    if (!FITS.has(fit)) throw bad('"fit" must be cover, contain, inside or outside');
    spec.fit = fit as Fit;
  }
  const format = one(raw.format, 'format');
  if (format !== undefined && format !== '') {
    const known = FORMATS[format.toLowerCase()];
    if (!known) throw bad('"format" must be jpg, png, webp, avif, tiff or auto');
    spec.format = known;
  }
  for (const name of Object.keys(spec) as (keyof TransformSpec)[]) if (spec[name] === undefined) delete spec[name];
  return Object.keys(spec).length ? spec : null;
}

export function parseAssetQuery(raw: Record<string, unknown>, maxOperations: number): AssetRequest {
  const download = raw.download !== undefined && raw.download !== 'false' && raw.download !== '0';
  const key = one(raw.key, 'key');
  const transform = transformSpec(raw, maxOperations);
  if (key && transform) throw bad('a preset "key" cannot be combined with other transform parameters');
  return { download, key: key || null, transform };
}
