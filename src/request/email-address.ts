/**
 * The shape of an email address, as Directus checks it on login and on user writes (Joi's `email()`: a local part,
 * `@`, and a domain of two labels or more). Deliverability is not checked.
 */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$';

const EMAIL = new RegExp(EMAIL_PATTERN);

export function isEmailAddress(value: unknown): boolean {
  return typeof value === 'string' && EMAIL.test(value);
}
