/**
 * What a read rule on the audit trail grants a non-admin. Revisions are judged item by item where they are read
 * (engine/read/revision-access.ts: readable items only, hidden fields stripped from `data` and `delta`); a relation
 * that reaches revisions from elsewhere (an activity's `revisions`, a revision's `parent`) would skip that judging
 * and show other items' data, so no rule grants it: reading, filtering or sorting by it is FORBIDDEN, on REST and
 * GraphQL alike. Admins have no rules and read everything.
 */
import type { PermissionRule } from './permission-rule.js';

/** The collection's columns (neither is extensible), and the relation no rule grants. */
const AUDIT_READS: ReadonlyMap<string, { columns: string[]; withheld: string }> = new Map([
  [
    'service_activity',
    {
      columns: ['id', 'action', 'user', 'timestamp', 'ip', 'user_agent', 'collection', 'item', 'origin'],
      withheld: 'revisions',
    },
  ],
  ['service_revisions', { columns: ['id', 'activity', 'collection', 'item', 'data', 'delta'], withheld: 'parent' }],
]);

export function auditReadRule(rule: PermissionRule): PermissionRule {
  const audit = rule.action === 'read' ? AUDIT_READS.get(rule.collection) : undefined;
  if (!audit) return rule;
  const fields = rule.fields === '*' ? audit.columns : rule.fields.filter((name) => name !== audit.withheld);
  return { ...rule, fields };
}
