/**
 * SQL snapshots per dialect: the exact statement and parameters the compiler emits for a few plans.
 * A change here is a change in what every database runs: review the new SQL before updating the expectation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CASES, compileCase } from '../helpers/sql-cases.js';

const EXPECTED: Record<string, { sql: string; params: unknown[] }> = {
  "filter, sort, limit and offset (postgres)": {
    "sql": "select (select coalesce(json_agg(json_build_object('id', \"t\".\"id\", 'title', \"t\".\"title\") order by \"t\".\"__strata_row\"), '[]'::json)::text from (select \"t\".\"id\", \"t\".\"title\", row_number() over (order by \"t\".\"rating\" desc nulls last, \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where \"t\".\"rating\" >= $1 order by \"t\".\"rating\" desc nulls last, \"t\".\"id\" asc limit $2 offset $3) as \"t\") as \"data\"",
    "params": [
      3,
      10,
      20
    ]
  },
  "filter, sort, limit and offset (mysql)": {
    "sql": "select (select cast(coalesce(json_arrayagg(json_object('id', `t`.`id`, 'title', `t`.`title`) order by `t`.`__strata_row`), json_array()) as char) from (select `t`.`id`, `t`.`title`, row_number() over (order by `t`.`rating` desc, `t`.`id` asc) as `__strata_row` from `articles` as `t` where `t`.`rating` >= ? order by `t`.`rating` desc, `t`.`id` asc limit ? offset ?) as `t`) as `data`",
    "params": [
      3,
      10,
      20
    ]
  },
  "filter, sort, limit and offset (sqlite)": {
    "sql": "select (select coalesce(json_group_array(json_object('id', \"t\".\"id\", 'title', \"t\".\"title\") order by \"t\".\"__strata_row\"), '[]') from (select \"t\".\"id\", \"t\".\"title\", row_number() over (order by \"t\".\"rating\" desc, \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where \"t\".\"rating\" >= ? order by \"t\".\"rating\" desc, \"t\".\"id\" asc limit ? offset ?) as \"t\") as \"data\"",
    "params": [
      3,
      10,
      20
    ]
  },
  "search-like filter with LIKE escapes, both counts, no limit (postgres)": {
    "sql": "select (select coalesce(json_agg(json_build_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]'::json)::text from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where lower(\"t\".\"title\") like $1 order by \"t\".\"id\" asc) as \"t\") as \"data\", (select count(*) from \"articles\" as \"t\") as \"total_count\", (select count(*) from \"articles\" as \"t\" where lower(\"t\".\"title\") like $2) as \"filter_count\"",
    "params": [
      "%50\\%\\_x%",
      "%50\\%\\_x%"
    ]
  },
  "search-like filter with LIKE escapes, both counts, no limit (mysql)": {
    "sql": "select (select cast(coalesce(json_arrayagg(json_object('id', `t`.`id`) order by `t`.`__strata_row`), json_array()) as char) from (select `t`.`id`, row_number() over (order by `t`.`id` asc) as `__strata_row` from `articles` as `t` where lower(`t`.`title`) like ? order by `t`.`id` asc) as `t`) as `data`, (select count(*) from `articles` as `t`) as `total_count`, (select count(*) from `articles` as `t` where lower(`t`.`title`) like ?) as `filter_count`",
    "params": [
      "%50\\%\\_x%",
      "%50\\%\\_x%"
    ]
  },
  "search-like filter with LIKE escapes, both counts, no limit (sqlite)": {
    "sql": "select (select coalesce(json_group_array(json_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]') from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where lower(\"t\".\"title\") like ? escape '\\' order by \"t\".\"id\" asc) as \"t\") as \"data\", (select count(*) from \"articles\" as \"t\") as \"total_count\", (select count(*) from \"articles\" as \"t\" where lower(\"t\".\"title\") like ? escape '\\') as \"filter_count\"",
    "params": [
      "%50\\%\\_x%",
      "%50\\%\\_x%"
    ]
  },
  "one item by key with every wire format (postgres)": {
    "sql": "select (select json_build_object('id', \"t\".\"id\", 'title', \"t\".\"title\", 'rating', \"t\".\"rating\", 'price', \"t\".\"price\"::text, 'published', \"t\".\"published\", 'updated_at', to_char(\"t\".\"updated_at\", 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), 'metadata', \"t\".\"metadata\", 'secret', case when \"t\".\"secret\" is null then null else '**********' end)::text from \"articles\" as \"t\" where \"t\".\"id\" in ($1) limit $2) as \"data\"",
    "params": [
      7,
      1
    ]
  },
  "one item by key with every wire format (mysql)": {
    "sql": "select (select cast(json_object('id', `t`.`id`, 'title', `t`.`title`, 'rating', `t`.`rating`, 'price', cast(`t`.`price` as char), 'published', if(`t`.`published` is null, null, if(`t`.`published`, json_extract('true', '$'), json_extract('false', '$'))), 'updated_at', concat(date_format(`t`.`updated_at`, '%Y-%m-%dT%H:%i:%s.'), lpad(floor(microsecond(`t`.`updated_at`) / 1000), 3, '0'), 'Z'), 'metadata', if(json_valid(`t`.`metadata`), json_extract(`t`.`metadata`, '$'), `t`.`metadata`), 'secret', if(`t`.`secret` is null, null, '**********')) as char) from `articles` as `t` where `t`.`id` in (?) limit ?) as `data`",
    "params": [
      7,
      1
    ]
  },
  "one item by key with every wire format (sqlite)": {
    "sql": "select (select json_object('id', \"t\".\"id\", 'title', \"t\".\"title\", 'rating', \"t\".\"rating\", 'price', case when \"t\".\"price\" is null then null else printf('%.2f', \"t\".\"price\") end, 'published', json(case when \"t\".\"published\" is null then 'null' when \"t\".\"published\" then 'true' else 'false' end), 'updated_at', case when typeof(\"t\".\"updated_at\") in ('integer', 'real') then strftime('%Y-%m-%dT%H:%M:%fZ', \"t\".\"updated_at\" / 1000.0, 'unixepoch') else strftime('%Y-%m-%dT%H:%M:%fZ', \"t\".\"updated_at\") end, 'metadata', json(case when json_valid(\"t\".\"metadata\") then \"t\".\"metadata\" else json_quote(\"t\".\"metadata\") end), 'secret', case when \"t\".\"secret\" is null then null else '**********' end) from \"articles\" as \"t\" where \"t\".\"id\" in (?) limit ?) as \"data\"",
    "params": [
      7,
      1
    ]
  },
  "keys (a wrong-typed one dropped) and search over text and numbers (postgres)": {
    "sql": "select (select coalesce(json_agg(json_build_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]'::json)::text from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where ((\"t\".\"id\" = $1 or lower(\"t\".\"title\") like $2 or \"t\".\"rating\" = $3 or \"t\".\"price\" = $4) and \"t\".\"id\" in ($5, $6)) order by \"t\".\"id\" asc limit $7) as \"t\") as \"data\", (select count(*) from \"articles\" as \"t\" where ((\"t\".\"id\" = $8 or lower(\"t\".\"title\") like $9 or \"t\".\"rating\" = $10 or \"t\".\"price\" = $11) and \"t\".\"id\" in ($12, $13))) as \"filter_count\"",
    "params": [
      5,
      "%5%",
      5,
      "5",
      1,
      3,
      100,
      5,
      "%5%",
      5,
      "5",
      1,
      3
    ]
  },
  "keys (a wrong-typed one dropped) and search over text and numbers (mysql)": {
    "sql": "select (select cast(coalesce(json_arrayagg(json_object('id', `t`.`id`) order by `t`.`__strata_row`), json_array()) as char) from (select `t`.`id`, row_number() over (order by `t`.`id` asc) as `__strata_row` from `articles` as `t` where ((`t`.`id` = ? or lower(`t`.`title`) like ? or `t`.`rating` = ? or `t`.`price` = ?) and `t`.`id` in (?, ?)) order by `t`.`id` asc limit ?) as `t`) as `data`, (select count(*) from `articles` as `t` where ((`t`.`id` = ? or lower(`t`.`title`) like ? or `t`.`rating` = ? or `t`.`price` = ?) and `t`.`id` in (?, ?))) as `filter_count`",
    "params": [
      5,
      "%5%",
      5,
      "5",
      1,
      3,
      100,
      5,
      "%5%",
      5,
      "5",
      1,
      3
    ]
  },
  "keys (a wrong-typed one dropped) and search over text and numbers (sqlite)": {
    "sql": "select (select coalesce(json_group_array(json_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]') from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where ((\"t\".\"id\" = ? or lower(\"t\".\"title\") like ? escape '\\' or \"t\".\"rating\" = ? or \"t\".\"price\" = ?) and \"t\".\"id\" in (?, ?)) order by \"t\".\"id\" asc limit ?) as \"t\") as \"data\", (select count(*) from \"articles\" as \"t\" where ((\"t\".\"id\" = ? or lower(\"t\".\"title\") like ? escape '\\' or \"t\".\"rating\" = ? or \"t\".\"price\" = ?) and \"t\".\"id\" in (?, ?))) as \"filter_count\"",
    "params": [
      5,
      "%5%",
      5,
      "5",
      1,
      3,
      100,
      5,
      "%5%",
      5,
      "5",
      1,
      3
    ]
  },
  "null, set, range and dynamic operators (postgres)": {
    "sql": "select (select coalesce(json_agg(json_build_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]'::json)::text from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where (\"t\".\"rating\" is not null and \"t\".\"rating\" in ($1, $2) and \"t\".\"price\" not between $3 and $4 and \"t\".\"published\" is null and \"t\".\"updated_at\" < $5 and not (\"t\".\"title\" is null or \"t\".\"title\" = '') and \"t\".\"metadata\" is null) order by \"t\".\"id\" asc limit $6 offset $7) as \"t\") as \"data\"",
    "params": [
      1,
      2,
      "1",
      "2.5",
      "2025-12-31T00:00:00.000Z",
      5,
      10
    ]
  },
  "null, set, range and dynamic operators (mysql)": {
    "sql": "select (select cast(coalesce(json_arrayagg(json_object('id', `t`.`id`) order by `t`.`__strata_row`), json_array()) as char) from (select `t`.`id`, row_number() over (order by `t`.`id` asc) as `__strata_row` from `articles` as `t` where (`t`.`rating` is not null and `t`.`rating` in (?, ?) and `t`.`price` not between ? and ? and `t`.`published` is null and `t`.`updated_at` < ? and not (`t`.`title` is null or `t`.`title` = '') and `t`.`metadata` is null) order by `t`.`id` asc limit ? offset ?) as `t`) as `data`",
    "params": [
      1,
      2,
      "1",
      "2.5",
      "2025-12-31 00:00:00.000",
      5,
      10
    ]
  },
  "null, set, range and dynamic operators (sqlite)": {
    "sql": "select (select coalesce(json_group_array(json_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]') from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where (\"t\".\"rating\" is not null and \"t\".\"rating\" in (?, ?) and \"t\".\"price\" not between ? and ? and \"t\".\"published\" is null and case when typeof(\"t\".\"updated_at\") in ('integer', 'real') then strftime('%Y-%m-%dT%H:%M:%fZ', \"t\".\"updated_at\" / 1000.0, 'unixepoch') else strftime('%Y-%m-%dT%H:%M:%fZ', \"t\".\"updated_at\") end < ? and not (\"t\".\"title\" is null or \"t\".\"title\" = '') and \"t\".\"metadata\" is null) order by \"t\".\"id\" asc limit ? offset ?) as \"t\") as \"data\"",
    "params": [
      1,
      2,
      "1",
      "2.5",
      "2025-12-31T00:00:00.000Z",
      5,
      10
    ]
  },
  "text operators, case-insensitive ones and text of non-text columns (postgres)": {
    "sql": "select (select coalesce(json_agg(json_build_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]'::json)::text from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where (lower(\"t\".\"title\") = $1 or \"t\".\"title\" not like $2 or lower(\"t\".\"title\") like $3 or \"t\".\"rating\"::text like $4 or lower(\"t\".\"title\") not like $5) order by \"t\".\"id\" asc limit $6) as \"t\") as \"data\"",
    "params": [
      "ab",
      "b%",
      "%c",
      "%1%",
      "%d%",
      100
    ]
  },
  "text operators, case-insensitive ones and text of non-text columns (mysql)": {
    "sql": "select (select cast(coalesce(json_arrayagg(json_object('id', `t`.`id`) order by `t`.`__strata_row`), json_array()) as char) from (select `t`.`id`, row_number() over (order by `t`.`id` asc) as `__strata_row` from `articles` as `t` where (lower(`t`.`title`) = ? or `t`.`title` not like ? or lower(`t`.`title`) like ? or cast(`t`.`rating` as char) like ? or lower(`t`.`title`) not like ?) order by `t`.`id` asc limit ?) as `t`) as `data`",
    "params": [
      "ab",
      "b%",
      "%c",
      "%1%",
      "%d%",
      100
    ]
  },
  "text operators, case-insensitive ones and text of non-text columns (sqlite)": {
    "sql": "select (select coalesce(json_group_array(json_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]') from (select \"t\".\"id\", row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where (lower(\"t\".\"title\") = ? or \"t\".\"title\" not like ? escape '\\' or lower(\"t\".\"title\") like ? escape '\\' or cast(\"t\".\"rating\" as text) like ? escape '\\' or lower(\"t\".\"title\") not like ? escape '\\') order by \"t\".\"id\" asc limit ?) as \"t\") as \"data\"",
    "params": [
      "ab",
      "b%",
      "%c",
      "%1%",
      "%d%",
      100
    ]
  }
};

describe('read compiler SQL snapshots', () => {
  for (const c of CASES) {
    for (const dialect of ['postgres', 'mysql', 'sqlite']) {
      it(`${c.name} (${dialect})`, () => {
        const expected = EXPECTED[`${c.name} (${dialect})`];
        assert.ok(expected, 'no expectation written for this case');
        assert.deepEqual(compileCase(c, dialect), expected);
      });
    }
  }
});
