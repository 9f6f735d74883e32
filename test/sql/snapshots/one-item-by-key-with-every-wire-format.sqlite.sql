-- one item by key with every wire format
select (
  select json_object('id', "t0"."id", 'title', "t0"."title", 'rating', "t0"."rating", 'price', case when "t0"."price" is null then null else printf('%.2f', "t0"."price") end, 'published', json(case when "t0"."published" is null then 'null' when "t0"."published" then 'true' else 'false' end), 'updated_at', case when typeof("t0"."updated_at") in ('integer', 'real') then strftime('%Y-%m-%dT%H:%M:%fZ', "t0"."updated_at" / 1000.0, 'unixepoch') else strftime('%Y-%m-%dT%H:%M:%fZ', "t0"."updated_at") end, 'metadata', json(case when json_valid("t0"."metadata") then "t0"."metadata" else json_quote("t0"."metadata") end), 'secret', case when "t0"."secret" is null then null else '**********' end, 'author', "t0"."author", 'comments', (
      select coalesce(json_group_array("t1"."id" order by "t1"."id" asc), '[]')
      from (
        select "t1"."id"
        from "comments" as "t1"
        where "t1"."article" = "t0"."id"
        order by "t1"."id" asc
        limit 100) as "t1"), 'blocks', (
      select coalesce(json_group_array("t2"."id" order by "t2"."id" asc), '[]')
      from (
        select "t2"."id"
        from "articles_blocks" as "t2"
        where "t2"."articles_id" = "t0"."id"
        order by "t2"."id" asc
        limit 100) as "t2"))
  from "articles" as "t0"
  where "t0"."id" in (?)
  limit 1) as "data"
