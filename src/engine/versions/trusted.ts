/**
 * The content-version service's own writes of a version row (its saved delta): made with full access, and known to
 * the payload guard, which refuses `delta` and `hash` from anyone else.
 */
import type { Accountability } from '../../permissions/accountability.js';

const TRUSTED = new WeakSet<Accountability>();

/** The caller's accountability with full access, recognised by `isTrusted`. */
export function trusted(accountability: Accountability): Accountability {
  const sudo = { ...accountability, admin: true };
  TRUSTED.add(sudo);
  return sudo;
}

export function isTrusted(accountability: Accountability): boolean {
  return TRUSTED.has(accountability);
}

/** Full access, for reads the caller's rights must not shape (a main item's hash, uniqueness lookups). */
export const SUDO: Accountability = Object.freeze({
  user: null,
  role: null,
  roles: [],
  policies: [],
  admin: true,
  app: true,
  ip: null,
}) as Accountability;
