//! The one integration-test binary.

mod apps;
mod browser;
mod browser_util;
mod chaos;
mod coding;
mod daemon;
mod desktop;
mod desktop_steps;
mod desktop_util;
mod director;
mod director_eval;
mod director_remote;
mod engine;
mod fuzz;
mod glossary;
mod hardening;
#[cfg(target_os = "linux")]
mod install;
mod mesh;
mod mesh_browser;
mod mesh_tls;
mod multistep;
mod navigation;
pub mod nodes;
mod planner;
#[cfg(target_os = "linux")]
mod portal;
mod realtime;
mod realtime_mock;
mod relations;
mod release;
mod release_variations;
mod release_youtube;
mod scan;
mod semantic;
#[cfg(target_os = "linux")]
mod sphinx;
#[cfg(target_os = "linux")]
mod sphinx_util;
mod store;
mod tidy;
#[cfg(target_os = "linux")]
mod tray;
mod upload;
mod util;
mod voice;
mod withdrawn;
