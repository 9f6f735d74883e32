/**
 * /graphql/system on every database: the system collections as items (shared types with /graphql, so relations
 * cross between user and system data), the caller's own records, server fields, schema objects and the admin schema
 * mutations, auth and two-factor mutations — each compared with its REST route; and the SDL of the caller's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TOTP } from 'otpauth';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, startTestApp, type TestApp } from '../helpers/test-app.js';
import { assertSame, gql, gqlData, rest, restAsGraphql } from './helpers.js';

const SYSTEM = { url: '/graphql/system' };

for (const client of testClients()) {
  describe(`GraphQL system endpoint (${clientLabel(client)})`, () => {
    let t: TestApp;
    let reader: { id: string; token: string; role: string };

    before(async () => {
      t = await startTestApp(client, { relations: true });
      const policy = await createPolicy(t, {
        app_access: true,
        permissions: [{ collection: 'articles', fields: 'id,title' }],
      });
      reader = await createUserWithPolicies(t, [policy]);
    });
    after(async () => {
      await t?.close();
    });

    it('reads system collections as items, and the caller’s own user, roles, flags and permissions', async () => {
      const data = await gqlData(
        t,
        '{ users(sort: ["email"]) { id email role { name } } roles(sort: ["name"]) { id name } settings { project_name } }',
        SYSTEM,
      );
      assertSame(data.users, await restAsGraphql(t, '/users', { fields: 'id,email,role.name', sort: 'email' }));
      assertSame(data.roles, await restAsGraphql(t, '/roles', { fields: 'id,name', sort: 'name' }));
      assertSame(data.settings, await restAsGraphql(t, '/settings', { fields: 'project_name' }));
      const me = await gqlData(
        t,
        '{ users_me { id email } roles_me { id } policies_me_globals { app_access admin_access enforce_tfa } permissions_me }',
        { ...SYSTEM, token: reader.token },
      );
      assertSame(me.users_me, await restAsGraphql(t, '/users/me', { fields: 'id,email' }, reader.token));
      assert.equal(me.users_me.id, reader.id);
      assert.deepEqual(me.roles_me, [{ id: reader.role }]);
      assert.deepEqual(me.policies_me_globals, await rest(t, '/policies/me/globals', {}, reader.token));
      assert.deepEqual(me.permissions_me, await rest(t, '/permissions/me', {}, reader.token));
      const anonymous = await gql(t, '{ users_me { id } }', { ...SYSTEM, token: null });
      assert.equal(anonymous.status, 400, 'the public may not read users: no such field');
    });

    it('shares types between the endpoints: user data reaches system data and back', async () => {
      const items = await gqlData(t, '{ __type(name: "users") { name } }');
      assert.equal(items.__type, null, 'only types reachable from /graphql roots are in its schema');
      const system = await gqlData(t, '{ __type(name: "users") { fields { name } } }', SYSTEM);
      assert.ok(system.__type.fields.some((f: { name: string }) => f.name === 'email'));
      const queryFields = (
        await gqlData(t, '{ __schema { queryType { fields { name } } } }', SYSTEM)
      ).__schema.queryType.fields.map((f: { name: string }) => f.name);
      for (const name of [
        'users',
        'users_by_id',
        'roles',
        'policies',
        'permissions',
        'access',
        'settings',
        'users_me',
        'roles_me',
        'policies_me_globals',
        'permissions_me',
        'server_info',
        'server_health',
        'server_ping',
        'collections',
        'collections_by_name',
        'fields',
        'fields_in_collection',
        'fields_by_name',
        'relations',
        'relations_in_collection',
        'relations_by_name',
      ]) {
        assert.ok(queryFields.includes(name), name);
      }
      assert.ok(!queryFields.includes('articles'), 'user collections are /graphql roots only');
    });

    it('answers server and schema fields as the REST routes do', async () => {
      const data = await gqlData(
        t,
        '{ server_ping server_info { project { project_name project_descriptor project_logo project_color default_language public_foreground public_background public_note custom_css public_registration public_registration_verify_email } rateLimit rateLimitGlobal queryLimit { default max } strata { version database } node { version } } server_health collections { collection } collections_by_name(name: "tags") { collection meta { icon hidden singleton } schema { name comment } } fields_in_collection(collection: "tags") { collection field type } fields_by_name(collection: "tags", field: "name") { field type meta { interface special } schema { data_type max_length is_nullable is_unique default_value } } relations { collection field related_collection } relations_in_collection(collection: "articles") { field } relations_by_name(collection: "articles", field: "author") { related_collection schema { foreign_key_table on_delete } } }',
        SYSTEM,
      );
      assert.equal(data.server_ping, 'pong');
      // Typed objects, their subfields selected (node.uptime moves between the two reads).
      const info = await rest(t, '/server/info');
      assert.deepEqual(data.server_info, { ...info, node: { version: info.node.version } });
      const health = await t.request({ method: 'GET', url: '/server/health' });
      const healthBody = JSON.parse(health.body);
      // A JSON scalar, as in Directus: REST's body whole, selected without subfields.
      assert.deepEqual(Object.keys(data.server_health), Object.keys(healthBody));
      assert.deepEqual(Object.keys(data.server_health), ['status', 'releaseId', 'serviceId', 'checks']);
      // The status is measured at each read: a slow moment on a loaded machine makes one of the two `warn`.
      assert.ok(['ok', 'warn'].includes(data.server_health.status), data.server_health.status);
      assert.ok(['ok', 'warn'].includes(healthBody.status), healthBody.status);
      assert.deepEqual(
        [data.server_health.releaseId, Object.keys(data.server_health.checks)],
        [healthBody.releaseId, Object.keys(healthBody.checks)],
      );
      const partial = await gqlData(t, '{ server_info { queryLimit { max } } }', SYSTEM);
      assert.deepEqual(partial.server_info, { queryLimit: { max: info.queryLimit.max } });
      assertSame(
        data.collections,
        (await rest(t, '/collections')).map((c: { collection: string }) => ({ collection: c.collection })),
      );
      const tags = await rest(t, '/collections/tags');
      const pick = (value: Record<string, unknown> | null, keys: string[]) =>
        value ? Object.fromEntries(keys.map((k) => [k, value[k] ?? null])) : null;
      assert.deepEqual(data.collections_by_name, {
        collection: tags.collection,
        meta: pick(tags.meta, ['icon', 'hidden', 'singleton']),
        schema: pick(tags.schema, ['name', 'comment']),
      });
      assert.deepEqual(
        data.fields_in_collection,
        (await rest(t, '/fields/tags')).map((f: Record<string, unknown>) => ({
          collection: f.collection,
          field: f.field,
          type: f.type,
        })),
      );
      const name = await rest(t, '/fields/tags/name');
      assert.deepEqual(data.fields_by_name, {
        field: name.field,
        type: name.type,
        meta: pick(name.meta, ['interface', 'special']),
        schema: pick(name.schema, ['data_type', 'max_length', 'is_nullable', 'is_unique', 'default_value']),
      });
      assert.equal(data.fields_by_name.schema.max_length, 50);
      assert.deepEqual(
        data.relations,
        (await rest(t, '/relations')).map((r: Record<string, unknown>) => ({
          collection: r.collection,
          field: r.field,
          related_collection: r.related_collection,
        })),
      );
      const author = await rest(t, '/relations/articles/author');
      assert.deepEqual(data.relations_by_name, {
        related_collection: 'authors',
        schema: pick(author.schema, ['foreign_key_table', 'on_delete']),
      });
      // Every attribute of every schema object reads as REST reads it.
      const FIELD_META =
        'id collection field special interface options display display_options readonly hidden sort width translations note conditions required group validation validation_message searchable';
      const FIELD_SCHEMA =
        'name table data_type default_value max_length numeric_precision numeric_scale is_generated generation_expression is_nullable is_unique is_indexed is_primary_key has_auto_increment foreign_key_column foreign_key_table comment';
      const COLLECTION_META =
        'collection icon note display_template hidden singleton translations archive_field archive_app_filter archive_value unarchive_value sort_field accountability color item_duplication_fields sort group collapse preview_url versioning';
      const RELATION_META =
        'id many_collection many_field one_collection one_field one_collection_field one_allowed_collections junction_field sort_field one_deselect_action';
      const RELATION_SCHEMA = 'table column foreign_key_table foreign_key_column constraint_name on_update on_delete';
      const all = await gqlData(
        t,
        `{ fields { collection field type meta { ${FIELD_META} } schema { ${FIELD_SCHEMA} } } collections { collection meta { ${COLLECTION_META} } schema { name comment } } relations { collection field related_collection meta { ${RELATION_META} } schema { ${RELATION_SCHEMA} } } }`,
        SYSTEM,
      );
      const shape = (rows: Record<string, unknown>[], parts: Record<string, string>) =>
        rows.map((row) => ({
          ...Object.fromEntries(
            Object.keys(row)
              .filter((k) => !(k in parts))
              .map((k) => [k, row[k]]),
          ),
          ...Object.fromEntries(
            Object.entries(parts).map(([k, keys]) => [
              k,
              pick(row[k] as Record<string, unknown> | null, keys.split(' ')),
            ]),
          ),
        }));
      assert.deepEqual(all.fields, shape(await rest(t, '/fields'), { meta: FIELD_META, schema: FIELD_SCHEMA }));
      assert.deepEqual(
        all.collections,
        shape(await rest(t, '/collections'), { meta: COLLECTION_META, schema: 'name comment' }),
      );
      assert.deepEqual(
        all.relations,
        shape(await rest(t, '/relations'), { meta: RELATION_META, schema: RELATION_SCHEMA }),
      );

      const missing = await gql(t, '{ collections_by_name(name: "nope") { collection } }', SYSTEM);
      assert.equal(missing.status, 200);
      assert.equal(missing.body.errors[0].extensions.code, 'FORBIDDEN');
      const notAdmin = await gql(t, '{ fields { field } }', {
        ...SYSTEM,
        token: (await createUserWithPolicies(t, [await createPolicy(t, { permissions: [] })])).token,
      });
      assert.equal(notAdmin.body.errors[0].extensions.code, 'FORBIDDEN');
    });

    it('changes the schema through the admin mutations, and /graphql follows', async () => {
      const created = await gqlData(
        t,
        'mutation { create_collections_item(data: {collection: "gq_notes", schema: {}, fields: [{field: "id", type: "integer", schema: {is_primary_key: true, has_auto_increment: true}}]}) { collection } }',
        SYSTEM,
      );
      assert.deepEqual(created.create_collections_item, { collection: 'gq_notes' });
      const field = await gqlData(
        t,
        'mutation { create_fields_item(collection: "gq_notes", data: {field: "body", type: "string"}) { collection field type } }',
        SYSTEM,
      );
      assert.deepEqual(field.create_fields_item, { collection: 'gq_notes', field: 'body', type: 'string' });
      const updated = await gqlData(
        t,
        'mutation { update_fields_item(collection: "gq_notes", field: "body", data: {meta: {note: "a note"}}) { field meta { note } } }',
        SYSTEM,
      );
      assert.equal(updated.update_fields_item.meta.note, 'a note');
      const relation = await gqlData(
        t,
        'mutation { create_fields_item(collection: "gq_notes", data: {field: "article", type: "integer"}) { field } create_relations_item(data: {collection: "gq_notes", field: "article", related_collection: "articles"}) { collection field related_collection } }',
        SYSTEM,
      );
      assert.deepEqual(relation.create_relations_item, {
        collection: 'gq_notes',
        field: 'article',
        related_collection: 'articles',
      });
      const written = await gqlData(
        t,
        'mutation { create_gq_notes_item(data: {body: "hello", article: {id: 1}}) { body article { title } } }',
      );
      assert.deepEqual(written.create_gq_notes_item, { body: 'hello', article: { title: 'Hello World' } });
      assert.deepEqual(
        await gqlData(
          t,
          'mutation { delete_relations_item(collection: "gq_notes", field: "article") { collection field } }',
          SYSTEM,
        ),
        { delete_relations_item: { collection: 'gq_notes', field: 'article' } },
      );
      assert.deepEqual(
        await gqlData(
          t,
          'mutation { delete_fields_item(collection: "gq_notes", field: "body") { collection field } }',
          SYSTEM,
        ),
        { delete_fields_item: { collection: 'gq_notes', field: 'body' } },
      );
      assert.deepEqual(
        await gqlData(t, 'mutation { delete_collections_item(collection: "gq_notes") { collection } }', SYSTEM),
        { delete_collections_item: { collection: 'gq_notes' } },
      );
      assert.equal((await gql(t, '{ gq_notes { id } }')).status, 400);
      const forbidden = await gql(
        t,
        'mutation { create_fields_item(collection: "tags", data: {field: "x", type: "string"}) { field } }',
        { ...SYSTEM, token: reader.token },
      );
      assert.equal(forbidden.status, 400, 'non-admins have no schema mutations');
    });

    it('refuses a malformed user email on create and update (FAILED_VALIDATION on email)', async () => {
      const created = await gql(
        t,
        'mutation { create_users_item(data: {email: "not-an-email", password: "a-long-password"}) { id } }',
        SYSTEM,
      );
      assert.equal(created.body.errors[0].extensions.code, 'FAILED_VALIDATION');
      assert.equal(created.body.errors[0].extensions.field, 'email');
      const updated = await gql(
        t,
        `mutation { update_users_item(id: "${reader.id}", data: {email: "x@"}) { id } }`,
        SYSTEM,
      );
      assert.equal(updated.body.errors[0].extensions.code, 'FAILED_VALIDATION');
      assert.equal(updated.body.errors[0].extensions.field, 'email');
    });

    it('writes system collections: users, the caller’s own user, settings', async () => {
      const created = await gqlData(
        t,
        `mutation { create_users_item(data: {email: "gql-user@example.com", password: "a-long-password", role: {id: "${reader.role}"}}) { id email password role { id } } }`,
        SYSTEM,
      );
      assert.equal(created.create_users_item.email, 'gql-user@example.com');
      assert.equal(created.create_users_item.password, '**********');
      assertSame(
        created.create_users_item,
        await restAsGraphql(t, `/users/${created.create_users_item.id}`, { fields: 'id,email,password,role.id' }),
      );
      const login = await gqlData(
        t,
        'mutation { auth_login(email: "gql-user@example.com", password: "a-long-password") { access_token } }',
        { ...SYSTEM, token: null },
      );
      assert.equal(typeof login.auth_login.access_token, 'string', 'the password was hashed and works');
      const me = await gqlData(t, 'mutation { update_users_me(data: {first_name: "Ada"}) { id first_name } }', {
        ...SYSTEM,
        token: reader.token,
      });
      assert.deepEqual(me.update_users_me, { id: reader.id, first_name: 'Ada' });
      assert.equal((await rest(t, '/users/me', { fields: 'first_name' }, reader.token)).first_name, 'Ada');
      const settings = await gqlData(
        t,
        'mutation { update_settings(data: {project_name: "Via GraphQL"}) { project_name } }',
        SYSTEM,
      );
      assert.deepEqual(settings.update_settings, { project_name: 'Via GraphQL' });
      assert.equal((await rest(t, '/settings', { fields: 'project_name' })).project_name, 'Via GraphQL');
      const deleted = await gqlData(
        t,
        `mutation { delete_users_item(id: "${created.create_users_item.id}") { id } }`,
        SYSTEM,
      );
      assert.deepEqual(deleted.delete_users_item, { id: created.create_users_item.id });
      const mutations = (
        await gqlData(t, '{ __type(name: "Mutation") { fields { name } } }', SYSTEM)
      ).__type.fields.map((f: { name: string }) => f.name);
      for (const name of [
        'create_roles_item',
        'update_policies_items',
        'delete_permissions_item',
        'create_access_items',
        'update_settings',
      ])
        assert.ok(mutations.includes(name), name);
      assert.ok(!mutations.includes('create_settings_item'));
    });

    it('auth_login answers a malformed email with INVALID_CREDENTIALS, as Directus does (REST answers 400)', async () => {
      for (const email of ['not-an-email', '']) {
        const { body } = await gql(
          t,
          `mutation { auth_login(email: "${email}", password: "whatever") { access_token } }`,
          {
            ...SYSTEM,
            token: null,
          },
        );
        assert.equal(body.errors?.[0]?.extensions?.code, 'INVALID_CREDENTIALS', JSON.stringify(body));
      }
    });

    it('logs in, refreshes and logs out; sets up and removes two-factor', async () => {
      const login = await gqlData(
        t,
        `mutation { auth_login(email: "${ADMIN.email}", password: "${ADMIN.password}") { access_token expires refresh_token } }`,
        { ...SYSTEM, token: null },
      );
      assert.equal(typeof login.auth_login.access_token, 'string');
      assert.equal(typeof login.auth_login.expires, 'string');
      const me = await gqlData(t, '{ users_me { email } }', { ...SYSTEM, token: login.auth_login.access_token });
      assert.equal(me.users_me.email, ADMIN.email);
      const refreshed = await gqlData(
        t,
        `mutation { auth_refresh(refresh_token: "${login.auth_login.refresh_token}") { access_token refresh_token } }`,
        { ...SYSTEM, token: null },
      );
      assert.notEqual(refreshed.auth_refresh.refresh_token, login.auth_login.refresh_token);
      const spent = await gql(
        t,
        `mutation { auth_refresh(refresh_token: "${login.auth_login.refresh_token}") { access_token } }`,
        { ...SYSTEM, token: null },
      );
      assert.equal(spent.body.errors[0].extensions.code, 'INVALID_CREDENTIALS');
      assert.deepEqual(
        await gqlData(t, `mutation { auth_logout(refresh_token: "${refreshed.auth_refresh.refresh_token}") }`, {
          ...SYSTEM,
          token: null,
        }),
        { auth_logout: true },
      );
      const wrong = await gql(
        t,
        `mutation { auth_login(email: "${ADMIN.email}", password: "wrong") { access_token } }`,
        { ...SYSTEM, token: null },
      );
      assert.equal(wrong.status, 200);
      assert.equal(wrong.body.errors[0].extensions.code, 'INVALID_CREDENTIALS');
      const cookie = await gql(
        t,
        `mutation { auth_login(email: "${ADMIN.email}", password: "${ADMIN.password}", mode: cookie) { access_token refresh_token } }`,
        { ...SYSTEM, token: null },
      );
      assert.equal(cookie.body.data.auth_login.refresh_token, null);
      assert.match(String(cookie.response.headers['set-cookie']), /service_refresh_token=/);

      const generated = await gqlData(
        t,
        `mutation { users_me_tfa_generate(password: "${ADMIN.password}") { secret otpauth_url } }`,
        SYSTEM,
      );
      const otp = () => new TOTP({ secret: generated.users_me_tfa_generate.secret }).generate();
      assert.deepEqual(
        await gqlData(
          t,
          `mutation { users_me_tfa_enable(otp: "${otp()}", secret: "${generated.users_me_tfa_generate.secret}") }`,
          SYSTEM,
        ),
        { users_me_tfa_enable: true },
      );
      const noOtp = await gql(
        t,
        `mutation { auth_login(email: "${ADMIN.email}", password: "${ADMIN.password}") { access_token } }`,
        { ...SYSTEM, token: null },
      );
      assert.equal(noOtp.body.errors[0].extensions.code, 'INVALID_OTP');
      assert.deepEqual(await gqlData(t, `mutation { users_me_tfa_disable(otp: "${otp()}") }`, SYSTEM), {
        users_me_tfa_disable: true,
      });
    });

    it('serves the SDL of the caller’s schema per scope', async () => {
      const items = await t.request({ method: 'GET', url: '/server/specs/graphql/items' });
      assert.equal(items.statusCode, 200);
      assert.match(String(items.headers['content-disposition']), /attachment/);
      assert.match(items.body, /type articles \{/);
      assert.match(items.body, /articles_by_id\(id: ID!/);
      const system = await t.request({ method: 'GET', url: '/server/specs/graphql/system' });
      assert.match(system.body, /users_me: users/);
      assert.doesNotMatch(system.body, /type articles \{/);
      const restricted = await t.request({ method: 'GET', url: '/server/specs/graphql/items', token: reader.token });
      assert.match(restricted.body, /type articles \{\n {2}id: ID!\n {2}title: String\n\}/);
      assert.doesNotMatch(restricted.body, /type tags/);
      assert.equal((await t.request({ method: 'GET', url: '/server/specs/graphql/other' })).statusCode, 404);
      const field = await gqlData(
        t,
        '{ items: server_specs_graphql(scope: items) system: server_specs_graphql(scope: system) }',
        { ...SYSTEM, token: reader.token },
      );
      assert.equal(field.items, restricted.body);
      assert.match(field.system, /users_me/);
    });
  });
}
