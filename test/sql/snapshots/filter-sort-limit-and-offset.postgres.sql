-- filter, sort, limit and offset
select (
  select coalesce(json_agg(json_build_object('id', "t0"."id", 'title', "t0"."title") order by "t0"."__strata_s0" desc, "t0"."id" asc), '[]'::json)::text
  from (
    select "t0"."id", "t0"."title", "t0"."rating" as "__strata_s0"
    from "articles" as "t0"
    where "t0"."rating" >= $1
    order by "t0"."rating" desc, "t0"."id" asc
    limit $2 offset $3) as "t0") as "data"
