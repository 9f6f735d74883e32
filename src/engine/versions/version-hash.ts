/**
 * The hash of a main item that a version remembers when it is made and that promote compares with: a SHA-1 of the
 * item's JSON with keys in order, so that the same values give the same hash whatever order the database lists
 * columns in. Clients only carry it back (`mainHash`), never compute it.
 */
import { createHash } from 'node:crypto';

export function itemHash(item: unknown): string {
  return createHash('sha1').update(canonical(item)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
