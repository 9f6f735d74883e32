-- one item by key with every wire format
select (
  select cast(json_compact(json_object('id', `t0`.`id`, 'title', `t0`.`title`, 'rating', `t0`.`rating`, 'price', cast(`t0`.`price` as char), 'published', if(`t0`.`published` is null, null, if(`t0`.`published`, json_extract('true', '$'), json_extract('false', '$'))), 'updated_at', concat(date_format(`t0`.`updated_at`, '%Y-%m-%dT%H:%i:%s.'), lpad(floor(microsecond(`t0`.`updated_at`) / 1000), 3, '0'), 'Z'), 'metadata', if(json_valid(`t0`.`metadata`), json_extract(`t0`.`metadata`, '$'), `t0`.`metadata`), 'secret', if(`t0`.`secret` is null, null, '**********'), 'author', `t0`.`author`, 'comments', json_extract((
            select coalesce(json_arrayagg(`t1`.`id` order by `t1`.`id` asc limit 100), json_array())
            from `comments` as `t1`
            where `t1`.`article` = `t0`.`id`), '$'), 'blocks', json_extract((
            select coalesce(json_arrayagg(`t2`.`id` order by `t2`.`id` asc limit 100), json_array())
            from `articles_blocks` as `t2`
            where `t2`.`articles_id` = `t0`.`id`), '$'))) as char)
  from `articles` as `t0`
  where `t0`.`id` in (?)
  limit ?) as `data`
