drop index "ddl_articles_title_unique";
create unique index "ddl_articles_rank_unique" on "ddl_articles" ("rank");
drop index "ddl_articles_views_index";
create index "ddl_articles_flag_index" on "ddl_articles" ("flag");
