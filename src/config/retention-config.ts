/**
 * Retention of the audit trail (Directus's names): when on, activity and revisions older than their periods are
 * pruned in batches, off the request path, on a schedule.
 */
import { bool, duration, int, str, type Env } from './env-values.js';

export interface RetentionConfig {
  /** RETENTION_ENABLED (default false): prune the audit trail at all. */
  enabled: boolean;
  /**
   * RETENTION_SCHEDULE: how often a prune runs, as a duration (default 1d). Directus takes a cron expression there;
   * one (a value with spaces) is read as once a day, its default.
   */
  everyMs: number;
  /** RETENTION_BATCH (default 500): rows deleted per statement, one transaction per batch. */
  batch: number;
  /** ACTIVITY_RETENTION (default 90d): activity older than this is deleted, with its revisions. */
  activityMs: number;
  /** REVISIONS_RETENTION (default 90d): revisions whose activity is older than this are deleted. */
  revisionsMs: number;
}

const DAY = 86_400_000;

export function readRetentionConfig(env: Env): RetentionConfig {
  const schedule = str(env, 'RETENTION_SCHEDULE');
  return {
    enabled: bool(env, 'RETENTION_ENABLED', false),
    everyMs: schedule !== null && /\s/.test(schedule.trim()) ? DAY : duration(env, 'RETENTION_SCHEDULE', '1d'),
    batch: int(env, 'RETENTION_BATCH', 500, 1, 100_000),
    activityMs: duration(env, 'ACTIVITY_RETENTION', '90d'),
    revisionsMs: duration(env, 'REVISIONS_RETENTION', '90d'),
  };
}
