/** The layout of the SQL snapshot files changes whitespace between tokens only. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqlLayout } from '../helpers/sql-layout.js';

describe('sqlLayout', () => {
  it('breaks before the clauses of each (sub)query, indented by depth', () => {
    assert.equal(
      sqlLayout(
        'select (select count(*) from "c" where "c"."a" = "t"."id") as "n" from "t" where "t"."x" > ? order by "t"."id" limit ?',
      ),
      'select (\n  select count(*)\n  from "c"\n  where "c"."a" = "t"."id") as "n"\nfrom "t"\nwhere "t"."x" > ?\norder by "t"."id"\nlimit ?',
    );
  });

  it('leaves function calls and quoted text alone', () => {
    const sql = `select extract(year from "t"."d"), json_agg("t"."x" order by "t"."y"), 'it''s from (select' as " where ", \`a from b\` from "t"`;
    const laid = sqlLayout(sql);
    assert.equal(
      laid,
      `select extract(year from "t"."d"), json_agg("t"."x" order by "t"."y"), 'it''s from (select' as " where ", \`a from b\`\nfrom "t"`,
    );
    assert.equal(laid.replace(/\s+/g, ' '), sql.replace(/\s+/g, ' '));
  });
});
