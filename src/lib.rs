//! Circe: voice as a reliable remote control.
//!
//! Layout (see docs/ARCHITECTURE.md):
//! - `model`: plain data (Interaction, Operation, Input) shared by every layer;
//! - `interaction`, `operation`: the pure core (state machines);
//! - `director`, `decider`, `eval`: the one reader of every input and grounding (pure), the decider
//!   seam, the corpus runner;
//! - `store`: SQLite, the only module that knows SQL; `private`: files only this user can read;
//! - `executor`, `weather`, `coding`: the executor seam, the weather connector and the coding
//!   provider command;
//! - `protocol`, `client`: the control API's wire format and its client;
//! - `mesh`: paired devices, the HTTP + WebSocket listener and the phone client;
//! - `accept`: what every accept loop does when `accept` fails (pause, log rarely);
//! - `daemon`: the composition root (`circe serve`); `cli`: the command line.

pub mod accept;
pub mod browser;
pub mod cli;
pub mod client;
pub mod clock;
pub mod coding;
pub mod config;
pub mod daemon;
pub mod decider;
pub mod desktop;
pub mod director;
pub mod doctor;
pub mod eval;
pub mod executor;
pub mod glossary;
pub mod install;
pub mod interaction;
pub mod mesh;
pub mod model;
pub mod multilingual;
pub mod operation;
pub mod planner;
pub mod preferences;
pub mod private;
pub mod protocol;
pub mod semantic;
pub mod store;
pub mod voice;
pub mod weather;
