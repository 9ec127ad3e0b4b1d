//! TLS: certificates in the datadir and the rustls server configuration.
