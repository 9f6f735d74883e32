/**
 * Indexes on (collection, item) of service_revisions and service_activity: an item's history (`/revisions` and
 * `/activity` filtered by collection and item, newest first) stays an index lookup however many rows the trail holds.
 * Numbered 0008: 0006 belongs to another branch (the runner applies any version it has not recorded, in list order).
 */
import type { Knex } from 'knex';

export const version = '0008';
export const name = 'audit trail indexes';

const INDEXES = [
  { table: 'service_revisions', name: 'service_revisions_collection_item_index' },
  { table: 'service_activity', name: 'service_activity_collection_item_index' },
];

export async function up(knex: Knex): Promise<void> {
  for (const { table, name: indexName } of INDEXES) {
    try {
      await knex.schema.alterTable(table, (t) => t.index(['collection', 'item'], indexName));
    } catch (error) {
      // A database that commits DDL at once may have made the first index of a run cut short before it was recorded.
      if (!/duplicate key name/i.test(String((error as Error).message))) throw error;
    }
  }
}
