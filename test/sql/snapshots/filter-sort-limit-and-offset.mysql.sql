-- filter, sort, limit and offset
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`, 'title', `t0`.`title`) order by `t0`.`__strata_s0` desc, `t0`.`id` asc), json_array())) as char)
  from (
    select `t0`.`id`, `t0`.`title`, `t0`.`rating` as `__strata_s0`
    from (
      select `t0`.`id`
      from `articles` as `t0`
      where `t0`.`rating` >= ?
      order by `t0`.`rating` desc, `t0`.`id` asc
      limit ? offset ?) as `__strata_k`
    join `articles` as `t0` on `t0`.`id` = `__strata_k`.`id`) as `t0`) as `data`
