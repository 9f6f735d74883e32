/** Snapshot, diff and apply for admins (Directus's /schema endpoints), shared by the HTTP routes and the CLI. */
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { SchemaAdminApi } from '../../app/ports.js';
import type { SchemaOverview } from '../../schema/types.js';
import { requireAdmin } from '../schema-access.js';
import { planApply, runApply, type ApplyStep } from './apply.js';
import { diffSnapshots, isEmptyDiff, parseDiffAnswer, parseSnapshot, type DiffAnswer } from './diff.js';
import { snapshotHash, takeSnapshot, type Snapshot } from './snapshot.js';

/** What snapshots, diffs and plans read: the current overview and the database's vendor, nothing they could change. */
export interface SchemaView {
  schema: { readonly current: SchemaOverview };
  db: { readonly dialect: { readonly snapshotVendor: string } };
}

/** Snapshot, diff and plan: reads only (a dry run uses this alone, over a database it must leave as it is). */
export class SchemaComparison {
  constructor(private readonly view: SchemaView) {}

  snapshot(accountability: Accountability): Snapshot {
    requireAdmin(accountability);
    return takeSnapshot(this.view.schema.current, this.view.db.dialect.snapshotVendor);
  }

  /**
   * null when the snapshot matches the current schema. A snapshot of another vendor or version needs `force`, which
   * the refusal names as the caller's front end spells it (`overrideName`: `?force=true`, `--force`).
   */
  diff(accountability: Accountability, body: unknown, force: boolean, overrideName: string): DiffAnswer | null {
    const current = this.snapshot(accountability);
    const wanted = parseSnapshot(body);
    if (!force && wanted.vendor !== current.vendor) {
      throw new InvalidPayloadError(
        `The snapshot was taken on ${wanted.vendor}, this database is ${current.vendor}; pass ${overrideName} to compare them anyway`,
      );
    }
    if (!force && wanted.directus !== current.directus) {
      throw new InvalidPayloadError(
        `The snapshot was taken with version ${wanted.directus}, this is ${current.directus}; pass ${overrideName} to compare them anyway`,
      );
    }
    const diff = diffSnapshots(current, wanted);
    return isEmptyDiff(diff) ? null : { hash: snapshotHash(current), diff };
  }

  /** The steps a diff would run, in words and order; INVALID_PAYLOAD when it was computed against another schema. */
  plan(accountability: Accountability, body: unknown): ApplyStep[] {
    const current = this.snapshot(accountability);
    const { hash, diff } = parseDiffAnswer(body);
    if (hash !== snapshotHash(current))
      throw new InvalidPayloadError(
        "Provided hash does not match the current instance's schema hash, indicating the schema has changed after " +
          'this diff was generated. Please generate a new diff and try again',
      );
    return planApply(current, diff);
  }
}

/** Comparison, and the apply that runs a plan's steps. */
export class SchemaSync extends SchemaComparison {
  constructor(private readonly context: SchemaAdminApi) {
    super(context);
  }

  async apply(accountability: Accountability, body: unknown, onStep?: (step: ApplyStep) => void): Promise<string[]> {
    return runApply(this.plan(accountability, body), this.context, accountability, onStep);
  }
}
