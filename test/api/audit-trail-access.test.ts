/**
 * The audit trail's remaining parts over HTTP, on every database: failed logins as activity (`login_failed`, with the
 * client's ip, user agent and origin) beside successful ones; /graphql/system `revisions` for non-admins judged as
 * REST's /revisions (revisions of readable items only, hidden fields never in `data` / `delta`, no unjudged paths to
 * revisions); a comment's `@<uuid>` mentions notifying the mentioned users who may read the item, through
 * /notifications (own rows, status inbox/archived); versions of items not yet created refused with a coded error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

type Row = Record<string, any>;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

for (const client of testClients()) {
  describe(`audit trail access (${clientLabel(client)})`, () => {
    let t: TestApp;
    let adminId: string;
    let openId: number;
    let closedId: number;
    let reader: { id: string; token: string };
    let outsider: { id: string; token: string };

    const send = (method: Method, url: string, body?: unknown, token?: string | null, headers: Row = {}) =>
      t.request({
        method,
        url,
        token,
        ...(body === undefined
          ? { headers }
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } }),
      });
    const ok = async (method: Method, url: string, body?: unknown, token?: string | null) => {
      const response = await send(method, url, body, token);
      assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
      return json(response).data;
    };
    const graphql = async (query: string, token?: string) => {
      const response = await send('POST', '/graphql/system', { query }, token);
      return json(response);
    };

    before(async () => {
      t = await startTestApp(client);
      await ok('POST', '/collections', {
        collection: 'cases',
        meta: { versioning: true },
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
          { field: 'secret', type: 'string' },
        ],
      });
      openId = (await ok('POST', '/items/cases', { title: 'Open', secret: 's-open' })).id;
      closedId = (await ok('POST', '/items/cases', { title: 'Closed', secret: 's-closed' })).id;
      await ok('PATCH', `/items/cases/${openId}`, { secret: 's-open-2' });
      await ok('PATCH', `/items/cases/${closedId}`, { title: 'Closed!' });
      // Reads the open case without its secret, and every revision and activity row (judged item by item).
      const policy = await createPolicy(t, {
        app_access: true,
        permissions: [
          { collection: 'cases', fields: 'id,title', permissions: { title: { _eq: 'Open' } } },
          { collection: 'service_revisions' },
          { collection: 'service_activity' },
        ],
      });
      reader = await createUserWithPolicies(t, [policy]);
      outsider = await createUserWithPolicies(t, [await createPolicy(t, { app_access: true, permissions: [] })]);
      adminId = (await ok('GET', '/users/me?fields=id')).id;
    });
    after(async () => {
      await t?.close();
    });

    it('records failed logins as activity, with the account, ip, user agent and origin', async () => {
      const headers = { 'user-agent': 'failing-agent/1', origin: 'http://login.example' };
      const failed = await send('POST', '/auth/login', { email: ADMIN.email, password: 'wrong' }, null, headers);
      assert.equal(failed.statusCode, 401, failed.body);
      const unknown = await send('POST', '/auth/login', { email: 'nobody@example.com', password: 'x' }, null, headers);
      assert.equal(unknown.statusCode, 401, unknown.body);
      const rows: Row[] = await ok('GET', '/activity?filter[action][_eq]=login_failed&sort=id&limit=-1');
      assert.equal(rows.length, 2, JSON.stringify(rows));
      assert.equal(rows[0]!.item, adminId);
      assert.equal(rows[1]!.item, 'nobody@example.com');
      for (const row of rows) {
        assert.equal(row.collection, 'service_users');
        assert.equal(row.user, null);
        assert.equal(row.user_agent, 'failing-agent/1');
        assert.equal(row.origin, 'http://login.example');
        assert.equal(typeof row.ip, 'string');
      }
      const login = await send('POST', '/auth/login', { email: ADMIN.email, password: ADMIN.password }, null, headers);
      assert.equal(login.statusCode, 200, login.body);
      const logins: Row[] = await ok('GET', '/activity?filter[action][_eq]=login&sort=-id&limit=1');
      assert.equal(logins[0]!.origin, 'http://login.example');
      assert.equal(logins[0]!.item, adminId);
    });

    it('keeps a long Origin header cut to the column, for logins and writes alike', async () => {
      const origin = `http://${'o'.repeat(300)}.example`;
      const login = await send('POST', '/auth/login', { email: ADMIN.email, password: ADMIN.password }, null, {
        origin,
      });
      assert.equal(login.statusCode, 200, login.body);
      const created = await send('POST', '/items/cases', { title: 'Long origin' }, undefined, { origin });
      assert.equal(created.statusCode, 200, created.body);
      const rows: Row[] = await ok('GET', '/activity?sort=-id&limit=2&fields=action,origin');
      assert.deepEqual(
        rows.map((row) => row.action),
        ['create', 'login'],
      );
      for (const row of rows) assert.equal(row.origin, origin.slice(0, 255));
    });

    it('serves /graphql/system revisions to non-admins as /revisions: readable items, readable fields', async () => {
      const query = `{ revisions(filter: {collection: {_eq: "cases"}}, sort: ["id"]) { item data delta } }`;
      const answer = await graphql(query, reader.token);
      assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
      const revisions: Row[] = answer.data.revisions;
      assert.deepEqual(
        revisions.map((r) => r.item),
        [String(openId), String(openId)],
      );
      for (const revision of revisions) {
        assert.equal('secret' in revision.data, false, JSON.stringify(revision));
        assert.equal('secret' in (revision.delta ?? {}), false, JSON.stringify(revision));
      }
      assert.equal(revisions[0]!.data.title, 'Open');
      assert.deepEqual(revisions[1]!.delta, {});
      const rest: Row[] = await ok(
        'GET',
        '/revisions?filter[collection][_eq]=cases&sort=id&fields=item,data,delta',
        undefined,
        reader.token,
      );
      assert.deepEqual(revisions, rest);
      // One revision of the closed case: not theirs to see.
      const closed: Row[] = await ok(
        'GET',
        `/revisions?filter[collection][_eq]=cases&filter[item][_eq]=${closedId}&fields=id`,
      );
      const one = await graphql(`{ revisions_by_id(id: ${closed[0]!.id}) { data } }`, reader.token);
      assert.equal(one.errors?.[0]?.extensions?.code, 'FORBIDDEN', JSON.stringify(one));
      // Paths that would reach revisions past the judging are not offered; nor aggregates over them.
      const nested = await graphql('{ activity { revisions { data } } }', reader.token);
      assert.ok(nested.errors?.length, JSON.stringify(nested));
      const counted = await graphql('{ revisions_aggregated(groupBy: ["data"]) { count { id } } }', reader.token);
      assert.ok(counted.errors?.length, JSON.stringify(counted));
      // Admins read them whole.
      const whole = await graphql(`
        {
          revisions(filter: { collection: { _eq: "cases" }, item: { _in: ["${openId}", "${closedId}"] } }) {
            data
          }
        }
      `);
      assert.equal(whole.data.revisions.length, 4);
      assert.ok(whole.data.revisions.every((r: Row) => 'secret' in r.data));
    });

    it('never lets a non-admin reach revisions past the judging on REST (activity.revisions, revisions.parent)', async () => {
      for (const url of [
        '/activity?fields=revisions.data',
        '/activity?fields=id&filter[revisions][data][_contains]=s-closed',
        '/activity?fields=id&sort=revisions.id',
        '/revisions?fields=id,parent.data',
      ]) {
        const response = await send('GET', url, undefined, reader.token);
        assert.equal(response.statusCode, 403, `${url}: ${response.body}`);
      }
      // Wildcards expand to what the rules grant: no revisions inside activity.
      const all: Row[] = await ok('GET', '/activity?fields=*.*&filter[collection][_eq]=cases', undefined, reader.token);
      assert.ok(all.length > 0);
      assert.ok(
        all.every((row) => !('revisions' in row)),
        JSON.stringify(all),
      );
      // Admins keep every path.
      const admin: Row[] = await ok('GET', '/activity?fields=revisions.data&filter[collection][_eq]=cases');
      assert.ok(admin.some((row) => row.revisions.length > 0));
    });

    it('notifies mentioned users who may read the item; /notifications serves each their own', async () => {
      const text = `Look @${reader.id} and @${outsider.id}\nplease`;
      await ok('POST', '/comments', { collection: 'cases', item: openId, comment: text });
      const mine: Row[] = await ok('GET', '/notifications?fields=*', undefined, reader.token);
      assert.equal(mine.length, 1, JSON.stringify(mine));
      const notice = mine[0]!;
      assert.equal(notice.recipient, reader.id);
      assert.equal(notice.sender, adminId);
      assert.equal(notice.subject, 'You were mentioned in cases');
      assert.equal(notice.collection, 'cases');
      assert.equal(notice.item, String(openId));
      assert.equal(notice.status, 'inbox');
      assert.ok(notice.timestamp);
      assert.match(notice.message, /has mentioned you in a comment/);
      assert.match(notice.message, /> Look <em>/);
      assert.match(notice.message, new RegExp(`/admin/content/cases/${openId}`));
      const viaGraphql = await graphql('{ notifications { subject status } }', reader.token);
      assert.deepEqual(viaGraphql.data?.notifications, [{ subject: 'You were mentioned in cases', status: 'inbox' }]);
      // The outsider may not read the case: nothing for them.
      assert.deepEqual(await ok('GET', '/notifications', undefined, outsider.token), []);
      // A comment on an item the reader may not read does not notify them.
      await ok('POST', '/comments', { collection: 'cases', item: closedId, comment: `@${reader.id} closed` });
      assert.equal((await ok('GET', '/notifications', undefined, reader.token)).length, 1);
      // Their status moves between inbox and archived; nothing else is theirs to change.
      const archived = await ok('PATCH', `/notifications/${notice.id}`, { status: 'archived' }, reader.token);
      assert.equal(archived.status, 'archived');
      const subject = await send('PATCH', `/notifications/${notice.id}`, { subject: 'x' }, reader.token);
      assert.equal(subject.statusCode, 403, subject.body);
      const other = await send('PATCH', `/notifications/${notice.id}`, { status: 'inbox' }, outsider.token);
      assert.equal(other.statusCode, 403, other.body);
      // Admins see every notification.
      assert.equal((await ok('GET', '/notifications')).length, 1);
    });

    it('refuses versions of items not yet created with a coded error', async () => {
      for (const item of ['+', null]) {
        const response = await send('POST', '/versions', { key: 'draft', collection: 'cases', item });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(errorCode(response), 'INVALID_PAYLOAD');
        assert.match(json(response).errors[0].extensions.reason, /items not yet created have no versions/);
      }
      const made = await send('POST', '/versions', { key: 'draft', collection: 'cases', item: openId });
      assert.equal(made.statusCode, 200, made.body);
    });
  });
}
