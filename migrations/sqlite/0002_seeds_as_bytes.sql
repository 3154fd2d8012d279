-- Client seeds are bytes for the dice (issue 20), kept as blobs of their UTF-8 bytes, as
-- PostgreSQL keeps them (`bytea`), so both stores hold any seed, NUL included, and read it back
-- the same way. A text-affinity column keeps a blob as it is; the rows written before are turned
-- into blobs here. Never edit this file once it has landed.
update games set red_seed = cast(red_seed as blob), yellow_seed = cast(yellow_seed as blob);
