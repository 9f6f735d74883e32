alter table "ddl_articles" alter column "rating" set default 2.5;
alter table "ddl_articles" alter column "rating" set not null;
alter table "ddl_articles" alter column "title" drop default;
alter table "ddl_articles" alter column "title" drop not null;
