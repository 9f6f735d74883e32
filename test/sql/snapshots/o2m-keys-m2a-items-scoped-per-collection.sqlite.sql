-- o2m keys, m2a items scoped per collection
select (
  select coalesce(json_group_array(json_object('id', "t0"."id", 'comments', (
          select coalesce(json_group_array("t1"."id" order by "t1"."id" asc), '[]')
          from (
            select "t1"."id"
            from "comments" as "t1"
            where "t1"."article" = "t0"."id"
            order by "t1"."id" asc
            limit 100) as "t1"), 'blocks', (
          select coalesce(json_group_array(json_object('item', case "t2"."collection" when 'authors' then (
                  select json_object('name', "t3"."name")
                  from "authors" as "t3"
                  where "t2"."collection" = ? and "t3"."id" = "t2"."item"
                  limit 1) when 'comments' then (
                  select json_object('body', "t4"."body")
                  from "comments" as "t4"
                  where "t2"."collection" = ? and "t4"."id" = "t2"."item"
                  limit 1) else json_quote("t2"."item") end) order by "t2"."__strata_s0" asc), '[]')
          from (
            select "t2"."item", "t2"."collection", "t2"."id" as "__strata_s0"
            from "articles_blocks" as "t2"
            where "t2"."articles_id" = "t0"."id"
            order by "t2"."id" asc
            limit 100) as "t2")) order by "t0"."id" asc), '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    order by "t0"."id" asc
    limit 5) as "t0") as "data"
