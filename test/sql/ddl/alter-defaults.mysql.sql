alter table `ddl_defaults` modify column `active` tinyint(1) not null default 1;
-- undo: alter table `ddl_defaults` modify column `active` tinyint(1) not null default 0;
alter table `ddl_defaults` modify column `label` varchar(30) character set utf8mb4 collate utf8mb4_general_ci null comment 'Owner''s note';
-- undo: alter table `ddl_defaults` modify column `label` varchar(30) character set utf8mb4 collate utf8mb4_general_ci null default 'it''s a \\ test' comment 'Owner''s note';
alter table `ddl_defaults` modify column `stamp` timestamp(3) null default current_timestamp(3);
-- undo: alter table `ddl_defaults` modify column `stamp` timestamp(3) null default '2024-01-02 03:04:05.000';
alter table `ddl_defaults` modify column `ratio` double null default 3;
-- undo: alter table `ddl_defaults` modify column `ratio` double null default -1.5;
