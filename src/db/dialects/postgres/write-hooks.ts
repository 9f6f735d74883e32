import type { WriteDialect } from '../../../sql/write-hooks.js';

const NUMERIC_COLUMN = /^(smallint|integer|bigint|numeric|decimal|real|double precision)$/i;

export const postgresWrite: WriteDialect = {
  begin: 'begin',
  // The protocol counts parameters in 16 bits.
  maxParameters: 65_535,
  bind(field, value) {
    // Booleans read from non-boolean columns (cast-boolean): numbers in numeric columns, true/false text otherwise.
    if (typeof value === 'boolean' && field.schema && field.schema.data_type !== 'boolean') {
      return NUMERIC_COLUMN.test(field.schema.data_type) ? (value ? 1 : 0) : String(value);
    }
    return value;
  },
  defaultRowInsert: (table) => `insert into ${table} default values`,
};
