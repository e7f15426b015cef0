//! The Chrome connector: the native-messaging host mode, the daemon bridge, and the browser executor.
//!
//! Architecture invariants: the host process is a stateless relay (frames capped at 1 MiB toward
//! Chrome); the daemon authenticates every host (peer uid, per-install secret, extension origin);
//! tab ids and element refs are session-scoped and never silently re-targeted.

pub mod bridge;
pub mod executor;
pub mod files;
pub mod framing;
pub mod host;
pub mod install;
pub mod lifecycle;
pub mod navigate;
pub mod navigation;
