/** CSV lists in the service_* tables (permission `fields`, a2o allowed collections). */

/** Removes `name` from a CSV list; null when nothing is left. */
export function withoutListItem(list: unknown, name: string): string | null {
  const items = String(list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s !== name);
  return items.length ? items.join(',') : null;
}
