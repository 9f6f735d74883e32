/** Objects built from keys a flow's author or a trigger chose: never a prototype key. */
const REFUSED = new Set(['__proto__', 'constructor', 'prototype']);

export function refusedKey(key: string): boolean {
  return REFUSED.has(key);
}

/** JSON text → value, with prototype keys dropped at every level. */
export function parseJson(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (refusedKey(key) ? undefined : value));
}

export function asRecord(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      value = parseJson(value);
    } catch {
      return Object.create(null) as Record<string, unknown>;
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return Object.create(null) as Record<string, unknown>;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, v] of Object.entries(value)) if (!refusedKey(key)) out[key] = v;
  return out;
}
