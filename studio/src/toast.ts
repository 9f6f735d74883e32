/**
 * Short notifications ("Item saved") shown in a corner for a few seconds, read out by screen readers. The same text
 * again restarts the one shown rather than stacking a copy, and only the newest few stay, so notifications never pile
 * up over the page's buttons (they let clicks through as well: they hold nothing to click).
 */
import { reactive } from 'vue';

export const toasts = reactive<{ id: number; text: string }[]>([]);
const MAX_SHOWN = 2;
const timers = new Map<number, ReturnType<typeof setTimeout>>();
let next = 1;

function remove(id: number): void {
  clearTimeout(timers.get(id));
  timers.delete(id);
  const at = toasts.findIndex((t) => t.id === id);
  if (at >= 0) toasts.splice(at, 1);
}

export function toast(text: string, ms = 4000): void {
  const same = toasts.find((t) => t.text === text);
  if (same) remove(same.id);
  while (toasts.length >= MAX_SHOWN) remove(toasts[0]!.id);
  const id = next++;
  toasts.push({ id, text });
  timers.set(
    id,
    setTimeout(() => remove(id), ms),
  );
}
