/**
 * A collection opened for writing (`ItemsWriter.open`) and the options of the write: what the writer hands to the
 * stages after it (the re-read, GraphQL's write-only root).
 */
import type { AuditClient } from './audit-trail.js';
import type { WriteContext } from '../../plan/write-context.js';
import type { CollectionOverview } from '../../schema/types.js';
import type { JsonRead, OutputForm, RowsRead } from '../read/items-service.js';

export interface WriteOptions<R extends Reread = 'json'> {
  /** Opens the service_* collections that have routes of their own (users, roles, policies, ...). */
  system?: boolean;
  /** How the written items are read back: the database's JSON text (REST), or values (GraphQL's resolvers). */
  reread?: R;
  /** The JSON form of the values read back (see items-service.ts). */
  form?: OutputForm;
  /**
   * Fields of the opened collection that the service itself sets from what it measured (a file's storage, size,
   * type, dimensions): written whatever the caller's field rules say. The front end never takes them from the caller.
   */
  serviceFields?: ReadonlySet<string>;
  /** Where the write came from, for its activity rows. */
  client?: AuditClient;
  /** false: no activity nor revisions (the app's own bookkeeping, as Directus writes it without accountability). */
  trail?: boolean;
  /** false: the write sets off no event flows (a flow's item operation without `emitEvents`, as Directus). */
  flowEvents?: boolean;
}

export type Reread = 'json' | 'rows';

/** A write's answer: the written items as read back, or null when the caller may not read them (204 No Content). */
export type WriteResult<R extends Reread = 'json'> = (R extends 'rows' ? RowsRead : JsonRead) | null;

/** A collection opened for writing by `ItemsWriter.open`: checked, with the caller's context. */
export interface OpenedCollection<R extends Reread = 'json'> {
  collection: CollectionOverview;
  ctx: WriteContext;
  options: WriteOptions<R>;
}
