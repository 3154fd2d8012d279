-- Games of every edition and of three or four players (issue 16): what a record of format 2
-- holds beyond a two-player `plyyard` game. Never edit this file once it has landed.
--
-- Every row stored before is a two-player `plyyard` game: it gets `players = 2`, no house rules,
-- no Blue or Green seat and no places, and still reads as the format-1 record it was.
--
-- `players` (2 to 4) is a column of its own, not worked out from the seats, so that the list can
-- filter and index on it. The Blue and Green seats have the same columns as Red and Yellow, null
-- when the colour is not seated; their client seeds are bytes like the others (0002). The house
-- rules are a JSON array of their names (`["jump-after-shortcut"]`), `[]` when none was on.
-- `*_place` is each seat's final place from 1, null for a seat still in play when a draw was
-- agreed, and null in every two-player `plyyard` row (its winner says it all).
alter table games
    add column players      smallint not null default 2 check (players between 2 and 4),
    add column house_rules  text     not null default '[]' check (left(house_rules, 1) = '['),
    add column blue_name    text,
    add column blue_kind    text     check (blue_kind in ('human', 'computer')),
    add column blue_level   text,
    add column blue_player  uuid,
    add column blue_seed    bytea,
    add column green_name   text,
    add column green_kind   text     check (green_kind in ('human', 'computer')),
    add column green_level  text,
    add column green_player uuid,
    add column green_seed   bytea,
    add column red_place    smallint check (red_place between 1 and 4),
    add column yellow_place smallint check (yellow_place between 1 and 4),
    add column blue_place   smallint check (blue_place between 1 and 4),
    add column green_place  smallint check (green_place between 1 and 4),
    -- A seat is all there (name and kind) or not at all; Blue sits with three or four, Green
    -- with four.
    add constraint games_blue_seat check (
        (blue_name is null) = (blue_kind is null) and (blue_name is null) = (players < 3)),
    add constraint games_green_seat check (
        (green_name is null) = (green_kind is null) and (green_name is null) = (players < 4));

-- The winner may now be any of the four colours.
alter table games drop constraint games_winner_check;
alter table games add constraint games_winner_check
    check (winner in ('red', 'green', 'yellow', 'blue'));

-- The new filters, in list order; and the new seats for the player filters.
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
