alter table "ddl_articles" add constraint "ddl_articles_author_foreign" foreign key ("author") references "ddl_authors" ("id") on delete SET NULL;
alter table "ddl_articles" drop constraint if exists "ddl_articles_author_foreign";
alter table "ddl_articles" add constraint "ddl_articles_author_foreign" foreign key ("author") references "ddl_authors" ("id") on delete CASCADE;
