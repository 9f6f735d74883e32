/**
 * System data names some of its text by translation key, as Directus does (`$t:admin_description`): the seeded
 * Administrator role and policy, and the Public policy. Studio shows them in English, from the table below (Directus's
 * own English for these keys); a key it does not know shows as its words ("some_key" → "Some key").
 */
const ENGLISH: Record<string, string> = {
  admin_description: 'Initial administrative role with unrestricted App/API access',
  public_label: 'Public',
  public_description: 'Controls what API data is publicly available without authenticating',
  administrator: 'Administrator',
};

const PREFIX = '$t:';

/** The text to show for a stored value that may be a `$t:` key. */
export function systemText<T extends string | null | undefined>(value: T): T | string {
  if (typeof value !== 'string' || !value.startsWith(PREFIX)) return value;
  const key = value.slice(PREFIX.length);
  if (Object.hasOwn(ENGLISH, key)) return ENGLISH[key]!;
  const words = key.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What to store for text edited in a form: the original key when the text shown for it was left as it was. */
export function storedText(original: string | null | undefined, edited: string): string {
  return original && systemText(original) === edited ? original : edited;
}
