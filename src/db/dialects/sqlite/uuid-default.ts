/**
 * SQLite has no uuid function: a column default that gives each new row a version 4 uuid is this expression over
 * random bytes. Introspection knows it by its text and reads it back as the random uuid default every database
 * shares, so that a snapshot taken here compares with one taken on PostgreSQL or MariaDB.
 */
export const RANDOM_UUID_SQL =
  "lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || " +
  "'-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || " +
  'lower(hex(randomblob(6)))';

const spaceless = (text: string) => text.replace(/\s+/g, '');

/** Whether a column's declared default (pragma table_info's `dflt_value`) is RANDOM_UUID_SQL. */
export function isRandomUuidSql(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  const text = spaceless(raw);
  const wanted = spaceless(RANDOM_UUID_SQL);
  return text === wanted || text === `(${wanted})`;
}
