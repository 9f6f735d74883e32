/**
 * Content versions beyond their rows (Directus docs: Content versions): save changes to a version (merged into its
 * delta), read an item as of a version, compare a version with its main item, and promote it (its delta written to
 * the main item through the items write path, under the caller's rights). The rows themselves are read and written
 * as items of service_versions (with ContentGuard's checks).
 */
import { ForbiddenError, InvalidPayloadError, UnprocessableContentError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { Query } from '../../request/query.js';
import type { Payload } from '../../request/write-body.js';
import type { ItemsWriter } from '../write/items-writer.js';
import { MAIN_VERSION } from './content-guard.js';
import type { ItemLookups, Row } from './item-lookups.js';
import { SUDO, trusted } from './trusted.js';
import { itemHash } from './version-hash.js';

export interface VersionsServiceDeps {
  lookups: ItemLookups;
  writer: ItemsWriter;
}

/** What GET /versions/{id}/compare answers. */
export interface VersionComparison {
  outdated: boolean;
  mainHash: string;
  current: Row;
  main: Row;
}

interface VersionRow {
  id: string;
  key: string;
  collection: string;
  item: string;
  hash: string | null;
  delta: Row | null;
}

export class VersionsService {
  constructor(private readonly deps: VersionsServiceDeps) {}

  /** The version row, once the caller is known to may read it (FORBIDDEN otherwise). */
  private async version(id: string, accountability: Accountability): Promise<VersionRow> {
    await this.deps.lookups.item('service_versions', id, { fields: ['id'] }, accountability);
    const row = await this.deps.lookups.item('service_versions', id, { fields: ['*'] }, SUDO);
    return { ...(row as unknown as VersionRow), delta: deltaOf(row.delta) };
  }

  /** POST /versions/{id}/save: `changes` merged into the delta; answers the main item with the delta applied. */
  async save(id: string, changes: Payload, accountability: Accountability): Promise<Row> {
    const version = await this.version(id, accountability);
    const collection = this.deps.lookups.collection(version.collection);
    for (const field of Object.keys(changes))
      if (!collection.fields[field])
        throw new InvalidPayloadError(`Field "${field}" doesn't exist in collection "${version.collection}"`);
    // The caller must be able to read the main item, before anything is written.
    const main = await this.deps.lookups.item(version.collection, version.item, { fields: ['*'] }, accountability);
    const delta = Object.assign(Object.create(null) as Row, version.delta, changes);
    const sudo = trusted(accountability);
    const target = await this.deps.writer.open('service_versions', 'update', sudo, { system: true, reread: 'rows' });
    await this.deps.writer.updateOne(target, id, { delta }, { fields: ['id'] });
    return applied(main, delta);
  }

  /**
   * GET /items/{collection}/{key}?version=<key>: the item as `query` reads it, with the version's delta over it
   * (only over the fields the read returned: the caller's rights and `fields` decide what shows). `main` is the item
   * itself; an unknown version is FORBIDDEN, as an unknown item is. `system`: the service_* collections open (their
   * own routes and /graphql/system), as /items keeps them closed.
   */
  async readAs(
    collection: string,
    key: string,
    versionKey: string,
    query: Query,
    accountability: Accountability,
    system = false,
  ): Promise<Row> {
    const main = await this.deps.lookups.item(collection, key, query, accountability, system);
    if (versionKey === MAIN_VERSION) return main;
    const [version] = await this.deps.lookups.versions(
      { key: { _eq: versionKey }, collection: { _eq: collection }, item: { _eq: key } },
      1,
    );
    if (!version) throw new ForbiddenError();
    return applied(main, deltaOf(version.delta) ?? {});
  }

  /** GET /versions/{id}/compare. */
  async compare(id: string, accountability: Accountability): Promise<VersionComparison> {
    const version = await this.version(id, accountability);
    const main = await this.deps.lookups.item(version.collection, version.item, { fields: ['*'] }, accountability);
    const mainHash = itemHash(await this.deps.lookups.mainItem(version.collection, version.item));
    const current = Object.fromEntries(Object.entries(version.delta ?? {}).filter(([field]) => field in main));
    return { outdated: version.hash !== mainHash, mainHash, current, main };
  }

  /**
   * POST /versions/{id}/promote: the delta (or its `fields`) written to the main item as the caller's own update
   * would be, when `mainHash` is still the main item's. Answers the item's key. The version stays (Directus keeps
   * it; clients delete it when they are done with it).
   */
  async promote(
    id: string,
    { mainHash, fields }: { mainHash: string; fields: string[] | null },
    accountability: Accountability,
  ): Promise<string | number> {
    const version = await this.version(id, accountability);
    const collection = this.deps.lookups.collection(version.collection);
    if (!version.delta || Object.keys(version.delta).length === 0)
      throw new UnprocessableContentError('No changes to promote');
    if (itemHash(await this.deps.lookups.mainItem(version.collection, version.item)) !== mainHash)
      throw new UnprocessableContentError('Main item has changed since this version was last updated');
    const payload = fields
      ? Object.fromEntries(Object.entries(version.delta).filter(([field]) => fields.includes(field)))
      : version.delta;
    const target = await this.deps.writer.open(version.collection, 'update', accountability, {
      system: collection.system,
      reread: 'rows',
    });
    await this.deps.writer.updateOne(target, version.item, payload, { fields: [collection.primary] });
    const type = collection.fields[collection.primary]?.type;
    return type === 'integer' ? Number(version.item) : version.item;
  }
}

/** The stored delta as read (cast-json: the read engine hands it over as an object). */
function deltaOf(value: unknown): Row | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Row) : null;
}

/** The main item with the delta's values over the fields the item read holds. */
function applied(main: Row, delta: Row): Row {
  const out: Row = { ...main };
  for (const [field, value] of Object.entries(delta)) if (field in main) out[field] = value;
  return out;
}
