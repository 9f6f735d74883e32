/** SQL written with `?` markers → the dialect's numbered placeholders (`$1`, `$2` on PostgreSQL), in order. */
export function numberedPlaceholders(sql: string, placeholder: (n: number) => string): string {
  if (placeholder(1) === '?') return sql;
  let n = 0;
  return sql.replace(/\?/g, () => placeholder(++n));
}
