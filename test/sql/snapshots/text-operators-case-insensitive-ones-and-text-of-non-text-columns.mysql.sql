-- text operators, case-insensitive ones and text of non-text columns
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`) order by `t0`.`id` asc), json_array())) as char)
  from (
    select `t0`.`id`
    from `articles` as `t0`
    where (lower(`t0`.`title`) = ? or `t0`.`title` not like ? or lower(`t0`.`title`) like ? or cast(`t0`.`rating` as char) like ? or lower(`t0`.`title`) not like ?)
    order by `t0`.`id` asc
    limit ?) as `t0`) as `data`
