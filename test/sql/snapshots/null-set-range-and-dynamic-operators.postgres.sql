-- null, set, range and dynamic operators
select (
  select coalesce('[' || string_agg(('{' || '"id":' || coalesce(to_json("t0"."id")::text, 'null') || '}'), ',' order by "t0"."id" asc) || ']', '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    where ("t0"."rating" is not null and "t0"."rating" in ($1, $2) and "t0"."price" not between $3 and $4 and "t0"."published" is null and "t0"."updated_at" < $5 and not ("t0"."title" is null or "t0"."title" = '') and "t0"."metadata" is null)
    order by "t0"."id" asc
    limit $6 offset $7) as "t0") as "data"
