/**
 * For loads that can overlap (a filter changed, or a search typed, while the last load is still waiting on the
 * server): answers can arrive in any order, and an older, slower one must not replace a newer one on screen.
 * `const begin = latestOnly()`; in each load `const current = begin()`, and after each await `if (!current()) return`.
 */
export function latestOnly(): () => () => boolean {
  let last = 0;
  return () => {
    const mine = ++last;
    return () => mine === last;
  };
}
