const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_557_600_000,
};

/** `15m`, `7d`, `900s`, `1.5h` or a bare number of milliseconds → milliseconds; null when unreadable. */
export function parseDuration(value: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w|y)?\s*$/i.exec(value);
  if (!m) return null;
  const unit = (m[2] ?? 'ms').toLowerCase();
  return Math.round(Number(m[1]) * UNITS[unit]!);
}
