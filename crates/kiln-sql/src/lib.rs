//! kiln-sql
