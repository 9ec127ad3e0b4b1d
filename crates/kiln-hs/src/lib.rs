//! kiln-hs: the HandlerSocket-compatible NoSQL listener — key lookups and row changes
//! over a line protocol, on the same rows, dictionary and transactions as SQL, with
//! no SQL layer in between.
//!
//! Path of a request: `worker` (epoll, one batch per loop) → `codec` (line, tokens,
//! escapes) → `request` (typed request or protocol error) → `exec` (row API of
//! kiln-sql: catalog, conversions, keys, MVCC reads, locking changes) → `codec::Reply`.
//! `server` starts the listeners and workers; `stats` holds the status counters.
//! The protocol as kiln implements it, and where it differs from the original, is in
//! docs/handlersocket.md.

pub mod codec;
pub mod exec;
pub mod request;
pub mod server;
pub mod stats;
pub mod worker;
