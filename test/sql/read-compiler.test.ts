/**
 * SQL snapshots per dialect: the exact statement and parameters the compiler emits for a few plans.
 * A change here is a change in what every database runs: review the new SQL before updating the expectation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CASES, compileCase } from '../helpers/sql-cases.js';

const EXPECTED: Record<string, { sql: string; params: unknown[] }> = {
  "filter, sort, limit and offset (postgres)": {
    "sql": "select (select coalesce(json_agg(json_build_object('id', \"t\".\"id\", 'title', \"t\".\"title\") order by \"t\".\"__strata_row\"), '[]'::json)::text from (select \"t\".*, row_number() over (order by \"t\".\"rating\" desc nulls last, \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where \"t\".\"rating\" >= $1 order by \"t\".\"rating\" desc nulls last, \"t\".\"id\" asc limit $2 offset $3) as \"t\") as \"data\"",
    "params": [
      3,
      10,
      20
    ]
  },
  "filter, sort, limit and offset (mysql)": {
    "sql": "select (select cast(coalesce(json_arrayagg(json_object('id', `t`.`id`, 'title', `t`.`title`) order by `t`.`__strata_row`), json_array()) as char) from (select `t`.*, row_number() over (order by `t`.`rating` desc, `t`.`id` asc) as `__strata_row` from `articles` as `t` where `t`.`rating` >= ? order by `t`.`rating` desc, `t`.`id` asc limit ? offset ?) as `t`) as `data`",
    "params": [
      3,
      10,
      20
    ]
  },
  "filter, sort, limit and offset (sqlite)": {
    "sql": "select (select coalesce(json_group_array(json_object('id', \"t\".\"id\", 'title', \"t\".\"title\") order by \"t\".\"__strata_row\"), '[]') from (select \"t\".*, row_number() over (order by \"t\".\"rating\" desc, \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where \"t\".\"rating\" >= ? order by \"t\".\"rating\" desc, \"t\".\"id\" asc limit ? offset ?) as \"t\") as \"data\"",
    "params": [
      3,
      10,
      20
    ]
  },
  "search-like filter with LIKE escapes, both counts, no limit (postgres)": {
    "sql": "select (select coalesce(json_agg(json_build_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]'::json)::text from (select \"t\".*, row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where lower(\"t\".\"title\") like $1 order by \"t\".\"id\" asc) as \"t\") as \"data\", (select count(*) from \"articles\" as \"t\") as \"total_count\", (select count(*) from \"articles\" as \"t\" where lower(\"t\".\"title\") like $2) as \"filter_count\"",
    "params": [
      "%50\\%\\_x%",
      "%50\\%\\_x%"
    ]
  },
  "search-like filter with LIKE escapes, both counts, no limit (mysql)": {
    "sql": "select (select cast(coalesce(json_arrayagg(json_object('id', `t`.`id`) order by `t`.`__strata_row`), json_array()) as char) from (select `t`.*, row_number() over (order by `t`.`id` asc) as `__strata_row` from `articles` as `t` where lower(`t`.`title`) like ? order by `t`.`id` asc) as `t`) as `data`, (select count(*) from `articles` as `t`) as `total_count`, (select count(*) from `articles` as `t` where lower(`t`.`title`) like ?) as `filter_count`",
    "params": [
      "%50\\%\\_x%",
      "%50\\%\\_x%"
    ]
  },
  "search-like filter with LIKE escapes, both counts, no limit (sqlite)": {
    "sql": "select (select coalesce(json_group_array(json_object('id', \"t\".\"id\") order by \"t\".\"__strata_row\"), '[]') from (select \"t\".*, row_number() over (order by \"t\".\"id\" asc) as \"__strata_row\" from \"articles\" as \"t\" where lower(\"t\".\"title\") like ? escape '\\' order by \"t\".\"id\" asc) as \"t\") as \"data\", (select count(*) from \"articles\" as \"t\") as \"total_count\", (select count(*) from \"articles\" as \"t\" where lower(\"t\".\"title\") like ? escape '\\') as \"filter_count\"",
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
  }
};

describe('read compiler SQL snapshots', () => {
  for (const [name, raw, single] of CASES) {
    for (const dialect of ['postgres', 'mysql', 'sqlite']) {
      it(`${name} (${dialect})`, () => {
        assert.deepEqual(compileCase(raw, single, dialect), EXPECTED[`${name} (${dialect})`]);
      });
    }
  }
});
