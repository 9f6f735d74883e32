/**
 * The caller's presets (`/presets`, Directus's directus_presets): the bookmarks of each collection (their own, their
 * role's and everyone's) and the views Studio restores when a collection is opened again (rows without a bookmark
 * name). Read once per sign-in, as Directus's app does, and kept here as they are written.
 */
import { reactive } from 'vue';
import { createPreset, deletePreset, readPresets, updatePreset } from '@directus/sdk';
import { client } from './api';
import { session } from './session';

/** A view of a collection as a preset holds it: the other layouts keep their own keys in the same objects. */
export interface ViewState {
  layout: string;
  layout_query: Record<string, any>;
  layout_options: Record<string, any> | null;
  filter: Record<string, unknown> | null;
  search: string | null;
}

export interface Preset extends ViewState {
  id: number;
  bookmark: string | null;
  user: string | null;
  role: string | null;
  collection: string;
  icon: string | null;
  color: string | null;
}

/** Whose a preset is: the caller's own, a role's, or everyone's. */
export type Scope = 'own' | 'role' | 'all';

const FIELDS = [
  'id',
  'bookmark',
  'user',
  'role',
  'collection',
  'layout',
  'layout_query',
  'layout_options',
  'filter',
  'search',
  'icon',
  'color',
];

/** Directus's app reads the same three: an admin may read everyone's, but their Studio shows what a user would. */
const SHOWN = {
  _or: [
    { user: { _eq: '$CURRENT_USER' } },
    { _and: [{ user: { _null: true } }, { role: { _eq: '$CURRENT_ROLE' } }] },
    { _and: [{ user: { _null: true } }, { role: { _null: true } }] },
  ],
};

export const presets = reactive({ list: [] as Preset[], loadedFor: null as string | null });
let loading: Promise<void> | null = null;
let loadingFor: string | null = null;

/** Reads the caller's presets once per signed-in user (again after another user signs in). */
export function loadPresets(): Promise<void> {
  const user = session.user ? session.user.id : null;
  if (!user) {
    presets.list = [];
    presets.loadedFor = null;
    return Promise.resolve();
  }
  if (loading && loadingFor === user) return loading;
  // Another user's presets are never shown, not even while this one's are read.
  if (presets.loadedFor !== user) presets.list = [];
  loadingFor = user;
  loading = client
    .request(readPresets({ fields: FIELDS, filter: SHOWN, sort: ['bookmark', 'id'], limit: -1 } as any))
    .then(
      (rows) => {
        if (loadingFor === user) presets.list = rows as any;
      },
      // Without presets the app works as before: the views open with their defaults.
      () => {
        if (loadingFor === user) presets.list = [];
      },
    )
    .finally(() => {
      if (loadingFor === user) presets.loadedFor = user;
    });
  return loading;
}

export function scopeOf(preset: Pick<Preset, 'user' | 'role'>): Scope {
  return preset.user ? 'own' : preset.role ? 'role' : 'all';
}

export const SCOPE_WORDS: Record<Scope, { tag: string; spoken: string }> = {
  own: { tag: 'mine', spoken: 'your bookmark' },
  role: { tag: 'role', spoken: 'a role’s bookmark' },
  all: { tag: 'all', spoken: 'everyone’s bookmark' },
};

export function bookmarksOf(collection: string): Preset[] {
  return presets.list
    .filter((p) => p.collection === collection && p.bookmark !== null)
    .sort((a, b) => a.bookmark!.localeCompare(b.bookmark!) || a.id - b.id);
}

/** The view a collection opens with: the caller's own, else their role's, else everyone's (as Directus picks). */
export function defaultPresetOf(collection: string): Preset | null {
  const all = presets.list.filter((p) => p.collection === collection && p.bookmark === null);
  return (['own', 'role', 'all'] as Scope[]).map((s) => all.find((p) => scopeOf(p) === s)).find(Boolean) ?? null;
}

/** Whether the caller may change or delete this preset (their own; an admin any). */
export function canEdit(preset: Preset): boolean {
  return session.admin || (session.user ? preset.user === session.user.id : false);
}

function keep(row: Preset): Preset {
  const at = presets.list.findIndex((p) => p.id === row.id);
  if (at >= 0) presets.list.splice(at, 1, row);
  else presets.list.push(row);
  return row;
}

export async function createPresetRow(values: Partial<Preset>): Promise<Preset> {
  return keep((await client.request(createPreset(values as any, { fields: FIELDS } as any))) as any);
}

export async function updatePresetRow(id: number, values: Partial<Preset>): Promise<Preset> {
  return keep((await client.request(updatePreset(id, values as any, { fields: FIELDS } as any))) as any);
}

export async function deletePresetRow(id: number): Promise<void> {
  await client.request(deletePreset(id));
  presets.list = presets.list.filter((p) => p.id !== id);
}
