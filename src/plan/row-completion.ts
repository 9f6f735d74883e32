/**
 * The last step of planning a row whose action is known (create or update): special flags fill their values (uuid,
 * dates, user and role of the caller), then required and non-nullable fields are checked.
 */
import type { Key, RowWrite } from './mutation-plan.js';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';
import { isRequired, nullError, refusesNull, requiredError } from './validation.js';
import { refuseValue, type Planning } from './write-context.js';
import { specialValue } from './write-specials.js';
import { writeValue, WriteValueProblem } from './write-values.js';

/**
 * Once a row's action is known: the values of special flags, then the required and non-nullable checks. Upserts
 * come here when the draft is resolved, once the lookup of their key has told create from update.
 */
export function completeRow(planning: Planning, row: RowWrite, action: 'create' | 'update'): void {
  row.action = action;
  const { collection } = row;
  const sources = planning.ctx;
  const { special, checked } = fieldsToComplete(collection);
  for (const field of special) {
    const name = field.field;
    if (field.primaryKey && row.key !== null) continue;
    const given = specialValue(field, action, row.values[name], sources);
    if (given === undefined) continue;
    try {
      const logical = writeValue(
        collection,
        field,
        given instanceof Date && !['date', 'dateTime', 'timestamp', 'time'].includes(field.type)
          ? given.toISOString()
          : given,
        row.path,
      );
      row.values[name] = logical;
      if (field.primaryKey) row.key = logical as Key;
    } catch (error) {
      if (!(error instanceof WriteValueProblem)) throw error;
      refuseValue(planning, row, name, error.error);
    }
  }
  const refused = planning.refused.get(row);
  for (const field of checked) {
    const name = field.field;
    const value = row.values[name];
    if (value !== null && (value !== undefined || action !== 'create')) continue;
    if (name === row.filledByParent || row.parents.some((parent) => parent.field === name)) continue;
    if (refused?.has(name)) continue;
    if (value === null && refusesNull(field)) planning.errors.push(nullError(name, row.path));
    else if (
      action === 'create' &&
      value === undefined &&
      isRequired(field) &&
      !(field.primaryKey && row.key !== null)
    ) {
      planning.errors.push(requiredError(name, row.path));
    }
  }
}

/** Per collection (the schema is immutable): the columns with special flags, and those a create or a null can fail. */
const completion = new WeakMap<CollectionOverview, { special: FieldOverview[]; checked: FieldOverview[] }>();

function fieldsToComplete(collection: CollectionOverview): { special: FieldOverview[]; checked: FieldOverview[] } {
  let found = completion.get(collection);
  if (!found) {
    const fields = collection.fieldOrder
      .map((name) => collection.fields[name]!)
      .filter((field) => field.schema && !field.schema.is_generated);
    found = {
      special: fields.filter((field) => field.special.length > 0),
      checked: fields.filter((field) => isRequired(field) || refusesNull(field)),
    };
    completion.set(collection, found);
  }
  return found;
}
