-- Players (issue 17): guest identities with a Glicko-2 rating, and the games' seats tied to them.
-- Never edit this file once it has landed.
--
-- A player is known by a random id and a secret; only the secret's SHA-256 hash is kept. The
-- rating is Glicko-2 (rating, deviation, volatility) as of `rated_at`, the end of the player's
-- last rated game; the deviation shown grows with the days since (the store's `rating` module).
-- The counts are kept here, updated in the transaction that stores each game, so a profile is
-- one row; `rated_games` orders nothing and only says who is on the leaderboard.
create table players (
    id           uuid             primary key,
    secret_hash  bytea            not null check (length(secret_hash) = 32),
    name         text             not null,
    created_at   timestamptz      not null,
    rating       double precision not null default 1500,
    deviation    double precision not null default 350,
    volatility   double precision not null default 0.06,
    rated_at     timestamptz,
    rated_games  bigint           not null default 0 check (rated_games >= 0),
    games        bigint           not null default 0 check (games >= 0),
    wins         bigint           not null default 0 check (wins >= 0),
    losses       bigint           not null default 0 check (losses >= 0),
    draws        bigint           not null default 0 check (draws >= 0)
);

create index players_by_rating on players (rating desc, id) where rated_games > 0;

-- The identified player of each seat (null for anonymous and computer seats, and for every game
-- stored before), and whether the game was rated. Games that were stored before keep nulls.
alter table games
    add column red_player    uuid,
    add column yellow_player uuid,
    add column rated         boolean not null default false;

create index games_by_red_player on games (red_player, ended_at desc, id desc)
    where red_player is not null;
create index games_by_yellow_player on games (yellow_player, ended_at desc, id desc)
    where yellow_player is not null;
