create table "_strata_rebuild_ddl_defaults" ("id" integer not null primary key autoincrement, "label" varchar(30) default 'it''s a \ test', "active" boolean not null default 1, "ratio" float default -1.5, "amount" decimal(6, 2) default 12.5, "day" date default '2024-01-02', "moment" datetime default '2024-01-02T03:04:05Z', "stamp" timestamp default '2024-01-02T03:04:05.000Z', "clock" time default '12:30:00', "code" uuid default '00000000-0000-0000-0000-000000000000', "tally" integer not null default 0, "flagged" boolean default 0, "note" varchar(255) default 'x');
insert into "_strata_rebuild_ddl_defaults" ("id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note") select "id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note" from "ddl_defaults";
drop table "ddl_defaults";
pragma legacy_alter_table = on;
alter table "_strata_rebuild_ddl_defaults" rename to "ddl_defaults";
pragma legacy_alter_table = off;
CREATE INDEX "ddl_defaults_tally_index" on "ddl_defaults" ("tally");
create table "_strata_rebuild_ddl_defaults" ("id" integer not null primary key autoincrement, "label" varchar(30), "active" boolean not null default 1, "ratio" float default -1.5, "amount" decimal(6, 2) default 12.5, "day" date default '2024-01-02', "moment" datetime default '2024-01-02T03:04:05Z', "stamp" timestamp default '2024-01-02T03:04:05.000Z', "clock" time default '12:30:00', "code" uuid default '00000000-0000-0000-0000-000000000000', "tally" integer not null default 0, "flagged" boolean default 0, "note" varchar(255) default 'x');
insert into "_strata_rebuild_ddl_defaults" ("id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note") select "id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note" from "ddl_defaults";
drop table "ddl_defaults";
pragma legacy_alter_table = on;
alter table "_strata_rebuild_ddl_defaults" rename to "ddl_defaults";
pragma legacy_alter_table = off;
delete from sqlite_sequence where name = ?;
-- params: ["ddl_defaults"]
insert into sqlite_sequence (name, seq) values (?, ?);
-- params: ["ddl_defaults",0]
CREATE INDEX "ddl_defaults_tally_index" on "ddl_defaults" ("tally");
create table "_strata_rebuild_ddl_defaults" ("id" integer not null primary key autoincrement, "label" varchar(30), "active" boolean not null default 1, "ratio" float default -1.5, "amount" decimal(6, 2) default 12.5, "day" date default '2024-01-02', "moment" datetime default '2024-01-02T03:04:05Z', "stamp" timestamp default CURRENT_TIMESTAMP, "clock" time default '12:30:00', "code" uuid default '00000000-0000-0000-0000-000000000000', "tally" integer not null default 0, "flagged" boolean default 0, "note" varchar(255) default 'x');
insert into "_strata_rebuild_ddl_defaults" ("id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note") select "id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note" from "ddl_defaults";
drop table "ddl_defaults";
pragma legacy_alter_table = on;
alter table "_strata_rebuild_ddl_defaults" rename to "ddl_defaults";
pragma legacy_alter_table = off;
delete from sqlite_sequence where name = ?;
-- params: ["ddl_defaults"]
insert into sqlite_sequence (name, seq) values (?, ?);
-- params: ["ddl_defaults",0]
CREATE INDEX "ddl_defaults_tally_index" on "ddl_defaults" ("tally");
create table "_strata_rebuild_ddl_defaults" ("id" integer not null primary key autoincrement, "label" varchar(30), "active" boolean not null default 1, "ratio" float default 3, "amount" decimal(6, 2) default 12.5, "day" date default '2024-01-02', "moment" datetime default '2024-01-02T03:04:05Z', "stamp" timestamp default CURRENT_TIMESTAMP, "clock" time default '12:30:00', "code" uuid default '00000000-0000-0000-0000-000000000000', "tally" integer not null default 0, "flagged" boolean default 0, "note" varchar(255) default 'x');
insert into "_strata_rebuild_ddl_defaults" ("id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note") select "id", "label", "active", "ratio", "amount", "day", "moment", "stamp", "clock", "code", "tally", "flagged", "note" from "ddl_defaults";
drop table "ddl_defaults";
pragma legacy_alter_table = on;
alter table "_strata_rebuild_ddl_defaults" rename to "ddl_defaults";
pragma legacy_alter_table = off;
delete from sqlite_sequence where name = ?;
-- params: ["ddl_defaults"]
insert into sqlite_sequence (name, seq) values (?, ?);
-- params: ["ddl_defaults",0]
CREATE INDEX "ddl_defaults_tally_index" on "ddl_defaults" ("tally");
