-- filter, sort, limit and offset
select (
  select coalesce(json_group_array(json_object('id', "t0"."id", 'title', "t0"."title") order by "t0"."__strata_s0" desc, "t0"."id" asc), '[]')
  from (
    select "t0"."id", "t0"."title", "t0"."rating" as "__strata_s0"
    from "articles" as "t0"
    where "t0"."rating" >= ?
    order by "t0"."rating" desc, "t0"."id" asc
    limit 10 offset ?) as "t0") as "data"
