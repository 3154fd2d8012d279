-- The embedded store checks a game's `actions` the way PostgreSQL always has (its 0001:
-- `left(actions, 1) = '['`) instead of with `json_type(actions) = 'array'`, which parsed the
-- whole list of actions (some 17 kB of JSON) once more at every insert: 13% of the server's
-- instructions per action in a closed loop of 20 rooms (issue 18, docs/benchmarks.md, "Stop
-- 46"). The server writes that column from a list it serializes itself and parses it back at
-- every read, so the JSON is checked where it is made and where it is used. Never edit this
-- file once it has landed.
--
-- SQLite cannot change a check constraint with `alter table`. A table rebuild (as 0004 did)
-- would copy every stored game at the upgrade; this uses SQLite's documented procedure for
-- changes that leave the stored rows as they are ("Making Other Kinds Of Table Schema Changes",
-- https://www.sqlite.org/lang_altertable.html): the table's definition is rewritten in the
-- schema table, in the migration's transaction, whatever the number of games. Every stored row
-- passed `json_type(actions) = 'array'` and was written by this server, whose JSON starts with
-- `[`, so every row passes the new check too. `writable_schema = reset` makes this connection
-- read the new definition; the table made and dropped after it changes the schema's version, so
-- that any other open connection reads it again too.
pragma writable_schema = on;

update sqlite_schema
    set sql = replace(sql, 'check (json_type(actions) = ''array'')', 'check (substr(actions, 1, 1) = ''['')')
    where type = 'table' and name = 'games';

pragma writable_schema = reset;

create table schema_version_bump (unused integer);
drop table schema_version_bump;
