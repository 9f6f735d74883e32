/**
 * A `Range` header against a file of `size` bytes (RFC 9110 §14): one range answers 206 with those bytes; no header,
 * another unit or several ranges answer the whole file (200, which the RFC allows); a range with no byte inside the
 * file is 416 RANGE_NOT_SATISFIABLE. Pure.
 */
import { RangeNotSatisfiableError } from '../errors/catalogue.js';

export interface ByteRange {
  start: number;
  end: number;
}

export function parseByteRange(header: string | undefined, size: number): ByteRange | null {
  if (!header) return null;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) {
    if (/^\s*bytes\s*=/i.test(header) && !header.includes(',')) throw new RangeNotSatisfiableError(header);
    return null;
  }
  const [, first, last] = match;
  if (first === '' && last === '') throw new RangeNotSatisfiableError(header);
  let start: number;
  let end: number;
  if (first === '') {
    // The last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) throw new RangeNotSatisfiableError(header);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (start >= size || start > end) throw new RangeNotSatisfiableError(header);
  }
  return { start, end };
}
