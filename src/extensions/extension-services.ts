/**
 * The services Directus hands extensions, over Strata's engine: `ItemsService(collection, { accountability })`
 * reads and writes as that caller (null or absent: an admin), through the same permissions, validation, audit trail
 * and hook events as REST. `directus_*` names are Strata's `service_*` collections. Each write is its own transaction
 * (Directus's `knex` option, to join a caller's transaction, is not taken: see docs/extensions.md).
 */
import type { AppContext } from '../app/app-context.js';
import { InvalidPayloadError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import { parseQuery } from '../request/parse-query.js';
import type { Query } from '../request/query.js';
import type { Payload } from '../request/write-body.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../schema/system-meta.js';

const ADMIN: Accountability = { user: null, role: null, roles: [], policies: [], admin: true, app: true, ip: null };

export interface ServiceOptions {
  accountability?: Accountability | null;
  schema?: unknown;
  knex?: unknown;
}

type Key = string | number;

/** Directus's ItemsService over one app context's engine. */
class EngineItemsService {
  readonly collection: string;
  readonly accountability: Accountability | null;
  private readonly queryOptions: { queryLimitMax: number; maxRelationalDepth: number };

  constructor(
    private readonly context: AppContext,
    collection: string,
    options: ServiceOptions = {},
  ) {
    this.queryOptions = {
      queryLimitMax: context.config.queryLimitMax,
      maxRelationalDepth: context.config.maxRelationalDepth,
    };
    this.collection = collection.startsWith('directus_') ? `service_${collection.slice(9)}` : collection;
    this.accountability = options.accountability ?? null;
  }

  async readByQuery(query: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
    const read = await this.context.items.rowsMany(this.collection, this.query(query), this.who(), undefined, {
      system: this.system(),
    });
    return read.data as Record<string, unknown>[];
  }

  async readOne(key: Key, query: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const read = await this.context.items.rowsOne(
      this.collection,
      String(key),
      this.query(query),
      this.who(),
      undefined,
      {
        system: this.system(),
      },
    );
    return read.data as Record<string, unknown>;
  }

  async readMany(keys: Key[], query: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
    const key = this.keyField();
    const filter = { _and: [{ [key]: { _in: keys } }, ...(query.filter ? [query.filter] : [])] };
    return this.readByQuery({ ...query, filter });
  }

  async createOne(data: Payload): Promise<Key> {
    return (await this.createMany([data]))[0]!;
  }

  async createMany(data: Payload[]): Promise<Key[]> {
    const target = await this.context.writer.open(this.collection, 'create', this.who(), this.writeOptions());
    const read = await this.context.writer.create(target, data, true, this.keysQuery());
    return this.keysOf(read?.data);
  }

  async updateOne(key: Key, data: Payload): Promise<Key> {
    const target = await this.context.writer.open(this.collection, 'update', this.who(), this.writeOptions());
    await this.context.writer.updateOne(target, String(key), data, this.keysQuery());
    return key;
  }

  async updateMany(keys: Key[], data: Payload): Promise<Key[]> {
    const target = await this.context.writer.open(this.collection, 'update', this.who(), this.writeOptions());
    await this.context.writer.updateMany(target, { kind: 'keys', keys: keys.map(String), data }, this.keysQuery());
    return keys;
  }

  async deleteOne(key: Key): Promise<Key> {
    await this.deleteMany([key]);
    return key;
  }

  async deleteMany(keys: Key[]): Promise<Key[]> {
    const target = await this.context.writer.open(this.collection, 'delete', this.who(), this.writeOptions());
    await this.context.writer.delete(target, { kind: 'keys', keys: keys.map(String) });
    return keys;
  }

  private who(): Accountability {
    return this.accountability ?? ADMIN;
  }

  private system(): boolean {
    return ITEM_SYSTEM_COLLECTIONS.has(this.collection);
  }

  private writeOptions() {
    return { system: this.system(), reread: 'rows' as const };
  }

  private query(raw: Record<string, unknown>): Query {
    if (!raw || typeof raw !== 'object') throw new InvalidPayloadError('A query must be an object');
    const plain: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(raw))
      plain[k] =
        (k === 'filter' || k === 'deep' || k === 'alias') && v && typeof v === 'object' ? JSON.stringify(v) : v;
    return parseQuery(plain, this.queryOptions);
  }

  private keyField(): string {
    const key = this.context.schema.current.collections[this.collection]?.keyFields[0];
    if (!key) throw new InvalidPayloadError(`Collection "${this.collection}" has no primary key`);
    return key;
  }

  private keysQuery(): Query {
    return { fields: [this.keyField()] } as Query;
  }

  private keysOf(data: unknown): Key[] {
    const key = this.keyField();
    return Array.isArray(data) ? data.map((row: Record<string, unknown>) => row[key] as Key) : [];
  }
}

/** The service classes of one app context. */
export function extensionServices(context: AppContext) {
  class ItemsService extends EngineItemsService {
    constructor(collection: string, options: ServiceOptions = {}) {
      super(context, collection, options);
    }
  }

  class UsersService extends ItemsService {
    constructor(options: ServiceOptions = {}) {
      super('service_users', options);
    }
  }

  class FilesService extends ItemsService {
    constructor(options: ServiceOptions = {}) {
      super('service_files', options);
    }
  }

  class RolesService extends ItemsService {
    constructor(options: ServiceOptions = {}) {
      super('service_roles', options);
    }
  }

  return { ItemsService, UsersService, FilesService, RolesService };
}
