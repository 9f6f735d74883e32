/** fitDecimal: a decimal literal as a decimal(precision, scale) column stores it, worked out on its digits. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitDecimal } from '../../src/plan/decimal-text.js';

describe('fitDecimal', () => {
  it('rounds half away from zero at the scale, carrying into the integer digits', () => {
    const cases: [string, number, number, string | null][] = [
      ['1.005', 12, 2, '1.01'],
      ['-1.005', 12, 2, '-1.01'],
      ['1.0049999', 12, 2, '1.00'],
      ['0.005', 12, 2, '0.01'],
      ['0.0049', 12, 2, '0.00'],
      ['-0.001', 12, 2, '0.00'],
      ['0.995', 3, 2, '1.00'],
      ['99.5', 3, 0, '100'],
      ['0.4', 3, 0, '0'],
      ['000123.4500', 12, 2, '123.45'],
      ['12.345', 10, 5, '12.34500'],
      ['.5', 2, 2, '0.50'],
      ['5.', 12, 2, '5.00'],
      ['+3.145', 12, 2, '3.15'],
    ];
    for (const [text, precision, scale, expected] of cases)
      assert.equal(fitDecimal(text, precision, scale), expected, `${text} in (${precision}, ${scale})`);
  });

  it('takes exponents without expanding them, and refuses what the precision cannot hold', () => {
    const cases: [string, number, number, string | null][] = [
      ['1E2', 12, 2, '100.00'],
      ['1e-2', 4, 2, '0.01'],
      ['1e-999', 12, 2, '0.00'],
      ['1e-100000000000', 10, 2, '0.00'],
      ['9999999999.99', 12, 2, '9999999999.99'],
      ['1e10', 12, 2, null],
      ['1e15', 12, 2, null],
      ['1e999', 12, 2, null],
      ['1e1000000000000', 10, 2, null],
      ['9999999999.995', 12, 2, null],
      ['-9999999999.995', 12, 2, null],
      ['9.995', 3, 2, null],
      ['999.5', 3, 0, null],
      ['1.5', 2, 2, null],
    ];
    for (const [text, precision, scale, expected] of cases)
      assert.equal(fitDecimal(text, precision, scale), expected, `${text} in (${precision}, ${scale})`);
  });
});
