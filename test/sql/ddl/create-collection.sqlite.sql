create table "ddl_authors" ("id" integer not null primary key autoincrement, "name" varchar(80) not null);
create table "ddl_articles" ("id" uuid not null primary key, "title" varchar(120) not null default 'untitled', "score" decimal(8, 2) default 0, "views" bigint, "author" integer, "created_at" timestamp default CURRENT_TIMESTAMP);
create unique index "ddl_articles_title_unique" on "ddl_articles" ("title");
create index "ddl_articles_views_index" on "ddl_articles" ("views");
create table "ddl_tags" ("article" uuid not null, "tag" varchar(40) not null, primary key ("article", "tag"));
