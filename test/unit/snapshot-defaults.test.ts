/** Snapshot defaults in one spelling for every database (src/schema-admin/sync/snapshot.ts, portableDefault). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { portableDefault } from '../../src/schema-admin/sync/snapshot.js';

describe('portableDefault', () => {
  const cases: [string, unknown, unknown][] = [
    ['timestamp', '2024-01-02 03:04:05+00', '2024-01-02T03:04:05.000Z'],
    ['timestamp', '2024-01-02 03:04:05-05', '2024-01-02T08:04:05.000Z'],
    ['timestamp', '2024-01-02T03:04:05+0130', '2024-01-02T01:34:05.000Z'],
    ['timestamp', '2024-01-02 03:04:05.123456', '2024-01-02T03:04:05.123Z'],
    ['timestamp', '2024-01-02T03:04:05.000Z', '2024-01-02T03:04:05.000Z'],
    ['timestamp', 'CURRENT_TIMESTAMP', 'CURRENT_TIMESTAMP'],
    ['dateTime', '2024-01-02T03:04:05.000', '2024-01-02 03:04:05'],
    ['dateTime', '2024-01-02 03:04', '2024-01-02 03:04:00'],
    ['date', 'CURRENT_TIMESTAMP', 'CURRENT_DATE'],
    ['date', '2024-01-02', '2024-01-02'],
    ['string', '2024-01-02 03:04:05+00', '2024-01-02 03:04:05+00'],
    ['uuid', 'gen_random_uuid()', 'gen_random_uuid()'],
    ['integer', 7, 7],
  ];
  for (const [type, value, expected] of cases) {
    it(`${type} ${JSON.stringify(value)} → ${JSON.stringify(expected)}`, () =>
      assert.equal(portableDefault(type, value as never), expected));
  }
});
