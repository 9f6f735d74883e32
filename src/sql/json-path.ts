/** JSON path segments → the `$.key[0]` path text SQLite and MySQL/MariaDB take (keys quoted, so any key reads). */
import type { JsonPathSegment } from '../request/json-path.js';

export function jsonPathText(path: JsonPathSegment[]): string {
  // Keys never hold quotes or backslashes (request/json-path.ts refuses them), so quoting them needs no escaping.
  return `$${path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `."${segment}"`)).join('')}`;
}
