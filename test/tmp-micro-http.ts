import { startTestApp } from './helpers/test-app.js';
const [ta, tb] = (process.env.PAIR ?? '30s,0').split(',');
const on = await startTestApp('sqlite3', { env: { DB_STATEMENT_TIMEOUT: ta! } });
const off = await startTestApp('sqlite3', { env: { DB_STATEMENT_TIMEOUT: tb! } });
const apps = { on, off } as const;
const samples: Record<string, number[]> = { on: [], off: [] };
for (const a of [on, off]) for (let i = 0; i < 300; i++) await a.request({ method: 'GET', url: '/items/articles?limit=25' });
for (let round = 0; round < 40; round++) {
  for (const k of (round % 2 ? ['on', 'off'] : ['off', 'on']) as ('on' | 'off')[]) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 200; i++) {
      const r = await apps[k].request({ method: 'GET', url: '/items/articles?limit=25' });
      if (r.statusCode !== 200) throw new Error(r.body);
    }
    samples[k]!.push(Number(process.hrtime.bigint() - t) / 200 / 1000);
  }
}
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!;
console.log(process.env.PAIR, 'µs/request median: first', med(samples.on!).toFixed(1), 'second', med(samples.off!).toFixed(1), 'ratio first/second', (med(samples.on!) / med(samples.off!)).toFixed(3));
await on.close(); await off.close();
