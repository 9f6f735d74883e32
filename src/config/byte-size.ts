/**
 * Sizes as Directus writes them (the `bytes` package's format): `1mb`, `500kb`, `1.5MB`, `2048` (bytes). Units are
 * binary (1kb = 1024 bytes). Returns null when the text is not a size.
 */
const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };

export function parseByteSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)?\s*$/i.exec(text);
  if (!match) return null;
  const bytes = Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
  return Number.isSafeInteger(bytes) ? bytes : null;
}
