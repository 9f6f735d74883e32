/**
 * Template databases: the migrated, bootstrapped (admin, policies, settings) database, with and without the blog
 * fixture, built once per `npm test` run and copied for every test app instead of migrating and hashing the admin
 * password again. `scripts/test.mjs` builds them before the run and drops them after; it hands their names to the
 * test processes in STRATA_TEST_TEMPLATES. A test process started without it (`node --test file`) builds nothing
 * and starts from an empty database, as before.
 */
import type { DbClient } from '../../src/config/config.js';

export const TEMPLATES_ENV = 'STRATA_TEST_TEMPLATES';

export interface Template {
  client: DbClient;
  fixture: boolean;
  /** The template database (PostgreSQL, MariaDB/MySQL) or file (SQLite). */
  name: string;
}

let parsed: Template[] | null = null;

/** The run's template for a database and fixture choice, if the runner built one. */
export function templateFor(client: DbClient, fixture: boolean): Template | null {
  if (parsed === null) {
    const raw = process.env[TEMPLATES_ENV];
    parsed = raw ? (JSON.parse(raw) as Template[]) : [];
  }
  return parsed.find((t) => t.client === client && t.fixture === fixture) ?? null;
}
