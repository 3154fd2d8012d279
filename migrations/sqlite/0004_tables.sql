-- Games of every edition and of three or four players (issue 16): the embedded store's schema,
-- the same columns as migrations/postgres/0004_tables.sql (read it for what each holds). Never
-- edit this file once it has landed.
--
-- SQLite cannot change a column's check constraint, and `winner` must now allow Blue and Green,
-- so the table is rebuilt: a new table with every column, the rows copied (each gets
-- `players = 2`, no house rules, no Blue or Green seat and no places), the old table dropped and
-- the new one renamed, then the indexes made again.
create table games_v4 (
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
    winner       text    check (winner in ('red', 'green', 'yellow', 'blue')),
    reason       text    not null,
    rolls        integer not null check (rolls >= 0),
    moves        integer not null check (moves >= 0),
    actions      text    not null check (json_type(actions) = 'array'),
    scheme       text    not null,
    commitment   text    not null,
    server_seed  text    not null,
    red_seed     text    not null,
    yellow_seed  text    not null,
    stored_at    integer not null default (cast(unixepoch('subsec') * 1000000 as integer)),
    red_player    blob check (red_player is null or length(red_player) = 16),
    yellow_player blob check (yellow_player is null or length(yellow_player) = 16),
    rated         integer not null default 0 check (rated in (0, 1)),
    players       integer not null default 2 check (players between 2 and 4),
    house_rules   text    not null default '[]' check (json_type(house_rules) = 'array'),
    blue_name     text,
    blue_kind     text    check (blue_kind in ('human', 'computer')),
    blue_level    text,
    blue_player   blob    check (blue_player is null or length(blue_player) = 16),
    blue_seed     text,
    green_name    text,
    green_kind    text    check (green_kind in ('human', 'computer')),
    green_level   text,
    green_player  blob    check (green_player is null or length(green_player) = 16),
    green_seed    text,
    red_place     integer check (red_place between 1 and 4),
    yellow_place  integer check (yellow_place between 1 and 4),
    blue_place    integer check (blue_place between 1 and 4),
    green_place   integer check (green_place between 1 and 4),
    check ((blue_name is null) = (blue_kind is null) and (blue_name is null) = (players < 3)),
    check ((green_name is null) = (green_kind is null) and (green_name is null) = (players < 4))
);

insert into games_v4 (id, ruleset, mode, created_at, started_at, ended_at,
        red_name, red_kind, red_level, yellow_name, yellow_kind, yellow_level,
        winner, reason, rolls, moves, actions,
        scheme, commitment, server_seed, red_seed, yellow_seed, stored_at,
        red_player, yellow_player, rated)
    select id, ruleset, mode, created_at, started_at, ended_at,
        red_name, red_kind, red_level, yellow_name, yellow_kind, yellow_level,
        winner, reason, rolls, moves, actions,
        scheme, commitment, server_seed, red_seed, yellow_seed, stored_at,
        red_player, yellow_player, rated
    from games;

drop table games;
alter table games_v4 rename to games;

create index games_by_end on games (ended_at desc, id desc);
create index games_by_red_name on games (red_name, ended_at desc, id desc);
create index games_by_yellow_name on games (yellow_name, ended_at desc, id desc);
create index games_by_winner on games (winner, ended_at desc, id desc);
create index games_by_red_player on games (red_player, ended_at desc, id desc)
    where red_player is not null;
create index games_by_yellow_player on games (yellow_player, ended_at desc, id desc)
    where yellow_player is not null;
create index games_by_ruleset on games (ruleset, ended_at desc, id desc);
create index games_by_players on games (players, ended_at desc, id desc);
create index games_by_blue_name on games (blue_name, ended_at desc, id desc)
    where blue_name is not null;
create index games_by_green_name on games (green_name, ended_at desc, id desc)
    where green_name is not null;
create index games_by_blue_player on games (blue_player, ended_at desc, id desc)
    where blue_player is not null;
create index games_by_green_player on games (green_player, ended_at desc, id desc)
    where green_player is not null;
