create table "ddl_authors" ("id" serial not null, "name" varchar(80) not null, primary key ("id"));
create table "ddl_articles" ("id" uuid not null, "title" varchar(120) not null default 'untitled', "score" numeric(8, 2) default 0, "views" bigint, "author" integer, "created_at" timestamptz default CURRENT_TIMESTAMP, primary key ("id"));
create unique index "ddl_articles_title_unique" on "ddl_articles" ("title");
comment on column "ddl_articles"."title" is 'Shown in lists';
create index "ddl_articles_views_index" on "ddl_articles" ("views");
create table "ddl_tags" ("article" uuid not null, "tag" varchar(40) not null, primary key ("article", "tag"));
