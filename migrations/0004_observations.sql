-- What Circe saw: each observation of a screen, stored once, apart from the operation log.
-- The observe step's evidence and the steps grounded in it hold its id ("<operation id>/<step
-- index>"), never the observation itself. Retention is bounded ([store] in the config): an
-- observation past it is pruned (its body dropped, its row kept), so a fetch can say "pruned"
-- rather than "unknown". The operation log stays append-only; this table is not part of it.
-- Append-only: never edit a shipped migration; add the next numbered file instead.

CREATE TABLE observations (
    id            TEXT PRIMARY KEY,     -- "<operation id>/<step index>"
    operation_id  TEXT NOT NULL REFERENCES operations(id),
    step          INTEGER NOT NULL,     -- the observe step that took it
    body          TEXT,                 -- JSON of the observation; NULL once pruned
    bytes         INTEGER NOT NULL,     -- the body's size when stored
    at            INTEGER NOT NULL,
    pruned_at     INTEGER
);
CREATE INDEX observations_by_operation ON observations(operation_id, step);
CREATE INDEX observations_kept_by_age ON observations(at) WHERE body IS NOT NULL;
