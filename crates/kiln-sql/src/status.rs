//! SQL-layer status counters (Questions, Queries, Com_*) as global sharded counters.
//! The server adds its own (Connections, Bytes_*, Threads_*) when answering SHOW STATUS.

use kiln_common::counter::ShardedCounter;

/// Every Com_xxx name kiln counts, in SHOW STATUS order.
pub const COM_NAMES: &[&str] = &[
    "alter_user",
    "begin",
    "change_db",
    "commit",
    "create_user",
    "do",
    "drop_user",
    "flush",
    "kill",
    "rollback",
    "select",
    "set_option",
    "show_charsets",
    "show_collations",
    "show_databases",
    "show_errors",
    "show_grants",
    "show_processlist",
    "show_status",
    "show_storage_engines",
    "show_variables",
    "show_warnings",
    "shutdown",
    "stmt_close",
    "stmt_execute",
    "stmt_fetch",
    "stmt_prepare",
    "stmt_reset",
    "stmt_send_long_data",
];

static COM: [ShardedCounter; COM_NAMES.len()] = [const { ShardedCounter::new() }; COM_NAMES.len()];
/// Statements sent by clients (COM_QUERY statements and COM_STMT_EXECUTE).
pub static QUESTIONS: ShardedCounter = ShardedCounter::new();

/// Counts one statement of kind `com` (a `COM_NAMES` entry; others only count as Questions).
pub fn record(com: &str) {
    QUESTIONS.inc();
    record_com_only(com);
}

/// Counts a Com_xxx without a Question (COM_STMT_PREPARE, COM_STMT_CLOSE ...).
pub fn record_com_only(com: &str) {
    if let Ok(i) = COM_NAMES.binary_search(&com) {
        COM[i].inc();
    }
}

/// (Com_xxx, value) for every counter.
pub fn com_values() -> Vec<(String, u64)> {
    COM_NAMES
        .iter()
        .zip(COM.iter())
        .map(|(n, c)| (format!("Com_{n}"), c.get()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sorted_for_binary_search() {
        let mut s = COM_NAMES.to_vec();
        s.sort_unstable();
        assert_eq!(s, COM_NAMES);
    }
}
