/**
 * What writes to the system collections need beyond the items semantics (Directus docs: Access control, Users, roles and policies): payload checks
 * the schema cannot express (a permission's `action` and `collection`), the last active admin kept (checked inside
 * the write's transaction, so a refused write leaves nothing behind), and caches dropped once a write that changes
 * who may do what has committed (permissions, accountabilities — here and, through the bus, on other instances).
 */
import type { Executor } from '../../db/connection.js';
import type { SqlDialect } from '../../sql/dialect-hooks.js';
import {
  FailedValidationError,
  throwAll,
  UnprocessableContentError,
  type ServiceError,
} from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { RowWrite } from '../../plan/mutation-plan.js';
import { CONCEALED } from '../../schema/concealed.js';
import { FULL_ACCESS } from '../../plan/access.js';
import { planRead } from '../../plan/read-planner.js';
import { regexOf } from '../../plan/validation.js';
import { isEmailAddress } from '../../request/email-address.js';
import { parseFilter } from '../../request/parse-filter.js';
import type { Query } from '../../request/query.js';
import type { Payload } from '../../request/write-body.js';
import type { SchemaOverview } from '../../schema/types.js';
import { compileRead } from '../../sql/read-compiler.js';

const ACTIONS = ['create', 'read', 'update', 'delete', 'share'];
/** Writes here can change who is an active admin. */
const ADMIN_TABLES = new Set(['service_users', 'service_roles', 'service_policies', 'service_access']);
/** Writes here change accountabilities or permission sets. */
const ACCESS_TABLES = new Set([...ADMIN_TABLES, 'service_permissions']);
/** A user's columns that decide who they are to the permission code (the rest is profile). */
const USER_ACCESS_FIELDS = ['role', 'status', 'token'];

export interface SystemWritesDeps {
  schema: () => SchemaOverview;
  sql: SqlDialect;
  /** Permissions, roles, policies or users changed: drop cached permission sets and accountabilities everywhere. */
  permissionsChanged: () => Promise<void>;
  /** The settings row changed: drop the cached settings everywhere. */
  settingsChanged: () => Promise<void>;
  /** Flows or operations changed: every instance reads its flows again. */
  flowsChanged?: () => Promise<void>;
  /** The settings' `auth_password_policy`. */
  passwordPolicy: () => Promise<string | null>;
}

export class SystemWrites {
  constructor(private readonly deps: SystemWritesDeps) {}

  /**
   * FAILED_VALIDATION for values the service_* tables accept but that mean nothing, and for new passwords that do
   * not match the settings' password policy (all failures together).
   */
  async checkPayloads(collection: string, payloads: Payload[], many: boolean): Promise<void> {
    if (collection === 'service_users') return this.checkUsers(payloads, many);
    if (collection !== 'service_permissions') return;
    const schema = this.deps.schema();
    const errors: ServiceError[] = [];
    payloads.forEach((payload, i) => {
      const path = many ? [i] : [];
      const { action, collection: target } = payload;
      if (action !== undefined && (typeof action !== 'string' || !ACTIONS.includes(action))) {
        errors.push(
          new FailedValidationError('action', path, 'in', `Value has to be one of ${ACTIONS.join(', ')}.`, {
            valid: ACTIONS,
          }),
        );
      }
      if (target !== undefined && (typeof target !== 'string' || !schema.collections[target])) {
        errors.push(
          new FailedValidationError('collection', path, 'in', `Collection "${String(target)}" doesn't exist.`),
        );
      }
      for (const name of ['permissions', 'validation']) {
        const rule = payload[name];
        if (rule === undefined || rule === null) continue;
        try {
          parseFilter(rule);
        } catch (error) {
          errors.push(
            new FailedValidationError(
              name,
              path,
              'filter',
              `Value has to be a valid filter. ${(error as Error).message}`,
            ),
          );
        }
      }
    });
    throwAll(errors);
  }

  /** Users: an email that is not an address's shape (as Directus's users service checks), a password off policy. */
  private async checkUsers(payloads: Payload[], many: boolean): Promise<void> {
    const given = payloads.some((p) => typeof p.password === 'string' && p.password !== CONCEALED);
    const policy = given ? await this.deps.passwordPolicy() : null;
    const pattern = policy ? regexOf(policy) : null;
    const errors: ServiceError[] = [];
    payloads.forEach((payload, i) => {
      const { email, password } = payload;
      if (email !== undefined && email !== null && email !== '' && !isEmailAddress(email))
        errors.push(
          new FailedValidationError('email', many ? [i] : [], 'email', 'Value has to be a valid email address.'),
        );
      if (!pattern || typeof password !== 'string' || password === CONCEALED || pattern.test(password)) return;
      errors.push(
        new FailedValidationError(
          'password',
          many ? [i] : [],
          'regex',
          "Provided password doesn't match password policy.",
        ),
      );
    });
    throwAll(errors);
  }

  /**
   * Runs `work` (the write, inside its transaction) and refuses it when it leaves no active admin where there
   * was one. Directus refuses the same with 422 UNPROCESSABLE_CONTENT.
   */
  async keepAdmin(
    tx: Executor,
    collections: ReadonlySet<string>,
    accountability: Accountability,
    work: () => Promise<void>,
  ): Promise<void> {
    if (![...collections].some((name) => ADMIN_TABLES.has(name))) return work();
    const before = await this.activeAdmins(tx, accountability);
    await work();
    if (before && !(await this.activeAdmins(tx, accountability)))
      throw new UnprocessableContentError(
        "The last active admin user can't be removed, suspended or deprived of admin access",
      );
  }

  /**
   * The collections a plan's writes matter to, nested rows included. An update of a user's profile fields only
   * (name, password, last page, ...) touches no access: it neither runs the admin check nor drops the caches.
   */
  touched(rows: RowWrite[]): Set<string> {
    const found = new Set<string>();
    const visit = (row: RowWrite) => {
      const profileOnly =
        row.collection.collection === 'service_users' &&
        row.action === 'update' &&
        !row.parents.length &&
        !row.children.length &&
        !USER_ACCESS_FIELDS.some((name) => name in row.values);
      if (!profileOnly) found.add(row.collection.collection);
      row.parents.forEach((parent) => visit(parent.row));
      row.children.forEach((set) => {
        found.add(set.related.collection);
        [...set.rows, ...set.updates].forEach(visit);
      });
    };
    rows.forEach(visit);
    return found;
  }

  /** After commit. */
  async committed(collections: ReadonlySet<string>): Promise<void> {
    if (collections.has('service_settings')) await this.deps.settingsChanged();
    if (collections.has('service_flows') || collections.has('service_operations')) await this.deps.flowsChanged?.();
    if ([...collections].some((name) => ACCESS_TABLES.has(name))) await this.deps.permissionsChanged();
  }

  /** Whether an active user holds a policy with admin access, directly or through its role or the role's parents. */
  private async activeAdmins(tx: Executor, accountability: Accountability): Promise<boolean> {
    const grants = await this.read(tx, accountability, 'service_access', {
      fields: ['role', 'user'],
      filter: parseFilter({ policy: { admin_access: { _eq: true } } })!,
      limit: -1,
    });
    if (!grants.length) return false;
    const adminRoles = new Set(grants.map((g) => g.role).filter(Boolean) as string[]);
    const users = grants.map((g) => g.user).filter(Boolean) as string[];
    const roles = await this.read(tx, accountability, 'service_roles', { fields: ['id', 'parent'], limit: -1 });
    const parent = new Map(roles.map((r) => [String(r.id), r.parent ? String(r.parent) : null]));
    const inherits = (role: string): boolean => {
      const seen = new Set<string>();
      for (let at: string | null | undefined = role; at && !seen.has(at); at = parent.get(at)) {
        if (adminRoles.has(at)) return true;
        seen.add(at);
      }
      return false;
    };
    const holding = [...parent.keys()].filter(inherits);
    const who: unknown[] = [];
    if (users.length) who.push({ id: { _in: users } });
    if (holding.length) who.push({ role: { _in: holding } });
    if (!who.length) return false;
    const active = await this.read(tx, accountability, 'service_users', {
      fields: ['id'],
      filter: parseFilter({ _and: [{ status: { _eq: 'active' } }, { _or: who }] })!,
      limit: 1,
    });
    return active.length > 0;
  }

  private async read(
    tx: Executor,
    accountability: Accountability,
    collection: string,
    query: Query,
  ): Promise<Record<string, unknown>[]> {
    const plan = planRead(collection, query, {
      schema: this.deps.schema(),
      access: FULL_ACCESS,
      accountability,
      queryLimitDefault: 1,
      now: new Date(),
      system: true,
    });
    const { sql, params } = compileRead(plan, this.deps.sql);
    const [row] = await tx.query(sql, params);
    const data = typeof row?.data === 'string' ? JSON.parse(row.data) : row?.data;
    return Array.isArray(data) ? data : [];
  }
}
