-- search-like filter with LIKE escapes, both counts, no limit
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`) order by `t0`.`id` asc), json_array())) as char)
  from (
    select `t0`.`id`
    from `articles` as `t0`
    where lower(`t0`.`title`) like ?
    order by `t0`.`id` asc) as `t0`) as `data`, (
  select count(*)
  from `articles` as `t1`) as `total_count`, (
  select count(*)
  from `articles` as `t2`
  where lower(`t2`.`title`) like ?) as `filter_count`
