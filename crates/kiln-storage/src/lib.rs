//! kiln-storage
