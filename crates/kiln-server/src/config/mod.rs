//! Startup options (command line and my.cnf).
mod interim;
pub use interim::{InterimOptions, interim_parse};
