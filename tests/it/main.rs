//! The one integration-test binary.

mod daemon;
mod director;
mod director_eval;
mod director_remote;
mod store;
mod tidy;
mod util;
