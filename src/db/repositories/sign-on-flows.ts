/**
 * service_sign_on_flows: the spent sign-on flows. Spending is one INSERT on the flow's id, the primary key: exactly one
 * of any number of callbacks racing on any worker or instance inserts it, the others are refused by the key.
 */
import { DatabaseError } from '../../errors/database-error.js';
import type { Database } from '../connection.js';
import { read, write } from './statements.js';

const TABLE = 'service_sign_on_flows';

export class SignOnFlowsRepository {
  constructor(private readonly db: Database) {}

  /** True when this call spent the flow; false when it had been spent before (the key was taken). */
  async spend(id: string, expiresAt: number): Promise<boolean> {
    try {
      await write(this.db, (knex) => knex(TABLE).insert({ id, expires_at: expiresAt }));
      return true;
    } catch (error) {
      if (error instanceof DatabaseError && error.kind === 'constraint' && error.failure?.kind === 'unique')
        return false;
      throw error;
    }
  }

  /** Deletes up to `batch` rows expired by `now` (ms since the epoch); the number deleted. */
  async pruneExpired(now: number, batch: number): Promise<number> {
    const rows = await read<{ id: string }[]>(this.db, (knex) =>
      knex(TABLE).select('id').where('expires_at', '<', now).orderBy('expires_at').limit(batch),
    );
    if (rows.length === 0) return 0;
    return write<number>(this.db, (knex) =>
      knex(TABLE)
        .whereIn(
          'id',
          rows.map((row) => row.id),
        )
        .andWhere('expires_at', '<', now)
        .del(),
    );
  }
}
