alter table `ddl_articles` drop index `ddl_articles_title_unique`;
-- undo: alter table `ddl_articles` add unique key `ddl_articles_title_unique` (`title`);
alter table `ddl_articles` add unique key `ddl_articles_rank_unique` (`rank`);
-- undo: alter table `ddl_articles` drop index `ddl_articles_rank_unique`;
alter table `ddl_articles` drop index `ddl_articles_views_index`;
-- undo: alter table `ddl_articles` add key `ddl_articles_views_index` (`views`);
alter table `ddl_articles` add key `ddl_articles_flag_index` (`flag`);
-- undo: alter table `ddl_articles` drop index `ddl_articles_flag_index`;
