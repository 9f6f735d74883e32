alter table `ddl_articles` add constraint `ddl_articles_author_foreign` foreign key (`author`) references `ddl_authors` (`id`) on delete SET NULL;
-- undo: alter table `ddl_articles` drop foreign key `ddl_articles_author_foreign`;
-- refused as: "ddl_articles.author" and "ddl_authors.id" are not of the same type
alter table `ddl_articles` drop foreign key `ddl_articles_author_foreign`;
-- undo: alter table `ddl_articles` add constraint `ddl_articles_author_foreign` foreign key (`author`) references `ddl_authors` (`id`) on delete SET NULL;
alter table `ddl_articles` add constraint `ddl_articles_author_foreign` foreign key (`author`) references `ddl_authors` (`id`) on delete CASCADE;
-- undo: alter table `ddl_articles` drop foreign key `ddl_articles_author_foreign`;
-- refused as: "ddl_articles.author" and "ddl_authors.id" are not of the same type
