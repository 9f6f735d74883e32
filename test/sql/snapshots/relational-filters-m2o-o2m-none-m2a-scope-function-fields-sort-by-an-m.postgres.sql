-- relational filters (m2o, o2m _none, m2a scope), function fields, sort by an m2o path, filter_count
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || ',"updated_at_year":' || coalesce(to_json(floor(extract(year from "t0"."updated_at"))::integer)::text, 'null') || ',"comments_count":' || coalesce(to_json((
              select count(*)
              from "comments" as "t6"
              where "t6"."article" = "t0"."id"))::text, 'null') || '}'), ',' order by "t0"."__strata_s0" desc) || ']', '[]')
  from (
    select "t0"."id", "t0"."updated_at", (
      select "t5"."name"
      from "authors" as "t5"
      where "t5"."id" = "t0"."author"
      limit 1) as "__strata_s0"
    from "articles" as "t0"
    where ("t0"."author" in (
        select "t1"."id"
        from "authors" as "t1"
        where "t1"."name" = $1) and not exists (
        select 1
        from "comments" as "t2"
        where "t2"."article" = "t0"."id" and "t2"."body" like $2) and exists (
        select 1
        from "articles_blocks" as "t3"
        where "t3"."articles_id" = "t0"."id" and exists (
          select 1
          from "authors" as "t4"
          where "t3"."collection" = $3 and "t4"."id" = case when "t3"."item" ~ '^-?[0-9]{1,18}$' then "t3"."item"::bigint end and "t4"."name" = $4)))
    order by (
      select "t5"."name"
      from "authors" as "t5"
      where "t5"."id" = "t0"."author"
      limit 1) desc
    limit $5) as "t0") as "data", (
  select count(*)
  from "articles" as "t7"
  where ("t7"."author" in (
      select "t8"."id"
      from "authors" as "t8"
      where "t8"."name" = $6) and not exists (
      select 1
      from "comments" as "t9"
      where "t9"."article" = "t7"."id" and "t9"."body" like $7) and exists (
      select 1
      from "articles_blocks" as "t10"
      where "t10"."articles_id" = "t7"."id" and exists (
        select 1
        from "authors" as "t11"
        where "t10"."collection" = $8 and "t11"."id" = case when "t10"."item" ~ '^-?[0-9]{1,18}$' then "t10"."item"::bigint end and "t11"."name" = $9)))) as "filter_count"
