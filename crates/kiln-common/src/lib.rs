//! kiln-common: what every layer of kiln shares and nothing else — MySQL error codes
//! (errno + SQLSTATE + message text) and the limits that bound every input.
//!
//! This crate depends on nothing of kiln's. Storage, SQL, protocol and server all
//! speak its error type, so an error raised deep in the engine reaches the client
//! with MySQL's number and SQLSTATE unchanged.

pub mod counter;
pub mod cpu;
pub mod epoll;
pub mod error;
pub mod key;
pub mod limits;
pub mod time;
pub mod wait;

pub use error::{ErrorKind, KilnError, Result};
