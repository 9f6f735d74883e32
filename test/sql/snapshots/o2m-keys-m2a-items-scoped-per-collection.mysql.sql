-- o2m keys, m2a items scoped per collection
select (
  select cast(json_compact(coalesce(json_arrayagg(json_object('id', `t0`.`id`, 'comments', json_extract((
                select coalesce(json_arrayagg(`t1`.`id` order by `t1`.`id` asc limit 100), json_array())
                from `comments` as `t1`
                where `t1`.`article` = `t0`.`id`), '$'), 'blocks', json_extract((
                select coalesce(json_arrayagg(json_object('item', json_extract(case `t2`.`collection` when 'authors' then (
                          select json_object('name', `t3`.`name`)
                          from `authors` as `t3`
                          where `t2`.`collection` = ? and `t3`.`id` = `t2`.`item`
                          limit 1) when 'comments' then (
                          select json_object('body', `t4`.`body`)
                          from `comments` as `t4`
                          where `t2`.`collection` = ? and `t4`.`id` = `t2`.`item`
                          limit 1) else json_quote(`t2`.`item`) end, '$')) order by `__strata_kept`.`n`), json_array())
                from json_table((
                    select json_arrayagg(`t2`.`id` order by `t2`.`id` asc limit 100)
                    from `articles_blocks` as `t2`
                    where `t2`.`articles_id` = `t0`.`id`), '$[*]' columns (`n` for ordinality, `k` bigint path '$')) as `__strata_kept` straight_join `articles_blocks` as `t2` on `t2`.`id` = `__strata_kept`.`k`), '$')) order by `t0`.`id` asc), json_array())) as char)
  from (
    select `t0`.`id`
    from `articles` as `t0`
    order by `t0`.`id` asc
    limit ?) as `t0`) as `data`
