/** How a stored value reads in a table cell or a list. */
export function display(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? '✓' : '✗';
  if (typeof value === 'object') {
    const text = JSON.stringify(value);
    return text.length > 60 ? text.slice(0, 57) + '…' : text;
  }
  const text = String(value);
  return text.length > 80 ? text.slice(0, 77) + '…' : text;
}

/** A related item's title: its display template's first field, or the first text-like value, or its key. */
export function title(item: Record<string, unknown> | null | undefined, key: string): string {
  if (!item) return '—';
  for (const name of ['name', 'title', 'label', 'email'])
    if (typeof item[name] === 'string' && item[name]) return item[name] as string;
  const text = Object.entries(item).find(([k, v]) => k !== key && typeof v === 'string' && v);
  if (text && (item[key] === undefined || item[key] === null)) return text[1] as string; // a new item has no key yet
  return text ? `${String(item[key])} · ${text[1]}` : String(item[key] ?? '—');
}
