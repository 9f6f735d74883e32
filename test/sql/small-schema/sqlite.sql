-- The small schema of test/helpers/small-schema.ts as tables, with rows the SQL snapshot cases read.
create table authors (id integer primary key, name varchar(255) not null);
create table articles (id integer primary key autoincrement, title varchar(200), rating integer, price numeric(10, 2), published boolean, updated_at datetime, metadata json, secret varchar(255), author integer);
create table comments (id integer primary key, body text, article integer);
create table articles_blocks (id integer primary key, articles_id integer, item varchar(255), collection varchar(255));
create table service_users (id char(36) primary key);
insert into authors (id, name) values
  (1, 'Ada'),
  (2, 'Alan'),
  (3, 'Grace');
insert into articles (id, title, rating, price, published, updated_at, metadata, secret, author) values
  (1, 'Hello 50%_x world', 5, '12.50', 1, '2025-12-01 10:00:00', '{"a":1}', 's1', 1),
  (2, 'Ab', 3, '2.00', 0, '2025-12-31 12:00:00', null, 's2', 2),
  (3, 'bcd', 1, null, null, '2024-06-15 08:30:00', '{}', 's3', 1),
  (4, 'Cabc', 4, '1.50', 1, '2022-02-02 02:02:02', '[1,2]', 's4', 3),
  (5, 'x', null, '99.99', 0, '2025-01-01 00:00:00', null, null, 2),
  (6, 'd', 2, '5.00', 1, '2023-03-03 03:03:03', '{"b":[1]}', 's6', 2),
  (7, 'Seventh', 3, '7.25', 1, '2025-07-07 07:07:07.123', '{"k":"v"}', 's7', 3);
insert into comments (id, body, article) values
  (1, 'first', 1),
  (2, 'spam here', 1),
  (3, 'nice', 2),
  (4, null, 2),
  (5, 'ok', 3),
  (6, 'more', 1),
  (7, 'seven', 7);
insert into articles_blocks (id, articles_id, item, collection) values
  (1, 1, '1', 'authors'),
  (2, 1, '2', 'comments'),
  (3, 2, '3', 'comments'),
  (4, 7, '2', 'authors');
