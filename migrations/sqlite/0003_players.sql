-- Players (issue 17): the embedded store's schema, the same as
-- migrations/postgres/0003_players.sql (ids are 16-byte blobs, times integer microseconds since
-- the Unix epoch, UTC). Never edit this file once it has landed.
create table players (
    id           blob    primary key not null check (length(id) = 16),
    secret_hash  blob    not null check (length(secret_hash) = 32),
    name         text    not null,
    created_at   integer not null,
    rating       real    not null default 1500,
    deviation    real    not null default 350,
    volatility   real    not null default 0.06,
    rated_at     integer,
    rated_games  integer not null default 0 check (rated_games >= 0),
    games        integer not null default 0 check (games >= 0),
    wins         integer not null default 0 check (wins >= 0),
    losses       integer not null default 0 check (losses >= 0),
    draws        integer not null default 0 check (draws >= 0)
);

create index players_by_rating on players (rating desc, id) where rated_games > 0;

alter table games add column red_player blob check (red_player is null or length(red_player) = 16);
alter table games add column yellow_player blob check (yellow_player is null or length(yellow_player) = 16);
alter table games add column rated integer not null default 0 check (rated in (0, 1));

create index games_by_red_player on games (red_player, ended_at desc, id desc)
    where red_player is not null;
create index games_by_yellow_player on games (yellow_player, ended_at desc, id desc)
    where yellow_player is not null;
