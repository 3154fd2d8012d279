-- Finished games, one row per game (issue 4): the embedded store's schema, the same columns as
-- migrations/postgres/0001_games.sql. Never edit this file once it has landed: add a new
-- numbered migration instead.
--
-- SQLite has no uuid or timestamp types: `id` is the uuid's 16 bytes (a blob, which sorts like
-- PostgreSQL's uuid) and times are integer microseconds since the Unix epoch, UTC. The action
-- log is a JSON array (text) in the row, for the reasons given in the PostgreSQL migration.
create table games (
    id           blob    primary key not null check (length(id) = 16),
    ruleset      text    not null,
    mode         text    not null,
    created_at   integer not null,
    started_at   integer not null,
    ended_at     integer not null,
    red_name     text    not null,
    red_kind     text    not null check (red_kind in ('human', 'computer')),
    red_level    text,
    yellow_name  text    not null,
    yellow_kind  text    not null check (yellow_kind in ('human', 'computer')),
    yellow_level text,
    winner       text    check (winner in ('red', 'yellow')),
    reason       text    not null,
    rolls        integer not null check (rolls >= 0),
    moves        integer not null check (moves >= 0),
    actions      text    not null check (json_type(actions) = 'array'),
    scheme       text    not null,
    commitment   text    not null,
    server_seed  text    not null,
    red_seed     text    not null,
    yellow_seed  text    not null,
    stored_at    integer not null default (cast(unixepoch('subsec') * 1000000 as integer))
);

create index games_by_end on games (ended_at desc, id desc);
create index games_by_red_name on games (red_name, ended_at desc, id desc);
create index games_by_yellow_name on games (yellow_name, ended_at desc, id desc);
create index games_by_winner on games (winner, ended_at desc, id desc);
