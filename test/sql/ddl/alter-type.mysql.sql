alter table `ddl_articles` modify column `rank` bigint null;
-- undo: alter table `ddl_articles` modify column `rank` int(11) null;
alter table `ddl_articles` modify column `body` varchar(500) character set utf8mb4 collate utf8mb4_general_ci null;
-- undo: alter table `ddl_articles` modify column `body` text character set utf8mb4 collate utf8mb4_general_ci null;
alter table `ddl_articles` modify column `score` decimal(12, 4) null default 0;
-- undo: alter table `ddl_articles` modify column `score` decimal(8,2) null default 0.00;
