import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCreateBody, parseDeleteBody, parseItemBody, parseUpdateBody } from '../../src/request/write-body.js';
import { thrownCode as code } from '../helpers/thrown.js';

const options = { queryLimitMax: -1, maxRelationalDepth: 10 };

describe('write bodies', () => {
  it('creates one item from an object and many from an array', () => {
    assert.deepEqual(parseCreateBody({ a: 1 }), { many: false, items: [{ a: 1 }] });
    assert.deepEqual(parseCreateBody([{ a: 1 }, { a: 2 }]), { many: true, items: [{ a: 1 }, { a: 2 }] });
    assert.deepEqual(parseCreateBody([]), { many: true, items: [] });
    for (const body of [undefined, null, 'x', 1, [1], [{}, null]])
      assert.equal(
        code(() => parseCreateBody(body)),
        'INVALID_PAYLOAD',
        JSON.stringify(body),
      );
  });

  it('reads the three update forms', () => {
    assert.deepEqual(parseUpdateBody([{ id: 1, a: 1 }], options), { kind: 'batch', items: [{ id: 1, a: 1 }] });
    assert.deepEqual(parseUpdateBody({ keys: [1, 'b'], data: { a: 1 } }, options), {
      kind: 'keys',
      keys: [1, 'b'],
      data: { a: 1 },
    });
    // Objects name the columns of a composite key.
    assert.deepEqual(parseUpdateBody({ keys: [{ a: 1, b: 2 }], data: { c: 1 } }, options), {
      kind: 'keys',
      keys: [{ a: 1, b: 2 }],
      data: { c: 1 },
    });
    const byQuery = parseUpdateBody({ query: { filter: { a: { _eq: 1 } }, limit: 5 }, data: { a: 2 } }, options);
    assert.equal(byQuery.kind, 'query');
    assert.equal(byQuery.kind === 'query' && byQuery.query.limit, 5);
    for (const body of [
      undefined,
      {},
      { keys: [1] },
      { keys: [1], query: {}, data: {} },
      { keys: [[1]], data: {} },
      { keys: [null], data: {} },
      { keys: [1], data: [] },
      { data: {} },
      { keys: [1], data: {}, x: 1 },
      [1],
    ]) {
      assert.equal(
        code(() => parseUpdateBody(body, options)),
        'INVALID_PAYLOAD',
        JSON.stringify(body),
      );
    }
    assert.equal(
      code(() => parseUpdateBody({ query: { limit: 'x' }, data: {} }, options)),
      'INVALID_QUERY',
    );
  });

  it('reads the three delete forms', () => {
    assert.deepEqual(parseDeleteBody([1, 'b'], options), { kind: 'keys', keys: [1, 'b'] });
    assert.deepEqual(parseDeleteBody({ keys: [3] }, options), { kind: 'keys', keys: [3] });
    assert.equal(parseDeleteBody({ query: {} }, options).kind, 'query');
    for (const body of [undefined, null, {}, { keys: 1 }, { keys: [1], query: {} }, [null], { data: {} }]) {
      assert.equal(
        code(() => parseDeleteBody(body, options)),
        'INVALID_PAYLOAD',
        JSON.stringify(body),
      );
    }
  });

  it('takes a partial item for one update', () => {
    assert.deepEqual(parseItemBody({ a: 1 }), { a: 1 });
    for (const body of [undefined, null, [], 'x'])
      assert.equal(
        code(() => parseItemBody(body)),
        'INVALID_PAYLOAD',
      );
  });
});
