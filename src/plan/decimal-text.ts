/**
 * A decimal written to a `decimal(precision, scale)` column, worked out on its digits (never through a binary float,
 * where 1.005 is 1.00499…): rounded half away from zero at the scale and checked against the precision, as
 * PostgreSQL and MariaDB do when they store it. SQLite stores a float and checks nothing, so without this it kept
 * `1e15` in a `decimal(12,2)`, `1e999` as Inf, and 1.005 as 1.00 where the others answer 1.01.
 */

const PARTS = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/;
/** Exponents beyond this move every digit out of any column (the widest, MariaDB's, holds 65 digits). */
const FAR = 100_000;

/**
 * `text` (a decimal literal, as value-coercion accepts it) as the column stores it: plain digits without exponent,
 * `scale` fractional digits. Null when it does not fit `precision` digits in all, `scale` of them fractional.
 */
export function fitDecimal(text: string, precision: number, scale: number): string | null {
  const parts = PARTS.exec(text.trim());
  if (!parts) return null;
  const [, sign, whole = '', fraction = '', exponent = '0'] = parts;
  // The value is 0.<digits> × 10^point: `point` digits stand before the decimal point (negative: zeros after it).
  let digits = `${whole}${fraction}`;
  let point = whole.length + Number(exponent);
  const zeros = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(zeros);
  point -= zeros;
  if (!digits || point < -FAR) return zero(scale);
  if (point > FAR) return null;
  const keep = point + scale;
  if (keep < 0) return zero(scale);
  if (keep < digits.length) {
    let kept = digits.slice(0, keep);
    if (digits[keep]! >= '5') {
      const raised = (BigInt(kept || '0') + 1n).toString();
      // 9.995 → 10.00: one more digit before the point.
      if (raised.length > keep) point++;
      kept = raised;
    }
    digits = kept;
  } else {
    digits = digits.padEnd(keep, '0');
  }
  if (/^0*$/.test(digits)) return zero(scale);
  const integer = point > 0 ? digits.slice(0, point) : '';
  if (integer.length > precision - scale) return null;
  const fractional = point >= 0 ? digits.slice(point) : `${'0'.repeat(-point)}${digits}`;
  const body = scale > 0 ? `${integer || '0'}.${fractional}` : integer;
  return sign === '-' ? `-${body}` : body;
}

function zero(scale: number): string {
  return scale > 0 ? `0.${'0'.repeat(scale)}` : '0';
}
