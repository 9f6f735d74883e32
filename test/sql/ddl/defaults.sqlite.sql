create table "ddl_defaults" ("id" integer not null primary key autoincrement, "label" varchar(30) default 'it''s a \ test', "active" boolean not null default 0, "ratio" float default -1.5, "amount" decimal(6, 2) default 12.5, "day" date default '2024-01-02', "moment" datetime default '2024-01-02T03:04:05Z', "stamp" timestamp default '2024-01-02T03:04:05.000Z', "clock" time default '12:30:00', "code" uuid default '00000000-0000-0000-0000-000000000000', "tally" integer not null default 0);
create index "ddl_defaults_tally_index" on "ddl_defaults" ("tally");
alter table "ddl_defaults" add column "flagged" boolean default 0;
alter table "ddl_defaults" add column "note" varchar(255) default 'x';
