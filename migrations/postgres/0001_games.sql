-- Finished games, one row per game (issue 4). Never edit this file once it has landed: add a
-- new numbered migration instead.
--
-- What the API filters and sorts on has typed columns. The ordered action log (every roll value
-- and every action with its room event number and undone flag, in the protocol's `LoggedAction`
-- JSON form) is one JSON array in the row rather than a child table: it is always written and
-- read whole, never queried action by action, and one row per game keeps a write to a single
-- row (a game has a few hundred actions, some 20 kB of JSON). It is kept as text, not jsonb:
-- parsing that much JSON on every insert was most of the cost of a write (docs/benchmarks.md),
-- and the store parses it on read anyway. Ad-hoc SQL can still look inside with a cast, e.g.
-- `jsonb_array_length(actions::jsonb)`. lz4 compresses it much faster than the default pglz
-- (PostgreSQL 14 or later, built with lz4 as the official images and Debian's packages are).
create table games (
    id           uuid        primary key,
    ruleset      text        not null,
    -- `online`, `computer` or `local`.
    mode         text        not null,
    created_at   timestamptz not null,
    started_at   timestamptz not null,
    ended_at     timestamptz not null,
    red_name     text        not null,
    red_kind     text        not null check (red_kind in ('human', 'computer')),
    -- The bot level of a computer seat, null for a person.
    red_level    text,
    yellow_name  text        not null,
    yellow_kind  text        not null check (yellow_kind in ('human', 'computer')),
    yellow_level text,
    -- The winning colour; null for a draw.
    winner       text        check (winner in ('red', 'yellow')),
    -- `finished`, `resigned`, `agreed`, `abandoned` or `timeout` (the rules crate's EndReason).
    reason       text        not null,
    -- Rolls made, undone ones included; plane moves made and not undone.
    rolls        bigint      not null check (rolls >= 0),
    moves        bigint      not null check (moves >= 0),
    actions      text        compression lz4 not null check (left(actions, 1) = '['),
    -- The fairness fields of fairness.md: scheme version, commitment, revealed seed, client seeds.
    scheme       text        not null,
    commitment   text        not null,
    server_seed  text        not null,
    red_seed     text        not null,
    yellow_seed  text        not null,
    -- When the row was written (for operations; not part of the record).
    stored_at    timestamptz not null default now()
);

-- The list is newest first, paged by the cursor (ended_at, id); each filter has an index that
-- delivers its rows already in that order.
create index games_by_end on games (ended_at desc, id desc);
create index games_by_red_name on games (red_name, ended_at desc, id desc);
create index games_by_yellow_name on games (yellow_name, ended_at desc, id desc);
create index games_by_winner on games (winner, ended_at desc, id desc);
