alter table "ddl_articles" alter column "rank" type bigint using "rank"::bigint;
alter table "ddl_articles" alter column "body" type varchar(500) using "body"::varchar(500);
alter table "ddl_articles" alter column "score" drop default;
alter table "ddl_articles" alter column "score" type numeric(12, 4) using "score"::numeric(12, 4);
alter table "ddl_articles" alter column "score" set default 0;
