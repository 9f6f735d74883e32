/**
 * Rows the database changes by itself when rows are deleted: foreign keys declared `ON DELETE CASCADE` delete the
 * rows that refer to them (and so on down), `ON DELETE SET NULL` / `SET DEFAULT` rewrite their foreign key. No
 * statement of Strata names those rows, so their change events are found before the delete runs, inside its
 * transaction: per relation whose constraint has such a rule, one select of the dependent rows' keys (cut only at
 * the driver's parameter limit), level by level while a cascade deletes new rows. See docs/design/realtime-fan-out.md.
 */
import type { Executor } from '../../db/connection.js';
import type { Key } from '../../plan/mutation-plan.js';
import { hasCompositeKey } from '../../plan/row-key.js';
import type { ChangeRecorder } from './change-events.js';
import type { CollectionOverview, RelationOverview, SchemaOverview } from '../../schema/types.js';
import { compileDependentLookups, type WriteHooks } from '../../sql/write-compiler.js';
import { keyColumnsOf, keyOfLookup, keyValuesOf } from './write-lookups.js';

type Rule = 'delete' | 'update';

/** What a relation's constraint does to the referring rows when a referred row is deleted (null: nothing). */
function ruleOf(relation: RelationOverview): Rule | null {
  const action = relation.schema?.on_delete?.toUpperCase();
  if (action === 'CASCADE') return 'delete';
  if (action === 'SET NULL' || action === 'SET DEFAULT') return 'update';
  return null;
}

interface Dependent {
  child: CollectionOverview;
  relation: RelationOverview & { schema: NonNullable<RelationOverview['schema']> };
  rule: Rule;
}

/** The relations whose rows refer to `parent`'s table with a rule, each with the collection its rows belong to. */
function dependentsOf(schema: SchemaOverview, parent: CollectionOverview): Dependent[] {
  const table = parent.schema?.name;
  if (!table) return [];
  const byTable = new Map(
    Object.values(schema.collections)
      .filter((c) => c.schema && !c.view)
      .map((c) => [c.schema!.name, c]),
  );
  const found: Dependent[] = [];
  for (const relation of schema.relations) {
    const rule = ruleOf(relation);
    if (!rule || !relation.schema || relation.schema.foreign_key_table !== table) continue;
    const child = byTable.get(relation.schema.table);
    // Rows without a key cannot be named in an event.
    if (!child || child.keyFields.length === 0 || !child.fields[relation.schema.column]?.schema) continue;
    found.push({ child, relation: relation as Dependent['relation'], rule });
  }
  return found;
}

/**
 * Records the rows the deletion of `keys` of `collection` will delete or rewrite through the database's rules.
 * Call before the delete runs (the rows are read as they still are); `keys` themselves are recorded as deleted too.
 */
export async function recordCascades(
  tx: Executor,
  schema: SchemaOverview,
  hooks: WriteHooks,
  changes: ChangeRecorder,
  collection: CollectionOverview,
  keys: readonly Key[],
): Promise<void> {
  if (keys.length === 0 || !schema.relations.some((r) => ruleOf(r) !== null)) return;
  const deleted = new Map<string, { collection: CollectionOverview; keys: Map<string, Key> }>();
  const updated = new Map<string, { collection: CollectionOverview; keys: Map<string, Key> }>();
  const add = (into: typeof deleted, child: CollectionOverview, key: Key): boolean => {
    const entry = into.get(child.collection) ?? { collection: child, keys: new Map<string, Key>() };
    into.set(child.collection, entry);
    if (entry.keys.has(String(key))) return false;
    entry.keys.set(String(key), key);
    return true;
  };
  for (const key of keys) add(deleted, collection, key);

  // Each level: the rows deleted at the level above, per collection; stops when a level deletes no new row (a
  // self-referencing cascade ends at the leaves, a cycle at the rows already seen).
  let level: { collection: CollectionOverview; keys: Key[] }[] = [{ collection, keys: [...keys] }];
  while (level.length > 0) {
    const next = new Map<string, { collection: CollectionOverview; keys: Key[] }>();
    for (const parent of level) {
      for (const { child, relation, rule } of dependentsOf(schema, parent.collection)) {
        const referencedName = relation.schema.foreign_key_column;
        const byKey = !hasCompositeKey(parent.collection) && referencedName === parent.collection.primary;
        const referenced = byKey ? null : (parent.collection.fields[referencedName] ?? null);
        if (!byKey && !referenced) continue;
        for (const statement of compileDependentLookups(
          relation.schema.table,
          keyColumnsOf(child),
          child.fields[relation.schema.column]!,
          { table: parent.collection.schema!.name, keyField: keyColumnsOf(parent.collection), referenced },
          keyValuesOf(parent.collection, parent.keys),
          hooks,
        )) {
          for (const row of await tx.query(statement.sql, statement.params)) {
            const key = keyOfLookup(child, row);
            if (key === null) continue;
            if (rule === 'update') add(updated, child, key);
            else if (add(deleted, child, key)) {
              const entry = next.get(child.collection) ?? { collection: child, keys: [] };
              entry.keys.push(key);
              next.set(child.collection, entry);
            }
          }
        }
      }
    }
    level = [...next.values()];
  }

  for (const { collection: child, keys: found } of updated.values()) {
    // A row both rewritten and deleted (by another path of the cascade) is gone: only its delete is announced.
    const gone = deleted.get(child.collection)?.keys;
    changes.record(
      child.collection,
      'update',
      [...found].filter(([id]) => !gone?.has(id)).map(([, key]) => key),
    );
  }
  for (const { collection: child, keys: found } of deleted.values())
    changes.record(child.collection, 'delete', [...found.values()]);
}
