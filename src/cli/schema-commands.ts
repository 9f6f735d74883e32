/**
 * `strata schema snapshot [file]` and `strata schema apply <file> [--dry-run] [--yes] [--force]`: the /schema
 * endpoints from the command line. Files are YAML (`.yaml`/`.yml`) or JSON; apply prints its steps in words and
 * asks before running them unless `--yes`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { parse as parseYaml } from 'yaml';
import { toYaml } from '../io/yaml.js';
import type { Config } from '../config/config.js';
import { openUnchanged } from '../db/open-unchanged.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { SchemaStore } from '../schema/schema-store.js';
import { SchemaComparison, SchemaSync, type SchemaView } from '../schema-admin/sync/schema-sync-service.js';
import {
  CLI_ACCOUNTABILITY,
  CliError,
  EXIT,
  resolvePath,
  withContext,
  type CliIo,
  type Output,
} from './cli-support.js';

const isYaml = (file: string) => /\.ya?ml$/i.test(file);

export async function runSnapshot(config: Config, out: Output, file: string | undefined): Promise<void> {
  const snapshot = await withContext(config, out.io, async (context) =>
    new SchemaSync(context).snapshot(CLI_ACCOUNTABILITY),
  );
  if (!file) {
    out.io.stdout.write(out.json ? `${JSON.stringify(snapshot, null, 2)}\n` : toYaml(snapshot));
    return;
  }
  writeFileSync(resolvePath(out.io, file), isYaml(file) ? toYaml(snapshot) : `${JSON.stringify(snapshot, null, 2)}\n`);
  out.result(
    {
      file,
      collections: snapshot.collections.length,
      fields: snapshot.fields.length,
      relations: snapshot.relations.length,
    },
    `Wrote ${file}: ${snapshot.collections.length} collections, ${snapshot.fields.length} fields, ${snapshot.relations.length} relations`,
  );
}

export async function runApply(
  config: Config,
  out: Output,
  file: string,
  options: { dryRun?: boolean; yes?: boolean; force?: boolean },
): Promise<void> {
  let text: string;
  try {
    text = readFileSync(resolvePath(out.io, file), 'utf8');
  } catch {
    throw new CliError(`No such file: ${file}`, EXIT.notFound);
  }
  let snapshot: unknown;
  try {
    snapshot = isYaml(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `${file} is not valid ${isYaml(file) ? 'YAML' : 'JSON'}: ${(error as Error).message.split('\n')[0]}`,
      EXIT.error,
    );
  }
  if (options.dryRun) {
    await withSchemaView(config, out.io, (view) => {
      const comparison = new SchemaComparison(view);
      const diff = comparison.diff(CLI_ACCOUNTABILITY, snapshot, options.force === true, '--force');
      const steps = diff ? comparison.plan(CLI_ACCOUNTABILITY, diff).map((s) => s.description) : [];
      out.result(
        { steps, applied: [] },
        steps.length
          ? `Planned changes (dry run, nothing applied):\n${steps.map((s) => `  - ${s}`).join('\n')}`
          : 'The schema already matches the snapshot: nothing to do',
      );
    });
    return;
  }
  await withContext(config, out.io, async (context) => {
    const sync = new SchemaSync(context);
    const diff = sync.diff(CLI_ACCOUNTABILITY, snapshot, options.force === true, '--force');
    if (!diff) {
      out.result({ steps: [], applied: [] }, 'The schema already matches the snapshot: nothing to do');
      return;
    }
    const steps = sync.plan(CLI_ACCOUNTABILITY, diff).map((s) => s.description);
    out.note(`Planned changes:\n${steps.map((s) => `  - ${s}`).join('\n')}`);
    if (!options.yes) {
      if (!out.io.stdin.isTTY)
        throw new CliError(
          'Not applied: pass --yes to apply without a question (or --dry-run to only look)',
          EXIT.usage,
        );
      const rl = createInterface({ input: out.io.stdin, output: out.io.stderr });
      const answer = await rl.question(`Apply ${steps.length} change${steps.length === 1 ? '' : 's'}? [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        out.result({ steps, applied: [] }, 'Not applied');
        return;
      }
    }
    const applied = await sync.apply(CLI_ACCOUNTABILITY, diff, (step) => out.note(`  ✓ ${step.description}`));
    out.result({ steps, applied }, `Applied ${applied.length} change${applied.length === 1 ? '' : 's'}`);
  });
}

/**
 * The schema as it is, for a dry run: unlike withContext, no bootstrap (no service_* table created or migrated), no
 * undo of a change a stopped process cut short, no bus, and no SQLite file created where there is none.
 */
async function withSchemaView(config: Config, io: CliIo, work: (view: SchemaView) => void): Promise<void> {
  const db = openUnchanged(config.db);
  try {
    await waitForDatabase(db, config, { warn: (msg) => io.stderr.write(`${msg}\n`) });
    const schema = new SchemaStore(db);
    await schema.load();
    work({ schema, db });
  } finally {
    await db.close();
  }
}
