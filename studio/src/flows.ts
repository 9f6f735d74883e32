/**
 * What the flow editor knows about flows (Directus 11's shapes): the triggers and operation types with the options
 * each takes, and the order of a flow's operations (from its first, each one's success path before its failure path).
 * The options are only described here for the forms; the API checks and runs them.
 */

export interface Flow {
  id: string;
  name: string;
  icon: string | null;
  color: string | null;
  description: string | null;
  status: 'active' | 'inactive';
  trigger: string | null;
  accountability: string | null;
  options: Record<string, any> | null;
  operation: string | null;
}

export interface Operation {
  id: string;
  name: string | null;
  key: string;
  type: string;
  position_x: number;
  position_y: number;
  options: Record<string, any> | null;
  resolve: string | null;
  reject: string | null;
  flow: string;
}

/** One option of a trigger or an operation, as its form shows it. */
export interface OptionSpec {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'json' | 'number' | 'checkbox' | 'select' | 'multi' | 'headers' | 'keys';
  choices?: 'collections' | 'flows' | { value: string; label: string }[];
  note?: string;
}

const choices = (...values: string[]) => values.map((value) => ({ value, label: value }));
const PERMISSIONS: OptionSpec = {
  name: 'permissions',
  label: 'Permissions',
  kind: 'select',
  choices: [
    { value: '$trigger', label: 'Of whoever set the flow off' },
    { value: '$full', label: 'Full access' },
    { value: '$public', label: 'Public' },
  ],
};
const EMIT: OptionSpec = { name: 'emitEvents', label: 'Set off event flows', kind: 'checkbox' };
const COLLECTION: OptionSpec = { name: 'collection', label: 'Collection', kind: 'select', choices: 'collections' };
const KEY: OptionSpec = { name: 'key', label: 'Keys', kind: 'keys', note: 'Comma-separated; or a query below.' };
const QUERY: OptionSpec = { name: 'query', label: 'Query (JSON)', kind: 'json' };
const PAYLOAD: OptionSpec = { name: 'payload', label: 'Payload (JSON)', kind: 'json' };

export const TRIGGERS: { value: string; label: string; options: OptionSpec[] }[] = [
  {
    value: 'event',
    label: 'Event hook',
    options: [
      {
        name: 'type',
        label: 'Type',
        kind: 'select',
        choices: [
          { value: 'action', label: 'Action (after the change, at least once)' },
          { value: 'filter', label: 'Filter (inside the change, may refuse it)' },
        ],
      },
      {
        name: 'scope',
        label: 'Scope',
        kind: 'multi',
        choices: choices('items.create', 'items.update', 'items.delete'),
      },
      { name: 'collections', label: 'Collections', kind: 'multi', choices: 'collections' },
    ],
  },
  {
    value: 'webhook',
    label: 'Webhook',
    options: [
      { name: 'method', label: 'Method', kind: 'select', choices: choices('POST', 'GET') },
      { name: 'async', label: 'Answer at once (async)', kind: 'checkbox' },
      { name: 'return', label: 'Response body', kind: 'text', note: '$last (default), $all, or a key path.' },
    ],
  },
  {
    value: 'schedule',
    label: 'Schedule (cron)',
    options: [{ name: 'cron', label: 'Cron', kind: 'text', note: '5 fields, or 6 with seconds: */15 * * * *' }],
  },
  {
    value: 'manual',
    label: 'Manual',
    options: [
      { name: 'collections', label: 'Collections', kind: 'multi', choices: 'collections' },
      { name: 'location', label: 'Location', kind: 'select', choices: choices('item', 'collection', 'both') },
      { name: 'async', label: 'Answer at once (async)', kind: 'checkbox' },
    ],
  },
  { value: 'operation', label: 'Another flow (trigger operation)', options: [] },
];

export const OPERATION_TYPES: { value: string; label: string; options: OptionSpec[] }[] = [
  {
    value: 'condition',
    label: 'Condition',
    options: [{ name: 'filter', label: 'Filter (JSON)', kind: 'json', note: 'Rules over the data chain.' }],
  },
  {
    value: 'request',
    label: 'Webhook / request URL',
    options: [
      { name: 'method', label: 'Method', kind: 'select', choices: choices('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
      { name: 'url', label: 'URL', kind: 'text' },
      { name: 'headers', label: 'Headers', kind: 'headers', note: 'One a line: Name: value' },
      { name: 'body', label: 'Body', kind: 'textarea' },
    ],
  },
  { value: 'item-create', label: 'Create data', options: [COLLECTION, PAYLOAD, PERMISSIONS, EMIT] },
  { value: 'item-read', label: 'Read data', options: [COLLECTION, KEY, QUERY, PERMISSIONS] },
  { value: 'item-update', label: 'Update data', options: [COLLECTION, KEY, QUERY, PAYLOAD, PERMISSIONS, EMIT] },
  { value: 'item-delete', label: 'Delete data', options: [COLLECTION, KEY, QUERY, PERMISSIONS, EMIT] },
  { value: 'log', label: 'Log to console', options: [{ name: 'message', label: 'Message', kind: 'textarea' }] },
  { value: 'transform', label: 'Transform payload', options: [{ name: 'json', label: 'JSON', kind: 'json' }] },
  {
    value: 'trigger',
    label: 'Trigger flow',
    options: [
      { name: 'flow', label: 'Flow', kind: 'select', choices: 'flows' },
      PAYLOAD,
      { name: 'iterationMode', label: 'Iteration', kind: 'select', choices: choices('serial', 'parallel') },
    ],
  },
  { value: 'sleep', label: 'Sleep', options: [{ name: 'milliseconds', label: 'Milliseconds', kind: 'number' }] },
];

export const triggerLabel = (value: string | null) => TRIGGERS.find((t) => t.value === value)?.label ?? value ?? '—';
export const typeLabel = (value: string) => OPERATION_TYPES.find((t) => t.value === value)?.label ?? value;

/** Where an operation sits: first, or after another one on its success or failure. */
export interface Placed {
  op: Operation;
  depth: number;
  after: { parent: Operation; path: 'resolve' | 'reject' } | null;
}

/** The operations from the first, depth first (success before failure); ones linked from nowhere come last. */
export function inOrder(flow: Pick<Flow, 'operation'>, ops: Operation[]): { placed: Placed[]; unlinked: Operation[] } {
  const byId = new Map(ops.map((o) => [o.id, o]));
  const seen = new Set<string>();
  const placed: Placed[] = [];
  const walk = (id: string | null, depth: number, after: Placed['after']) => {
    const op = id ? byId.get(id) : undefined;
    if (!op || seen.has(op.id)) return;
    seen.add(op.id);
    placed.push({ op, depth, after });
    walk(op.resolve, depth + 1, { parent: op, path: 'resolve' });
    walk(op.reject, depth + 1, { parent: op, path: 'reject' });
  };
  walk(flow.operation, 0, null);
  return { placed, unlinked: ops.filter((o) => !seen.has(o.id)) };
}

/** The places a new operation can go: first (when the flow has none), or an empty success / failure path. */
export function freeSlots(flow: Pick<Flow, 'operation'>, ops: Operation[]) {
  const slots: { value: string; label: string }[] = [];
  if (!flow.operation) slots.push({ value: 'first', label: 'First operation' });
  for (const { op } of inOrder(flow, ops).placed) {
    const name = op.name || op.key;
    if (!op.resolve) slots.push({ value: `${op.id}:resolve`, label: `After ${name}, on success` });
    if (!op.reject) slots.push({ value: `${op.id}:reject`, label: `After ${name}, on failure` });
  }
  return slots;
}

/** An operation key from a name: lower-case words joined by underscores, unique in the flow. */
export function keyFrom(name: string, taken: string[]): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'operation';
  let key = base;
  for (let n = 2; taken.includes(key); n++) key = `${base}_${n}`;
  return key;
}

/** Where a new operation goes by default: on success of the last one along the success path (first when none). */
export function defaultSlot(flow: Pick<Flow, 'operation'>, ops: Operation[]): string {
  const byId = new Map(ops.map((o) => [o.id, o]));
  let op = flow.operation ? byId.get(flow.operation) : undefined;
  if (!op) return 'first';
  const seen = new Set<string>();
  while (op.resolve && byId.has(op.resolve) && !seen.has(op.id)) {
    seen.add(op.id);
    op = byId.get(op.resolve)!;
  }
  return op.resolve ? (freeSlots(flow, ops)[0]?.value ?? 'first') : `${op.id}:resolve`;
}
