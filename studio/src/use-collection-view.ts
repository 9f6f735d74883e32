/**
 * A collection page's view kept as Directus keeps it: opened from a bookmark (`?bookmark=<id>`) or from the caller's
 * last view of the collection (their preset without a bookmark name, else their role's, else everyone's), and the
 * last view saved back as the caller's own preset as it changes, so a reload or a later visit restores it. The page
 * says how its view reads and is set (`get`/`set`, in a preset's shape); this holds no view state of its own.
 */
import { computed, onBeforeUnmount, ref, watch } from 'vue';
import { go, route } from './router';
import { session } from './session';
import {
  createPresetRow,
  defaultPresetOf,
  deletePresetRow,
  loadPresets,
  presets,
  updatePresetRow,
  type Preset,
  type ViewState,
} from './presets';

/** How long the view rests before it is saved as the last view (typing in the search box is one change). */
const SAVE_AFTER_MS = 400;

export interface ViewAccess {
  get(): ViewState;
  set(state: ViewState): void;
}

/** The part of a preset that is the view, as one comparable text (keys sorted at every level). */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}
const viewOf = (p: ViewState): ViewState => ({
  layout: p.layout ?? 'tabular',
  layout_query: p.layout_query ?? {},
  layout_options: p.layout_options ?? null,
  filter: p.filter ?? null,
  search: p.search ?? null,
});

export function useCollectionView(collection: string, access: ViewAccess) {
  const ready = ref(false);
  const bookmarkId = computed(() => Number(route.query.get('bookmark')) || null);
  const active = computed<Preset | null>(
    () => presets.list.find((p) => p.id === bookmarkId.value && p.collection === collection) ?? null,
  );
  /** A bookmark asked for by address that the caller cannot see (deleted, or someone else's). */
  const missing = computed(() => ready.value && bookmarkId.value !== null && !active.value);
  const current = computed(() => stable(viewOf(access.get())));
  /** The open bookmark's view differs from what it holds. */
  const changed = computed(() => Boolean(active.value && current.value !== stable(viewOf(active.value))));

  let lastSaved = '';
  function apply(): void {
    const from = active.value ?? defaultPresetOf(collection);
    if (from) access.set(viewOf(from));
    lastSaved = current.value;
  }

  let queue: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: ViewState | null = null;
  /** Saves the view waiting to be saved as the caller's own last view of the collection (one row per user). */
  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    const state = pending;
    pending = null;
    const user = session.user ? session.user.id : null;
    if (!state || !user) return;
    queue = queue
      .then(() => {
        const own = presets.list.find((p) => p.collection === collection && p.bookmark === null && p.user === user);
        return own
          ? updatePresetRow(own.id, state)
          : createPresetRow({ ...state, collection, bookmark: null, user, role: null });
      })
      // Remembering the view is a convenience: a refusal leaves the page as it is.
      .catch(() => undefined);
  }

  void loadPresets().then(() => {
    apply();
    ready.value = true;
  });
  watch(bookmarkId, () => {
    flush(); // a change made just before opening a bookmark is still the last view
    if (ready.value) apply();
  });
  // Changes to a bookmark's view are not the last view: they stay on the page until saved into the bookmark.
  watch(current, (text) => {
    if (!ready.value || active.value || bookmarkId.value || text === lastSaved) return;
    lastSaved = text;
    pending = viewOf(access.get());
    clearTimeout(timer);
    timer = setTimeout(flush, SAVE_AFTER_MS);
  });
  onBeforeUnmount(flush);

  const open = (id: number | null) => go(id ? `/content/${collection}?bookmark=${id}` : `/content/${collection}`);

  return {
    ready,
    active,
    missing,
    changed,
    open,
    /** Saves the current view as a bookmark (the caller's own; an admin's also a role's or everyone's) and opens it. */
    async saveBookmark(name: string, owner: { user: string | null; role: string | null }): Promise<Preset> {
      const row = await createPresetRow({ ...viewOf(access.get()), collection, bookmark: name, ...owner });
      open(row.id);
      return row;
    },
    rename: (id: number, name: string) => updatePresetRow(id, { bookmark: name }),
    /** Saves the current view into the open bookmark. */
    update: (id: number) => updatePresetRow(id, viewOf(access.get())),
    async remove(id: number): Promise<void> {
      await deletePresetRow(id);
      if (bookmarkId.value === id) open(null);
    },
  };
}

export type CollectionView = ReturnType<typeof useCollectionView>;
