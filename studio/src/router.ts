/**
 * A small history router for the app's few routes under /admin (a router library would be most of the
 * first-screen bundle). `route.path` is the path below /admin; `route.query` its search parameters.
 */
import { reactive } from 'vue';

const BASE = '/admin';

export const route = reactive({ path: '/', query: new URLSearchParams() });

function read(): void {
  shown = location.href;
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  route.path = path.replace(/\/+$/, '') || '/';
  route.query = new URLSearchParams(location.search);
}

/**
 * A view with unsaved changes registers a guard; leaving asks it first (in-app links, back/forward, closing the tab).
 * It returns true when leaving is fine (nothing unsaved, or the user chose to discard).
 */
let leaveGuard: (() => boolean) | null = null;
export function guardLeaving(guard: () => boolean): void {
  leaveGuard = guard;
}
/** Drops the guard if it is still this one (the next view may have set its own already). */
export function unguardLeaving(guard: () => boolean): void {
  if (leaveGuard === guard) leaveGuard = null;
}

export function go(path: string, options: { replace?: boolean; force?: boolean; keepScroll?: boolean } = {}): void {
  // The guard stays until its view goes (a navigation that keeps the view keeps its unsaved changes too).
  if (!options.force && leaveGuard && !leaveGuard()) return;
  const url = BASE + (path.startsWith('/') ? path : `/${path}`);
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  read();
  if (!options.keepScroll) window.scrollTo(0, 0);
}

/** The URL of an app path, for real links (open in new tab, keyboard focus). */
export const href = (path: string) => BASE + path;

/** Matches `/content/:collection/:id` style patterns; null when the path does not fit. */
export function match(pattern: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = route.path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(':')) params[want[i]!.slice(1)] = decodeURIComponent(have[i]!);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

let shown = location.href;
window.addEventListener('popstate', () => {
  if (leaveGuard && !leaveGuard()) {
    history.pushState(null, '', shown); // stay: put back the page being left
    return;
  }
  read();
});
read();
