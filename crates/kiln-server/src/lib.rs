//! Library face of the kiln server: modules that tests exercise directly.
pub mod config;
pub mod tls;
