-- keys (a wrong-typed one dropped) and search over text and numbers
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || '}'), ',' order by "t0"."id" asc) || ']', '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    where (("t0"."id" = $1 or lower("t0"."title") like $2 or "t0"."rating" = $3 or "t0"."price" = $4 or "t0"."author" = $5) and "t0"."id" in ($6, $7))
    order by "t0"."id" asc
    limit $8) as "t0") as "data", (
  select count(*)
  from "articles" as "t1"
  where (("t1"."id" = $9 or lower("t1"."title") like $10 or "t1"."rating" = $11 or "t1"."price" = $12 or "t1"."author" = $13) and "t1"."id" in ($14, $15))) as "filter_count"
