alter table `ddl_articles` modify column `rating` double not null default 2.5;
-- undo: alter table `ddl_articles` modify column `rating` double null;
alter table `ddl_articles` modify column `title` varchar(120) character set utf8mb4 collate utf8mb4_general_ci null comment 'Shown in lists';
-- undo: alter table `ddl_articles` modify column `title` varchar(120) character set utf8mb4 collate utf8mb4_general_ci not null default 'untitled' comment 'Shown in lists';
