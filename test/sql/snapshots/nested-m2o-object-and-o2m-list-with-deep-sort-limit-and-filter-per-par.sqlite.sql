-- nested m2o object and o2m list with deep sort, limit and filter per parent
select (
  select coalesce(json_group_array(json_object('id', "t0"."id", 'author', (
          select json_object('name', "t1"."name")
          from "authors" as "t1"
          where "t1"."id" = "t0"."author"
          limit 1), 'comments', (
          select coalesce(json_group_array(json_object('body', "t2"."body", 'id', "t2"."id") order by "t2"."id" desc), '[]')
          from (
            select "t2"."body", "t2"."id"
            from "comments" as "t2"
            where "t2"."article" = "t0"."id" and "t2"."body" is not null
            order by "t2"."id" desc
            limit 2) as "t2")) order by "t0"."id" asc), '[]')
  from (
    select "t0"."id", "t0"."author"
    from "articles" as "t0"
    order by "t0"."id" asc
    limit 10) as "t0") as "data"
