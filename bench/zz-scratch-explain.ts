import { readFileSync } from 'node:fs';
import qs from 'qs';
import { readConfig } from '../src/config/config.js';
import { createAppContext } from '../src/services/app-context.js';
import { CLI_ACCOUNTABILITY } from '../src/cli/cli-support.js';
import { parseQuery } from '../src/request/parse-query.js';
const client = process.argv[2] ?? 'mysql';
const env = JSON.parse(readFileSync(`/tmp/i14-db-${client}.json`, 'utf8'));
const config = readConfig({ ...env, ADMIN_PASSWORD: 'bench-password-123', SECRET: 'bench-secret-0123456789abcdef', LOG_LEVEL: 'silent' });
const context = await createAppContext(config, {});
const paths = process.argv.slice(3);
let captured: { sql: string; params: unknown[] }[] = [];
context.db.onQuery((sql, params) => captured.push({ sql, params: [...params] }));
for (const path of paths) {
  const raw = qs.parse(path.split('?')[1]!, { depth: 10 }) as Record<string, unknown>;
  const query = parseQuery(raw, { queryLimitMax: -1, maxRelationalDepth: 10, maxJsonQueryDepth: 10 } as never);
  captured = [];
  const collection = path.split('?')[0]!.split('/')[2]!;
  let t = performance.now();
  const body = await context.items.readMany(collection, query, CLI_ACCOUNTABILITY);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) { t = performance.now(); await context.items.readMany(collection, query, CLI_ACCOUNTABILITY); times.push(performance.now() - t); }
  const st = captured[0]!;
  console.log('\n==', path, times.map((x) => x.toFixed(1)).join(' '), body.length);
  console.log(st.sql, JSON.stringify(st.params));
  const explain = client === 'pg' ? 'explain analyze ' : client === 'mysql' ? 'analyze ' : 'explain query plan ';
  let sql = st.sql;
  let i = 0;
  if (client === 'pg') sql = sql.replace(/\$(\d+)/g, (_, n) => { const v = st.params[Number(n) - 1]; return typeof v === 'number' ? String(v) : `'${String(v)}'`; });
  const rows = await context.db.knex.raw(explain + sql, client === 'pg' ? [] : st.params as never);
  console.log(JSON.stringify(client === 'pg' ? rows.rows : client === 'mysql' ? rows[0] : rows, null, 1));
}
await context.close();
