//! Circe: voice as a reliable remote control.
