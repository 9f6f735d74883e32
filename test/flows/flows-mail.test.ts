/**
 * The flows' mail operation through Strata's mailer, against a real SMTP sink (test/helpers/smtp-sink.ts): markdown
 * rendered to HTML for a list of recipients, a Liquid template from EMAIL_TEMPLATES_PATH with its data, and a refused
 * recipient list taking the reject path; throw-error's value on the reject path; notification rows.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mailBody, SmtpSink } from '../helpers/smtp-sink.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`flows mail operation (${clientLabel(client)})`, () => {
    let t: TestApp;
    let sink: SmtpSink;
    let templates: string;
    before(async () => {
      sink = await SmtpSink.start();
      templates = await mkdtemp(path.join(tmpdir(), 'strata-flow-mail-'));
      await writeFile(path.join(templates, 'order-shipped.liquid'), '<p>Order {{ order }} has shipped.</p>');
      t = await startTestApp(client, { env: { ...sink.env(), EMAIL_TEMPLATES_PATH: templates } });
    });
    after(async () => {
      await t?.close();
      await sink?.stop();
      await rm(templates, { recursive: true, force: true });
    });

    const ok = async (method: 'POST' | 'PATCH', url: string, body: unknown) => {
      const response = await t.request({
        method,
        url,
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      assert.ok(response.statusCode < 300, `${response.statusCode} ${response.body}`);
      return response.body ? json(response).data : undefined;
    };
    /** A webhook flow (POST): `first`, whose reject goes to an echo of `$last`. */
    const webhook = async (first: Record<string, unknown>) => {
      const flow = await ok('POST', '/flows', {
        name: 'mail',
        status: 'active',
        trigger: 'webhook',
        options: { method: 'POST' },
      });
      const echo = await ok('POST', '/operations', {
        key: 'echo',
        type: 'transform',
        flow: flow.id,
        position_x: 2,
        position_y: 1,
        options: { json: '{{ $last }}' },
      });
      const op = await ok('POST', '/operations', {
        ...first,
        key: 'first',
        flow: flow.id,
        position_x: 1,
        position_y: 1,
        reject: echo.id,
      });
      await ok('PATCH', `/flows/${flow.id}`, { operation: op.id });
      return (body: unknown) =>
        t.request({
          method: 'POST',
          url: `/flows/trigger/${flow.id}`,
          payload: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        });
    };

    it('sends markdown as HTML to each recipient, with templates filled', async () => {
      const run = await webhook({
        type: 'mail',
        options: {
          to: ['ada@example.com', 'grace@example.com'],
          subject: 'Hello {{ $trigger.body.name }}',
          body: '# Welcome {{ $trigger.body.name }}\n\nA **bold** start.',
        },
      });
      const answer = await run({ name: 'Ada' });
      assert.equal(answer.statusCode, 200, answer.body);
      const mail = await sink.next('ada@example.com');
      assert.ok(mail.to.includes('grace@example.com'));
      assert.match(mail.raw, /Subject: Hello Ada/);
      const body = mailBody(mail);
      assert.match(body, /<h1>Welcome Ada<\/h1>/);
      assert.match(body, /<strong>bold<\/strong>/);
    });

    it('renders a Liquid template with its data', async () => {
      const run = await webhook({
        type: 'mail',
        options: {
          to: 'ops@example.com',
          subject: 'Shipped',
          type: 'template',
          template: 'order-shipped',
          data: { order: 'A-17' },
        },
      });
      assert.equal((await run({})).statusCode, 200);
      assert.match(mailBody(await sink.next('ops@example.com')), /Order A-17 has shipped\./);
    });

    it('refuses a bad recipient on the reject path; throw-error gives its value', async () => {
      const bad = await webhook({ type: 'mail', options: { to: 'not an address', subject: 'x', body: 'x' } });
      const refused = await bad({});
      assert.equal(refused.statusCode, 200, refused.body);
      assert.equal(sink.mails.filter((m) => m.to.some((to) => to.includes('not an address'))).length, 0);
      const thrown = await webhook({
        type: 'throw-error',
        options: { code: 'OUT_OF_STOCK', status: '409', message: 'No stock' },
      });
      const answer = await thrown({});
      assert.deepEqual(json(answer), { message: 'No stock', status: 409, code: 'OUT_OF_STOCK' });
    });

    it('a notification operation writes service_notifications rows for its recipients', async () => {
      const me = (await t.request({ method: 'GET', url: '/users/me' })).json().data;
      const run = await webhook({
        type: 'notification',
        options: {
          recipient: [me.id],
          subject: 'Order {{ $trigger.body.order }}',
          message: 'It has **shipped**.',
          collection: 'articles',
          item: '{{ $trigger.body.order }}',
        },
      });
      assert.equal((await run({ order: 'A-18' })).statusCode, 200);
      const rows = (await t.request({ method: 'GET', url: '/notifications?filter[subject][_eq]=Order A-18' })).json()
        .data;
      assert.equal(rows.length, 1);
      assert.equal(rows[0].recipient, me.id);
      assert.equal(rows[0].item, 'A-18');
      assert.equal(rows[0].collection, 'articles');
    });

    it('json-web-token signs, verifies and decodes; a wrong secret fails', async () => {
      const options = { secret: 'flow-jwt-secret', options: { expiresIn: 60, issuer: 'strata' } };
      const sign = await webhook({
        type: 'json-web-token',
        options: { ...options, operation: 'sign', payload: { order: '{{ $trigger.body.order }}' } },
      });
      // A string result is answered as it is (as Directus).
      const token = (await sign({ order: 'A-19' })).body;
      assert.equal(typeof token, 'string');
      const verify = await webhook({
        type: 'json-web-token',
        options: { ...options, operation: 'verify', token: '{{ $trigger.body.token }}' },
      });
      const claims = json(await verify({ token }));
      assert.equal(claims.order, 'A-19');
      assert.equal(claims.iss, 'strata');
      const decode = await webhook({
        type: 'json-web-token',
        options: { operation: 'decode', token: '{{ $trigger.body.token }}' },
      });
      assert.equal(json(await decode({ token })).order, 'A-19');
      const wrong = await webhook({
        type: 'json-web-token',
        options: { secret: 'another', operation: 'verify', token: '{{ $trigger.body.token }}' },
      });
      assert.ok(json(await wrong({ token })).message, 'the reject path has the failure');
    });
  });
}
