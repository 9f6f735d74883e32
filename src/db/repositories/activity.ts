/**
 * service_activity and service_revisions outside item writes (whose trail the write engine records in their own
 * transaction, engine/write/audit-trail.ts): login activity, and the retention job's pruning of old rows in batches.
 */
import type { Database } from '../connection.js';
import type { SessionRecord } from './sessions.js';
import { read, transaction, write } from './statements.js';

export interface LoginActivity {
  /** The user who signed in; null for a failed login (nobody did). */
  user: string | null;
  /** The account the login was for: its id, or the email given when it names no user. */
  item: string;
  ip: string | null;
  userAgent: string | null;
  origin: string | null;
  at: Date;
}

/** A failed login's action: Directus has none (it only emits an event), the audit trail records one. */
export const LOGIN_FAILED = 'login_failed';

export class ActivityRepository {
  constructor(private readonly db: Database) {}

  /**
   * A login, as Directus records it (action `login` on the user's own item), with its session row in the same
   * transaction: a login that has its session always has its activity.
   */
  recordLogin(login: LoginActivity, session: SessionRecord): Promise<unknown> {
    return transaction(this.db, async (trx) => {
      await trx('service_sessions').insert(session);
      await trx('service_activity').insert(activityRow('login', login));
    });
  }

  /** A refused login (unknown email, wrong password or code, inactive account). */
  recordFailedLogin(login: LoginActivity): Promise<unknown> {
    return write(this.db, (knex) => knex('service_activity').insert(activityRow(LOGIN_FAILED, login)));
  }

  /**
   * Deletes up to `batch` activity rows older than `before` (their revisions with them); the number of activity rows
   * deleted. Revisions that name a pruned revision as parent lose the link first.
   */
  async pruneActivity(before: Date, batch: number): Promise<number> {
    const ids = await read<{ id: number }[]>(this.db, (knex) =>
      knex('service_activity').select('id').where('timestamp', '<', before).orderBy('id').limit(batch),
    );
    if (ids.length === 0) return 0;
    const list = ids.map((row) => row.id);
    await transaction(this.db, async (trx) => {
      const revisions = (
        (await trx('service_revisions').select('id').whereIn('activity', list)) as { id: number }[]
      ).map((row) => row.id);
      if (revisions.length) await trx('service_revisions').whereIn('parent', revisions).update({ parent: null });
      await trx('service_revisions').whereIn('activity', list).del();
      await trx('service_activity').whereIn('id', list).del();
    });
    return list.length;
  }

  /**
   * Deletes up to `batch` revisions whose activity is older than `before` (their activity kept); the number deleted.
   */
  async pruneRevisions(before: Date, batch: number): Promise<number> {
    const ids = await read<{ id: number }[]>(this.db, (knex) =>
      knex('service_revisions')
        .select('service_revisions.id')
        .join('service_activity', 'service_activity.id', 'service_revisions.activity')
        .where('service_activity.timestamp', '<', before)
        .orderBy('service_revisions.id')
        .limit(batch),
    );
    if (ids.length === 0) return 0;
    const list = ids.map((row) => row.id);
    await transaction(this.db, async (trx) => {
      await trx('service_revisions').whereIn('parent', list).update({ parent: null });
      await trx('service_revisions').whereIn('id', list).del();
    });
    return list.length;
  }
}

function activityRow(action: string, login: LoginActivity): Record<string, unknown> {
  return {
    action,
    user: login.user,
    timestamp: login.at,
    ip: login.ip,
    user_agent: login.userAgent,
    origin: login.origin,
    collection: 'service_users',
    item: login.item,
  };
}
