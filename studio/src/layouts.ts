/**
 * A collection page's layout state, in the shape of Directus's presets (`layout`, `layout_query`, `layout_options`),
 * so bookmarks can store it as it is: the layout named in the URL (`?layout=cards`; the table names none) wins, else
 * the one last used for the collection (local storage), else the table. Which fields a layout may offer (file fields for a card's image,
 * date fields for the calendar, template paths) is decided from the caller's schema and permissions.
 */
import { reactive, watch } from 'vue';
import { templateFields } from './names';
import { go, route } from './router';
import { can, canField, fieldsOf, relationOf, type Field } from './session';

export const LAYOUTS = [
  { name: 'tabular', label: 'Table' },
  { name: 'cards', label: 'Cards' },
  { name: 'calendar', label: 'Calendar' },
] as const;
export type LayoutName = (typeof LAYOUTS)[number]['name'];

export interface CardsOptions {
  icon: string;
  title: string | null;
  subtitle: string | null;
  size: number;
  imageSource: string | null;
  imageFit: 'crop' | 'contain';
}
export interface CalendarOptions {
  template: string | null;
  startDateField: string | null;
  endDateField: string | null;
}
export interface LayoutQuery {
  sort?: string[];
  limit?: number;
}
export interface LayoutPreset {
  layout: LayoutName;
  layout_query: { cards: LayoutQuery };
  layout_options: { cards: CardsOptions; calendar: CalendarOptions };
}

export const isLayout = (name: unknown): name is LayoutName => LAYOUTS.some((l) => l.name === name);
const storageKey = (collection: string) => `studio-layout:${collection}`;
const DATE_TYPES = new Set(['date', 'dateTime', 'timestamp']);

const readable = (collection: string) =>
  fieldsOf(collection).filter((f) => f.type !== 'alias' && canField(collection, f.field, 'read'));

/** File fields (many-to-ones to service_files) whose files the caller may read: a card's image source. */
export function imageFields(collection: string): Field[] {
  if (!can('service_files', 'read')) return [];
  return readable(collection).filter((f) => {
    const info = relationOf(collection, f.field);
    return info?.type === 'm2o' && info.related === 'service_files';
  });
}

/** Date, date-time and timestamp fields the caller may read: the calendar's start and end. */
export const dateFields = (collection: string): Field[] => readable(collection).filter((f) => DATE_TYPES.has(f.type));

/** The fields a sort may name: stored fields the caller may read. */
export const sortFields = (collection: string): Field[] => readable(collection);

/**
 * The paths of a template the caller may read (a path through a relation needs read on the related collection and
 * its field): reading a field one may not read fails the whole request, so those are left out (shown empty).
 */
export function readablePaths(collection: string, template: string | null | undefined): string[] {
  return templateFields(template, collection).filter((path) => {
    const [first, ...rest] = path.split('.');
    if (!canField(collection, first!, 'read')) return false;
    if (!rest.length) return true;
    const info = relationOf(collection, first!);
    if (info?.type !== 'm2o' || !can(info.related, 'read')) return false;
    return rest.length === 1
      ? canField(info.related, rest[0]!, 'read')
      : readablePaths(info.related, `{{${rest.join('.')}}}`).length > 0;
  });
}

function defaults(collection: string): LayoutPreset {
  const start = dateFields(collection)[0]?.field ?? null;
  return {
    layout: 'tabular',
    layout_query: { cards: { limit: 25 } },
    layout_options: {
      cards: {
        icon: 'box',
        title: null,
        subtitle: null,
        size: 4,
        imageSource: imageFields(collection)[0]?.field ?? null,
        imageFit: 'crop',
      },
      calendar: { template: null, startDateField: start, endDateField: null },
    },
  };
}

const text = (v: unknown) => (typeof v === 'string' && v ? v : null);

/**
 * A saved state (local storage, a bookmark, the last view) into `into`: only its known keys and only fields the
 * caller may still use (never trusted as it is stored); its layout too when `withLayout` (the URL's wins otherwise).
 */
export function absorbLayout(collection: string, into: LayoutPreset, saved: any, withLayout = true): LayoutPreset {
  if (!saved || typeof saved !== 'object') return into;
  if (withLayout && isLayout(saved.layout) && offered(collection, saved.layout)) into.layout = saved.layout;
  const query = saved.layout_query?.cards;
  if (Array.isArray(query?.sort) && query.sort.every((s: unknown) => typeof s === 'string'))
    into.layout_query.cards.sort = query.sort.slice(0, 1);
  const cards = saved.layout_options?.cards ?? {};
  const own = into.layout_options.cards;
  own.title = text(cards.title);
  own.subtitle = text(cards.subtitle);
  if (Number.isInteger(cards.size) && cards.size >= 1 && cards.size <= 6) own.size = cards.size;
  if (cards.imageFit === 'contain' || cards.imageFit === 'crop') own.imageFit = cards.imageFit;
  if (cards.imageSource === null || imageFields(collection).some((f) => f.field === cards.imageSource))
    own.imageSource = cards.imageSource;
  const calendar = saved.layout_options?.calendar ?? {};
  const dates = dateFields(collection).map((f) => f.field);
  const cal = into.layout_options.calendar;
  cal.template = text(calendar.template);
  if (dates.includes(calendar.startDateField)) cal.startDateField = calendar.startDateField;
  if (dates.includes(calendar.endDateField)) cal.endDateField = calendar.endDateField;
  return into;
}

function restore(collection: string, into: LayoutPreset): LayoutPreset {
  let saved: any;
  try {
    saved = JSON.parse(localStorage.getItem(storageKey(collection)) ?? 'null');
  } catch {
    saved = null;
  }
  return absorbLayout(collection, into, saved);
}

/** Whether the collection can be shown in a layout: the calendar needs a date field. */
export const offered = (collection: string, layout: LayoutName) =>
  layout !== 'calendar' || dateFields(collection).length > 0;

/**
 * The page's layout state for a collection, kept in local storage and the URL's `layout` parameter as it changes
 * (other parameters kept); Back and Forward move between layouts the URL named.
 */
export function layoutPreset(collection: string): LayoutPreset {
  const preset = reactive(restore(collection, defaults(collection))) as LayoutPreset;
  const page = `/content/${collection}`;
  const named = route.query.get('layout');
  if (isLayout(named)) preset.layout = named;
  if (!offered(collection, preset.layout)) preset.layout = 'tabular';
  watch(
    preset,
    (p) => {
      localStorage.setItem(storageKey(collection), JSON.stringify(p));
      // The table is the page's own address (no parameter), so links to it stay as they were.
      const named = p.layout === 'tabular' ? null : p.layout;
      if (route.path !== page || route.query.get('layout') === named) return;
      const query = new URLSearchParams(route.query);
      if (named) query.set('layout', named);
      else query.delete('layout');
      const text = query.toString();
      go(text ? `${page}?${text}` : page, { replace: true, force: true, keepScroll: true });
    },
    { deep: true, immediate: true },
  );
  watch(
    () => route.query.get('layout'),
    (name) => {
      if (route.path === page && isLayout(name) && offered(collection, name)) preset.layout = name;
    },
  );
  return preset;
}

/** An item's page. */
export const itemPath = (collection: string, key: string) => `/content/${collection}/${encodeURIComponent(key)}`;
