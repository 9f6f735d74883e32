-- text operators, case-insensitive ones and text of non-text columns
select (
  select coalesce(json_group_array(json_object('id', "t0"."id") order by "t0"."id" asc), '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    where (lower("t0"."title") = ? or "t0"."title" not like ? escape '\' or lower("t0"."title") like ? escape '\' or cast("t0"."rating" as text) like ? escape '\' or lower("t0"."title") not like ? escape '\')
    order by "t0"."id" asc
    limit 100) as "t0") as "data"
