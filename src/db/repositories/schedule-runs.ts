/**
 * service_schedule_runs: the claim of one tick of one schedule. Instances that wake for the same tick take turns
 * under one named lock; the first finds no row and inserts it, the others find it and skip the tick. Rows older than
 * a day are pruned by the claims of their schedule.
 */
import type { Database } from '../connection.js';
import { read, write } from './statements.js';

const LOCK = 'strata-schedule-runs';
const KEEP_MS = 86_400_000;

export class ScheduleRunsRepository {
  constructor(private readonly db: Database) {}

  /** Whether this instance claimed `tick` of `schedule` (false: another one did, before). */
  claim(schedule: string, tick: number): Promise<boolean> {
    return this.db.withLock(LOCK, async () => {
      const found = await read<unknown[]>(this.db, (knex) =>
        knex('service_schedule_runs').select('tick').where({ schedule, tick }).limit(1),
      );
      if (found.length) return false;
      await write(this.db, (knex) => knex('service_schedule_runs').insert({ schedule, tick, claimed_at: new Date() }));
      await write(this.db, (knex) =>
        knex('service_schedule_runs')
          .where('schedule', schedule)
          .andWhere('tick', '<', tick - KEEP_MS)
          .del(),
      );
      return true;
    });
  }
}
