/**
 * Metadata as stored in service_fields / service_collections / service_relations: the inverse of the decoders in
 * schema/overview-builder.ts (special and allowed collections as CSV, objects and arrays as JSON text).
 */
import type { MetaInput } from '../input/field-input.js';
import type { CollectionMetaInput } from '../input/collection-input.js';
import type { RelationMetaInput } from '../input/relation-input.js';
import type { Row } from '../../db/connection.js';

const json = (value: unknown) => (value === null || value === undefined ? value : JSON.stringify(value));
const csv = (value: string[] | null | undefined) =>
  value === null || value === undefined ? value : value.length ? value.join(',') : null;

function withoutUndefined(row: Row): Row {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
}

/** Columns of a service_fields row for the given meta keys (keys not given are left out). */
export function fieldMetaRow(meta: MetaInput): Row {
  return withoutUndefined({
    special: csv(meta.special),
    interface: meta.interface,
    options: json(meta.options),
    display: meta.display,
    display_options: json(meta.display_options),
    readonly: meta.readonly,
    hidden: meta.hidden,
    sort: meta.sort,
    width: meta.width,
    translations: json(meta.translations),
    note: meta.note,
    conditions: json(meta.conditions),
    required: meta.required,
    group: meta.group,
    validation: json(meta.validation),
    validation_message: meta.validation_message,
    searchable: meta.searchable,
  });
}

export function collectionMetaRow(meta: CollectionMetaInput): Row {
  return withoutUndefined({
    icon: meta.icon,
    note: meta.note,
    display_template: meta.display_template,
    hidden: meta.hidden,
    singleton: meta.singleton,
    translations: json(meta.translations),
    archive_field: meta.archive_field,
    archive_app_filter: meta.archive_app_filter,
    archive_value: meta.archive_value,
    unarchive_value: meta.unarchive_value,
    sort_field: meta.sort_field,
    accountability: meta.accountability,
    color: meta.color,
    item_duplication_fields: json(meta.item_duplication_fields),
    sort: meta.sort,
    group: meta.group,
    collapse: meta.collapse,
    preview_url: meta.preview_url,
    versioning: meta.versioning,
  });
}

export function relationMetaRow(meta: RelationMetaInput): Row {
  return withoutUndefined({
    one_field: meta.one_field,
    one_collection_field: meta.one_collection_field,
    one_allowed_collections: csv(meta.one_allowed_collections),
    junction_field: meta.junction_field,
    sort_field: meta.sort_field,
    one_deselect_action: meta.one_deselect_action,
  });
}
