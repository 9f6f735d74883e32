/** Names of the indexes and constraints Strata creates: `<table>_<column>_<kind>`, shortened with a hash to fit every database. */
import { createHash } from 'node:crypto';

/** PostgreSQL keeps 63 bytes of a name, MySQL/MariaDB allow 64 characters. */
const MAX_BYTES = 60;

export function constraintName(table: string, column: string, kind: 'unique' | 'index' | 'foreign'): string {
  const name = `${table}_${column}_${kind}`;
  if (Buffer.byteLength(name) <= MAX_BYTES) return name;
  const hash = createHash('sha1').update(name).digest('hex').slice(0, 10);
  let head = name;
  while (Buffer.byteLength(head) > MAX_BYTES - hash.length - 1) head = head.slice(0, -1);
  return `${head}_${hash}`;
}
