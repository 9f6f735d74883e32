-- one item by key with every wire format
select (
  select ('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || ',"title":' || coalesce(to_json("t0"."title")::text, 'null') || ',"rating":' || coalesce(to_json("t0"."rating")::text, 'null') || ',"price":' || coalesce(to_json("t0"."price"::text)::text, 'null') || ',"published":' || coalesce(to_json("t0"."published")::text, 'null') || ',"updated_at":' || coalesce(to_json(to_char("t0"."updated_at", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null') || ',"metadata":' || coalesce(to_json(regexp_replace("t0"."metadata"::text, '("(?:[^"\\]|\\.)*")|\s+', '\1', 'g')::json)::text, 'null') || ',"secret":' || coalesce(to_json(case when "t0"."secret" is null then null else '**********' end)::text, 'null') || ',"author":' || coalesce(to_json("t0"."author")::text, 'null') || ',"comments":' || coalesce(to_json((
          select coalesce(('[' || string_agg(to_json("t1"."id")::text, ',' order by "t1"."id" asc) || ']')::json, '[]'::json)
          from (
            select "t1"."id"
            from "comments" as "t1"
            where "t1"."article" = "t0"."id"
            order by "t1"."id" asc
            limit $1) as "t1"))::text, 'null') || ',"blocks":' || coalesce(to_json((
          select coalesce(('[' || string_agg(to_json("t2"."id")::text, ',' order by "t2"."id" asc) || ']')::json, '[]'::json)
          from (
            select "t2"."id"
            from "articles_blocks" as "t2"
            where "t2"."articles_id" = "t0"."id"
            order by "t2"."id" asc
            limit $2) as "t2"))::text, 'null') || '}')
  from "articles" as "t0"
  where "t0"."id" in ($3)
  limit $4) as "data"
