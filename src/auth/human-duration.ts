/** A token lifetime as a mail says it: "1 hour", "7 days", "30 minutes". */
const UNITS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

export function humanDuration(ms: number): string {
  for (const [size, unit] of UNITS) {
    if (ms >= size) {
      const n = Math.round(ms / size);
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${ms} milliseconds`;
}
