/**
 * What people read instead of raw names: collection and field names from their meta `translations` (the user's
 * language first, then its base language), else Directus's own title-casing of the name; and an item's title from
 * its collection's `display_template` ("{{title}} by {{author.name}}"), whose fields are read with the item.
 */
import { formatTitle, pickTranslation as pick, type Translation } from './i18n';
import { fieldsOf, language, session } from './session';

export { language };

const pickTranslation = <T extends Translation>(list: T[] | null | undefined) => pick(list, language());

export const titleOf = (name: string) => formatTitle(name);
export { label as fieldName } from './session';

export function collectionMeta(collection: string) {
  return session.collections.find((c) => c.collection === collection)?.meta ?? null;
}

/** A collection's name as people read it: "Articles" for `articles`. */
export function collectionName(collection: string): string {
  const own = pickTranslation((collectionMeta(collection) as any)?.translations as Translation[] | undefined);
  return own?.translation || titleOf(collection);
}

/** One item of the collection: its translation's `singular`, else the name made singular ("Article"). */
export function singularName(collection: string): string {
  const own = pickTranslation((collectionMeta(collection) as any)?.translations as Translation[] | undefined);
  if (own?.singular) return own.singular;
  const plural = collectionName(collection);
  if (/ies$/i.test(plural)) return plural.slice(0, -3) + 'y';
  if (/(ss|us|is)$/i.test(plural) || !/s$/i.test(plural)) return plural;
  return plural.slice(0, -1);
}

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/**
 * The field paths a template names ("author.name"), to read with the item: only those starting with a field the
 * collection has (Directus's `{{ $thumbnail }}` and misspelt names would make the whole read fail).
 */
export function templateFields(template: string | null | undefined, collection?: string): string[] {
  if (!template) return [];
  const known = collection ? new Set(fieldsOf(collection).map((f) => f.field)) : null;
  const paths = [...template.matchAll(PLACEHOLDER)]
    .map((m) => m[1]!.trim())
    .filter((p) => !p.split('.').some((part) => part.startsWith('$')) && (!known || known.has(p.split('.')[0]!)));
  return [...new Set(paths)];
}

export function displayTemplate(collection: string): string | null {
  return collectionMeta(collection)?.display_template ?? null;
}

function pathValue(item: unknown, path: string): unknown {
  let value: unknown = item;
  for (const part of path.split('.')) {
    if (Array.isArray(value)) value = value.map((v) => (v && typeof v === 'object' ? (v as any)[part] : undefined));
    else value = value && typeof value === 'object' ? (value as any)[part] : undefined;
  }
  return value;
}

/** The template filled from the item; null when it names nothing the item has. */
export function renderTemplate(template: string, item: Record<string, unknown>): string | null {
  let found = false;
  const text = template.replace(PLACEHOLDER, (_, path: string) => {
    if (path.includes('$')) return ''; // Directus's $thumbnail and the like: nothing to show as text
    const value = pathValue(item, path.trim());
    const parts = (Array.isArray(value) ? value : [value]).filter((v) => v !== null && v !== undefined && v !== '');
    if (parts.length) found = true;
    return parts.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ');
  });
  return found ? text.trim() : null;
}

/** The fields to read of a related collection's items for their titles (the template's, else all). */
export function titleFields(collection: string): string[] {
  const own = templateFields(displayTemplate(collection), collection);
  return own.length ? own : ['*'];
}

/** An item's title: its collection's display template, else its first text-like value with its key. */
export function itemTitle(collection: string, item: Record<string, unknown> | null | undefined, key: string): string {
  if (!item) return '—';
  const template = displayTemplate(collection);
  const filled = template ? renderTemplate(template, item) : null;
  if (filled) return filled;
  for (const name of ['name', 'title', 'label', 'email'])
    if (typeof item[name] === 'string' && item[name]) return item[name] as string;
  const text = Object.entries(item).find(([k, v]) => k !== key && typeof v === 'string' && v);
  if (text && (item[key] === undefined || item[key] === null)) return text[1] as string; // a new item has no key yet
  return text ? `${String(item[key])} · ${text[1]}` : String(item[key] ?? '—');
}
