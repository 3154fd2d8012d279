-- Client seeds are bytes for the dice (issue 20): a player may choose any seed of up to 64 UTF-8
-- bytes, NUL included, and PostgreSQL text cannot hold NUL (`invalid byte sequence for encoding
-- "UTF8": 0x00`), so such a game was refused and never stored. The seeds are kept as their UTF-8
-- bytes from now on; the store turns them back into text when it reads a record. Ad-hoc SQL reads
-- them with `convert_from(red_seed, 'UTF8')` (which fails on a seed holding NUL) or
-- `encode(red_seed, 'escape')`. Never edit this file once it has landed.
alter table games
    alter column red_seed type bytea using convert_to(red_seed, 'UTF8'),
    alter column yellow_seed type bytea using convert_to(yellow_seed, 'UTF8');
