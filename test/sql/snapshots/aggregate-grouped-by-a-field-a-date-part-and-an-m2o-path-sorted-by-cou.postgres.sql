-- aggregate grouped by a field, a date part and an m2o path, sorted by count
select (
  select coalesce('[' || string_agg(('{' || '"author":' || ('{' || '"name":' || coalesce(to_json("t3"."g0")::text, 'null') || '}') || ',"updated_at_year":' || coalesce(to_json("t3"."g1")::text, 'null') || ',"count":' || coalesce(to_json("t3"."a0")::text, 'null') || ',"sum":' || ('{' || '"price":' || coalesce(to_json("t3"."a1"::text)::text, 'null') || '}') || ',"avg":' || ('{' || '"rating":' || coalesce(to_json(("t3"."a2")::double precision)::text, 'null') || '}') || '}'), ',' order by "t3"."a0" desc, "t3"."g0" asc, "t3"."g1" asc) || ']', '[]')
  from (
    select "t2"."g0" as "g0", "t2"."g1" as "g1", count(*) as "a0", sum("t2"."v1") as "a1", avg("t2"."v2") as "a2"
    from (
      select (
        select "t1"."name"
        from "authors" as "t1"
        where "t1"."id" = "t0"."author"
        limit 1) as "g0", floor(extract(year from "t0"."updated_at"))::integer as "g1", "t0"."price" as "v1", "t0"."rating" as "v2"
      from "articles" as "t0") as "t2"
    group by "t2"."g0", "t2"."g1"
    order by count(*) desc, "t2"."g0" asc, "t2"."g1" asc
    limit $1) as "t3") as "data"
