/** service_notices: one change counter per channel (bus/database-bus.ts polls them). */
import type { Database } from '../connection.js';
import { read, transaction } from './statements.js';

const TABLE = 'service_notices';

export interface NoticeCounter {
  channel: string;
  /** Text or a number, as the driver returns a bigint column. */
  counter: string | number;
}

export class NoticesRepository {
  constructor(private readonly db: Database) {}

  counters(): Promise<NoticeCounter[]> {
    return read(this.db, (knex) => knex(TABLE).select('channel', 'counter'));
  }

  counter(channel: string): Promise<{ counter: string | number } | undefined> {
    return read(this.db, (knex) => knex(TABLE).where({ channel }).first('counter'));
  }

  /** Moves the channel's counter on by one (creating it at 1) and returns the value this call wrote. */
  increment(channel: string): Promise<bigint> {
    return transaction(this.db, async (trx) => {
      const updated = await trx(TABLE).where({ channel }).increment('counter', 1);
      if (!updated) await trx(TABLE).insert({ channel, counter: 1 });
      const row = await trx(TABLE).where({ channel }).first('counter');
      return BigInt(row.counter);
    });
  }
}
