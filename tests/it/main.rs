//! The one integration-test binary.

mod daemon;
mod store;
mod tidy;
mod util;
