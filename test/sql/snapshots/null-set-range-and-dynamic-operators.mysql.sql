-- null, set, range and dynamic operators
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`) order by `t0`.`id` asc), json_array())) as char)
  from (
    select `t0`.`id`
    from `articles` as `t0`
    where (`t0`.`rating` is not null and `t0`.`rating` in (?, ?) and `t0`.`price` not between ? and ? and `t0`.`published` is null and `t0`.`updated_at` < ? and not (`t0`.`title` is null or `t0`.`title` = '') and `t0`.`metadata` is null)
    order by `t0`.`id` asc
    limit ? offset ?) as `t0`) as `data`
