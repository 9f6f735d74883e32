/** Login liveness: a check that an ended login overtook keeps nothing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoginLiveness } from '../../src/auth/login-liveness.js';
import type { Sessions } from '../../src/auth/sessions.js';
import { TestClock } from '../helpers/test-clock.js';

/** Sessions whose answers the test gives, one lookup at a time. */
function heldSessions() {
  const asked: ((live: boolean) => void)[] = [];
  const sessions = {
    familyLive: () => new Promise<boolean>((resolve) => asked.push(resolve)),
  } as unknown as Sessions;
  return { sessions, asked };
}

describe('login liveness', () => {
  it('keeps a live answer for a few seconds', async () => {
    const { sessions, asked } = heldSessions();
    const logins = new LoginLiveness(sessions, 900_000, new TestClock());
    const first = logins.isLive('family');
    asked[0]!(true);
    assert.equal(await first, true);
    assert.equal(await logins.isLive('family'), true);
    assert.equal(asked.length, 1);
  });

  it('does not keep a live answer read before a recheck() (a login ended on another instance)', async () => {
    const { sessions, asked } = heldSessions();
    const logins = new LoginLiveness(sessions, 900_000, new TestClock());
    const first = logins.isLive('family');
    logins.recheck();
    asked[0]!(true);
    assert.equal(await first, true);
    const second = logins.isLive('family');
    assert.equal(asked.length, 2, 'the login is looked up again');
    asked[1]!(false);
    assert.equal(await second, false);
  });

  it('answers false for good once a login ended here, even with a check on its way', async () => {
    const { sessions, asked } = heldSessions();
    const logins = new LoginLiveness(sessions, 900_000, new TestClock());
    const first = logins.isLive('family');
    await logins.end('family');
    asked[0]!(true);
    await first;
    assert.equal(await logins.isLive('family'), false);
    assert.equal(asked.length, 1);
  });
});
