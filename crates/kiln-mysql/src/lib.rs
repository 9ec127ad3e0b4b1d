//! kiln-mysql: the MySQL client/server protocol, server side — packet framing,
//! handshake and authentication, command decoding, text and binary result sets.
//! It knows nothing of SQL or storage: the server feeds it values and gets commands.
pub mod auth;
