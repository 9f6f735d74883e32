/**
 * The fields a table reads for its columns: a relational column (m2o, o2m, m2m) reads what its related
 * collection's titles need (the display template's fields, with the key), in the same request, so cells show
 * names, not keys; and how such a cell reads.
 */
import { itemTitle, titleFields } from './names';
import { can, primaryKey, relationOf, type Field } from './session';

const titled = (path: string, related: string) => [
  `${path}.${primaryKey(related)}`,
  ...titleFields(related).map((p) => `${path}.${p}`),
];

/** Whether a field can be a column: a stored value, or an o2m/m2m list the caller may read. */
export function listable(collection: string, field: Field): boolean {
  if (field.type !== 'alias') return true;
  const info = relationOf(collection, field.field);
  if (info?.type === 'o2m') return can(info.related, 'read');
  if (info?.type === 'm2m') return can(info.junction, 'read') && can(info.related, 'read');
  return false;
}

export function columnFields(collection: string, columns: string[]): string[] {
  const out: string[] = [];
  for (const column of columns) {
    const info = relationOf(collection, column);
    if ((info?.type === 'm2o' || info?.type === 'o2m') && can(info.related, 'read'))
      out.push(...titled(column, info.related));
    else if (info?.type === 'm2m') out.push(...titled(`${column}.${info.junctionField}`, info.related));
    else if (!info || info.type === 'm2o') out.push(column);
  }
  return [...new Set(out)];
}

/** A relational cell's text: the related items' titles; null for other columns (they show their display). */
export function relationalCell(collection: string, field: string, value: unknown): string | null {
  const info = relationOf(collection, field);
  if (!info || info.type === 'm2a' || value === null || typeof value !== 'object') return null;
  if (info.type === 'm2o') return itemTitle(info.related, value as Record<string, unknown>, primaryKey(info.related));
  if (!Array.isArray(value)) return null;
  const rows = info.type === 'm2m' ? value.map((row) => row?.[info.junctionField]) : value;
  const titles = rows
    .filter((row) => row && typeof row === 'object')
    .map((row) => itemTitle(info.related, row, primaryKey(info.related)));
  const text = titles.join(', ');
  return text.length > 80 ? text.slice(0, 79) + '…' : text || '—';
}
