/** An item's revisions as the history sidebar shows them, and the difference between two of them. */
export interface Revision {
  id: number;
  activity: { action?: string; timestamp?: string; user?: { email?: string } | null } | null;
  data: Record<string, unknown> | null;
  delta: Record<string, unknown> | null;
}

export interface Change {
  field: string;
  before: unknown;
  after: unknown;
}

/** The fields whose value differs between a revision's data and the one before it (none before: all are new). */
export function changes(current: Record<string, unknown> | null, previous: Record<string, unknown> | null): Change[] {
  const now = current ?? {};
  const then = previous ?? {};
  const names = [...new Set([...Object.keys(then), ...Object.keys(now)])];
  return names
    .filter((name) => JSON.stringify(now[name] ?? null) !== JSON.stringify(then[name] ?? null))
    .map((name) => ({ field: name, before: then[name] ?? null, after: now[name] ?? null }));
}

/** One value in a line of text (objects as JSON, null as an em dash). */
export function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A revision's data as an update payload: the key itself is not written back. */
export function revertPayload(data: Record<string, unknown> | null, key: string): Record<string, unknown> {
  const body: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(data ?? {})) if (name !== key) body[name] = value;
  return { ...body };
}
