/**
 * The fields a table reads for its columns: a many-to-one column reads what its related collection's title needs
 * (the display template's fields, with the key), in the same request, so cells show names, not keys.
 */
import { titleFields } from './names';
import { can, primaryKey, relationOf } from './session';

export function columnFields(collection: string, columns: string[]): string[] {
  const out: string[] = [];
  for (const column of columns) {
    const info = relationOf(collection, column);
    if (info?.type === 'm2o' && can(info.related, 'read')) {
      out.push(`${column}.${primaryKey(info.related)}`, ...titleFields(info.related).map((p) => `${column}.${p}`));
    } else {
      out.push(column);
    }
  }
  return [...new Set(out)];
}
