-- one item by key with every wire format
select (
  select json_build_object('id', "t0"."id", 'title', "t0"."title", 'rating', "t0"."rating", 'price', "t0"."price"::text, 'published', "t0"."published", 'updated_at', to_char("t0"."updated_at", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'metadata', "t0"."metadata", 'secret', case when "t0"."secret" is null then null else '**********' end, 'author', "t0"."author", 'comments', (
      select coalesce(json_agg("t1"."id" order by "t1"."id" asc), '[]'::json)
      from (
        select "t1"."id"
        from "comments" as "t1"
        where "t1"."article" = "t0"."id"
        order by "t1"."id" asc
        limit $1) as "t1"), 'blocks', (
      select coalesce(json_agg("t2"."id" order by "t2"."id" asc), '[]'::json)
      from (
        select "t2"."id"
        from "articles_blocks" as "t2"
        where "t2"."articles_id" = "t0"."id"
        order by "t2"."id" asc
        limit $2) as "t2"))::text
  from "articles" as "t0"
  where "t0"."id" in ($3)
  limit $4) as "data"
