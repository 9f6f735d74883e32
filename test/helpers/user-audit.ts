/** The audit trail of a user created at a first sign-in, as the admin reads it over /activity and /revisions. */
import assert from 'node:assert/strict';
import { json, type TestApp } from './test-app.js';

/** A `create` activity of service_users for `user`, with its revision holding the new row. */
export async function assertCreateRecorded(t: TestApp, user: string): Promise<void> {
  const filter = encodeURIComponent(
    JSON.stringify({ collection: { _eq: 'service_users' }, item: { _eq: user }, action: { _eq: 'create' } }),
  );
  const activity = await t.request({ method: 'GET', url: `/activity?filter=${filter}&fields=id,action,item,user` });
  assert.equal(activity.statusCode, 200, activity.body);
  const rows = json(activity).data as { id: number; user: string | null }[];
  assert.equal(rows.length, 1, activity.body);
  assert.equal(rows[0].user, null, 'nobody was signed in: the create is the system’s');
  const revisions = await t.request({
    method: 'GET',
    url: `/revisions?filter[activity][_eq]=${rows[0].id}&fields=item,data`,
  });
  assert.equal(revisions.statusCode, 200, revisions.body);
  const [revision] = json(revisions).data as { item: string; data: Record<string, unknown> }[];
  assert.equal(revision?.item, user, revisions.body);
  assert.equal(revision.data.id, user);
}
