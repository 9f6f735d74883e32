/**
 * `strata import <collection> <file>` and `strata export <collection>`: the same import and export as the HTTP
 * endpoints, with a progress bar on stderr (cli-progress) and a summary.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { Transform } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Config } from '../config/config.js';
import { parseExportFormat, exportDownload } from '../io/export-stream.js';
import { importFormatOf, importRecords } from '../io/import-records.js';
import { parseQuery } from '../request/parse-query.js';
import { CLI_ACCOUNTABILITY, CliError, EXIT, resolvePath, withContext, type Output } from './cli-support.js';

function bar(out: Output, unit: string): cliProgress.SingleBar | null {
  if (out.json || !out.io.stderr.isTTY) return null;
  return new cliProgress.SingleBar(
    {
      format: `{bar} {percentage}% | {value}/{total} ${unit} | {rate}/s`,
      stream: out.io.stderr as NodeJS.WriteStream,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
}

export async function runImport(
  config: Config,
  out: Output,
  collection: string,
  file: string,
  options: { format?: string },
): Promise<void> {
  const source = resolvePath(out.io, file);
  let size: number;
  try {
    size = statSync(source).size;
  } catch {
    throw new CliError(`No such file: ${file}`, EXIT.notFound);
  }
  const format = options.format ? importFormatOf(undefined, `x.${options.format}`) : importFormatOf(undefined, file);
  if (!format) throw new CliError(`Can't tell the format of ${file}: use --format csv|json|ndjson`, EXIT.usage);
  const started = Date.now();
  const created = await withContext(config, out.io, async (context) => {
    const target = await context.writer.open(collection, 'create', CLI_ACCOUNTABILITY);
    const progress = bar(out, 'bytes');
    progress?.start(size, 0, { rate: 0 });
    let read = 0;
    const input = createReadStream(source);
    const counted = input.pipe(
      new Transform({
        transform(chunk: Buffer, _e, done) {
          read += chunk.length;
          progress?.update(read, { rate: Math.round(read / Math.max(1, (Date.now() - started) / 1000)) });
          done(null, chunk);
        },
      }),
    );
    try {
      return await context.writer.importRecords(target, importRecords(format, counted), config.io.importBatchSize);
    } finally {
      // A failed import leaves the file half read: closed here, not when a process exit would have closed it.
      input.destroy();
      counted.destroy();
      progress?.stop();
    }
  });
  const seconds = (Date.now() - started) / 1000;
  out.result(
    { collection, created, seconds },
    `Imported ${created} item${created === 1 ? '' : 's'} into "${collection}" in ${seconds.toFixed(1)} s (${Math.round(created / Math.max(seconds, 0.001))} rows/s)`,
  );
}

export interface ExportOptions {
  format: string;
  filter?: string;
  fields?: string;
  sort?: string;
  limit?: string;
  out?: string;
}

export async function runExport(
  config: Config,
  out: Output,
  collection: string,
  options: ExportOptions,
): Promise<void> {
  const format = (() => {
    try {
      return parseExportFormat(options.format);
    } catch {
      throw new CliError(`--format must be csv, csv_utf8, json, ndjson, xml or yaml`, EXIT.usage);
    }
  })();
  const raw: Record<string, unknown> = { limit: options.limit ?? '-1' };
  if (options.filter) raw.filter = options.filter;
  if (options.fields) raw.fields = options.fields;
  if (options.sort) raw.sort = options.sort;
  const started = Date.now();
  const rows = await withContext(config, out.io, async (context) => {
    const query = parseQuery(raw, {
      queryLimitMax: config.queryLimitMax,
      maxRelationalDepth: config.maxRelationalDepth,
    });
    const progress = options.out ? bar(out, 'rows') : null;
    if (progress) {
      const { data } = await context.items.rowsMany(
        collection,
        { filter: query.filter, aggregate: { count: ['*'] } },
        CLI_ACCOUNTABILITY,
      );
      const counted = (data as { count?: unknown }[])[0]?.count;
      const limit = query.limit === undefined || query.limit < 0 ? Infinity : query.limit;
      progress.start(Math.min(Number(counted ?? 0), limit), 0, { rate: 0 });
    }
    let count = 0;
    const download = await exportDownload(collection, query, format, {
      items: context.items,
      schema: context.schema.current,
      accountability: CLI_ACCOUNTABILITY,
      batchSize: config.io.exportBatchSize,
      queryLimitDefault: config.queryLimitDefault,
      escapeFormulas: config.io.escapeCsvFormulas,
      onBatch: (n) => {
        count += n;
        progress?.update(count, { rate: Math.round(count / Math.max(1, (Date.now() - started) / 1000)) });
      },
    });
    const file = options.out ? createWriteStream(resolvePath(out.io, options.out)) : null;
    const target = file ?? out.io.stdout;
    try {
      for await (const chunk of download.stream) {
        if (!target.write(chunk)) await once(target, 'drain');
      }
      if (file) {
        file.end();
        await once(file, 'finish');
      }
    } finally {
      // After a failure the file is closed here, not left to a process exit (runCli may run again in this process).
      file?.destroy();
    }
    progress?.stop();
    return count;
  });
  const seconds = (Date.now() - started) / 1000;
  if (options.out)
    out.result(
      { collection, rows, seconds, file: options.out },
      `Exported ${rows} item${rows === 1 ? '' : 's'} of "${collection}" to ${options.out} in ${seconds.toFixed(1)} s`,
    );
  else out.note(`Exported ${rows} item${rows === 1 ? '' : 's'} of "${collection}" in ${seconds.toFixed(1)} s`);
}
