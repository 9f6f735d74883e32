/**
 * `node --import tsx test/helpers/template-run.ts build <run>` builds the run's template databases (every database
 * this run tests, with and without the fixture) and prints them as JSON; `… drop <run>` with that JSON in
 * STRATA_TEST_TEMPLATES drops them, and any test database of the run still there. Used by scripts/test.mjs around
 * the test run.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { buildTemplate } from './test-app.js';
import { dropDatabaseSql, testClients, testDatabasePrefix } from './test-db.js';
import { TEMPLATES_ENV, type Template } from './test-templates.js';

async function build(run: string): Promise<void> {
  const templates: Template[] = [];
  try {
    await Promise.all(
      testClients().flatMap((client) =>
        [true, false].map(async (fixture) => {
          templates.push(await buildTemplate(client, fixture, `strata_tpl_${run}_${fixture ? 'fixture' : 'empty'}`));
        }),
      ),
    );
  } catch (error) {
    await drop(templates);
    throw error;
  }
  process.stdout.write(JSON.stringify(templates));
}

async function drop(templates: Template[]): Promise<void> {
  await Promise.all(templates.map(dropOne));
}

/** Runs `work` on a connection to the server of `client` (TEST_PG_URL / TEST_MYSQL_URL), closed after it. */
async function onServer<T>(client: 'pg' | 'mysql', work: (knex: Knex) => Promise<T>): Promise<T> {
  const knex = knexFactory({
    client: client === 'pg' ? 'pg' : 'mysql2',
    connection: (client === 'pg' ? process.env.TEST_PG_URL : process.env.TEST_MYSQL_URL)!,
    pool: { min: 0, max: 1 },
  });
  try {
    return await work(knex);
  } finally {
    await knex.destroy();
  }
}

/** Drops the run's test databases that a test process left behind (one killed before it could drop its own). */
async function sweep(run: string): Promise<void> {
  // The prefix holds only [a-z0-9_]; `_` is escaped for LIKE.
  const pattern = `${testDatabasePrefix(run).replaceAll('_', '\\_')}%`;
  await Promise.all(
    testClients()
      .filter((client): client is 'pg' | 'mysql' => client !== 'sqlite3')
      .map((client) =>
        onServer(client, async (knex) => {
          const names =
            client === 'pg'
              ? (
                  (await knex.raw('select datname as name from pg_database where datname like ?', [pattern])) as {
                    rows: { name: string }[];
                  }
                ).rows
              : (
                  (await knex.raw(
                    'select schema_name as name from information_schema.schemata where schema_name like ?',
                    [pattern],
                  )) as [{ name: string }[]]
                )[0];
          for (const { name } of names) await knex.raw(dropDatabaseSql(client, name));
        }),
      ),
  );
}

async function dropOne({ client, name }: Template): Promise<void> {
  if (client === 'sqlite3') rmSync(path.dirname(name), { recursive: true, force: true });
  else await onServer(client, (knex) => knex.raw(dropDatabaseSql(client, name)));
}

const [command, run] = process.argv.slice(2);
if (command === 'build' && run && /^[a-z0-9]+$/.test(run)) await build(run);
else if (command === 'drop' && run && /^[a-z0-9]+$/.test(run)) {
  await drop(JSON.parse(process.env[TEMPLATES_ENV] ?? '[]') as Template[]);
  await sweep(run);
} else throw new Error('usage: template-run.ts build|drop <run id: [a-z0-9]+>');
