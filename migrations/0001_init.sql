-- Circe's node store: interactions and operations, each an append-only event log with its projection.
-- Append-only: never edit a shipped migration; add the next numbered file instead.

CREATE TABLE interactions (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    revision    INTEGER NOT NULL CHECK (revision >= 1),
    state       TEXT NOT NULL,          -- JSON of model::Interaction, the fold of its events
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE interaction_events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    interaction_id  TEXT NOT NULL REFERENCES interactions(id),
    revision        INTEGER NOT NULL,
    event           TEXT NOT NULL,      -- JSON of interaction::InteractionEvent
    at              INTEGER NOT NULL
);
CREATE INDEX interaction_events_by_interaction ON interaction_events(interaction_id, seq);

CREATE TABLE operations (
    id              TEXT PRIMARY KEY,
    interaction_id  TEXT NOT NULL REFERENCES interactions(id),
    status          TEXT NOT NULL,
    state           TEXT NOT NULL,      -- JSON of model::Operation, the fold of its events
    accepted_at     INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX operations_by_status ON operations(status);

CREATE TABLE operation_events (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    operation_id  TEXT NOT NULL REFERENCES operations(id),
    event         TEXT NOT NULL,        -- JSON of operation::OperationEvent
    at            INTEGER NOT NULL
);
CREATE INDEX operation_events_by_operation ON operation_events(operation_id, seq);

-- Every input that changed state, keyed by its sender and id, with the reply it got:
-- a retried submit returns that reply and causes nothing new.
CREATE TABLE inputs (
    device       TEXT NOT NULL,
    id           TEXT NOT NULL,
    params_hash  TEXT NOT NULL,
    reply        TEXT NOT NULL,
    at           INTEGER NOT NULL,
    PRIMARY KEY (device, id)
);

-- Small node-wide facts, such as which interaction is current.
CREATE TABLE node_facts (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

CREATE TRIGGER interaction_events_append_only_update BEFORE UPDATE ON interaction_events
BEGIN SELECT RAISE(ABORT, 'interaction_events is append-only'); END;
CREATE TRIGGER interaction_events_append_only_delete BEFORE DELETE ON interaction_events
BEGIN SELECT RAISE(ABORT, 'interaction_events is append-only'); END;
CREATE TRIGGER operation_events_append_only_update BEFORE UPDATE ON operation_events
BEGIN SELECT RAISE(ABORT, 'operation_events is append-only'); END;
CREATE TRIGGER operation_events_append_only_delete BEFORE DELETE ON operation_events
BEGIN SELECT RAISE(ABORT, 'operation_events is append-only'); END;
