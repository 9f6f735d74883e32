/** The IPTC-IIM reader of uploads: named record-2 datasets, repeats as lists, bounds, malformed blocks. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TEXT, MAX_VALUES, parseIptc } from '../../src/engine/files/iptc.js';
import { iptcBlock } from '../helpers/media.js';

describe('parseIptc', () => {
  it('names the datasets Directus keeps; keywords are a list, other repeats become one', () => {
    const block = iptcBlock([
      [0x69, 'A headline'],
      [0x78, 'A caption'],
      [0x19, 'red'],
      [0x19, 'square'],
      [0x50, 'Ann'],
      [0x50, 'Bob'],
      [0x74, '© Strata'],
      [0x6e, 'Credit line'],
      [0x99, 'unnamed dataset'],
    ]);
    assert.deepEqual(
      { ...parseIptc(block) },
      {
        headline: 'A headline',
        caption: 'A caption',
        keywords: ['red', 'square'],
        byline: ['Ann', 'Bob'],
        copyright: '© Strata',
        credit: 'Credit line',
      },
    );
  });

  it('skips other records and bytes before the first dataset; bounds texts and repeats', () => {
    const other = Buffer.from([0x1c, 1, 0x5a, 0, 3, 0x1b, 0x25, 0x47]);
    const many = Array.from({ length: MAX_VALUES + 10 }, (_, i): [number, string] => [0x19, `k${i}`]);
    const block = Buffer.concat([Buffer.from('junk'), other, iptcBlock([[0x78, 'x'.repeat(5000)], ...many])]);
    const parsed = parseIptc(block);
    assert.equal((parsed.caption as string).length, MAX_TEXT);
    assert.equal((parsed.keywords as string[]).length, MAX_VALUES);
    assert.equal(Object.getPrototypeOf(parsed), null);
  });

  it('a truncated or extended dataset ends the reading without an error; control characters are dropped', () => {
    const block = iptcBlock([[0x69, 'Head\u0000line']]);
    const truncated = Buffer.concat([block, Buffer.from([0x1c, 2, 0x78, 0x00, 0x50, 0x41])]);
    assert.deepEqual({ ...parseIptc(truncated) }, { headline: 'Headline' });
    assert.deepEqual({ ...parseIptc(Buffer.from([0x1c, 2, 0x78, 0x80, 0x04, 0, 0, 0, 1, 0x41])) }, {});
    assert.deepEqual({ ...parseIptc(Buffer.alloc(0)) }, {});
  });
});
