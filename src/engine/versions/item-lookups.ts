/**
 * The reads the versions and comments code makes of the items they point at: whether the caller may read one, the
 * whole main item (for its hash), and the version rows of an item.
 */
import { ForbiddenError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import { parseFilter } from '../../request/parse-filter.js';
import type { Query } from '../../request/query.js';
import type { CollectionOverview, SchemaOverview } from '../../schema/types.js';
import { NO_MARKS, type ItemsService } from '../read/items-service.js';
import { SUDO } from './trusted.js';

export interface ItemLookupsDeps {
  schema: () => SchemaOverview;
  items: ItemsService;
}

export type Row = Record<string, unknown>;

export class ItemLookups {
  constructor(private readonly deps: ItemLookupsDeps) {}

  /** A collection that items can point at (a key of one column); FORBIDDEN otherwise, as an unknown one is. */
  collection(name: unknown): CollectionOverview & { primary: string } {
    const found = typeof name === 'string' ? this.deps.schema().collections[name] : undefined;
    if (!found || !found.primary || !found.schema) throw new ForbiddenError();
    return found as CollectionOverview & { primary: string };
  }

  /**
   * The item as `query` reads it for `accountability` (FORBIDDEN when it may not, or the item does not exist);
   * `system` false reads as /items does, where the service_* tables are closed.
   */
  async item(
    collection: string,
    key: string,
    query: Query,
    accountability: Accountability,
    system = this.collection(collection).system,
  ): Promise<Row> {
    const read = await this.deps.items.rowsOne(collection, key, query, accountability, NO_MARKS, { system });
    return read.data as Row;
  }

  /** FORBIDDEN unless `accountability` may read the item. */
  async assertReadable(collection: string, key: string, accountability: Accountability): Promise<void> {
    const target = this.collection(collection);
    if (accountability.admin) return void (await this.item(collection, key, { fields: [target.primary] }, SUDO));
    await this.item(collection, key, { fields: [target.primary] }, accountability);
  }

  /** The whole main item, whoever asks: what a version's hash is taken of. */
  async mainItem(collection: string, key: string): Promise<Row> {
    return this.item(collection, key, { fields: ['*'] }, SUDO);
  }

  /** The version rows matching `rule` (whole rows, full access). */
  async versions(rule: Record<string, unknown>, limit = -1): Promise<Row[]> {
    const read = await this.deps.items.rowsMany(
      'service_versions',
      { fields: ['*'], filter: parseFilter(rule), limit },
      SUDO,
      NO_MARKS,
      { system: true },
    );
    return read.data as Row[];
  }

  /** The names, emails and mail preferences of the users among `ids`, by lowercase id. */
  async users(ids: string[]): Promise<Map<string, Row>> {
    const read = await this.deps.items.rowsMany(
      'service_users',
      {
        fields: ['id', 'first_name', 'last_name', 'email', 'status', 'email_notifications'],
        filter: parseFilter({ id: { _in: ids } }),
        limit: -1,
      },
      SUDO,
      NO_MARKS,
      { system: true },
    );
    return new Map((read.data as Row[]).map((row) => [String(row.id).toLowerCase(), row]));
  }

  /** The ids of the users among `ids` that exist. */
  async existingUsers(ids: string[]): Promise<Set<string>> {
    const read = await this.deps.items.rowsMany(
      'service_users',
      { fields: ['id'], filter: parseFilter({ id: { _in: ids } }), limit: -1 },
      SUDO,
      NO_MARKS,
      { system: true },
    );
    return new Set((read.data as Row[]).map((row) => String(row.id).toLowerCase()));
  }
}
