create table `ddl_defaults` (`id` bigint not null auto_increment, `label` varchar(30) null default 'it''s a \\ test' comment 'Owner''s note', `active` tinyint(1) not null default 0, `ratio` double null default -1.5, `amount` decimal(6, 2) null default 12.5, `day` date null default '2024-01-02', `moment` datetime null default '2024-01-02 03:04:05', `stamp` timestamp(3) null default '2024-01-02 03:04:05.000', `clock` time null default '12:30:00', `code` char(36) null default '00000000-0000-0000-0000-000000000000', `tally` int not null default 0, primary key (`id`), key `ddl_defaults_tally_index` (`tally`)) default character set utf8mb4;
-- undo: drop table if exists `ddl_defaults`;
alter table `ddl_defaults` add column `flagged` tinyint(1) null default 0;
-- undo: alter table `ddl_defaults` drop column `flagged`;
alter table `ddl_defaults` add column `note` varchar(255) null default 'x' comment 'a note';
-- undo: alter table `ddl_defaults` drop column `note`;
