/**
 * Whether anything wrote onto the shared prototypes of this process (prototype pollution): the own names of
 * Object.prototype, of the other built-in prototypes and of Object.prototype's methods (`toString.x = 1` is a write to
 * a shared built-in too), as they were when this module was loaded. The app under test runs in this process, so a
 * request that polluted leaves its mark here.
 */
import assert from 'node:assert/strict';

type Target = { name: string; value: object };

const targets: Target[] = [
  { name: 'Object.prototype', value: Object.prototype },
  { name: 'Array.prototype', value: Array.prototype },
  { name: 'Function.prototype', value: Function.prototype },
  { name: 'String.prototype', value: String.prototype },
  { name: 'Object', value: Object },
  ...Object.getOwnPropertyNames(Object.prototype)
    .filter((name) => name !== '__proto__' && typeof (Object.prototype as Record<string, unknown>)[name] === 'function')
    .map((name) => ({
      name: `Object.prototype.${name}`,
      value: (Object.prototype as Record<string, unknown>)[name] as object,
    })),
];

const original = new Map(targets.map((t) => [t, new Set(Reflect.ownKeys(t.value))]));

/** What was added since this module was loaded, as `Object.prototype.polluted`; [] when nothing. */
export function pollution(): string[] {
  const added: string[] = [];
  for (const target of targets) {
    for (const key of Reflect.ownKeys(target.value))
      if (!original.get(target)!.has(key)) added.push(`${target.name}.${String(key)}`);
  }
  return added;
}

/** Removes what was added (an afterEach hook, so that a failed test leaves no pollution behind); returns it. */
export function cleanPrototypes(): string[] {
  const added = pollution();
  for (const target of targets) {
    for (const key of Reflect.ownKeys(target.value))
      if (!original.get(target)!.has(key)) delete (target.value as Record<string | symbol, unknown>)[key];
  }
  return added;
}

/**
 * Fails when anything was added, after removing it: the next tests of this process (several files share one) then
 * see clean prototypes, whatever this one found.
 */
export function assertPristine(where: string): void {
  const added = cleanPrototypes();
  assert.deepEqual(added, [], `${where}: the shared prototypes were written to`);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, `${where}: ({}).polluted`);
}
