//! kiln-mysql
