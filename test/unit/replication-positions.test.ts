/**
 * The replicas' position compares (the only vendor part of read replicas): a PostgreSQL WAL LSN and MariaDB GTID
 * lists, and the write marks that keep a caller's reads on the primary until a replica has their write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dialectFor } from '../../src/db/dialects/index.js';
import { WriteMarks } from '../../src/db/write-marks.js';

describe('replication positions', () => {
  it('PostgreSQL compares WAL positions as numbers, not text', () => {
    const { replayed } = dialectFor('pg').replication!;
    assert.equal(replayed('0/3430FF0', '0/3430FF0'), true);
    assert.equal(replayed('1/0', '0/FFFFFFFF'), true);
    assert.equal(replayed('0/A0', '0/9F0'), false);
    assert.equal(replayed(null, '0/1'), false, 'not a replica');
  });

  it('MariaDB needs every domain of the primary replayed', () => {
    const { replayed } = dialectFor('mysql').replication!;
    assert.equal(replayed('0-1-42', '0-1-42'), true);
    assert.equal(replayed('0-1-43,1-2-7', '0-1-42,1-2-7'), true);
    assert.equal(replayed('0-1-42', '0-1-42,1-2-7'), false);
    assert.equal(replayed('0-1-9', '0-1-10'), false);
    assert.equal(replayed('', ''), true, 'nothing written yet');
  });
});

describe('write marks', () => {
  it("keep each caller's own write, and never weaken when one is dropped for room", () => {
    const marks = new WriteMarks(2);
    marks.wrote('a', 10);
    marks.wrote('b', 20);
    assert.equal(marks.mustSee('a'), 10);
    assert.equal(marks.mustSee('c'), 0);
    marks.wrote('c', 30);
    assert.equal(marks.mustSee('a'), 10, 'dropped: the floor it raised still holds');
    assert.equal(marks.mustSee('d'), 10);
    assert.equal(marks.mustSee(undefined), 30, 'work without a caller sees every write');
    marks.forgetBefore(25);
    assert.equal(marks.mustSee('b'), 10);
    assert.equal(marks.mustSee('c'), 30);
  });
});
