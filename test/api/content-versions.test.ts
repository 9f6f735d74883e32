/**
 * Content versions on every database (Directus docs: Content versions): /versions CRUD with the query language,
 * creation refused where Directus refuses it (no versioning, reserved or taken key, unreadable item, server-owned
 * fields), save merging deltas, `?version=` reads, compare's answer, promote through the items write path under the
 * caller's rights (mainHash checked, `fields` honoured), and the versions collection on /graphql/system.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

for (const client of testClients()) {
  describe(`content versions (${clientLabel(client)})`, () => {
    let t: TestApp;
    let leafletId: number;
    let memoId: number;
    let editor: { id: string; token: string };
    let reader: { id: string; token: string };

    const send = (method: Method, url: string, body?: unknown, token?: string | null) =>
      t.request({
        method,
        url,
        token,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const ok = async (method: Method, url: string, body?: unknown, token?: string | null) => {
      const response = await send(method, url, body, token);
      assert.equal(response.statusCode, 200, response.body);
      return json(response).data;
    };
    const refused = async (
      status: number,
      code: string,
      method: Method,
      url: string,
      body?: unknown,
      token?: string,
    ) => {
      const response = await send(method, url, body, token);
      assert.equal(response.statusCode, status, response.body);
      assert.equal(errorCode(response), code, response.body);
      return json(response).errors[0];
    };
    const collection = (name: string, versioning: boolean) =>
      ok('POST', '/collections', {
        collection: name,
        meta: { versioning },
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
          { field: 'body', type: 'text' },
          { field: 'secret', type: 'string' },
        ],
      });

    before(async () => {
      t = await startTestApp(client);
      await collection('leaflets', true);
      await collection('memos', false);
      leafletId = (await ok('POST', '/items/leaflets', { title: 'Home', body: 'Welcome', secret: 's1' })).id;
      memoId = (await ok('POST', '/items/memos', { title: 'Note' })).id;
      const leafletsRead = { collection: 'leaflets', fields: 'id,title,body' };
      const versionRules = ['create', 'read', 'update', 'delete'].map((action) => ({
        collection: 'service_versions',
        action: action as 'read',
      }));
      editor = await createUserWithPolicies(t, [
        await createPolicy(t, {
          permissions: [
            leafletsRead,
            { collection: 'leaflets', action: 'update', fields: 'title,body' },
            ...versionRules,
          ],
        }),
      ]);
      reader = await createUserWithPolicies(t, [
        await createPolicy(t, {
          permissions: [{ ...leafletsRead, permissions: { id: { _eq: -1 } } }, ...versionRules],
        }),
      ]);
    });
    after(async () => {
      await t?.close();
    });

    it('creates a version of an item: hash, creator and date filled, key and name kept, listed with the query language', async () => {
      const version = await ok('POST', '/versions', {
        key: 'draft',
        name: 'Draft',
        collection: 'leaflets',
        item: leafletId,
      });
      assert.equal(version.key, 'draft');
      assert.equal(version.name, 'Draft');
      assert.equal(version.collection, 'leaflets');
      assert.equal(version.item, String(leafletId));
      assert.match(version.hash, /^[0-9a-f]{40}$/);
      assert.equal(version.delta, null);
      assert.ok(version.user_created);
      assert.ok(version.date_created);
      const listed = await ok('GET', `/versions?filter[item][_eq]=${leafletId}&fields=key,collection&sort=key`);
      assert.deepEqual(listed, [{ key: 'draft', collection: 'leaflets' }]);
      const one = await ok('GET', `/versions/${version.id}?fields=id,user_created.email`);
      assert.equal(one.user_created.email, 'admin@example.com');
      assert.equal((await send('DELETE', `/versions/${version.id}`)).statusCode, 204);
    });

    it('refuses versions Directus refuses: no versioning, reserved or taken key, other fields, missing item', async () => {
      const reason = (e: { extensions: { reason: string } }) => e.extensions.reason;
      assert.equal(
        reason(
          await refused(422, 'UNPROCESSABLE_CONTENT', 'POST', '/versions', {
            key: 'a',
            collection: 'memos',
            item: memoId,
          }),
        ),
        'Content Versioning is not enabled for collection "memos"',
      );
      assert.equal(
        reason(
          await refused(400, 'INVALID_PAYLOAD', 'POST', '/versions', {
            key: 'main',
            collection: 'leaflets',
            item: leafletId,
          }),
        ),
        '"main" is a reserved version key',
      );
      await refused(400, 'INVALID_PAYLOAD', 'POST', '/versions', {
        key: 'x',
        collection: 'leaflets',
        item: leafletId,
        delta: {},
      });
      await refused(400, 'INVALID_PAYLOAD', 'POST', '/versions', { collection: 'leaflets', item: leafletId });
      await refused(403, 'FORBIDDEN', 'POST', '/versions', { key: 'x', collection: 'leaflets', item: 99999 });
      await refused(403, 'FORBIDDEN', 'POST', '/versions', { key: 'x', collection: 'nowhere', item: 1 });
      await ok('POST', '/versions', { key: 'taken', collection: 'leaflets', item: leafletId });
      await refused(422, 'UNPROCESSABLE_CONTENT', 'POST', '/versions', {
        key: 'taken',
        collection: 'leaflets',
        item: leafletId,
      });
      await refused(422, 'UNPROCESSABLE_CONTENT', 'POST', '/versions', [
        { key: 'twice', collection: 'leaflets', item: leafletId },
        { key: 'twice', collection: 'leaflets', item: leafletId },
      ]);
      // Updates change key and name only.
      const [taken] = await ok('GET', '/versions?filter[key][_eq]=taken');
      await refused(400, 'INVALID_PAYLOAD', 'PATCH', `/versions/${taken.id}`, { delta: { title: 'x' } });
      await refused(400, 'INVALID_PAYLOAD', 'PATCH', `/versions/${taken.id}`, { hash: 'x' });
      await refused(400, 'INVALID_PAYLOAD', 'PATCH', `/versions/${taken.id}`, { key: 'main' });
      assert.equal((await ok('PATCH', `/versions/${taken.id}`, { name: 'Renamed' })).name, 'Renamed');
      // A key taken by another version of the item: the unique index answers, on every database.
      const other = await ok('POST', '/versions', { key: 'other', collection: 'leaflets', item: leafletId });
      await refused(400, 'RECORD_NOT_UNIQUE', 'PATCH', `/versions/${other.id}`, { key: 'taken' });
      assert.equal((await send('DELETE', `/versions/${other.id}`)).statusCode, 204);
      assert.equal((await send('DELETE', `/versions/${taken.id}`)).statusCode, 204);
    });

    it('saves changes as a merged delta and reads the item as of the version; version=main is the item', async () => {
      const version = await ok('POST', '/versions', { key: 'spring', collection: 'leaflets', item: leafletId });
      const first = await ok('POST', `/versions/${version.id}/save`, { title: 'Spring home' });
      assert.equal(first.title, 'Spring home');
      assert.equal(first.body, 'Welcome');
      const second = await ok('POST', `/versions/${version.id}/save`, { body: 'Spring is here' });
      assert.deepEqual([second.title, second.body], ['Spring home', 'Spring is here']);
      assert.deepEqual((await ok('GET', `/versions/${version.id}`)).delta, {
        title: 'Spring home',
        body: 'Spring is here',
      });
      const asVersion = await ok('GET', `/items/leaflets/${leafletId}?version=spring&fields=id,title,body`);
      assert.deepEqual(asVersion, { id: leafletId, title: 'Spring home', body: 'Spring is here' });
      assert.deepEqual(await ok('GET', `/items/leaflets/${leafletId}?version=spring&fields=title`), {
        title: 'Spring home',
      });
      assert.equal((await ok('GET', `/items/leaflets/${leafletId}?version=main`)).title, 'Home');
      assert.equal((await ok('GET', `/items/leaflets/${leafletId}`)).title, 'Home');
      await refused(403, 'FORBIDDEN', 'GET', `/items/leaflets/${leafletId}?version=nosuch`);
      await refused(400, 'INVALID_PAYLOAD', 'POST', `/versions/${version.id}/save`, { nosuch: 1 });
      // The editor may not read `secret`: the version's read leaves it out too.
      const edited = await ok('GET', `/items/leaflets/${leafletId}?version=spring`, undefined, editor.token);
      assert.deepEqual(edited, { id: leafletId, title: 'Spring home', body: 'Spring is here' });
    });

    it('compares a version with its main item, and tells when the main item changed since', async () => {
      const version = await ok('POST', '/versions', { key: 'compare', collection: 'leaflets', item: leafletId });
      await ok('POST', `/versions/${version.id}/save`, { title: 'Compared' });
      const compared = await ok('GET', `/versions/${version.id}/compare`);
      assert.deepEqual(Object.keys(compared).sort(), ['current', 'main', 'mainHash', 'outdated']);
      assert.equal(compared.outdated, false);
      assert.equal(compared.mainHash, version.hash);
      assert.deepEqual(compared.current, { title: 'Compared' });
      assert.equal(compared.main.title, 'Home');
      await ok('PATCH', `/items/leaflets/${leafletId}`, { secret: 's2' });
      const later = await ok('GET', `/versions/${version.id}/compare`);
      assert.equal(later.outdated, true);
      assert.notEqual(later.mainHash, version.hash);
      assert.equal((await send('DELETE', `/versions/${version.id}`)).statusCode, 204);
    });

    it('promotes a version through the items write path: mainHash checked, fields honoured, the caller’s rights', async () => {
      const page = (await ok('POST', '/items/leaflets', { title: 'About', body: 'Us' })).id;
      const version = await ok('POST', '/versions', { key: 'next', collection: 'leaflets', item: page }, editor.token);
      await refused(422, 'UNPROCESSABLE_CONTENT', 'POST', `/versions/${version.id}/promote`, {
        mainHash: version.hash,
      });
      await ok('POST', `/versions/${version.id}/save`, { title: 'About us', body: 'Everything' }, editor.token);
      await refused(400, 'INVALID_PAYLOAD', 'POST', `/versions/${version.id}/promote`, {});
      await refused(422, 'UNPROCESSABLE_CONTENT', 'POST', `/versions/${version.id}/promote`, { mainHash: 'stale' });
      const { mainHash } = await ok('GET', `/versions/${version.id}/compare`, undefined, editor.token);
      // The reader may read versions but not update leaflets.
      await refused(403, 'FORBIDDEN', 'POST', `/versions/${version.id}/promote`, { mainHash }, reader.token);
      const promoted = await ok(
        'POST',
        `/versions/${version.id}/promote`,
        { mainHash, fields: ['title'] },
        editor.token,
      );
      assert.equal(promoted, page);
      const item = await ok('GET', `/items/leaflets/${page}`);
      assert.deepEqual([item.title, item.body], ['About us', 'Us']);
      // The version stays (as in Directus), now outdated; the rest promoted with the new hash.
      const again = await ok('GET', `/versions/${version.id}/compare`);
      assert.equal(again.outdated, true);
      await ok('POST', `/versions/${version.id}/promote`, { mainHash: again.mainHash });
      assert.equal((await ok('GET', `/items/leaflets/${page}`)).body, 'Everything');
      assert.equal((await send('DELETE', `/versions/${version.id}`)).statusCode, 204);
      await refused(403, 'FORBIDDEN', 'GET', `/versions/${version.id}`);
    });

    it('keeps versions of items a user may not read away from them', async () => {
      await refused(
        403,
        'FORBIDDEN',
        'POST',
        '/versions',
        { key: 'peek', collection: 'leaflets', item: leafletId },
        reader.token,
      );
      const version = await ok('POST', '/versions', { key: 'hidden', collection: 'leaflets', item: leafletId });
      await refused(403, 'FORBIDDEN', 'GET', `/items/leaflets/${leafletId}?version=hidden`, undefined, reader.token);
      await refused(403, 'FORBIDDEN', 'GET', `/versions/${version.id}/compare`, undefined, reader.token);
      // Saving needs the main item readable too: nothing is written when it is not.
      await refused(403, 'FORBIDDEN', 'POST', `/versions/${version.id}/save`, { title: 'x' }, reader.token);
      assert.equal((await ok('GET', `/versions/${version.id}`)).delta, null);
      const plain = await createUserWithPolicies(t, [await createPolicy(t, { permissions: [] })]);
      await refused(403, 'FORBIDDEN', 'GET', `/versions/${version.id}`, undefined, plain.token);
      await refused(403, 'FORBIDDEN', 'POST', `/versions/${version.id}/save`, { title: 'x' }, plain.token);
      await refused(
        403,
        'FORBIDDEN',
        'POST',
        '/versions',
        { key: 'p', collection: 'leaflets', item: leafletId },
        plain.token,
      );
    });

    it('serves the versions collection on /graphql/system', async () => {
      const query = async (q: string) => json(await send('POST', '/graphql/system', { query: q }));
      const created = await query(
        `mutation { create_versions_item(data: {key: "gql", collection: "leaflets", item: "${leafletId}"}) { id key hash } }`,
      );
      assert.equal(created.errors, undefined, JSON.stringify(created.errors));
      assert.match(created.data.create_versions_item.hash, /^[0-9a-f]{40}$/);
      const listed = await query('{ versions(filter: {key: {_eq: "gql"}}) { key item } }');
      assert.deepEqual(listed.data.versions, [{ key: 'gql', item: String(leafletId) }]);
      const refusedCreate = await query(
        `mutation { create_versions_item(data: {key: "n", collection: "memos", item: "${memoId}"}) { id } }`,
      );
      assert.equal(refusedCreate.errors[0].extensions.code, 'UNPROCESSABLE_CONTENT');
    });

    it('reads an item as of a version through `<collection>_by_id(version:)` and `<collection>_by_version` on /graphql', async () => {
      const query = async (q: string, token?: string) => json(await send('POST', '/graphql', { query: q }, token));
      const spring = await query(`{ leaflets_by_id(id: ${leafletId}, version: "spring") { id title body } }`);
      assert.equal(spring.errors, undefined, JSON.stringify(spring.errors));
      assert.deepEqual(spring.data.leaflets_by_id, {
        id: String(leafletId),
        title: 'Spring home',
        body: 'Spring is here',
      });
      const main = await query(`{ leaflets_by_id(id: ${leafletId}, version: "main") { title } }`);
      assert.deepEqual(main.data.leaflets_by_id, { title: 'Home' });
      const plain = await query(`{ leaflets_by_id(id: ${leafletId}) { title } }`);
      assert.deepEqual(plain.data.leaflets_by_id, { title: 'Home' });
      const unknown = await query(`{ leaflets_by_id(id: ${leafletId}, version: "nosuch") { title } }`);
      assert.equal(unknown.errors[0].extensions.code, 'FORBIDDEN');
      // Directus's `<c>_by_version` (`version_<c>`), on collections with versioning.
      const byVersion = await query(
        `{ v: leaflets_by_version(version: "spring", id: ${leafletId}) { id heading: title body __typename } }`,
      );
      assert.equal(byVersion.errors, undefined, JSON.stringify(byVersion.errors));
      assert.deepEqual(byVersion.data.v, {
        id: String(leafletId),
        heading: 'Spring home',
        body: 'Spring is here',
        __typename: 'version_leaflets',
      });
      const hidden = await query(
        `{ leaflets_by_version(version: "spring", id: ${leafletId}) { secret } }`,
        editor.token,
      );
      assert.equal(hidden.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      const unversioned = await send('POST', '/graphql', { query: `{ memos_by_version(version: "a", id: 1) { id } }` });
      assert.equal(unversioned.statusCode, 400);
    });

    it('drops the versions of a collection with the collection', async () => {
      assert.ok((await ok('GET', '/versions?filter[collection][_eq]=leaflets')).length > 0);
      assert.equal((await send('DELETE', '/collections/leaflets')).statusCode, 204);
      assert.deepEqual(await ok('GET', '/versions?filter[collection][_eq]=leaflets'), []);
    });
  });
}
