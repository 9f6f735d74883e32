/**
 * The read replicas of one primary: a bounded pool each (knex's, through its public client API as the primary's),
 * a periodic probe of how far each has replayed the primary's log, and the choice of a replica for a read
 * (docs/design/read-replicas.md). A replica that fails, times out or lags past the bound is skipped until a probe
 * finds it answering and caught up again; the caller then runs the read on the primary.
 */
import { performance } from 'node:perf_hooks';
import knexFactory, { type Knex } from 'knex';
import type { ReplicaConfig } from '../config/replica-config.js';
import type { Dialect, RawConnection, ReplicationPositions } from './dialect.js';
import { failureKind } from './failure-kind.js';

/** A position of the primary's log and when it was read (any commit finished before `at` lies at or before it). */
interface Sample {
  at: number;
  position: unknown;
}

/** Samples kept: a replica behind the oldest one is known only to be at least that far behind. */
const SAMPLES = 256;

class Replica {
  up = false;
  /** The newest primary sample this replica is known to have replayed (its data is at least that fresh). */
  caughtUpAsOf = -Infinity;
  probing = false;
  served = 0;
  failures = 0;
  constructor(
    readonly name: string,
    readonly knex: Knex,
  ) {}
}

export interface ReplicaState {
  name: string;
  up: boolean;
  /** How far behind the newest primary sample it is known to be (ms); null before its first probe answered. */
  lagMs: number | null;
  /** Reads it answered. */
  served: number;
  /** Reads and probes it failed or did not answer in time. */
  failures: number;
}

const quiet = () => {};

class ReplicaTimeout extends Error {
  constructor() {
    super('The replica did not answer in time');
  }
}

export class ReplicaSet {
  private readonly replicas: Replica[];
  private readonly samples: Sample[] = [];
  private readonly positions: ReplicationPositions;
  private next = 0;
  private sampling = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly dialect: Dialect,
    private readonly config: ReplicaConfig,
    knexConfigFor: (url: string) => Knex.Config,
    /** Runs a statement on the primary (its position). */
    private readonly onPrimary: (sql: string) => Promise<Record<string, unknown>[]>,
  ) {
    if (!dialect.replication) throw new Error(`${dialect.label} has no read replicas Strata can use`);
    this.positions = dialect.replication;
    this.replicas = config.urls.map((url) => {
      const base = knexConfigFor(url);
      const knex = knexFactory({
        ...base,
        pool: { ...(base.pool ?? {}), min: 0, max: config.poolMax },
        acquireConnectionTimeout: config.timeoutMs,
        // Failures surface as reads run on the primary, counted in `states`; knex would print them on the console.
        log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet },
      });
      const u = new URL(url);
      return new Replica(`${u.hostname}:${u.port || 'default'}`, knex);
    });
  }

  /** Probes now and then every DB_REPLICA_PROBE_INTERVAL; the timer does not keep the process alive. */
  start(): void {
    void this.probe();
    this.timer = setInterval(() => void this.probe(), this.config.probeIntervalMs);
    this.timer.unref();
  }

  /**
   * The next replica (round robin) that answers, lags at most DB_REPLICA_MAX_LAG behind the newest sample, and has
   * replayed everything committed before `mustSee` (a caller's own last write); null: read on the primary.
   */
  choose(mustSee: number): Replica | null {
    const newest = this.samples.at(-1);
    if (!newest || this.closed) return null;
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.next];
      this.next = (this.next + 1) % this.replicas.length;
      if (
        replica.up &&
        replica.caughtUpAsOf >= mustSee &&
        newest.at - replica.caughtUpAsOf <= this.config.maxLagMs &&
        performance.now() - newest.at <= this.config.maxLagMs
      )
        return replica;
    }
    return null;
  }

  /**
   * The oldest data a replica still chosen may hold: a write mark older than this is seen by every replica chosen.
   */
  servedSince(): number {
    const newest = this.samples.at(-1);
    return newest ? newest.at - this.config.maxLagMs : -Infinity;
  }

  /**
   * Runs one read on `replica`. A connection failure or no answer within DB_REPLICA_TIMEOUT marks it down (the probe
   * brings it back); every failure is thrown for the caller to read on the primary instead.
   */
  async read<T>(replica: Replica, sql: string, params: readonly unknown[], name?: string): Promise<T[]> {
    try {
      const rows = await this.onReplica(replica, (connection) => this.dialect.execute(connection, sql, params, name));
      replica.served++;
      return rows as T[];
    } catch (error) {
      if (error instanceof ReplicaTimeout || failureKind(this.dialect, error) === 'connection') {
        replica.up = false;
        replica.failures++;
      }
      throw error;
    }
  }

  private async onReplica<T>(replica: Replica, work: (connection: RawConnection) => Promise<T>): Promise<T> {
    const client = replica.knex.client;
    const connection = (await client.acquireConnection()) as RawConnection;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      return await Promise.race([
        work(connection),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            timedOut = true;
            reject(new ReplicaTimeout());
          }, this.config.timeoutMs);
        }),
      ]);
    } catch (error) {
      // A connection that failed or hangs is ended so the pool drops it; a stopped server may never confirm the end.
      if (timedOut || failureKind(this.dialect, error) === 'connection')
        void client.destroyRawConnection(connection).catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
      await client.releaseConnection(connection).catch(() => {});
    }
  }

  /** One round: the primary's position, then each replica's (a replica still being probed is left to finish). */
  private async probe(): Promise<void> {
    if (this.sampling || this.closed) return;
    this.sampling = true;
    try {
      const at = performance.now();
      const rows = await this.onPrimary(this.positions.primarySql);
      this.samples.push({ at, position: rows[0]?.position });
      if (this.samples.length > SAMPLES) this.samples.shift();
    } catch {
      // The primary is away: no new sample, so replicas age past the lag bound and reads go to the primary (503).
      return;
    } finally {
      this.sampling = false;
    }
    await Promise.all(this.replicas.filter((r) => !r.probing).map((r) => this.probeReplica(r)));
  }

  private async probeReplica(replica: Replica): Promise<void> {
    replica.probing = true;
    try {
      const rows = await this.onReplica(replica, (connection) =>
        this.dialect.execute(connection, this.positions.replicaSql, []),
      );
      const position = rows[0]?.position;
      // Newest first: the freshest sample it has replayed tells how current its data is.
      for (let i = this.samples.length - 1; i >= 0; i--) {
        if (this.samples[i].at <= replica.caughtUpAsOf) break;
        if (this.positions.replayed(position, this.samples[i].position)) {
          replica.caughtUpAsOf = this.samples[i].at;
          break;
        }
      }
      // A server that is not a replica (no replayed position) is never read from.
      replica.up = position !== null && position !== undefined;
    } catch {
      replica.up = false;
      replica.failures++;
    } finally {
      replica.probing = false;
    }
  }

  states(): ReplicaState[] {
    const newest = this.samples.at(-1);
    return this.replicas.map((r) => ({
      name: r.name,
      up: r.up,
      lagMs: newest && r.caughtUpAsOf > -Infinity ? Math.max(0, newest.at - r.caughtUpAsOf) : null,
      served: r.served,
      failures: r.failures,
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    // A stopped replica may never answer the pool's goodbyes: closing waits DB_REPLICA_TIMEOUT for it at most.
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.config.timeoutMs)));
    await Promise.race([Promise.all(this.replicas.map((r) => r.knex.destroy().catch(() => {}))), waited]);
    clearTimeout(timer);
  }
}
