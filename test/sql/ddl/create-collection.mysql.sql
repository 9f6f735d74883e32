create table `ddl_authors` (`id` int not null auto_increment, `name` varchar(80) not null, primary key (`id`)) default character set utf8mb4;
-- undo: drop table if exists `ddl_authors`;
create table `ddl_articles` (`id` char(36) not null, `title` varchar(120) not null default 'untitled' comment 'Shown in lists', `score` decimal(8, 2) null default 0, `views` bigint null, `author` int null, `created_at` timestamp(3) null default current_timestamp(3), primary key (`id`), unique key `ddl_articles_title_unique` (`title`), key `ddl_articles_views_index` (`views`)) default character set utf8mb4;
-- undo: drop table if exists `ddl_articles`;
create table `ddl_tags` (`article` char(36) not null, `tag` varchar(40) not null, primary key (`article`, `tag`)) default character set utf8mb4;
-- undo: drop table if exists `ddl_tags`;
