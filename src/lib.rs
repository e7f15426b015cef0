//! Circe: voice as a reliable remote control.

pub mod decider;
pub mod director;
pub mod eval;
