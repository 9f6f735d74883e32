alter table "ddl_defaults" alter column "active" set default true;
alter table "ddl_defaults" alter column "label" drop default;
alter table "ddl_defaults" alter column "stamp" set default CURRENT_TIMESTAMP;
alter table "ddl_defaults" alter column "ratio" set default 3;
