/** Picking a meta translation for a language, and Directus's title-casing of names (no app state here). */
export { formatTitle } from '@directus/format-title';

export interface Translation {
  language: string;
  translation?: string | null;
  singular?: string | null;
  plural?: string | null;
}

/** The translation for the language, else one for its base language ("de" for "de-CH"). */
export function pickTranslation<T extends Translation>(list: T[] | null | undefined, language: string): T | undefined {
  if (!Array.isArray(list) || !list.length) return undefined;
  const wanted = language.toLowerCase();
  const base = wanted.split('-')[0]!;
  return (
    list.find((t) => t.language?.toLowerCase() === wanted) ??
    list.find((t) => t.language?.toLowerCase().split('-')[0] === base)
  );
}
