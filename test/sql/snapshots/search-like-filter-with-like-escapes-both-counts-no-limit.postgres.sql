-- search-like filter with LIKE escapes, both counts, no limit
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || '}'), ',' order by "t0"."id" asc) || ']', '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    where lower("t0"."title") like $1
    order by "t0"."id" asc) as "t0") as "data", (
  select count(*)
  from "articles" as "t1") as "total_count", (
  select count(*)
  from "articles" as "t2"
  where lower("t2"."title") like $2) as "filter_count"
