//! The one place that reads the wall clock. Pure code takes `now` as a parameter.

use crate::model::Millis;

pub fn now() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as Millis)
}
