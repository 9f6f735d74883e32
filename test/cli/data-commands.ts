/**
 * The data commands of `strata`, on every database: users and roles, import and export, schema snapshot and apply,
 * `--json` output and the exit codes (0 ok, 1 error, 2 usage, 3 not found, 4 conflict). The commands run in this
 * process through runCli (a node process per command cost about a second and a half of start-up each); a last test
 * runs the binary itself for a data command and an error exit code.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, createTestDatabase, knexFor, type TestDb } from '../helpers/test-db.js';
import { STRATA_CLI } from '../helpers/strata-cli.js';
import { cliInProcess } from './cli-in-process.js';

/**
 * The suite for one database; data-commands-<database>.test.ts run it, side by side (each runs ~25 commands), in a
 * describe of their own so that its tests are counted as theirs (the test runner names a test by where it is declared).
 */
export function dataCommandsSuite(client: DbClient): [string, () => void] {
  return [
    `strata data commands (${clientLabel(client)})`,
    () => {
      let db: TestDb;
      let empty: TestDb;
      let dir: string;
      const env = (target: TestDb) => ({
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...target.env,
        ADMIN_PASSWORD: 'cli-admin-password',
        LOG_LEVEL: 'silent',
      });
      /** In this process (runCli): the commands' behaviour. The binary itself: the last test. */
      const cli = (args: string[], target: TestDb = db) => cliInProcess(args, { cwd: dir, env: env(target) });
      const spawned = (args: string[]) =>
        new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
          const child = spawn(process.execPath, [...STRATA_CLI, ...args], { cwd: dir, env: env(db) });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk) => (stdout += String(chunk)));
          child.stderr.on('data', (chunk) => (stderr += String(chunk)));
          child.once('error', reject);
          child.once('close', (status) => resolve({ status, stdout, stderr }));
        });
      before(async () => {
        db = await createTestDatabase(client, { fixture: true });
        empty = await createTestDatabase(client, { fixture: false });
        dir = mkdtempSync(path.join(tmpdir(), 'strata-cli-data-'));
      });
      after(async () => {
        await db?.drop();
        await empty?.drop();
        rmSync(dir, { recursive: true, force: true });
      });

      it('--help lists every command; usage errors exit 2', async () => {
        const help = await cli(['--help']);
        assert.equal(help.status, 0);
        for (const name of [
          'bootstrap',
          'start',
          'types',
          'schema',
          'import',
          'export',
          'users',
          'roles',
          'schema apply',
          'users passwd',
          'roles create',
        ])
          assert.ok(help.stdout.includes(name), name);
        assert.equal((await cli(['frobnicate'])).status, 2);
        assert.equal((await cli(['users', 'create', '--email', 'x@example.com'])).status, 2);
        assert.equal((await cli(['export', 'articles', '--format', 'pdf'])).status, 2);
      });

      it('users and roles: create, list (--json), passwd; conflicts exit 4, unknown users and roles 3', async () => {
        const role = await cli(['roles', 'create', '--name', 'Editors', '--app', '--json']);
        assert.equal(role.status, 0, role.stderr);
        assert.equal(JSON.parse(role.stdout).name, 'Editors');
        const created = await cli([
          'users',
          'create',
          '--email',
          'ed@example.com',
          '--password',
          'first-password',
          '--role',
          'Editors',
          '--json',
        ]);
        assert.equal(created.status, 0, created.stderr);
        assert.equal(JSON.parse(created.stdout).email, 'ed@example.com');
        assert.equal(
          (await cli(['users', 'create', '--email', 'ed@example.com', '--password', 'x-password'])).status,
          4,
        );
        assert.equal(
          (await cli(['users', 'create', '--email', 'no@example.com', '--password', 'x-password', '--role', 'Nobody']))
            .status,
          3,
        );
        const list = await cli(['users', 'list', '--json']);
        const users = JSON.parse(list.stdout) as { email: string; role: { name: string } | null }[];
        assert.deepEqual(
          users.map((u) => [u.email, u.role?.name]),
          [
            ['admin@example.com', 'Administrator'],
            ['ed@example.com', 'Editors'],
          ],
        );
        assert.match((await cli(['users', 'list'])).stdout, /ed@example\.com\tactive\tEditors/);
        assert.equal(
          (await cli(['users', 'passwd', '--email', 'ed@example.com', '--password', 'second-password'])).status,
          0,
        );
        assert.equal((await cli(['users', 'passwd', '--email', 'nobody@example.com', '--password', 'x'])).status, 3);
      });

      it('users create refuses a malformed email as the API does (FAILED_VALIDATION on email, exit 1)', async () => {
        const bad = await cli(['users', 'create', '--email', 'not-an-email', '--password', 'x-password']);
        assert.equal(bad.status, 1);
        assert.match(
          bad.stderr,
          /Validation failed for field "email"\. Value has to be a valid email address\. \[FAILED_VALIDATION\]/,
        );
        assert.equal((await cli(['users', 'passwd', '--email', 'not-an-email', '--password', 'x'])).status, 3);
      });

      it('export then import: a summary, the rows, bad rows named by line (exit 1), unknown collections 3', async () => {
        const out = path.join(dir, `tags-${client}.csv`);
        const exported = await cli(['export', 'tags', '--fields', 'name', '--sort', 'id', '--out', out, '--json']);
        assert.equal(exported.status, 0, exported.stderr);
        assert.equal(JSON.parse(exported.stdout).rows, 4);
        assert.equal(readFileSync(out, 'utf8'), 'name\r\nscience\r\nhistory\r\ncomputing\r\nunused\r\n');
        const stdout = await cli([
          'export',
          'articles',
          '--format',
          'ndjson',
          '--fields',
          'id',
          '--filter',
          '{"status":{"_eq":"published"}}',
        ]);
        assert.equal(stdout.stdout.trim().split('\n').length, 4);
        const file = path.join(dir, `authors-${client}.ndjson`);
        writeFileSync(file, '{"name":"Cli One"}\n{"name":"Cli Two"}\n');
        const imported = await cli(['import', 'authors', file, '--json']);
        assert.equal(imported.status, 0, imported.stderr);
        assert.equal(JSON.parse(imported.stdout).created, 2);
        // The CLI's writes leave their audit trail too (no user); the failed import below leaves none.
        const k = knexFor(db);
        const trail = async () =>
          (await k('service_activity').where({ collection: 'authors', action: 'create' }).whereNull('user')).length;
        try {
          assert.equal(await trail(), 2);
          assert.equal((await k('service_revisions').where({ collection: 'authors' })).length, 2);
        } finally {
          await k.destroy();
        }
        writeFileSync(file, '{"name":"Cli Three"}\n{"bio":"no name"}\n');
        const bad = await cli(['import', 'authors', file]);
        assert.equal(bad.status, 1);
        assert.match(bad.stderr, /line 2/);
        assert.equal((await cli(['import', 'nope', file])).status, 3);
        assert.equal((await cli(['import', 'authors', path.join(dir, 'missing.csv')])).status, 3);
        assert.equal((await cli(['export', 'nope'])).status, 3);
      });

      it('schema snapshot, then apply to an empty database: dry run in words, --yes applies, again nothing to do', async () => {
        // A relative path: files are found from the command's working directory.
        const file = `snapshot-${client}.yaml`;
        assert.equal((await cli(['schema', 'snapshot', file])).status, 0);
        assert.match(readFileSync(path.join(dir, file), 'utf8'), /collection: articles/);
        const dry = await cli(['schema', 'apply', file, '--dry-run'], empty);
        assert.equal(dry.status, 0, dry.stderr);
        assert.match(dry.stdout, /create collection "articles" with \d+ fields/);
        const refused = await cli(['schema', 'apply', file], empty);
        assert.equal(refused.status, 2);
        const applied = await cli(['schema', 'apply', file, '--yes', '--json'], empty);
        assert.equal(applied.status, 0, applied.stderr);
        assert.ok(JSON.parse(applied.stdout).applied.length > 0);
        const again = await cli(['schema', 'apply', file, '--yes'], empty);
        assert.match(again.stdout, /nothing to do/);
      });

      it('schema snapshot and apply keep the fields an admin added to system collections (issue 30)', async () => {
        const file = `custom-${client}.json`;
        assert.equal((await cli(['schema', 'snapshot', file])).status, 0);
        const snapshot = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
        assert.ok(!snapshot.fields.some((f: { collection: string }) => f.collection.startsWith('service_')));
        snapshot.fields.push({
          collection: 'service_users',
          field: 'cli_note',
          type: 'string',
          meta: { note: 'From a snapshot' },
          schema: { name: 'cli_note', table: 'service_users', max_length: 80, is_nullable: true },
        });
        writeFileSync(path.join(dir, file), JSON.stringify(snapshot));
        const dry = await cli(['schema', 'apply', file, '--dry-run']);
        assert.match(dry.stdout, /create field "service_users\.cli_note"/);
        const applied = await cli(['schema', 'apply', file, '--yes']);
        assert.equal(applied.status, 0, applied.stderr);
        const again = `custom-again-${client}.json`;
        assert.equal((await cli(['schema', 'snapshot', again])).status, 0);
        const kept = JSON.parse(readFileSync(path.join(dir, again), 'utf8')).fields.filter(
          (f: { collection: string }) => f.collection.startsWith('service_'),
        );
        assert.deepEqual(
          kept.map((f: { field: string; meta: { note: string } }) => [f.field, f.meta.note]),
          [['cli_note', 'From a snapshot']],
        );
        // The empty database has the first test's schema: applying adds the system collection's field alone.
        const onEmpty = await cli(['schema', 'apply', again, '--yes', '--json'], empty);
        assert.equal(onEmpty.status, 0, onEmpty.stderr);
        assert.deepEqual(JSON.parse(onEmpty.stdout).applied, ['create field "service_users.cli_note" (string)']);
      });

      it('users create --role refuses a name two roles share; messages name flags as typed (--force)', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 2; i++) {
          const twin = await cli(['roles', 'create', '--name', 'Twins', '--json']);
          assert.equal(twin.status, 0, twin.stderr);
          ids.push(JSON.parse(twin.stdout).id);
        }
        const args = ['users', 'create', '--email', 'twin@example.com', '--password', 'x-password', '--role'];
        const ambiguous = await cli([...args, 'Twins']);
        assert.equal(ambiguous.status, 4);
        assert.match(
          ambiguous.stderr,
          /^strata: 2 roles are named "Twins" \(.+\): pass --role the id of the one you mean\n$/,
        );
        for (const id of ids) assert.ok(ambiguous.stderr.includes(id), ambiguous.stderr);
        const chosen = await cli([...args, ids[1]!, '--json']);
        assert.equal(chosen.status, 0, chosen.stderr);
        assert.equal(JSON.parse(chosen.stdout).role, ids[1]);
        assert.equal((await cli(['roles', 'create', '--name', 'Child', '--parent', 'Twins'])).status, 4);

        const file = `vendor-${client}.json`;
        assert.equal((await cli(['schema', 'snapshot', file])).status, 0);
        const snapshot = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
        writeFileSync(path.join(dir, file), JSON.stringify({ ...snapshot, vendor: 'elsewhere' }));
        const refused = await cli(['schema', 'apply', file, '--dry-run']);
        assert.equal(refused.status, 1);
        assert.match(refused.stderr, /this database is \w+; pass --force to compare them anyway/);
        assert.equal((await cli(['schema', 'apply', file, '--dry-run', '--force'])).status, 0);
      });

      // Two processes (side by side): the binary's own part is its shell (index.ts: streams, exit code), the same for
      // every command; help and usage errors are the in-process tests' above.
      it('the binary: a data command with --json, and an error exit code with its JSON', async () => {
        const [list, missing] = await Promise.all([
          spawned(['users', 'list', '--json']),
          spawned(['users', 'passwd', '--email', 'nobody@example.com', '--password', 'x', '--json']),
        ]);
        assert.equal(list.status, 0, list.stderr);
        assert.ok(
          (JSON.parse(list.stdout) as { email: string }[]).some((u) => u.email === 'admin@example.com'),
          list.stdout,
        );
        assert.equal(missing.status, 3, missing.stderr);
        assert.deepEqual(JSON.parse(missing.stdout), {
          error: { message: 'No user with email nobody@example.com', exit: 3 },
        });
        assert.equal(missing.stderr, 'strata: No user with email nobody@example.com\n');
      });
    },
  ];
}
