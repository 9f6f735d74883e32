/** What the data model editor offers: field types, the interfaces that fit each, and key types. */
export const FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'bigInteger',
  'float',
  'decimal',
  'boolean',
  'date',
  'dateTime',
  'time',
  'timestamp',
  'json',
  'uuid',
  'csv',
  'hash',
] as const;

export const INTERFACES: Record<string, string[]> = {
  string: ['input', 'select-dropdown', 'select-radio', 'input-multiline'],
  text: ['input-multiline', 'input-rich-text-md', 'input-code', 'input'],
  integer: ['input', 'select-dropdown', 'slider'],
  bigInteger: ['input'],
  float: ['input', 'slider'],
  decimal: ['input'],
  boolean: ['boolean', 'toggle'],
  date: ['datetime'],
  dateTime: ['datetime'],
  time: ['datetime'],
  timestamp: ['datetime'],
  json: ['input-code', 'tags', 'list'],
  uuid: ['input'],
  csv: ['tags'],
  hash: ['input-hash'],
};

/** The type a foreign key needs to point at a key of this type. */
export function foreignKeyType(keyType: string | undefined): string {
  return keyType === 'uuid' || keyType === 'string' || keyType === 'bigInteger' ? keyType : 'integer';
}
