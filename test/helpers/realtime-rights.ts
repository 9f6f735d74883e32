/**
 * Ways a realtime subscriber loses the right to read `authors` (the attack run's list), each made through the HTTP
 * API as an admin would make it, and the two protocols' subscribers seen from the outside: /websocket (Directus's
 * realtime protocol) and graphql-ws (`graphql-transport-ws`, spoken raw so that every message and the close are seen).
 * Shared by the single-instance and the two-instance tests.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { queryBuilder } from '../../src/db/connection.js';
import { ADMIN } from './test-app.js';
import type { TestApp } from './test-app.js';
import { createPolicy } from './access-fixture.js';
import { openMessageSocket, type Message, type MessageSocket } from './socket-messages.js';

export type Way = 'role changed' | 'admin demoted' | 'policy detached' | 'role without policies' | 'logout';
export const WAYS: Way[] = ['role changed', 'admin demoted', 'policy detached', 'role without policies', 'logout'];

/** A subscriber-to-be: its token, and the change (made through `api`) that takes its right to read authors away. */
export interface Subscriber {
  user: string;
  token: string;
  lose(): Promise<void>;
}

/** An instance's HTTP API as the admin (`token: null` for none). */
export type Api = (options: InjectOptions & { token?: string | null }) => Promise<LightMyRequestResponse>;

export function apiOf(app: FastifyInstance): Api {
  return ({ token, ...options }) => {
    const bearer = token === undefined ? ADMIN.token : token;
    const headers = { ...(options.headers ?? {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
    return app.inject({ ...options, headers });
  };
}

async function ok(response: Awaited<ReturnType<Api>>, status = 200): Promise<any> {
  assert.equal(response.statusCode, status, response.body);
  return response.body ? JSON.parse(response.body) : null;
}

/** A role holding `policies` (rows written directly: nobody holds it before the test moves a user into it). */
export async function roleWith(t: TestApp, policies: string[]): Promise<string> {
  const knex = queryBuilder(t.context.db);
  const role = randomUUID();
  await knex('service_roles').insert({ id: role, name: `role ${role.slice(0, 8)}` });
  for (const policy of policies) await knex('service_access').insert({ id: randomUUID(), role, user: null, policy });
  return role;
}

/**
 * A user who may read `authors` (`id,name`), or is an admin ('admin demoted'), and the change through `api` (this
 * instance's or another's) that ends it. 'logout' logs in with a password (a JWT of a login) and logs that login out.
 */
export async function subscriberFor(t: TestApp, way: Way, api: Api = apiOf(t.app)): Promise<Subscriber> {
  const readers = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id,name' }] });
  const tagsOnly = await createPolicy(t, { permissions: [{ collection: 'tags', fields: '*' }] });
  const admins = way === 'admin demoted' ? await createPolicy(t, { admin_access: true, permissions: [] }) : null;
  const role = await roleWith(t, [admins ?? readers]);
  const email = `${randomUUID().slice(0, 8)}@example.com`;
  const password = 'rights-test-password';
  const token = `rights-${randomUUID()}`;
  const created = await ok(
    await api({ method: 'POST', url: '/users', payload: { email, password, role, token, status: 'active' } }),
  );
  const user = String(created.data.id);
  const moveTo = (target: string) => async () =>
    void (await ok(await api({ method: 'PATCH', url: `/users/${user}`, payload: { role: target } })));
  if (way === 'role changed' || way === 'admin demoted')
    return { user, token, lose: moveTo(await roleWith(t, [tagsOnly])) };
  if (way === 'role without policies') return { user, token, lose: moveTo(await roleWith(t, [])) };
  if (way === 'policy detached') {
    const access = await ok(
      await api({ method: 'GET', url: `/access?filter[role][_eq]=${role}&filter[policy][_eq]=${readers}` }),
    );
    assert.equal(access.data.length, 1);
    const lose = async () => void (await ok(await api({ method: 'DELETE', url: `/access/${access.data[0].id}` }), 204));
    return { user, token, lose };
  }
  const login = await ok(await api({ method: 'POST', url: '/auth/login', payload: { email, password }, token: null }));
  const { access_token, refresh_token } = login.data;
  const lose = async () =>
    void (await ok(await api({ method: 'POST', url: '/auth/logout', payload: { refresh_token }, token: null }), 204));
  return { user, token: access_token, lose };
}

export async function createAuthor(api: Api, name: string): Promise<number> {
  return (await ok(await api({ method: 'POST', url: '/items/authors?fields=id', payload: { name } }))).data.id;
}

/** An authenticated /websocket subscribed to `authors` (`id,name`), past its `init`. */
export async function restSubscriber(httpUrl: string, token: string): Promise<MessageSocket> {
  const ws = await openMessageSocket(`${httpUrl.replace(/^http/, 'ws')}/websocket`);
  ws.send({ type: 'auth', access_token: token });
  assert.equal((await ws.next()).status, 'ok');
  ws.send({ type: 'subscribe', collection: 'authors', uid: 's', query: { fields: ['id', 'name'] } });
  const init = await ws.next();
  assert.equal(init.event, 'init', JSON.stringify(init));
  return ws;
}

export const SUBSCRIPTION = 'subscription { authors_mutated { key event data { id name } } }';

/**
 * A graphql-ws socket with one `authors_mutated` operation (id "1") that the hub serves: graphql-ws does not answer
 * a `subscribe`, so the hub's count of subscriptions says when it is live.
 */
export async function graphqlSubscriber(t: TestApp, httpUrl: string, token: string): Promise<MessageSocket> {
  const ws = await openMessageSocket(`${httpUrl.replace(/^http/, 'ws')}/graphql`, {
    protocol: 'graphql-transport-ws',
  });
  ws.send({ type: 'connection_init', payload: { access_token: token } });
  assert.equal((await ws.next()).type, 'connection_ack');
  const before = t.context.subscriptions.stats().subscriptions;
  ws.send({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION } });
  for (let poll = 0; poll < 400 && t.context.subscriptions.stats().subscriptions === before; poll++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(t.context.subscriptions.stats().subscriptions, before + 1, 'the operation is live in the hub');
  return ws;
}

/** The name an event message of either protocol carries (null for any other message). */
export function eventName(message: Message): string | null {
  if (message.type === 'subscription' && Array.isArray(message.data) && message.data[0]?.name)
    return String(message.data[0].name);
  const field = message.type === 'next' ? message.payload?.data?.authors_mutated : undefined;
  return field?.data?.name ? String(field.data.name) : null;
}

/** Messages up to and including the first that `done` accepts (bounded: fails rather than waits for ever). */
export async function messagesUntil(ws: MessageSocket, done: (message: Message) => boolean): Promise<Message[]> {
  const taken: Message[] = [];
  for (;;) {
    const message = await ws.next();
    taken.push(message);
    if (done(message)) return taken;
  }
}
