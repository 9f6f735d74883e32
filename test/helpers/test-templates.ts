/**
 * Template databases: the migrated, bootstrapped (admin, policies, settings) database, with and without the blog
 * fixture, built once per `npm test` run and copied for every test app instead of migrating and hashing the admin
 * password again. `scripts/test.mjs` builds them while the run's first files (which need none: unit, CLI) already run,
 * writes them to the file named by STRATA_TEST_TEMPLATES_FILE once built, and drops them after the run; a test app
 * that needs one waits for that file. STRATA_TEST_TEMPLATES may hold them directly. A test process started with
 * neither (`node --test file`) builds nothing and starts from an empty database, as before.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DbClient } from '../../src/config/config.js';

export const TEMPLATES_ENV = 'STRATA_TEST_TEMPLATES';
export const TEMPLATES_FILE_ENV = 'STRATA_TEST_TEMPLATES_FILE';

export interface Template {
  client: DbClient;
  fixture: boolean;
  /** The template database (PostgreSQL, MariaDB/MySQL) or file (SQLite). */
  name: string;
}

let parsed: Promise<Template[]> | null = null;

async function readTemplates(): Promise<Template[]> {
  const raw = process.env[TEMPLATES_ENV];
  if (raw) return JSON.parse(raw) as Template[];
  const file = process.env[TEMPLATES_FILE_ENV];
  if (!file) return [];
  // The runner renames the file into place once complete (an empty list when the build failed).
  while (!existsSync(file)) await sleep(50);
  return JSON.parse(readFileSync(file, 'utf8')) as Template[];
}

/** The run's template for a database and fixture choice, if the runner built one. */
export async function templateFor(client: DbClient, fixture: boolean): Promise<Template | null> {
  parsed ??= readTemplates();
  return (await parsed).find((t) => t.client === client && t.fixture === fixture) ?? null;
}
