//! The node's SQLite store: interactions and operations as append-only event logs with projections.
//!
//! Architecture invariants:
//! - the only module that knows SQL;
//! - WAL with `synchronous=FULL`: a commit that returned survives a crash of the process or the OS;
//! - every write is one `BEGIN IMMEDIATE` transaction; an interaction update is a compare-and-set
//!   on its revision, so a stale writer loses with `RevisionConflict` and changes nothing;
//! - migrations are embedded, numbered and append-only: a shipped one that changed is refused.

use crate::interaction::{Change, InteractionEvent, Learned};
use crate::model::{Interaction, InteractionId, Millis, Operation, OperationId, OperationStatus};
use crate::operation::{self, OperationEvent};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The migrations, in order. A test checks this list against `migrations/`.
pub const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../migrations/0001_init.sql")),
    ("0002_mesh", include_str!("../migrations/0002_mesh.sql")),
    ("0003_nodes", include_str!("../migrations/0003_nodes.sql")),
    (
        "0004_observations",
        include_str!("../migrations/0004_observations.sql"),
    ),
    (
        "0005_voice_latency",
        include_str!("../migrations/0005_voice_latency.sql"),
    ),
    (
        "0006_aliases",
        include_str!("../migrations/0006_aliases.sql"),
    ),
];

/// How many observations are kept (`[store]` in the config): the newest `per_operation` of each
/// operation, the newest `total` in all, none older than `max_age_ms` (0: no age limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    pub per_operation: usize,
    pub total: usize,
    pub max_age_ms: u64,
}

/// A stored observation, as a fetch finds it.
#[derive(Clone, Debug, PartialEq)]
pub enum StoredObservation {
    /// The observation as it was taken, and when.
    Kept { body: serde_json::Value, at: Millis },
    /// It was taken at `at` and pruned at `pruned_at` (retention); only its id remains.
    Pruned { at: Millis, pruned_at: Millis },
}

/// The id of the observation an operation's step `step` took: `"<operation id>/<step>"`.
pub fn observation_id(operation: OperationId, step: u32) -> String {
    format!("{operation}/{step}")
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("cannot create the database file: {0}")]
    File(std::io::Error),
    #[error("stored JSON could not be read: {0}")]
    Json(#[from] serde_json::Error),
    #[error("revision conflict: the interaction is at revision {current}")]
    RevisionConflict { current: u64 },
    #[error("migration problem: {0}")]
    Migration(String),
    #[error("the database is not durable enough: {0}")]
    Durability(String),
    #[error("no {what} with id {id}")]
    NotFound { what: &'static str, id: String },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

pub struct Store {
    conn: Connection,
}

/// A paired device, as the node directory keeps it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceRecord {
    pub id: String,
    pub name: String,
    pub role: String,
    pub scopes: Vec<crate::model::Capability>,
    pub created_at: Millis,
    pub last_seen: Option<Millis>,
    pub revoked_at: Option<Millis>,
    /// A node device's hex Ed25519 public key (it authenticates by signature); `None` for a
    /// phone, which holds a token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
}

/// Another node this one routes requests to, pinned by its public key.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerRecord {
    /// Its node id: base32(SHA-256(public key)).
    pub id: String,
    pub name: String,
    pub url: String,
    /// Hex Ed25519 public key: the pin.
    pub public_key: String,
    pub added_at: Millis,
}

/// A stored reply for an input id, used to answer a retried submit.
pub struct StoredInput {
    pub params_hash: String,
    pub reply: serde_json::Value,
}

impl Store {
    /// Open (or create, 0600: see `private`) the database at `path`; SQLite gives its WAL and
    /// shared-memory files the database file's mode.
    pub fn open(path: &Path) -> Result<Store> {
        // Never opened outside SQLite once it exists: that would drop the POSIX locks of
        // another connection of this process (the mesh's) and let the WAL be deleted under it.
        crate::private::existing_or_new(path).map_err(StoreError::File)?;
        let conn = Connection::open(path)?;
        Store::configure(conn)
    }

    /// An in-memory store, for unit tests of the logic above it.
    pub fn open_in_memory() -> Result<Store> {
        Store::configure(Connection::open_in_memory()?)
    }

    fn configure(conn: Connection) -> Result<Store> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")?;
        #[cfg(target_os = "macos")]
        conn.execute_batch("PRAGMA fullfsync=ON; PRAGMA checkpoint_fullfsync=ON;")?;
        let sync: i64 = conn.query_row("PRAGMA synchronous", [], |r| r.get(0))?;
        // An in-memory database reports "memory"; files must be WAL.
        if !(mode.eq_ignore_ascii_case("wal") || mode.eq_ignore_ascii_case("memory")) || sync != 2 {
            return Err(StoreError::Durability(format!(
                "journal_mode={mode}, synchronous={sync}; Circe needs WAL and FULL (is the data dir on a network filesystem?)"
            )));
        }
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<()> {
        self.conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL)",
        )?;
        let applied: Vec<(i64, String, String)> = {
            let mut st = self
                .conn
                .prepare("SELECT version, name, sha256 FROM schema_migrations ORDER BY version")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        if applied.len() > MIGRATIONS.len() {
            return Err(StoreError::Migration(format!(
                "the database has {} migrations but this circe knows {}; it was written by a newer circe",
                applied.len(),
                MIGRATIONS.len()
            )));
        }
        for (i, (version, name, sha)) in applied.iter().enumerate() {
            let (known_name, sql) = MIGRATIONS[i];
            if *version != i as i64 + 1 || name != known_name || *sha != sha256(sql) {
                return Err(StoreError::Migration(format!(
                    "migration {version} ({name}) differs from the one this circe ships ({known_name}); migrations are append-only"
                )));
            }
        }
        for (i, (name, sql)) in MIGRATIONS.iter().enumerate().skip(applied.len()) {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute_batch(sql)
                .map_err(|e| StoreError::Migration(format!("migration {name} failed: {e}")))?;
            tx.execute(
                "INSERT INTO schema_migrations (version, name, sha256) VALUES (?1, ?2, ?3)",
                params![i as i64 + 1, name, sha256(sql)],
            )?;
            tx.commit()?;
        }
        Ok(())
    }

    /// Add a paired device; `token_hash` is the SHA-256 of its token. A node device (one with a
    /// public key) gets `"key:" || id` instead, which no token hashes to. Pairing a node again
    /// replaces its earlier (revoked or live) record.
    pub fn insert_device(&mut self, device: &DeviceRecord, token_hash: &str) -> Result<()> {
        let token_hash = match &device.public_key {
            Some(_) => format!("key:{}", device.id),
            None => token_hash.to_string(),
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if device.public_key.is_some() {
            tx.execute("DELETE FROM devices WHERE id = ?1", params![device.id])?;
        }
        tx.execute(
            "INSERT INTO devices (id, name, role, scopes, token_hash, created_at, public_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                device.id,
                device.name,
                device.role,
                serde_json::to_string(&device.scopes)?,
                token_hash,
                device.created_at as i64,
                device.public_key,
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The live node device with this id (a node authenticates by its key, not a token).
    pub fn node_device(&self, id: &str) -> Result<Option<DeviceRecord>> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, name, role, scopes, created_at, last_seen, revoked_at, public_key FROM devices
                 WHERE id = ?1 AND public_key IS NOT NULL AND revoked_at IS NULL",
                params![id],
                Store::device_row,
            )
            .optional()?)
    }

    /// Add (or replace) a peer this node routes to.
    pub fn upsert_peer(&mut self, peer: &PeerRecord) -> Result<()> {
        self.conn.execute(
            "INSERT INTO peers (id, name, url, public_key, added_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(id) DO UPDATE SET name = ?2, url = ?3, public_key = ?4, added_at = ?5, removed_at = NULL",
            params![peer.id, peer.name, peer.url, peer.public_key, peer.added_at as i64],
        )?;
        Ok(())
    }

    /// The peers not removed, oldest first.
    pub fn peers(&self) -> Result<Vec<PeerRecord>> {
        let mut st = self.conn.prepare(
            "SELECT id, name, url, public_key, added_at FROM peers WHERE removed_at IS NULL ORDER BY added_at, id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(PeerRecord {
                id: r.get(0)?,
                name: r.get(1)?,
                url: r.get(2)?,
                public_key: r.get(3)?,
                added_at: r.get::<_, i64>(4)? as Millis,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Remove a peer; false when there is no such peer.
    pub fn remove_peer(&mut self, id: &str, now: Millis) -> Result<bool> {
        let n = self.conn.execute(
            "UPDATE peers SET removed_at = ?2 WHERE id = ?1 AND removed_at IS NULL",
            params![id, now as i64],
        )?;
        Ok(n == 1)
    }

    fn device_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DeviceRecord> {
        let scopes: String = r.get(3)?;
        Ok(DeviceRecord {
            id: r.get(0)?,
            name: r.get(1)?,
            role: r.get(2)?,
            // An unreadable scope list grants nothing.
            scopes: serde_json::from_str(&scopes).unwrap_or_default(),
            created_at: r.get::<_, i64>(4)? as Millis,
            last_seen: r.get::<_, Option<i64>>(5)?.map(|v| v as Millis),
            revoked_at: r.get::<_, Option<i64>>(6)?.map(|v| v as Millis),
            public_key: r.get(7)?,
        })
    }

    /// The live (not revoked) device whose token hashes to `token_hash`.
    pub fn device_by_token(&self, token_hash: &str) -> Result<Option<DeviceRecord>> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, name, role, scopes, created_at, last_seen, revoked_at, public_key FROM devices
                 WHERE token_hash = ?1 AND revoked_at IS NULL",
                params![token_hash],
                Store::device_row,
            )
            .optional()?)
    }

    /// Every device ever paired, revoked ones included, oldest first.
    /// The device of every input taken, oldest first (who asked: the CLI, a phone, voice).
    pub fn input_devices(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare("SELECT device FROM inputs ORDER BY rowid")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
    }

    pub fn devices(&self) -> Result<Vec<DeviceRecord>> {
        let mut st = self.conn.prepare(
            "SELECT id, name, role, scopes, created_at, last_seen, revoked_at, public_key FROM devices ORDER BY created_at, id",
        )?;
        let rows = st.query_map([], Store::device_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Revoke a device; false when there is no such live device.
    pub fn revoke_device(&mut self, id: &str, now: Millis) -> Result<bool> {
        let n = self.conn.execute(
            "UPDATE devices SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            params![id, now as i64],
        )?;
        Ok(n == 1)
    }

    pub fn touch_device(&mut self, id: &str, now: Millis) -> Result<()> {
        self.conn.execute(
            "UPDATE devices SET last_seen = ?2 WHERE id = ?1",
            params![id, now as i64],
        )?;
        Ok(())
    }

    /// Set (or with `None`, remove) a preference such as "my desktop".
    pub fn set_preference(&mut self, key: &str, value: Option<&str>, now: Millis) -> Result<()> {
        match value {
            Some(v) => self.conn.execute(
                "INSERT INTO preferences (key, value, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(key) DO UPDATE SET value = ?2, updated_at = ?3",
                params![key, v, now as i64],
            )?,
            None => self
                .conn
                .execute("DELETE FROM preferences WHERE key = ?1", params![key])?,
        };
        Ok(())
    }

    pub fn preferences(&self) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT key, value FROM preferences ORDER BY key")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Read a store's schema version without changing it: (applied, known to this circe).
    pub fn inspect(path: &Path) -> Result<(usize, usize)> {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let has_table: bool = conn.query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
            [],
            |r| r.get(0),
        )?;
        let applied: i64 = if has_table {
            conn.query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0))?
        } else {
            0
        };
        Ok((applied as usize, MIGRATIONS.len()))
    }

    /// The operations in the store at `path` that are stranded (`operation::stranded`: active
    /// while their interaction has let go of them), with why; read-only, for `circe doctor`.
    /// The next `circe serve` repairs them.
    pub fn stranded_in(path: &Path) -> Result<Vec<(Operation, &'static str)>> {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        Store { conn }.stranded()
    }

    /// The stranded operations of this store, with why.
    pub fn stranded(&self) -> Result<Vec<(Operation, &'static str)>> {
        let mut found = Vec::new();
        for op in self.active_operations()? {
            let holder = self.interaction(op.interaction)?;
            if let Some(why) = crate::operation::stranded(&op, holder.as_ref()) {
                found.push((op, why));
            }
        }
        Ok(found)
    }

    pub fn applied_migrations(&self) -> Result<usize> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM schema_migrations", [], |r| r.get(0))?;
        Ok(n as usize)
    }

    pub fn integrity_check(&self) -> Result<String> {
        Ok(self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?)
    }

    /// The interaction new inputs are read against by default.
    pub fn current_interaction(&self) -> Result<Option<Interaction>> {
        let id: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM node_facts WHERE key = 'current_interaction'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        match id {
            Some(id) => self.interaction_by_text(&id),
            None => Ok(None),
        }
    }

    pub fn interaction(&self, id: InteractionId) -> Result<Option<Interaction>> {
        self.interaction_by_text(&id.to_string())
    }

    fn interaction_by_text(&self, id: &str) -> Result<Option<Interaction>> {
        let json: Option<String> = self
            .conn
            .query_row("SELECT state FROM interactions WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(json.map(|j| serde_json::from_str(&j)).transpose()?)
    }

    pub fn operation(&self, id: OperationId) -> Result<Option<Operation>> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT state FROM operations WHERE id = ?1",
                [id.to_string()],
                |r| r.get(0),
            )
            .optional()?;
        Ok(json.map(|j| serde_json::from_str(&j)).transpose()?)
    }

    /// The newest operations first.
    pub fn operations(&self, limit: usize) -> Result<Vec<Operation>> {
        let mut st = self.conn.prepare(
            "SELECT state FROM operations ORDER BY accepted_at DESC, rowid DESC LIMIT ?1",
        )?;
        let rows = st.query_map([limit as i64], |r| r.get::<_, String>(0))?;
        let mut ops = Vec::new();
        for json in rows {
            ops.push(serde_json::from_str(&json?)?);
        }
        Ok(ops)
    }

    pub fn active_operations(&self) -> Result<Vec<Operation>> {
        let statuses: Vec<&str> = OperationStatus::ALL
            .iter()
            .filter(|s| s.is_active())
            .map(|s| s.as_str())
            .collect();
        let mut st = self.conn.prepare(&format!(
            "SELECT state FROM operations WHERE status IN ({}) ORDER BY accepted_at",
            statuses
                .iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(",")
        ))?;
        let rows = st.query_map([], |r| r.get::<_, String>(0))?;
        let mut ops = Vec::new();
        for json in rows {
            ops.push(serde_json::from_str(&json?)?);
        }
        Ok(ops)
    }

    /// The interactions that inputs from `device` went to.
    pub fn interactions_from(&self, device: &str) -> Result<Vec<String>> {
        let mut st = self.conn.prepare(
            "SELECT DISTINCT json_extract(reply, '$.interaction.id') FROM inputs
             WHERE device = ?1 AND json_extract(reply, '$.interaction.id') IS NOT NULL",
        )?;
        let rows = st.query_map([device], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    pub fn stored_input(&self, device: &str, id: &str) -> Result<Option<StoredInput>> {
        let row: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT params_hash, reply FROM inputs WHERE device = ?1 AND id = ?2",
                [device, id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        row.map(|(params_hash, reply)| {
            Ok(StoredInput {
                params_hash,
                reply: serde_json::from_str(&reply)?,
            })
        })
        .transpose()
    }

    /// Commit what one input did, in one durable transaction: the interaction change and its
    /// events, the accepted operation (if any), and the input with its reply.
    /// Commit what an input did: its interaction change (and the one it set aside), the operation
    /// it accepted, the events of the operation it stops (`stopped`), the pronunciations it
    /// confirmed (`change.learned`), and the input's reply for deduplication, in one transaction.
    /// Returns the stopped operation as it now is.
    pub fn commit_input(
        &mut self,
        change: &Change,
        accepted: Option<&Operation>,
        stopped: Option<(OperationId, &[OperationEvent])>,
        input: (&str, &str, &str, &serde_json::Value),
        now: Millis,
    ) -> Result<Option<Operation>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some(old) = &change.set_aside {
            write_change(&tx, old, now)?;
        }
        write_change(&tx, change, now)?;
        for alias in &change.learned {
            tx.execute(
                "INSERT INTO aliases (heard, node, project, confirmed_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(heard) DO UPDATE SET node = excluded.node,
                    project = excluded.project, confirmed_at = excluded.confirmed_at",
                params![alias.heard, alias.node, alias.project, now as i64],
            )?;
        }
        if let Some(op) = accepted {
            write_accepted(&tx, op, now)?;
        }
        let stopped = match stopped {
            Some((id, events)) if !events.is_empty() => Some(record_in(&tx, id, events, now)?),
            _ => None,
        };
        if change.created {
            tx.execute(
                "INSERT INTO node_facts (key, value) VALUES ('current_interaction', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [change.interaction.id.to_string()],
            )?;
        }
        let (device, id, hash, reply) = input;
        tx.execute(
            "INSERT INTO inputs (device, id, params_hash, reply, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![device, id, hash, serde_json::to_string(reply)?, now as i64],
        )?;
        tx.commit()?;
        Ok(stopped)
    }

    /// Append events to an operation and store the new projection, in one transaction.
    pub fn record(
        &mut self,
        id: OperationId,
        events: &[OperationEvent],
        now: Millis,
    ) -> Result<Operation> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let op = record_in(&tx, id, events, now)?;
        tx.commit()?;
        Ok(op)
    }

    /// Append events to an operation and, in the same transaction, commit what they mean for its
    /// interaction: `change` gets the operation as it now is and its interaction (as stored), and
    /// returns the interaction's change, if any (an outcome, a question). One commit, so the
    /// operation and its interaction never disagree after a crash.
    pub fn record_with_change(
        &mut self,
        id: OperationId,
        events: &[OperationEvent],
        now: Millis,
        change: impl FnOnce(&Operation, &Interaction) -> Option<Change>,
    ) -> Result<(Operation, Option<Interaction>)> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let op = record_in(&tx, id, events, now)?;
        let json: Option<String> = tx
            .query_row(
                "SELECT state FROM interactions WHERE id = ?1",
                [op.interaction.to_string()],
                |r| r.get(0),
            )
            .optional()?;
        let current: Option<Interaction> = json.map(|j| serde_json::from_str(&j)).transpose()?;
        let changed = match current.as_ref().and_then(|i| change(&op, i)) {
            Some(c) => {
                write_change(&tx, &c, now)?;
                Some(c.interaction)
            }
            None => None,
        };
        tx.commit()?;
        Ok((op, changed))
    }

    /// End an observe step: store what it saw (once, in `observations`) and append `events` (its
    /// `StepEnded`, whose evidence holds the observation's id, not the observation), then prune observations
    /// past `retention`; all in one transaction. Returns the operation and the observation's id.
    pub fn record_observation(
        &mut self,
        id: OperationId,
        step: u32,
        body: &serde_json::Value,
        events: &[OperationEvent],
        retention: Retention,
        now: Millis,
    ) -> Result<(Operation, String)> {
        let observation = observation_id(id, step);
        let body = serde_json::to_string(body)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO observations (id, operation_id, step, body, bytes, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![observation, id.to_string(), step, body, body.len() as i64, now as i64],
        )?;
        let op = record_in(&tx, id, events, now)?;
        prune_observations(&tx, id, retention, now)?;
        tx.commit()?;
        Ok((op, observation))
    }

    /// The observation with this id: kept, pruned, or (`None`) never stored.
    pub fn observation(&self, id: &str) -> Result<Option<StoredObservation>> {
        let row: Option<(Option<String>, i64, Option<i64>)> = self
            .conn
            .query_row(
                "SELECT body, at, pruned_at FROM observations WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        Ok(match row {
            None => None,
            Some((Some(body), at, _)) => Some(StoredObservation::Kept {
                body: serde_json::from_str(&body)?,
                at: at as Millis,
            }),
            Some((None, at, pruned_at)) => Some(StoredObservation::Pruned {
                at: at as Millis,
                pruned_at: pruned_at.unwrap_or(at) as Millis,
            }),
        })
    }

    /// How many observations are kept (with their body) and how many pruned.
    pub fn observation_counts(&self) -> Result<(u64, u64)> {
        let (kept, pruned): (i64, i64) = self.conn.query_row(
            "SELECT count(body), count(*) - count(body) FROM observations",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((kept as u64, pruned as u64))
    }

    /// Every event of an interaction, oldest first, with the revision it produced.
    pub fn interaction_events(
        &self,
        id: InteractionId,
    ) -> Result<Vec<(u64, Millis, InteractionEvent)>> {
        let mut st = self
            .conn
            .prepare("SELECT revision, at, event FROM interaction_events WHERE interaction_id = ?1 ORDER BY seq")?;
        let rows = st.query_map([id.to_string()], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (rev, at, json) = row?;
            out.push((rev as u64, at as Millis, serde_json::from_str(&json)?));
        }
        Ok(out)
    }

    pub fn operation_events(&self, id: OperationId) -> Result<Vec<(Millis, OperationEvent)>> {
        let mut st = self.conn.prepare(
            "SELECT at, event FROM operation_events WHERE operation_id = ?1 ORDER BY seq",
        )?;
        let rows = st.query_map([id.to_string()], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (at, json) = row?;
            out.push((at as Millis, serde_json::from_str(&json)?));
        }
        Ok(out)
    }

    /// Rebuild an interaction from its log alone (what the projection must equal).
    pub fn replay_interaction(&self, id: InteractionId) -> Result<Option<Interaction>> {
        let mut state: Option<Interaction> = None;
        for (revision, at, event) in self.interaction_events(id)? {
            state = Some(crate::interaction::apply(
                state.as_ref(),
                &event,
                revision,
                at,
            ));
        }
        Ok(state)
    }

    pub fn replay_operation(&self, id: OperationId) -> Result<Option<Operation>> {
        let mut state: Option<Operation> = None;
        for (at, event) in self.operation_events(id)? {
            state = Some(operation::apply(state.as_ref(), &event, at));
        }
        Ok(state)
    }

    /// The pronunciations people confirmed ("rivel" means Rivvl), oldest first.
    pub fn aliases(&self) -> Result<Vec<Learned>> {
        let mut st = self
            .conn
            .prepare("SELECT heard, node, project FROM aliases ORDER BY confirmed_at, heard")?;
        let rows = st.query_map([], |r| {
            Ok(Learned {
                heard: r.get(0)?,
                node: r.get(1)?,
                project: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Record one voice latency: `ms` from the end of `utterance`'s speech to `phase`.
    pub fn record_latency(&self, utterance: &str, phase: &str, ms: u64, now: Millis) -> Result<()> {
        self.conn.execute(
            "INSERT INTO voice_latency (utterance, phase, ms, at) VALUES (?1, ?2, ?3, ?4)",
            params![utterance, phase, ms as i64, now as i64],
        )?;
        Ok(())
    }

    /// The latest voice latencies (at most 10 000), as (phase, ms).
    pub fn latencies(&self) -> Result<Vec<(String, u64)>> {
        let mut st = self
            .conn
            .prepare("SELECT phase, ms FROM voice_latency ORDER BY seq DESC LIMIT 10000")?;
        let rows = st.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The number of rows in the two event logs (for the crash test and `doctor`).
    pub fn event_counts(&self) -> Result<(u64, u64)> {
        let i: i64 = self
            .conn
            .query_row("SELECT count(*) FROM interaction_events", [], |r| r.get(0))?;
        let o: i64 = self
            .conn
            .query_row("SELECT count(*) FROM operation_events", [], |r| r.get(0))?;
        Ok((i as u64, o as u64))
    }
}

/// Append `events` to operation `id`'s log and store its new projection, inside `tx`.
fn record_in(
    tx: &rusqlite::Transaction<'_>,
    id: OperationId,
    events: &[OperationEvent],
    now: Millis,
) -> Result<Operation> {
    let json: String = tx
        .query_row(
            "SELECT state FROM operations WHERE id = ?1",
            [id.to_string()],
            |r| r.get(0),
        )
        .optional()?
        .ok_or(StoreError::NotFound {
            what: "operation",
            id: id.to_string(),
        })?;
    let mut op: Operation = serde_json::from_str(&json)?;
    for event in events {
        op = operation::apply(Some(&op), event, now);
        tx.execute(
            "INSERT INTO operation_events (operation_id, event, at) VALUES (?1, ?2, ?3)",
            params![id.to_string(), serde_json::to_string(event)?, now as i64],
        )?;
    }
    tx.execute(
        "UPDATE operations SET status = ?2, state = ?3, updated_at = ?4 WHERE id = ?1",
        params![
            id.to_string(),
            op.status.as_str(),
            serde_json::to_string(&op)?,
            now as i64
        ],
    )?;
    Ok(op)
}

/// Drop the bodies of observations past `retention`: the operation's own beyond its newest
/// `per_operation`, everyone's beyond the newest `total`, and any older than `max_age_ms`.
fn prune_observations(
    tx: &rusqlite::Transaction<'_>,
    id: OperationId,
    retention: Retention,
    now: Millis,
) -> Result<()> {
    tx.execute(
        "UPDATE observations SET body = NULL, pruned_at = ?3
         WHERE operation_id = ?1 AND body IS NOT NULL AND step NOT IN (
             SELECT step FROM observations WHERE operation_id = ?1 AND body IS NOT NULL
             ORDER BY step DESC LIMIT ?2)",
        params![id.to_string(), retention.per_operation as i64, now as i64],
    )?;
    tx.execute(
        "UPDATE observations SET body = NULL, pruned_at = ?2
         WHERE body IS NOT NULL AND id NOT IN (
             SELECT id FROM observations WHERE body IS NOT NULL
             ORDER BY at DESC, rowid DESC LIMIT ?1)",
        params![retention.total as i64, now as i64],
    )?;
    if retention.max_age_ms > 0 {
        tx.execute(
            "UPDATE observations SET body = NULL, pruned_at = ?2 WHERE body IS NOT NULL AND at < ?1",
            params![now.saturating_sub(retention.max_age_ms) as i64, now as i64],
        )?;
    }
    Ok(())
}

fn write_change(tx: &rusqlite::Transaction<'_>, change: &Change, now: Millis) -> Result<()> {
    let i = &change.interaction;
    let state = serde_json::to_string(i)?;
    if change.created {
        tx.execute(
            "INSERT INTO interactions (id, owner, revision, state, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
            params![
                i.id.to_string(),
                i.owner,
                i.revision as i64,
                state,
                now as i64
            ],
        )?;
    } else {
        let updated = tx.execute(
            "UPDATE interactions SET revision = ?2, state = ?3, updated_at = ?4 WHERE id = ?1 AND revision = ?5",
            params![i.id.to_string(), i.revision as i64, state, now as i64, i.revision as i64 - 1],
        )?;
        if updated != 1 {
            let current: Option<i64> = tx
                .query_row(
                    "SELECT revision FROM interactions WHERE id = ?1",
                    [i.id.to_string()],
                    |r| r.get(0),
                )
                .optional()?;
            return match current {
                Some(current) => Err(StoreError::RevisionConflict {
                    current: current as u64,
                }),
                None => Err(StoreError::NotFound {
                    what: "interaction",
                    id: i.id.to_string(),
                }),
            };
        }
    }
    for event in &change.events {
        tx.execute(
            "INSERT INTO interaction_events (interaction_id, revision, event, at) VALUES (?1, ?2, ?3, ?4)",
            params![i.id.to_string(), i.revision as i64, serde_json::to_string(event)?, now as i64],
        )?;
    }
    Ok(())
}

fn write_accepted(tx: &rusqlite::Transaction<'_>, op: &Operation, now: Millis) -> Result<()> {
    tx.execute(
        "INSERT INTO operations (id, interaction_id, status, state, accepted_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        params![
            op.id.to_string(),
            op.interaction.to_string(),
            op.status.as_str(),
            serde_json::to_string(op)?,
            now as i64
        ],
    )?;
    let event = OperationEvent::Accepted {
        operation: Box::new(op.clone()),
    };
    tx.execute(
        "INSERT INTO operation_events (operation_id, event, at) VALUES (?1, ?2, ?3)",
        params![
            op.id.to_string(),
            serde_json::to_string(&event)?,
            now as i64
        ],
    )?;
    Ok(())
}

pub fn sha256(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
