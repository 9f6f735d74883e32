/** One permission row of a policy, parsed: what the store caches and the planner applies (Directus docs: Access control). */
import type { FilterNode } from '../request/query.js';

export type PermissionAction = 'create' | 'read' | 'update' | 'delete' | 'share';

export interface PermissionRule {
  policy: string;
  collection: string;
  action: PermissionAction;
  /** Field names, or '*' for all. */
  fields: string[] | '*';
  /** Item rule; null = every item. A rule that cannot be parsed matches nothing (`false`). */
  permissions: FilterNode | null | false;
  validation: FilterNode | null;
  /** The validation rule as stored (evaluated against payloads, with its variables resolved per request). */
  rawValidation?: Record<string, unknown> | null;
  presets: Record<string, unknown> | null;
}
