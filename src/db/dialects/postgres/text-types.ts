/**
 * PostgreSQL types without a service type of their own (network addresses, text search, intervals, ...): served as
 * strings in their text form, filters comparing that text.
 */
export const POSTGRES_TEXT_TYPES: ReadonlySet<string> = new Set([
  'inet',
  'cidr',
  'macaddr',
  'macaddr8',
  'tsvector',
  'tsquery',
  'interval',
  'xml',
  'money',
  'citext',
  'bit',
  'bit varying',
  'ltree',
]);
