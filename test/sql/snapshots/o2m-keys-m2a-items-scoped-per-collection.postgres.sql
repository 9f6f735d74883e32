-- o2m keys, m2a items scoped per collection
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || ',"comments":' || coalesce(to_json((
              select coalesce(('[' || string_agg(to_json("t1"."id")::text, ',' order by "t1"."id" asc) || ']')::json, '[]'::json)
              from (
                select "t1"."id"
                from "comments" as "t1"
                where "t1"."article" = "t0"."id"
                order by "t1"."id" asc
                limit $1) as "t1"))::text, 'null') || ',"blocks":' || coalesce(to_json((
              select coalesce(('[' || string_agg(('{' || '"item":' || coalesce(to_json(case "t2"."collection" when 'authors' then (
                            select ('{' || '"name":' || coalesce(to_json("t3"."name")::text, 'null') || '}')::json
                            from "authors" as "t3"
                            where "t2"."collection" = $2 and "t3"."id" = case when "t2"."item" ~ '^-?[0-9]{1,18}$' then "t2"."item"::bigint end
                            limit 1) when 'comments' then (
                            select ('{' || '"body":' || coalesce(to_json("t4"."body")::text, 'null') || '}')::json
                            from "comments" as "t4"
                            where "t2"."collection" = $3 and "t4"."id" = case when "t2"."item" ~ '^-?[0-9]{1,18}$' then "t2"."item"::bigint end
                            limit 1) else to_json("t2"."item") end)::text, 'null') || '}'), ',' order by "t2"."__strata_s0" asc) || ']')::json, '[]'::json)
              from (
                select "t2"."item", "t2"."collection", "t2"."id" as "__strata_s0"
                from "articles_blocks" as "t2"
                where "t2"."articles_id" = "t0"."id"
                order by "t2"."id" asc
                limit $4) as "t2"))::text, 'null') || '}'), ',' order by "t0"."id" asc) || ']', '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    order by "t0"."id" asc
    limit $5) as "t0") as "data"
