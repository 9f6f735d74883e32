alter table `ddl_articles` drop column `payload`;
alter table `ddl_articles` drop foreign key `ddl_articles_author_foreign`;
alter table `ddl_authors` drop column `id`;
drop table `ddl_tags`;
