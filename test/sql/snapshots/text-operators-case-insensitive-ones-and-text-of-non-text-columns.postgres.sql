-- text operators, case-insensitive ones and text of non-text columns
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || '}'), ',' order by "t0"."id" asc) || ']', '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    where (lower("t0"."title") = $1 or "t0"."title" not like $2 or lower("t0"."title") like $3 or "t0"."rating"::text like $4 or lower("t0"."title") not like $5)
    order by "t0"."id" asc
    limit $6) as "t0") as "data"
