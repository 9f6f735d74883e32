/** CSV export cells a spreadsheet would run as formulas get a `'` in front (OWASP); plain numbers and the rest do not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvFormulaSafe, exportWriter } from '../../src/io/export-formats.js';

describe('CSV formula cells', () => {
  it('prefixes =, +, -, @, tab and carriage return starts; keeps plain numbers and other text', () => {
    const cases: [string, string][] = [
      ['=1+1', "'=1+1"],
      ['=HYPERLINK("https://x.example","y")', '\'=HYPERLINK("https://x.example","y")'],
      ['+1+2', "'+1+2"],
      ['-2+3', "'-2+3"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\t=1', "'\t=1"],
      ['\r=1', "'\r=1"],
      ['-', "'-"],
      ['-Infinity', "'-Infinity"],
      ['-0x10', "'-0x10"],
      ['-5', '-5'],
      ['-1.5', '-1.5'],
      ['+7', '+7'],
      ['-2e3', '-2e3'],
      ['-.5', '-.5'],
      ['hello', 'hello'],
      ['a=b', 'a=b'],
      ['', ''],
      [' =1', ' =1'],
    ];
    for (const [text, expected] of cases) assert.equal(csvFormulaSafe(text), expected, JSON.stringify(text));
  });

  it('the CSV writers apply it to header and value cells unless told not to', () => {
    const rows = [{ '=x': '=1+1', n: -5, s: '-5' }];
    const escaped = exportWriter('csv').rows(rows);
    assert.equal(escaped, "'=x,n,s\r\n'=1+1,-5,-5\r\n");
    const raw = exportWriter('csv', () => true, false).rows(rows);
    assert.equal(raw, '=x,n,s\r\n=1+1,-5,-5\r\n');
  });
});
