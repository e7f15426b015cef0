//! The X11 pointer position, read between steps. Circe never moves the pointer (it acts through
//! accessibility interfaces and keys), so a pointer that moved while an operation ran means a
//! person took the mouse. This does not depend on the AT-SPI registry emitting `mouse:` events,
//! which it does not do on every setup (it did not under Xvfb here).
//! On Wayland there is no global pointer position to read: `connect` returns `None`.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt;
use x11rb::rust_connection::RustConnection;

/// Root-window coordinates.
pub type Position = (i16, i16);

pub struct Pointer {
    conn: RustConnection,
    root: u32,
}

impl Pointer {
    /// Connect to the X server in `DISPLAY`, if there is one.
    pub fn connect() -> Option<Pointer> {
        std::env::var_os("DISPLAY")?;
        let (conn, screen) = x11rb::connect(None).ok()?;
        let root = conn.setup().roots.get(screen)?.root;
        Some(Pointer { conn, root })
    }

    /// Where the pointer is on the root window.
    pub fn position(&self) -> Option<Position> {
        let reply = self.conn.query_pointer(self.root).ok()?.reply().ok()?;
        Some((reply.root_x, reply.root_y))
    }
}
