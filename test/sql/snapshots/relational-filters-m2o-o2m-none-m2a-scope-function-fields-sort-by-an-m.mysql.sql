-- relational filters (m2o, o2m _none, m2a scope), function fields, sort by an m2o path, filter_count
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`, 'updated_at_year', year(`t0`.`updated_at`), 'comments_count', (
              select count(*)
              from `comments` as `t6`
              where `t6`.`article` = `t0`.`id`)) order by `t0`.`__strata_s0` desc), json_array())) as char)
  from (
    select `t0`.`id`, `t0`.`updated_at`, (
      select `t5`.`name`
      from `authors` as `t5`
      where `t5`.`id` = `t0`.`author`
      limit 1) as `__strata_s0`
    from `articles` as `t0`
    where (`t0`.`author` in (
        select `t1`.`id`
        from `authors` as `t1`
        where `t1`.`name` = ?) and not exists (
        select 1
        from `comments` as `t2`
        where `t2`.`article` = `t0`.`id` and `t2`.`body` like ?) and exists (
        select 1
        from `articles_blocks` as `t3`
        where `t3`.`articles_id` = `t0`.`id` and exists (
          select 1
          from `authors` as `t4`
          where `t3`.`collection` = ? and `t4`.`id` = `t3`.`item` and `t4`.`name` = ?)))
    order by (
      select `t5`.`name`
      from `authors` as `t5`
      where `t5`.`id` = `t0`.`author`
      limit 1) desc
    limit ?) as `t0`) as `data`, (
  select count(*)
  from `articles` as `t7`
  where (`t7`.`author` in (
      select `t8`.`id`
      from `authors` as `t8`
      where `t8`.`name` = ?) and not exists (
      select 1
      from `comments` as `t9`
      where `t9`.`article` = `t7`.`id` and `t9`.`body` like ?) and exists (
      select 1
      from `articles_blocks` as `t10`
      where `t10`.`articles_id` = `t7`.`id` and exists (
        select 1
        from `authors` as `t11`
        where `t10`.`collection` = ? and `t11`.`id` = `t10`.`item` and `t11`.`name` = ?)))) as `filter_count`
