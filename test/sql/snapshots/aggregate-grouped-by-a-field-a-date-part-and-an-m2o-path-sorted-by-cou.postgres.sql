-- aggregate grouped by a field, a date part and an m2o path, sorted by count
select (
  select coalesce(json_agg(json_build_object('author', json_build_object('name', "t3"."g0"), 'updated_at_year', "t3"."g1", 'count', "t3"."a0", 'sum', json_build_object('price', "t3"."a1"::text), 'avg', json_build_object('rating', ("t3"."a2")::double precision)) order by "t3"."a0" desc, "t3"."g0" asc, "t3"."g1" asc), '[]'::json)::text
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
