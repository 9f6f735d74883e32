/**
 * Lays a compiled statement out on lines for the SQL snapshot files: a line break (indented by parenthesis depth)
 * inside each `(select` and before each clause keyword of a (sub)query — not inside function calls such as
 * `extract(year from …)` or `json_agg(… order by …)`. Only whitespace between tokens changes — never inside a
 * quoted literal or identifier — so the laid-out text is the same statement and runs as it stands.
 */
const CLAUSE = /^ (from|where|order by|group by|having|limit|left join|inner join|cross join|join|union all|union) /i;

export function sqlLayout(sql: string): string {
  let out = '';
  let depth = 0;
  /** Per open parenthesis: whether it opens a subquery. */
  const subquery: boolean[] = [];
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (quote) {
      out += ch;
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
      out += ch;
      continue;
    }
    if (ch === '(') {
      depth++;
      out += ch;
      subquery.push(/^select /i.test(sql.slice(i + 1)));
      if (subquery.at(-1)) out += `\n${'  '.repeat(depth)}`;
      continue;
    }
    if (ch === ')') {
      depth--;
      subquery.pop();
      out += ch;
      continue;
    }
    if (ch === ' ' && (subquery.length === 0 || subquery.at(-1)) && CLAUSE.test(sql.slice(i))) {
      out += `\n${'  '.repeat(depth)}`;
      continue;
    }
    out += ch;
  }
  return out;
}
