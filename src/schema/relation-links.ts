/**
 * RelationOverview rows → per-collection RelationalLinks (pure; part of building the overview). A relation whose
 * collections or columns do not exist is left out rather than failing the whole schema.
 */
import type { CollectionOverview, FieldOverview, RelationalLink, RelationOverview } from './types.js';

export function attachRelationalLinks(
  collections: Record<string, CollectionOverview>,
  relations: RelationOverview[],
): void {
  const hasColumn = (collection: string, field: string) => Boolean(collections[collection]?.fields[field]?.schema);
  const link = (collection: string, value: RelationalLink) => {
    collections[collection]!.links[value.field] = value;
  };

  for (const relation of relations) {
    const many = relation.collection;
    if (!hasColumn(many, relation.field)) continue;
    const meta = relation.meta;
    const one = relation.related_collection;

    if (one) {
      const oneCollection = collections[one];
      if (!oneCollection?.schema) continue;
      const relatedField = relation.schema?.foreign_key_column ?? oneCollection.primary;
      if (!relatedField || !hasColumn(one, relatedField)) continue;
      link(many, { kind: 'm2o', field: relation.field, related: one, relatedField });

      if (meta?.one_field) {
        ensureAliasField(oneCollection, meta.one_field);
        const junctionField =
          meta.junction_field && collections[many]!.fields[meta.junction_field] ? meta.junction_field : null;
        link(one, {
          kind: 'o2m',
          field: meta.one_field,
          related: many,
          relatedField: relation.field,
          localField: relatedField,
          junctionField,
          sortField: meta.sort_field && hasColumn(many, meta.sort_field) ? meta.sort_field : null,
          deselectAction: meta.one_deselect_action,
        });
      }
    } else if (meta?.one_collection_field && hasColumn(many, meta.one_collection_field)) {
      const allowed = (meta.one_allowed_collections ?? []).filter(
        (name) => collections[name]?.schema && collections[name]!.primary,
      );
      link(many, { kind: 'a2o', field: relation.field, collectionField: meta.one_collection_field, allowed });
    }
  }
}

/** An o2m `one_field` without a service_fields row still reads as an alias field, as Directus lists it. */
function ensureAliasField(collection: CollectionOverview, name: string): void {
  if (collection.fields[name]) return;
  const field: FieldOverview = {
    field: name,
    type: 'alias',
    special: ['o2m'],
    schema: null,
    meta: null,
    nullable: true,
    primaryKey: false,
    concealed: false,
    searchable: false,
  };
  collection.fields[name] = field;
  collection.fieldOrder.push(name);
}
