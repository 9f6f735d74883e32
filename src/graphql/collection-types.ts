/**
 * The GraphQL types of the collections one caller may see (Directus docs: GraphQL): the read object type (named as the
 * collection), `<c>_filter` / `<c>_quantifier_filter`, `<c>_aggregated*`, `create_<c>_input` / `update_<c>_input`,
 * and the m2a unions. One TypeSet serves /graphql and /graphql/system alike, so relations cross between user and
 * system data. Each field carries `extensions.strata` saying what it reads, for the selection → Query IR walk.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  GraphQLUnionType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';
import { readable, type AccessView, type CollectionView } from './access-view.js';
import { FUNCTION_TYPES, filterOperatorsFor, functionKindFor } from './filter-operators.js';
import { anyItemResolver, byResponseKey, functionResolver, ITEM_TYPE, keyListResolver } from './field-resolvers.js';
import { GraphQLBigInt, GraphQLDate, GraphQLGeoJSON, GraphQLHash, GraphQLJSON } from './scalars.js';

/** What a field of a collection type reads. */
export type FieldRead =
  | { kind: 'value'; field: string }
  | { kind: 'func'; field: string }
  | { kind: 'm2o' | 'o2m'; field: string; related: string; relatedPrimary: string | null }
  | { kind: 'any'; field: string; collectionField: string };

/** How a filter input field maps onto the Directus filter grammar. */
export type FilterKey = { kind: 'nested' } | { kind: 'rename'; to: string } | { kind: 'func'; field: string };

const NUMERIC = new Set(['integer', 'bigInteger', 'float', 'decimal']);

export function scalarFor(field: FieldOverview): GraphQLOutputType & GraphQLInputType {
  if (field.primaryKey || field.type === 'uuid') return GraphQLID;
  switch (field.type) {
    case 'integer':
      return GraphQLInt;
    case 'bigInteger':
      return GraphQLBigInt;
    case 'float':
    case 'decimal':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    case 'date':
    case 'time':
    case 'dateTime':
    case 'timestamp':
      return GraphQLDate;
    case 'json':
      return GraphQLJSON;
    case 'csv':
      return new GraphQLList(GraphQLString);
    case 'geometry':
      return GraphQLGeoJSON;
    case 'hash':
      return GraphQLHash;
    default:
      return GraphQLString;
  }
}

export const QUERY_ARGS = (filter: GraphQLInputType): GraphQLFieldConfigArgumentMap => ({
  filter: { type: filter },
  sort: { type: new GraphQLList(GraphQLString) },
  limit: { type: GraphQLInt },
  offset: { type: GraphQLInt },
  page: { type: GraphQLInt },
  search: { type: GraphQLString },
});

export class TypeSet {
  private readonly objects = new Map<string, GraphQLObjectType>();
  private readonly filters = new Map<string, GraphQLInputObjectType>();
  private readonly quantifiers = new Map<string, GraphQLInputObjectType>();
  private readonly aggregates = new Map<string, GraphQLObjectType>();
  private readonly inputs = new Map<string, GraphQLInputObjectType>();
  private readonly unions = new Map<string, GraphQLUnionType>();
  private readonly versions = new Map<string, GraphQLObjectType>();

  constructor(
    readonly view: AccessView,
    /** The caller is an admin: the schema mutations show. */
    readonly admin: boolean,
  ) {}

  /** The view of a collection the caller may read (undefined for one it may only write, or not at all). */
  collectionView(name: string): CollectionView | undefined {
    const view = this.view.get(name);
    return view?.read ? view : undefined;
  }

  /** Whether the caller may read `name`: its object type, filter and aggregates exist, relations to it show. */
  readable(name: string): boolean {
    return readable(this.view, name);
  }

  object(name: string): GraphQLObjectType {
    let type = this.objects.get(name);
    if (type) return type;
    const view = this.view.get(name)!;
    type = new GraphQLObjectType({
      name: view.typeName,
      fields: () => this.objectFields(view),
      extensions: { strata: { collection: name } },
    });
    this.objects.set(name, type);
    return type;
  }

  private objectFields(view: CollectionView): GraphQLFieldConfigMap<any, unknown> {
    const { collection } = view;
    const fields: GraphQLFieldConfigMap<any, unknown> = {};
    for (const name of view.fields) {
      const field = collection.fields[name]!;
      const link = collection.links[name];
      if (link?.kind === 'm2o' || link?.kind === 'o2m') {
        if (!this.readable(link.related)) continue;
        const related = this.object(link.related);
        const relatedPrimary = this.view.get(link.related)!.collection.primary;
        fields[name] = {
          type: link.kind === 'm2o' ? related : new GraphQLList(related),
          args: QUERY_ARGS(this.filter(link.related)),
          resolve: link.kind === 'o2m' && relatedPrimary ? keyListResolver(relatedPrimary) : byResponseKey,
          extensions: {
            strata: { kind: link.kind, field: name, related: link.related, relatedPrimary } satisfies FieldRead,
          },
        };
      } else if (link?.kind === 'a2o') {
        const union = this.union(collection, name, link.allowed);
        if (!union) continue;
        fields[name] = {
          type: union,
          resolve: anyItemResolver,
          extensions: {
            strata: { kind: 'any', field: name, collectionField: link.collectionField } satisfies FieldRead,
          },
        };
      } else if (field.schema) {
        fields[name] = {
          type: name === collection.primary && !collection.singleton ? new GraphQLNonNull(GraphQLID) : scalarFor(field),
          extensions: { strata: { kind: 'value', field: name } satisfies FieldRead },
        };
      }
      const fn = field.schema || link?.kind === 'o2m' ? functionKindFor(field.type, link?.kind === 'o2m') : null;
      if (fn && (link?.kind !== 'o2m' || fields[name])) {
        fields[`${name}_func`] = {
          type: FUNCTION_TYPES[fn].output,
          resolve: functionResolver,
          extensions: { strata: { kind: 'func', field: name } satisfies FieldRead },
        };
      }
    }
    return fields;
  }

  /**
   * `version_<c>`: an item as of a content version (`<c>_by_version`), as Directus types it: the values of the
   * collection's fields, relational ones as JSON (their keys, as the version holds them).
   */
  versioned(name: string): GraphQLObjectType {
    let type = this.versions.get(name);
    if (type) return type;
    const view = this.view.get(name)!;
    const { collection } = view;
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const field of view.fields) {
      const overview = collection.fields[field]!;
      if (collection.links[field]) fields[field] = { type: GraphQLJSON };
      else if (overview.schema)
        fields[field] = { type: field === collection.primary ? new GraphQLNonNull(GraphQLID) : scalarFor(overview) };
    }
    type = new GraphQLObjectType({ name: `version_${view.typeName}`, fields });
    this.versions.set(name, type);
    return type;
  }

  /** `<junction>_<field>_union` over the allowed collections the caller may read; null when none. */
  private union(collection: CollectionOverview, field: string, allowed: string[]): GraphQLUnionType | null {
    const key = `${collection.collection}.${field}`;
    if (this.unions.has(key)) return this.unions.get(key)!;
    const members = allowed.filter((name) => this.readable(name));
    if (!members.length) return null;
    const byType = new Map(members.map((name) => [name, this.view.get(name)!.typeName]));
    const union = new GraphQLUnionType({
      name: `${this.view.get(collection.collection)!.typeName}_${field}_union`,
      types: () => members.map((name) => this.object(name)),
      resolveType: (value: Record<symbol, string>) => byType.get(value[ITEM_TYPE]),
    });
    this.unions.set(key, union);
    return union;
  }

  filter(name: string): GraphQLInputObjectType {
    let type = this.filters.get(name);
    if (type) return type;
    const view = this.view.get(name)!;
    type = new GraphQLInputObjectType({
      name: `${view.typeName}_filter`,
      fields: () => this.filterFields(view, type!),
    });
    this.filters.set(name, type);
    return type;
  }

  private filterFields(view: CollectionView, self: GraphQLInputObjectType): GraphQLInputFieldConfigMap {
    const { collection } = view;
    const fields: GraphQLInputFieldConfigMap = {};
    const nested: FilterKey = { kind: 'nested' };
    for (const name of view.fields) {
      const field = collection.fields[name]!;
      const link = collection.links[name];
      if (link?.kind === 'm2o') {
        if (this.readable(link.related))
          fields[name] = { type: this.filter(link.related), extensions: { strata: nested } };
      } else if (link?.kind === 'o2m') {
        if (this.readable(link.related)) {
          fields[name] = { type: this.quantifier(link.related), extensions: { strata: nested } };
          fields[`${name}_func`] = {
            type: FUNCTION_TYPES.count.filter,
            extensions: { strata: { kind: 'func', field: name } satisfies FilterKey },
          };
        }
        continue;
      } else if (link?.kind === 'a2o') {
        for (const target of link.allowed) {
          if (this.readable(target))
            fields[`${name}__${target}`] = {
              type: this.filter(target),
              extensions: { strata: { kind: 'rename', to: `${name}:${target}` } satisfies FilterKey },
            };
        }
        continue;
      } else if (field.schema) {
        const operators = filterOperatorsFor(field.type, field.primaryKey);
        if (operators) fields[name] = { type: operators };
      }
      const fn = field.schema ? functionKindFor(field.type, false) : null;
      if (fn)
        fields[`${name}_func`] = {
          type: FUNCTION_TYPES[fn].filter,
          extensions: { strata: { kind: 'func', field: name } satisfies FilterKey },
        };
    }
    fields._and = { type: new GraphQLList(self), extensions: { strata: nested } };
    fields._or = { type: new GraphQLList(self), extensions: { strata: nested } };
    return fields;
  }

  /** o2m filters: the related collection's filter plus `_some` / `_none`. */
  private quantifier(name: string): GraphQLInputObjectType {
    let type = this.quantifiers.get(name);
    if (type) return type;
    const view = this.view.get(name)!;
    const base = this.filter(name);
    type = new GraphQLInputObjectType({
      name: `${view.typeName}_quantifier_filter`,
      fields: () => ({
        ...Object.fromEntries(
          Object.entries(base.getFields()).map(([key, f]) => [key, { type: f.type, extensions: f.extensions }]),
        ),
        _some: { type: base, extensions: { strata: { kind: 'nested' } } },
        _none: { type: base, extensions: { strata: { kind: 'nested' } } },
      }),
    });
    this.quantifiers.set(name, type);
    return type;
  }

  aggregated(name: string): GraphQLObjectType {
    let type = this.aggregates.get(name);
    if (type) return type;
    const view = this.view.get(name)!;
    const valueFields = view.fields.filter((f) => view.collection.fields[f]!.schema);
    const count = new GraphQLObjectType({
      name: `${view.typeName}_aggregated_count`,
      fields: Object.fromEntries(valueFields.map((f) => [f, { type: GraphQLInt }])),
    });
    const numeric = valueFields.filter((f) => NUMERIC.has(view.collection.fields[f]!.type));
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {
      group: { type: GraphQLJSON },
      countAll: { type: GraphQLInt },
      count: { type: count },
      countDistinct: { type: count },
    };
    if (numeric.length) {
      const values = new GraphQLObjectType({
        name: `${view.typeName}_aggregated_fields`,
        fields: Object.fromEntries(numeric.map((f) => [f, { type: GraphQLFloat }])),
      });
      for (const fn of ['avg', 'sum', 'avgDistinct', 'sumDistinct', 'min', 'max']) fields[fn] = { type: values };
    }
    type = new GraphQLObjectType({ name: `${view.typeName}_aggregated`, fields });
    this.aggregates.set(name, type);
    return type;
  }

  /** `create_<c>_input` / `update_<c>_input`: relational fields take nested inputs of the same kind, m2a items JSON. */
  input(name: string, kind: 'create' | 'update'): GraphQLInputObjectType {
    const key = `${kind}:${name}`;
    let type = this.inputs.get(key);
    if (type) return type;
    const view = this.view.get(name)!;
    type = new GraphQLInputObjectType({
      name: `${kind}_${view.typeName}_input`,
      fields: () => this.inputFields(view, kind),
    });
    this.inputs.set(key, type);
    return type;
  }

  /**
   * The fields the caller's rules let it write: `create_<c>_input` the create rule's, `update_<c>_input` (also the
   * type of nested rows, which may be created or updated) the create and update rules' together, plus the key that
   * names a row. The writer still checks every row against the rule of what it does to it.
   */
  private writable(view: CollectionView, kind: 'create' | 'update'): (name: string) => boolean {
    const { create, update } = view.writeFields;
    if (kind === 'create') return (name) => create === null || create.has(name);
    if (create === null || update === null) return () => true;
    return (name) => view.collection.keyFields.includes(name) || create.has(name) || update.has(name);
  }

  private inputFields(view: CollectionView, kind: 'create' | 'update'): GraphQLInputFieldConfigMap {
    const all = this.inputFieldsWhere(view, kind, this.writable(view, kind));
    // An input type needs a field; one the rules leave empty still names every field (the writer refuses them).
    return Object.keys(all).length ? all : this.inputFieldsWhere(view, kind, () => true);
  }

  private inputFieldsWhere(
    view: CollectionView,
    kind: 'create' | 'update',
    writable: (name: string) => boolean,
  ): GraphQLInputFieldConfigMap {
    const { collection } = view;
    const fields: GraphQLInputFieldConfigMap = {};
    for (const name of collection.fieldOrder) {
      if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(name) || name.startsWith('__') || !writable(name)) continue;
      const field = collection.fields[name]!;
      const link = collection.links[name];
      if (link?.kind === 'm2o' || link?.kind === 'o2m') {
        // Related collections the caller may write, even without reading them (the writer checks every nested row).
        if (!this.view.has(link.related)) continue;
        // Nested rows may be existing ones named by their key (as in REST), so nothing is required below the top.
        const related = this.input(link.related, 'update');
        fields[name] = { type: link.kind === 'm2o' ? related : new GraphQLList(related) };
      } else if (link?.kind === 'a2o') {
        fields[name] = { type: GraphQLJSON };
      } else if (field.schema) {
        const scalar = scalarFor(field);
        const required =
          kind === 'create' &&
          !field.nullable &&
          !field.schema.has_auto_increment &&
          field.schema.default_value === null &&
          !field.special.length;
        fields[name] = { type: required ? new GraphQLNonNull(scalar) : scalar };
      }
    }
    return fields;
  }
}

export type RootField = GraphQLFieldConfig<unknown, unknown>;
