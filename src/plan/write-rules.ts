/**
 * A non-admin's permission rules applied to one planned row (Directus docs: Access control; the order of checks is that of Directus):
 * a rule for the action must exist (else FORBIDDEN, as for an unknown collection), the payload may only name fields
 * the rules grant (else FORBIDDEN naming the field, as for an unknown one), presets are merged under the payload,
 * and the rules' validation filters must hold (FAILED_VALIDATION). Item rules are checked where the rows are looked
 * up (engine/write/write-lookups.ts, their filters), and their answers applied in plan/write-resolution.ts. Admins skip
 * all of this.
 */
import { collectionForbidden, FailedValidationError, fieldForbidden } from '../errors/catalogue.js';
import type { CollectionOverview } from '../schema/types.js';
import type { Payload } from '../request/write-body.js';
import { emptyRecord } from '../request/prototype-keys.js';
import type { RowWrite } from './mutation-plan.js';
import { isKeyField } from './row-key.js';
import { evaluate } from './validation.js';
import type { WriteAction, WriteRules } from './write-access.js';
import { setValue, where, type Planning, type WriteContext } from './write-context.js';

/** Fields only admins may write, whatever a policy grants (static tokens). */
const ADMIN_ONLY_FIELDS: Record<string, string[]> = { service_users: ['token'] };

/**
 * The caller's rules for `action` on `collection`: null for admins (no restriction); FORBIDDEN when the caller has
 * no rule for it.
 */
export function rulesFor(ctx: WriteContext, collection: CollectionOverview, action: WriteAction): WriteRules | null {
  if (ctx.accountability.admin) return null;
  const rules = ctx.access?.rules(collection, action);
  if (!rules) throw collectionForbidden(collection.collection);
  return rules;
}

/** FORBIDDEN unless `field` may be written under `rules` (null rules: an admin). */
export function checkField(
  ctx: WriteContext,
  rules: WriteRules | null,
  collection: CollectionOverview,
  field: string,
  path: (string | number)[],
): void {
  if (ctx.accountability.admin) return;
  if (ctx.serviceFields?.collection === collection.collection && ctx.serviceFields.fields.has(field)) return;
  if (ADMIN_ONLY_FIELDS[collection.collection]?.includes(field))
    throw fieldForbidden(field, collection.collection, where(path));
  if (rules && rules.fields !== '*' && !rules.fields.has(field))
    throw fieldForbidden(field, collection.collection, where(path));
}

/** Checks, presets and validation of the caller's rules for a row whose action is known. */
export function applyRules(planning: Planning, row: RowWrite, action: 'create' | 'update', payload: Payload): void {
  const { ctx } = planning;
  if (ctx.accountability.admin) return;
  const { collection } = row;
  const rules = rulesFor(ctx, collection, action);
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined || (action === 'update' && isKeyField(collection, name))) continue;
    checkField(ctx, rules, collection, name, row.path);
  }
  // An o2m child's foreign key is written by linking it to its parent.
  if (row.filledByParent) checkField(ctx, rules, collection, row.filledByParent, row.path);
  if (!rules) return;
  const merged: Payload = Object.assign(emptyRecord(), rules.presets);
  for (const [name, value] of Object.entries(payload)) if (value !== undefined) merged[name] = value;
  for (const [name, value] of Object.entries(rules.presets)) {
    if (payload[name] !== undefined) continue;
    presetValue(planning, row, name, value);
  }
  for (const rule of rules.validation) {
    for (const failure of evaluate(rule, merged)) {
      planning.errors.push(
        new FailedValidationError(failure.field, row.path, failure.type, failure.detail, failure.extra),
      );
    }
  }
}

/** A preset for a plain column the payload leaves out (relational and alias presets are not Directus's either). */
function presetValue(planning: Planning, row: RowWrite, name: string, value: unknown): void {
  const { collection } = row;
  const field = collection.fields[name];
  if (
    !field?.schema ||
    field.schema.is_generated ||
    isKeyField(collection, name) ||
    collection.links[name]?.kind === 'o2m'
  )
    return;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && field.type !== 'json') return;
  setValue(planning, row, field, value);
}
