-- nested m2o object and o2m list with deep sort, limit and filter per parent
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`, 'author', json_extract((
                select json_object('name', `t1`.`name`)
                from `authors` as `t1`
                where `t1`.`id` = `t0`.`author`
                limit 1), '$'), 'comments', json_extract((
                select coalesce(json_arrayagg(json_object('body', `t2`.`body`, 'id', `t2`.`id`) order by `t2`.`id` desc limit 2), json_array())
                from `comments` as `t2`
                where `t2`.`article` = `t0`.`id` and `t2`.`body` is not null), '$')) order by `t0`.`id` asc), json_array())) as char)
  from (
    select `t0`.`id`, `t0`.`author`
    from `articles` as `t0`
    order by `t0`.`id` asc
    limit ?) as `t0`) as `data`
