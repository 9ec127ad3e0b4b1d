//! HandlerSocket status counters, shown by SHOW GLOBAL STATUS under the names the
//! original plugin used (Hs_table_open/close/lock/unlock) plus kiln's request, batch,
//! row and connection counters. Sharded per core: workers bump them on every request.

use kiln_common::counter::ShardedCounter;

#[derive(Default)]
pub struct HsStats {
    /// A worker opened a table (resolved it into its table cache).
    pub table_open: ShardedCounter,
    /// A worker closed a table (its cache was emptied after DDL, or it stopped).
    pub table_close: ShardedCounter,
    /// A batch started using a table.
    pub table_lock: ShardedCounter,
    /// A batch ended its use of a table (at its commit).
    pub table_unlock: ShardedCounter,
    pub requests: ShardedCounter,
    pub batches: ShardedCounter,
    pub errors: ShardedCounter,
    pub rows_read: ShardedCounter,
    pub rows_inserted: ShardedCounter,
    pub rows_updated: ShardedCounter,
    pub rows_deleted: ShardedCounter,
    pub connections: ShardedCounter,
    /// Open connections now (a gauge).
    pub connected: ShardedCounter,
    /// Connections closed for an overlong line, a timeout or an I/O error.
    pub aborted: ShardedCounter,
}

impl HsStats {
    /// (SHOW STATUS name, value), sorted by name.
    pub fn values(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("Hs_aborted_connections", self.aborted.get()),
            ("Hs_batches", self.batches.get()),
            ("Hs_connections", self.connections.get()),
            ("Hs_connections_open", self.connected.get()),
            ("Hs_errors", self.errors.get()),
            ("Hs_requests", self.requests.get()),
            ("Hs_rows_deleted", self.rows_deleted.get()),
            ("Hs_rows_inserted", self.rows_inserted.get()),
            ("Hs_rows_read", self.rows_read.get()),
            ("Hs_rows_updated", self.rows_updated.get()),
            ("Hs_table_close", self.table_close.get()),
            ("Hs_table_lock", self.table_lock.get()),
            ("Hs_table_open", self.table_open.get()),
            ("Hs_table_unlock", self.table_unlock.get()),
        ]
    }
}
