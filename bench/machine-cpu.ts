/**
 * How busy the machine's cores were over a stretch of time, from /proc/stat (Linux): the share of all cores' time
 * not idle. It tells whether a run left cores unused (room for another worker) or had none to give.
 */
import { readFileSync } from 'node:fs';

export interface CpuMark {
  busy: number;
  total: number;
}

export function cpuMark(): CpuMark | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    const total = ticks.reduce((t, n) => t + n, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** Percent of the machine's cores busy between two marks, or null off Linux. */
export function busyPercent(from: CpuMark | null, to: CpuMark | null): number | null {
  if (!from || !to || to.total <= from.total) return null;
  return Math.round(((to.busy - from.busy) / (to.total - from.total)) * 100);
}
