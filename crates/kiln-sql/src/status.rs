//! SQL-layer status counters (Questions, Queries, Com_*) as global sharded counters.
//! The server adds its own (Connections, Bytes_*, Threads_*) when answering SHOW STATUS.

use kiln_common::counter::ShardedCounter;

/// Every Com_xxx name kiln counts, in SHOW STATUS order.
pub const COM_NAMES: &[&str] = &[
    "alter_function",
    "alter_procedure",
    "alter_table",
    "alter_user",
    "analyze",
    "begin",
    "call_procedure",
    "change_db",
    "commit",
    "create_db",
    "create_index",
    "create_procedure",
    "create_spfunction",
    "create_table",
    "create_trigger",
    "create_user",
    "create_view",
    "dealloc_sql",
    "delete",
    "delete_multi",
    "do",
    "drop_db",
    "drop_function",
    "drop_index",
    "drop_procedure",
    "drop_table",
    "drop_trigger",
    "drop_user",
    "drop_view",
    "execute_sql",
    "flush",
    "grant",
    "insert",
    "insert_select",
    "kill",
    "load",
    "lock_tables",
    "prepare_sql",
    "release_savepoint",
    "rename_table",
    "rename_user",
    "replace",
    "replace_select",
    "revoke",
    "revoke_all",
    "rollback",
    "rollback_to_savepoint",
    "savepoint",
    "select",
    "set_option",
    "show_charsets",
    "show_collations",
    "show_create_db",
    "show_create_func",
    "show_create_proc",
    "show_create_table",
    "show_create_trigger",
    "show_databases",
    "show_engine_status",
    "show_errors",
    "show_fields",
    "show_function_status",
    "show_grants",
    "show_keys",
    "show_procedure_status",
    "show_processlist",
    "show_status",
    "show_storage_engines",
    "show_table_status",
    "show_tables",
    "show_triggers",
    "show_variables",
    "show_warnings",
    "shutdown",
    "stmt_close",
    "stmt_execute",
    "stmt_fetch",
    "stmt_prepare",
    "stmt_reset",
    "stmt_send_long_data",
    "truncate",
    "unlock_tables",
    "update",
    "update_multi",
];

static COM: [ShardedCounter; COM_NAMES.len()] = [const { ShardedCounter::new() }; COM_NAMES.len()];
/// Statements sent by clients (COM_QUERY statements and COM_STMT_EXECUTE).
pub static QUESTIONS: ShardedCounter = ShardedCounter::new();

/// Counts one statement of kind `com` (a `COM_NAMES` entry; others only count as
/// Questions) and returns its index in `COM_NAMES`, for the session's own counter.
pub fn record(com: &str) -> Option<usize> {
    QUESTIONS.inc();
    let i = COM_NAMES.binary_search(&com).ok()?;
    COM[i].inc();
    Some(i)
}

/// Counts a Com_xxx without a Question (COM_STMT_PREPARE, COM_STMT_CLOSE ...).
pub fn record_com_only(com: &str) {
    if let Ok(i) = COM_NAMES.binary_search(&com) {
        COM[i].inc();
    }
}

/// InnoDB row counters (SHOW STATUS Innodb_rows_*), the point-plan cache's
/// (exec/point.rs): plans made, and executions a plan answered without the general
/// path, the prepared-plan cache's (exec/prepared_plan.rs): plans made, executions
/// run from a plan, and those of them that planned the access path again, and the
/// text-statement cache's (stmt_cache.rs): texts run from a template,
/// and texts of a cacheable kind that were parsed.
pub const ROW_COUNTERS: &[&str] = &[
    "Innodb_rows_deleted",
    "Innodb_rows_inserted",
    "Innodb_rows_read",
    "Innodb_rows_updated",
    "Kiln_join_hash_builds",
    "Kiln_join_index_lookups",
    "Kiln_join_pairs_checked",
    "Kiln_point_plan_hits",
    "Kiln_point_plans",
    "Kiln_prepared_plan_hits",
    "Kiln_prepared_plan_replans",
    "Kiln_prepared_plans",
    "Kiln_stmt_cache_hits",
    "Kiln_stmt_cache_misses",
];

static ROWS: [ShardedCounter; ROW_COUNTERS.len()] =
    [const { ShardedCounter::new() }; ROW_COUNTERS.len()];

/// Adds `n` to a counter of `ROW_COUNTERS`.
pub fn add(name: &str, n: u64) {
    if let Ok(i) = ROW_COUNTERS.binary_search(&name) {
        ROWS[i].add(n);
    }
}

/// (name, value) of the row counters.
pub fn row_values() -> Vec<(String, u64)> {
    ROW_COUNTERS
        .iter()
        .zip(ROWS.iter())
        .map(|(n, c)| (n.to_string(), c.get()))
        .collect()
}

/// Sort counters (SHOW STATUS Sort_*), in this order in `SessionCounters::sort`.
pub const SORT_COUNTERS: &[&str] = &["Sort_merge_passes", "Sort_range", "Sort_rows", "Sort_scan"];

static SORTS: [ShardedCounter; SORT_COUNTERS.len()] =
    [const { ShardedCounter::new() }; SORT_COUNTERS.len()];

/// Adds `n` to the global sort counter number `i` (`SORT_COUNTERS`).
pub fn add_sort(i: usize, n: u64) {
    if let Some(c) = SORTS.get(i) {
        c.add(n);
    }
}

/// (name, value) of the global sort counters.
pub fn sort_values() -> Vec<(String, u64)> {
    SORT_COUNTERS
        .iter()
        .zip(SORTS.iter())
        .map(|(n, c)| (n.to_string(), c.get()))
        .collect()
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
        let mut r = ROW_COUNTERS.to_vec();
        r.sort_unstable();
        assert_eq!(r, ROW_COUNTERS);
    }
}
