-- The node directory: other Circe nodes. A node paired *with* this one is a device whose
-- public key authenticates it (a signed handshake, no token); a node this one routes *to* is a peer,
-- pinned by its public key (its id is the SHA-256 of that key).
-- Append-only: never edit a shipped migration; add the next numbered file instead.

-- Hex Ed25519 public key of a node device; NULL for a phone (which holds a token).
-- A node device's token_hash is "key:" || id, which no token hashes to.
ALTER TABLE devices ADD COLUMN public_key TEXT;

CREATE TABLE peers (
    id          TEXT PRIMARY KEY,       -- node id = base32(SHA-256(public key))
    name        TEXT NOT NULL,          -- the name it gave itself ([node] name)
    url         TEXT NOT NULL,          -- ws://127.0.0.1:PORT/ws or wss://HOST:PORT/ws
    public_key  TEXT NOT NULL,          -- hex Ed25519 public key: the pin
    added_at    INTEGER NOT NULL,
    removed_at  INTEGER
);
