/**
 * A comment's mentions by mail, against a real SMTP server process on loopback, on every database: each mentioned
 * user with an address, an active account and `email_notifications` on gets Directus's notification mail (the
 * subject "You were mentioned in <collection>", the comment with mentions as names, a link to the item under
 * PUBLIC_URL); one who may not read the item, a suspended one and one who turned mail off get none; the template is
 * replaceable from EMAIL_TEMPLATES_PATH; a refusing mail server never fails the comment.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { mailBody, SmtpSink } from '../helpers/smtp-sink.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const PUBLIC_URL = 'http://strata.test';

/** A collection `cases` with one item, and users: readers of it (mailed or not by their settings) and an outsider. */
async function fixture(t: TestApp) {
  const ok = async (method: 'POST' | 'PATCH', url: string, payload: unknown) => {
    const response = await t.request({ method, url, payload: payload as Record<string, unknown> });
    assert.equal(response.statusCode, 200, response.body);
    return json(response).data;
  };
  await ok('POST', '/collections', {
    collection: 'cases',
    schema: {},
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string' },
    ],
  });
  const item = (await ok('POST', '/items/cases', { title: 'Broken <b>pump</b>' })).id as number;
  const reads = await createPolicy(t, { app_access: true, permissions: [{ collection: 'cases' }] });
  const user = (email: string, policies = [reads]) => createUserWithPolicies(t, policies, { email });
  const reader = await user('reader@example.com');
  await ok('PATCH', `/users/${reader.id}`, { first_name: 'Ada', last_name: 'Lovelace' });
  const muted = await user('muted@example.com');
  await ok('PATCH', `/users/${muted.id}`, { email_notifications: false });
  const suspended = await user('suspended@example.com');
  await queryBuilder(t.context.db)('service_users').where({ id: suspended.id }).update({ status: 'suspended' });
  const outsider = await user('outsider@example.com', [await createPolicy(t, { app_access: true, permissions: [] })]);
  await ok('PATCH', '/users/me', { first_name: 'Grace', last_name: 'Hopper' });
  return { ok, item, reader, muted, suspended, outsider };
}

for (const client of testClients()) {
  describe(`mention mails (${clientLabel(client)})`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let f: Awaited<ReturnType<typeof fixture>>;
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestApp(client, { fixture: false, env: { PUBLIC_URL, ...sink.env() } });
      f = await fixture(t);
    });
    after(async () => {
      await t?.close();
      await sink?.stop();
    });

    it('mails the mentioned readers who are active and keep mail on, with the comment and a link to the item', async () => {
      const { reader, muted, suspended, outsider } = f;
      const comment = `@${reader.id} @${muted.id} @${suspended.id} @${outsider.id} please check <script>x</script>`;
      await f.ok('POST', '/comments', { collection: 'cases', item: f.item, comment });
      const mail = await sink.next('reader@example.com');
      assert.match(mail.raw, /Subject: You were mentioned in cases/);
      const body = mailBody(mail);
      assert.match(body, /Hello Ada Lovelace,/);
      assert.match(body, /Grace Hopper has mentioned you in a comment on cases/);
      // Mentions as names; what the commenter typed is text, never markup.
      assert.ok(
        body.includes(
          'Ada Lovelace muted@example.com suspended@example.com outsider@example.com please check &lt;script&gt;',
        ),
        body,
      );
      assert.doesNotMatch(body, /<script>/);
      assert.match(body, new RegExp(`href="${PUBLIC_URL}/admin/content/cases/${f.item}"`));
      await t.context.mailer.queue.idle();
      // The muted user is notified in the app, not by mail; the suspended one and the outsider get nothing.
      assert.deepEqual(
        sink.mails.map((m) => m.to),
        [],
      );
      const notified = json(
        await t.request({ method: 'GET', url: '/notifications?fields=recipient&limit=-1' }),
      ).data.map((row: { recipient: string }) => row.recipient);
      assert.deepEqual(notified.sort(), [reader.id, muted.id].sort());
    });

    it('mails each mentioned user of a batch of comments once per comment', async () => {
      await f.ok('POST', '/comments', [
        { collection: 'cases', item: f.item, comment: `first @${f.reader.id}` },
        { collection: 'cases', item: f.item, comment: `second @${f.reader.id} @${f.reader.id}` },
      ]);
      const bodies = [await sink.next('reader@example.com'), await sink.next('reader@example.com')].map(mailBody);
      assert.ok(bodies.some((b) => b.includes('first Ada Lovelace')));
      assert.ok(bodies.some((b) => b.includes('second Ada Lovelace Ada Lovelace')));
      await t.context.mailer.queue.idle();
      assert.equal(sink.mails.length, 0);
    });
  });
}

describe('mention mails: templates and a failing server', () => {
  it('uses user-mention.liquid from EMAIL_TEMPLATES_PATH', async () => {
    const sink = await SmtpSink.start();
    const folder = mkdtempSync(path.join(tmpdir(), 'strata-mention-templates-'));
    writeFileSync(
      path.join(folder, 'user-mention.liquid'),
      '{% layout "base" %}{% block content %}Custom: {{ sender }} wrote [{{ comment }}] on {{ collection }}/{{ item }} {{ url }}{% endblock %}',
    );
    const t = await startTestApp('sqlite3', {
      fixture: false,
      env: { PUBLIC_URL, EMAIL_TEMPLATES_PATH: folder, ...sink.env() },
    });
    try {
      const f = await fixture(t);
      await f.ok('POST', '/comments', { collection: 'cases', item: f.item, comment: `hi @${f.reader.id}` });
      const body = mailBody(await sink.next('reader@example.com'));
      const link = `${PUBLIC_URL}/admin/content/cases/${f.item}`;
      assert.ok(body.includes(`Custom: Grace Hopper wrote [hi Ada Lovelace] on cases/${f.item} ${link}`), body);
    } finally {
      await t.close();
      await sink.stop();
    }
  });

  it('stores the comment and its notification when the mail server refuses the mail', async () => {
    const failing = await SmtpSink.start({ SMTP_SINK_FAIL: '1' });
    const t = await startTestApp('sqlite3', { fixture: false, env: { PUBLIC_URL, ...failing.env() } });
    try {
      const f = await fixture(t);
      const created = await f.ok('POST', '/comments', {
        collection: 'cases',
        item: f.item,
        comment: `hi @${f.reader.id}`,
      });
      assert.ok(created.id);
      await t.context.mailer.queue.idle();
      assert.equal(t.context.mailer.queue.counts.failed, 1);
      const notices = json(await t.request({ method: 'GET', url: '/notifications?fields=recipient' })).data;
      assert.deepEqual(notices, [{ recipient: f.reader.id }]);
    } finally {
      await t.close();
      await failing.stop();
    }
  });
});
