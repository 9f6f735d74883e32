-- filter, sort, limit and offset
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || ',"title":' || coalesce(to_json("t0"."title")::text, 'null') || '}'), ',' order by "t0"."__strata_s0" desc, "t0"."id" asc) || ']', '[]')
  from (
    select "t0"."id", "t0"."title", "t0"."rating" as "__strata_s0"
    from "articles" as "t0"
    where "t0"."rating" >= $1
    order by "t0"."rating" desc, "t0"."id" asc
    limit $2 offset $3) as "t0") as "data"
