/**
 * Output types of /graphql/system's schema objects (collections, fields, relations), their `meta` and `schema`
 * spelt out attribute by attribute as Directus does, so clients select `meta { icon }`. Free-form attributes
 * (options, translations, conditions, validation, defaults) are JSON.
 */
import {
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLOutputType,
} from 'graphql';
import { GraphQLJSON } from './scalars.js';

function object(name: string, fields: Record<string, GraphQLOutputType>): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    fields: Object.fromEntries(Object.entries(fields).map(([key, type]) => [key, { type }])),
  });
}

const S = GraphQLString;
const B = GraphQLBoolean;
const I = GraphQLInt;
const J = GraphQLJSON;

export const COLLECTION = object('service_collections', {
  collection: S,
  meta: object('service_collections_meta', {
    collection: S,
    icon: S,
    note: S,
    display_template: S,
    hidden: B,
    singleton: B,
    translations: J,
    archive_field: S,
    archive_app_filter: B,
    archive_value: S,
    unarchive_value: S,
    sort_field: S,
    accountability: S,
    color: S,
    item_duplication_fields: J,
    sort: I,
    group: S,
    collapse: S,
    preview_url: S,
    versioning: B,
  }),
  schema: object('service_collections_schema', { name: S, comment: S }),
});

export const FIELD = object('service_fields', {
  collection: S,
  field: S,
  type: S,
  meta: object('service_fields_meta', {
    id: I,
    collection: S,
    field: S,
    special: new GraphQLList(S),
    interface: S,
    options: J,
    display: S,
    display_options: J,
    readonly: B,
    hidden: B,
    sort: I,
    width: S,
    translations: J,
    note: S,
    conditions: J,
    required: B,
    group: S,
    validation: J,
    validation_message: S,
    searchable: B,
  }),
  schema: object('service_fields_schema', {
    name: S,
    table: S,
    data_type: S,
    default_value: J,
    max_length: I,
    numeric_precision: I,
    numeric_scale: I,
    is_generated: B,
    generation_expression: S,
    is_nullable: B,
    is_unique: B,
    is_indexed: B,
    is_primary_key: B,
    has_auto_increment: B,
    foreign_key_column: S,
    foreign_key_table: S,
    comment: S,
  }),
});

export const RELATION = object('service_relations', {
  collection: S,
  field: S,
  related_collection: S,
  meta: object('service_relations_meta', {
    id: I,
    many_collection: S,
    many_field: S,
    one_collection: S,
    one_field: S,
    one_collection_field: S,
    one_allowed_collections: new GraphQLList(S),
    junction_field: S,
    sort_field: S,
    one_deselect_action: S,
  }),
  schema: object('service_relations_schema', {
    table: S,
    column: S,
    foreign_key_table: S,
    foreign_key_column: S,
    constraint_name: S,
    on_update: S,
    on_delete: S,
  }),
});
