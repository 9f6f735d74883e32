/**
 * Counts a schema change looks at before it alters anything (so that it can refuse with a clear reason instead of
 * failing half-way). Vendor-neutral: knex's query builder quotes the identifiers for each database.
 */
import type { Knex } from 'knex';

async function count(query: Knex.QueryBuilder): Promise<number> {
  const [row] = (await query) as Record<string, unknown>[];
  return Number(row?.n ?? 0);
}

export function countRows(knex: Knex, table: string): Promise<number> {
  return count(knex(table).count({ n: '*' }));
}

export function countNulls(knex: Knex, table: string, column: string): Promise<number> {
  return count(knex(table).whereNull(column).count({ n: '*' }));
}

/** Values held by more than one row. */
export function countDuplicates(knex: Knex, table: string, column: string): Promise<number> {
  return count(
    knex
      .from(knex(table).select(column).whereNotNull(column).groupBy(column).havingRaw('count(*) > 1').as('duplicates'))
      .count({ n: '*' }),
  );
}

/** Rows whose `column` names no row of `foreignTable` (a foreign key could not be added). */
export function countOrphans(
  knex: Knex,
  table: string,
  column: string,
  foreignTable: string,
  foreignColumn: string,
): Promise<number> {
  return count(
    knex({ child: table })
      .whereNotNull(`child.${column}`)
      .whereNotExists(
        knex({ parent: foreignTable })
          .select(knex.raw('1'))
          .whereRaw('??.?? = ??.??', ['parent', foreignColumn, 'child', column]),
      )
      .count({ n: '*' }),
  );
}
