-- nested m2o object and o2m list with deep sort, limit and filter per parent
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || ',"author":' || coalesce(to_json((
              select ('{' || '"name":' || coalesce(to_json("t1"."name")::text, 'null') || '}')::json
              from "authors" as "t1"
              where "t1"."id" = "t0"."author"
              limit 1))::text, 'null') || ',"comments":' || coalesce(to_json((
              select coalesce(('[' || string_agg(('{' || '"body":' || coalesce(to_json("t2"."body")::text, 'null') || ',"id":' || coalesce(to_json("t2"."id")::text, 'null') || '}'), ',' order by "t2"."id" desc) || ']')::json, '[]'::json)
              from (
                select "t2"."body", "t2"."id"
                from "comments" as "t2"
                where "t2"."article" = "t0"."id" and "t2"."body" is not null
                order by "t2"."id" desc
                limit $1) as "t2"))::text, 'null') || '}'), ',' order by "t0"."id" asc) || ']', '[]')
  from (
    select "t0"."id", "t0"."author"
    from "articles" as "t0"
    order by "t0"."id" asc
    limit $2) as "t0") as "data"
