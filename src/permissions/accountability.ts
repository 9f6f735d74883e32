/**
 * Who is asking. Built once per request by auth/, carried through every stage so that permissions can be
 * applied in the planner (admin bypass now; policies when the permissions issue lands).
 */
export interface Accountability {
  /** User id, or null for public requests. */
  user: string | null;
  /** The user's role id, or null. */
  role: string | null;
  /** The role and its ancestors. */
  roles: string[];
  /** Effective policy ids. */
  policies: string[];
  admin: boolean;
  app: boolean;
  ip: string | null;
}

export function publicAccountability(ip: string | null = null): Accountability {
  return { user: null, role: null, roles: [], policies: [], admin: false, app: false, ip };
}
