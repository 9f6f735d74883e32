/**
 * An existing schema, made by SQL the test runs (not through Strata): uuid keys, an m2o, a composite-key junction, a
 * table without a primary key, a view and (PostgreSQL) a table in a second schema served through DB_SEARCH_PATH.
 */
import type { DbClient } from '../../src/config/config.js';

export const AUTHOR_1 = '0b6f8f2e-7d0a-4c39-9a54-2f6f4b0a1c01';
export const AUTHOR_2 = '0b6f8f2e-7d0a-4c39-9a54-2f6f4b0a1c02';
export const POST_1 = '5d1c3e7a-1b2c-4d5e-8f90-a1b2c3d4e5f1';
export const POST_2 = '5d1c3e7a-1b2c-4d5e-8f90-a1b2c3d4e5f2';

const UUID: Record<DbClient, string> = { sqlite3: 'uuid', pg: 'uuid', mysql: 'char(36)' };
const SERIAL: Record<DbClient, string> = {
  sqlite3: 'integer primary key autoincrement',
  pg: 'serial primary key',
  mysql: 'integer auto_increment primary key',
};

export function existingSchemaSql(client: DbClient): string[] {
  const uuid = UUID[client];
  const text = client === 'mysql' ? 'varchar(255)' : 'text';
  const sql = [
    `create table ex_authors (id ${uuid} primary key, name ${text} not null)`,
    `create table ex_posts (id ${uuid} primary key, title ${text} not null, body ${text},
      author ${uuid} references ex_authors (id))`,
    `create table ex_tags (id ${SERIAL[client]}, name ${text} not null)`,
    `create table ex_post_tags (post_id ${uuid} not null references ex_posts (id), tag_id integer not null
      references ex_tags (id), note ${text}, primary key (post_id, tag_id))`,
    `create table ex_log (at_time varchar(40), message ${text})`,
    `create view ex_post_titles as select id, title from ex_posts`,
    `insert into ex_authors (id, name) values ('${AUTHOR_1}', 'Ada Lovelace'), ('${AUTHOR_2}', 'Alan Turing')`,
    `insert into ex_posts (id, title, body, author) values ('${POST_1}', 'First post', 'Hello', '${AUTHOR_1}'),
      ('${POST_2}', 'Second, with a comma', 'World', '${AUTHOR_2}')`,
    `insert into ex_tags (name) values ('math'), ('machines')`,
    `insert into ex_post_tags (post_id, tag_id, note) values ('${POST_1}', 1, 'first note'),
      ('${POST_1}', 2, 'second note'), ('${POST_2}', 2, 'third note')`,
    `insert into ex_log (at_time, message) values ('2026-01-01', 'started'), ('2026-01-02', 'stopped')`,
  ];
  if (client === 'pg')
    sql.push(
      `create schema ex_sales`,
      `create table ex_sales.ex_orders (id serial primary key, customer text not null, total numeric(10, 2))`,
      `insert into ex_sales.ex_orders (customer, total) values ('Grace', 12.50), ('Edsger', 7.25)`,
    );
  return sql;
}
