-- The node mesh: the devices paired with this node, and removable preferences.
-- Append-only: never edit a shipped migration; add the next numbered file instead.

CREATE TABLE devices (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    role        TEXT NOT NULL,          -- identity::Role
    scopes      TEXT NOT NULL,          -- JSON array of policy::Capability
    token_hash  TEXT NOT NULL UNIQUE,   -- SHA-256 of the device token; the token is never stored
    created_at  INTEGER NOT NULL,
    last_seen   INTEGER,
    revoked_at  INTEGER
);

CREATE TABLE preferences (
    key         TEXT PRIMARY KEY,       -- "my desktop", "chrome profile", ...
    value       TEXT NOT NULL,
    updated_at  INTEGER NOT NULL
);
