-- aggregate grouped by a field, a date part and an m2o path, sorted by count
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('author', json_object('name', `t3`.`g0`), 'updated_at_year', `t3`.`g1`, 'count', `t3`.`a0`, 'sum', json_object('price', cast(`t3`.`a1` as char)), 'avg', json_object('rating', cast(`t3`.`a2` as double))) order by `t3`.`a0` desc, `t3`.`g0` asc, `t3`.`g1` asc), json_array())) as char)
  from (
    select `t2`.`g0` as `g0`, `t2`.`g1` as `g1`, count(*) as `a0`, sum(`t2`.`v1`) as `a1`, avg(`t2`.`v2`) as `a2`
    from (
      select (
        select `t1`.`name`
        from `authors` as `t1`
        where `t1`.`id` = `t0`.`author`
        limit 1) as `g0`, year(`t0`.`updated_at`) as `g1`, `t0`.`price` as `v1`, `t0`.`rating` as `v2`
      from `articles` as `t0`) as `t2`
    group by `t2`.`g0`, `t2`.`g1`
    order by count(*) desc, `t2`.`g0` asc, `t2`.`g1` asc
    limit ?) as `t3`) as `data`
