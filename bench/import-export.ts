/**
 * Import and export of N rows (default 1,000,000) on one database, through the engine the endpoints and the CLI
 * use: a generated CSV file is imported (IMPORT_BATCH_SIZE batches, one transaction), then exported as CSV
 * (EXPORT_BATCH_SIZE batches) to a file. Prints rows/s of each and the peak RSS of this process (run one database
 * per process: `node --import tsx bench/import-export.ts sqlite3|pg|mysql [rows]`; pg/mysql need TEST_PG_URL /
 * TEST_MYSQL_URL).
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DbClient } from '../src/config/config.js';
import { readConfig } from '../src/config/config.js';
import { queryBuilder } from '../src/db/connection.js';
import { exportDownload } from '../src/io/export-stream.js';
import { importRecords } from '../src/io/import-records.js';
import { createAppContext } from '../src/app/app-context.js';
import { CLI_ACCOUNTABILITY } from '../src/cli/cli-support.js';
import { createTestDatabase } from '../test/helpers/test-db.js';

const client = (process.argv[2] ?? 'sqlite3') as DbClient;
const rows = Number(process.argv[3] ?? 1_000_000);
const dir = mkdtempSync(path.join(tmpdir(), 'strata-bench-io-'));
const testDb = await createTestDatabase(client, { fixture: false });
try {
  const config = readConfig({
    ...testDb.env,
    ADMIN_PASSWORD: 'bench-password-123',
    SECRET: 'bench-secret-0123456789abcdef',
    LOG_LEVEL: 'silent',
    IMPORT_MAX_FILE_SIZE: '1gb',
  });
  const context = await createAppContext(config, { bootstrap: true });
  await queryBuilder(context.db).schema.createTable('records', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable();
    t.integer('amount');
    t.decimal('price', 10, 2);
    t.boolean('active');
    t.date('day');
  });
  await context.schema.load();

  const file = path.join(dir, 'records.csv');
  const out = createWriteStream(file);
  out.write('name,amount,price,active,day\n');
  for (let i = 1; i <= rows; i++) {
    const line = `Record number ${i},${i % 1000},${(i % 10000) / 100},${i % 2 === 0},2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');

  let t0 = performance.now();
  const created = await context.writer.importRecords(
    await context.writer.open('records', 'create', CLI_ACCOUNTABILITY),
    importRecords('csv', createReadStream(file)),
    config.io.importBatchSize,
  );
  const importSeconds = (performance.now() - t0) / 1000;

  t0 = performance.now();
  let exported = 0;
  const download = await exportDownload('records', { limit: -1 }, 'csv', {
    items: context.items,
    schema: context.schema.current,
    accountability: CLI_ACCOUNTABILITY,
    batchSize: config.io.exportBatchSize,
    queryLimitDefault: config.queryLimitDefault,
    onBatch: (n) => (exported += n),
  });
  const sink = createWriteStream(path.join(dir, 'export.csv'));
  for await (const chunk of download.stream) if (!sink.write(chunk)) await once(sink, 'drain');
  sink.end();
  await once(sink, 'finish');
  const exportSeconds = (performance.now() - t0) / 1000;
  await context.close();
  const peak = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(
    JSON.stringify({
      client,
      rows,
      created,
      exported,
      importRowsPerSecond: Math.round(created / importSeconds),
      exportRowsPerSecond: Math.round(exported / exportSeconds),
      importSeconds: +importSeconds.toFixed(1),
      exportSeconds: +exportSeconds.toFixed(1),
      peakRssMb: peak,
    }),
  );
} finally {
  await testDb.drop();
  rmSync(dir, { recursive: true, force: true });
}
