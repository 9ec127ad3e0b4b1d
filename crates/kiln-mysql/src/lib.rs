//! kiln-mysql: the MySQL client/server protocol, server side — packet framing,
//! handshake and authentication, command decoding, text and binary result sets.
//! It knows nothing of SQL or storage: the server feeds it values and gets commands.
//!
//! Module map: `wire` (primitive encodings) → `packet` (framing) → `handshake`,
//! `command`, `response`, `resultset`, `stmt` (payloads) ; `auth` (plugins, crypto).
pub mod auth;
pub mod command;
pub mod consts;
pub mod handshake;
pub mod packet;
pub mod response;
pub mod resultset;
pub mod stmt;
pub mod wire;
