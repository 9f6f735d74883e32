-- null, set, range and dynamic operators
select (
  select coalesce(json_group_array(json_object('id', "t0"."id") order by "t0"."id" asc), '[]')
  from (
    select "t0"."id"
    from "articles" as "t0"
    where ("t0"."rating" is not null and "t0"."rating" in (?, ?) and "t0"."price" not between ? and ? and "t0"."published" is null and ((("t0"."updated_at" >= '' and "t0"."updated_at" < ?) or ("t0"."updated_at" <= ?)) and case when typeof("t0"."updated_at") in ('integer', 'real') then strftime('%Y-%m-%dT%H:%M:%fZ', "t0"."updated_at" / 1000.0, 'unixepoch') else strftime('%Y-%m-%dT%H:%M:%fZ', "t0"."updated_at") end < ?) and not ("t0"."title" is null or "t0"."title" = '') and "t0"."metadata" is null)
    order by "t0"."id" asc
    limit 5 offset ?) as "t0") as "data"
