/**
 * Special flags that give values on write (Directus docs: Field types): `uuid` keys on create, `date-created` / `date-updated`,
 * `user-created` / `user-updated`, `role-created` / `role-updated`. (`hash` is applied by the executor before the
 * transaction, `cast-*` and `conceal` are types the value coercion and the reads already know.)
 */
import type { Accountability } from '../permissions/accountability.js';
import type { FieldOverview } from '../schema/types.js';

export interface SpecialSources {
  accountability: Accountability;
  now: Date;
  uuid: () => string;
}

/** The value a special gives this field on this action, or undefined when none applies. */
export function specialValue(
  field: FieldOverview,
  action: 'create' | 'update',
  current: unknown,
  sources: SpecialSources,
): unknown {
  for (const special of field.special) {
    if (action === 'create') {
      // Only keys: `uuid` also types uuid columns on databases without a native type (foreign keys included).
      if (special === 'uuid' && field.primaryKey && (current === undefined || current === null || current === ''))
        return sources.uuid();
      if (special === 'date-created') return sources.now;
      if (special === 'user-created') return sources.accountability.user;
      if (special === 'role-created') return sources.accountability.role;
    } else {
      if (special === 'date-updated') return sources.now;
      if (special === 'user-updated') return sources.accountability.user;
      if (special === 'role-updated') return sources.accountability.role;
    }
  }
  return undefined;
}
