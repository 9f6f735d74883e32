/**
 * SQLite holds the dates Directus writes as epoch milliseconds (a JS Date), and Directus reads them back in the
 * server's time zone: `timestamp` as the moment (UTC ISO), `date` and `dateTime` from the Date's local fields. So a
 * value written while the server ran in one zone reads, once it runs in another, as Directus reads it there — the
 * same moment for a timestamp, the local date and time of that moment for the others. Filters agree with what is read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';

const pad = (n: number) => String(n).padStart(2, '0');
/** What Directus answers for an epoch value, in the zone the process runs in now (its read of `date`/`dateTime`). */
function directusRead(ms: number) {
  const d = new Date(ms);
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return {
    publish_date: date,
    published_at: `${date}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
    updated_at: d.toISOString(),
  };
}

describe('SQLite dates after a time-zone change, as Directus reads them', () => {
  let t: TestApp;
  const zone = process.env.TZ;
  /** Written while the server ran in Berlin: 2024-01-15 10:30 local (09:30 UTC), as Directus stores it. */
  let written: number;

  before(async () => {
    process.env.TZ = 'Europe/Berlin';
    written = new Date(2024, 0, 15, 10, 30, 0).getTime();
    t = await startTestApp('sqlite3');
    await queryBuilder(t.context.db)('articles')
      .where({ id: 1 })
      .update({ publish_date: written, published_at: written, updated_at: written });
  });
  after(async () => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
    await t?.close();
  });

  const read = async () => {
    const res = await t.request({
      method: 'GET',
      url: '/items/articles/1?fields=publish_date,published_at,updated_at',
    });
    assert.equal(res.statusCode, 200, res.body);
    return json(res).data;
  };

  it('reads in the zone it was written in as written', async () => {
    assert.deepEqual(await read(), {
      publish_date: '2024-01-15',
      published_at: '2024-01-15T10:30:00',
      updated_at: '2024-01-15T09:30:00.000Z',
    });
    assert.deepEqual(await read(), directusRead(written));
  });

  it('reads in another zone as Directus does there: the same moment, its local date and time', async () => {
    process.env.TZ = 'America/New_York';
    assert.deepEqual(await read(), {
      publish_date: '2024-01-15',
      published_at: '2024-01-15T04:30:00',
      updated_at: '2024-01-15T09:30:00.000Z',
    });
    assert.deepEqual(await read(), directusRead(written));
    process.env.TZ = 'Pacific/Auckland';
    assert.deepEqual(await read(), directusRead(written));
    const filtered = await t.request({
      method: 'GET',
      url: `/items/articles?fields=id&filter[published_at][_eq]=${directusRead(written).published_at}`,
    });
    assert.deepEqual(json(filtered).data, [{ id: 1 }], filtered.body);
  });
});
