/** Short notifications ("Item saved") shown in a corner for a few seconds, read out by screen readers. */
import { reactive } from 'vue';

export const toasts = reactive<{ id: number; text: string }[]>([]);
let next = 1;

export function toast(text: string, ms = 4000): void {
  const id = next++;
  toasts.push({ id, text });
  setTimeout(() => {
    const at = toasts.findIndex((t) => t.id === id);
    if (at >= 0) toasts.splice(at, 1);
  }, ms);
}
