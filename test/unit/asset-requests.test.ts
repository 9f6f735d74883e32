/** The pure parts of /assets: the Range header and the transform query (what is accepted, what is refused). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseByteRange } from '../../src/request/byte-range.js';
import { parseAssetQuery } from '../../src/request/asset-query.js';
import { ServiceError } from '../../src/errors/catalogue.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as ServiceError).code;
  }
  return null;
};

describe('byte ranges', () => {
  it('reads one range, open and suffix ranges, clamped to the file', () => {
    assert.deepEqual(parseByteRange('bytes=0-9', 100), { start: 0, end: 9 });
    assert.deepEqual(parseByteRange('bytes=90-', 100), { start: 90, end: 99 });
    assert.deepEqual(parseByteRange('bytes=-10', 100), { start: 90, end: 99 });
    assert.deepEqual(parseByteRange('bytes=-500', 100), { start: 0, end: 99 });
    assert.deepEqual(parseByteRange('bytes=50-5000', 100), { start: 50, end: 99 });
  });

  it('answers the whole file for no range, other units and several ranges', () => {
    assert.equal(parseByteRange(undefined, 100), null);
    assert.equal(parseByteRange('items=0-1', 100), null);
    assert.equal(parseByteRange('bytes=0-1,5-6', 100), null);
  });

  it('refuses ranges with no byte in the file', () => {
    for (const header of ['bytes=100-', 'bytes=5-2', 'bytes=-0', 'bytes=-', 'bytes=abc'])
      assert.equal(
        code(() => parseByteRange(header, 100)),
        'RANGE_NOT_SATISFIABLE',
        header,
      );
    assert.equal(
      code(() => parseByteRange('bytes=-1', 0)),
      'RANGE_NOT_SATISFIABLE',
    );
  });
});

describe('asset queries', () => {
  it('parses downloads, keys and transform parameters', () => {
    assert.deepEqual(parseAssetQuery({}, 5), { download: false, key: null, transform: null });
    assert.equal(parseAssetQuery({ download: '' }, 5).download, true);
    assert.equal(parseAssetQuery({ key: 'thumb' }, 5).key, 'thumb');
    assert.deepEqual(
      parseAssetQuery(
        {
          width: '200',
          height: '100',
          fit: 'inside',
          format: 'jpg',
          quality: '70',
          withoutEnlargement: 'true',
          transforms: '[["blur",3]]',
        },
        5,
      ).transform,
      {
        width: 200,
        height: 100,
        fit: 'inside',
        format: 'jpeg',
        quality: 70,
        withoutEnlargement: true,
        transforms: [['blur', 3]],
      },
    );
  });

  it('refuses what is not a transform', () => {
    for (const raw of [
      { width: '-1' },
      { width: '1.5' },
      { width: ['1', '2'] },
      { quality: '0' },
      { fit: 'fill' },
      { format: 'svg' },
      { withoutEnlargement: 'maybe' },
      { transforms: '{"a":1}' },
      { transforms: '[["toFile","/etc/passwd"]]' },
      { transforms: '[["affine",[[9,0],[0,9]]]]' },
      { transforms: '[[1]]' },
      { transforms: JSON.stringify(Array.from({ length: 6 }, () => ['flip'])) },
      { key: 'thumb', width: '10' },
    ])
      assert.equal(
        code(() => parseAssetQuery(raw, 5)),
        'ILLEGAL_ASSET_TRANSFORMATION',
        JSON.stringify(raw),
      );
  });
});
