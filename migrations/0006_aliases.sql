-- Pronunciations a person confirmed (seed 002): when `heard` is said, it means the project
-- `project` on node `node`. Written in the same transaction as the answer that confirmed it;
-- a later confirmation of the same word replaces it.
-- Append-only: never edit a shipped migration; add the next numbered file instead.
CREATE TABLE aliases (
    heard        TEXT PRIMARY KEY,   -- lower case, as it was heard
    node         TEXT NOT NULL,
    project      TEXT NOT NULL,      -- the project's name in the [[projects]] catalog
    confirmed_at INTEGER NOT NULL
);
