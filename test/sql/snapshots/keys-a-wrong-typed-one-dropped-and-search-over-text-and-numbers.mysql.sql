-- keys (a wrong-typed one dropped) and search over text and numbers
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`) order by `t0`.`id` asc), json_array())) as char)
  from (
    select `t0`.`id`
    from `articles` as `t0`
    where ((`t0`.`id` = ? or lower(`t0`.`title`) like ? or `t0`.`rating` = ? or `t0`.`price` = ? or `t0`.`author` = ?) and `t0`.`id` in (?, ?))
    order by `t0`.`id` asc
    limit ?) as `t0`) as `data`, (
  select count(*)
  from `articles` as `t1`
  where ((`t1`.`id` = ? or lower(`t1`.`title`) like ? or `t1`.`rating` = ? or `t1`.`price` = ? or `t1`.`author` = ?) and `t1`.`id` in (?, ?))) as `filter_count`
