import type { Knex } from 'knex';
import * as systemTables from './0001-system-tables.js';
import * as serviceNotices from './0002-service-notices.js';
import * as sessionFamilies from './0003-session-families.js';
import * as schemaJournal from './0004-schema-journal.js';
import * as files from './0005-files.js';
import * as versionsComments from './0007-versions-comments.js';
import * as auditTrailIndexes from './0008-audit-trail-indexes.js';
import * as notifications from './0009-notifications.js';
import * as flows from './0010-flows.js';
import * as accountsByMail from './0011-accounts-by-mail.js';
import * as presets from './0012-presets.js';
import * as scheduleRuns from './0013-schedule-runs.js';
import * as signOnFlows from './0014-sign-on-flows.js';

export interface Migration {
  version: string;
  name: string;
  up(knex: Knex): Promise<void>;
}

/**
 * Every migration, oldest first. Versions are never reused or reordered; gaps are allowed (numbers are taken by
 * branches as they start): the runner applies whatever it has not recorded, in this order.
 */
export const MIGRATIONS: readonly Migration[] = [
  systemTables,
  serviceNotices,
  sessionFamilies,
  schemaJournal,
  files,
  versionsComments,
  auditTrailIndexes,
  notifications,
  flows,
  accountsByMail,
  presets,
  scheduleRuns,
  signOnFlows,
];
