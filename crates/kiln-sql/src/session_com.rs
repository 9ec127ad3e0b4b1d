//! Statement classification for the session: which statements commit implicitly
//! (MySQL's implicit commit), which are account statements, and each statement's
//! Com_* counter name, and the session's own statement counters.

use crate::ast::*;

/// Statements that commit the current transaction first (MySQL's implicit commit).
/// CREATE / DROP TEMPORARY TABLE do not (MySQL 8.0); ALTER / TRUNCATE of a temporary
/// table and a DROP TABLE without TEMPORARY do.
pub(crate) fn is_implicit_commit(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::CreateDatabase { .. }
            | Stmt::DropDatabase { .. }
            | Stmt::DropTable {
                temporary: false,
                ..
            }
            | Stmt::TruncateTable(_)
            | Stmt::TableMaintenance { .. }
            | Stmt::CreateView(_)
            | Stmt::DropView { .. }
            | Stmt::RenameTable(_)
            | Stmt::CreateTrigger(_)
            | Stmt::DropTrigger { .. }
            | Stmt::CreateIndex { .. }
            | Stmt::DropIndex { .. }
            | Stmt::AlterTable { .. }
            | Stmt::LockTables(_)
            | Stmt::CreateRoutine(_)
            | Stmt::DropRoutine { .. }
            | Stmt::AlterRoutine { .. }
    ) || matches!(stmt, Stmt::CreateTable(ct) if !ct.temporary)
        || is_account_statement(stmt)
}

/// CREATE/ALTER/DROP/RENAME USER, SET PASSWORD, GRANT, REVOKE (session_acl.rs).
pub(crate) fn is_account_statement(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::CreateUser { .. }
            | Stmt::AlterUser { .. }
            | Stmt::DropUser { .. }
            | Stmt::SetPassword { .. }
            | Stmt::RenameUser(_)
            | Stmt::Grant(_)
            | Stmt::Revoke(_)
            | Stmt::RevokeAll(_)
    )
}

pub fn com_name(stmt: &Stmt) -> &'static str {
    match stmt {
        Stmt::Select(_) => "select",
        Stmt::Prepare { .. } => "prepare_sql",
        Stmt::Execute { .. } => "execute_sql",
        Stmt::DeallocatePrepare(_) => "dealloc_sql",
        Stmt::CreateRoutine(cr) => match cr.kind {
            crate::routine::RoutineKind::Procedure => "create_procedure",
            crate::routine::RoutineKind::Function => "create_spfunction",
        },
        Stmt::DropRoutine { kind, .. } => match kind {
            crate::routine::RoutineKind::Procedure => "drop_procedure",
            crate::routine::RoutineKind::Function => "drop_function",
        },
        Stmt::AlterRoutine { kind, .. } => match kind {
            crate::routine::RoutineKind::Procedure => "alter_procedure",
            crate::routine::RoutineKind::Function => "alter_function",
        },
        Stmt::Call { .. } => "call_procedure",
        Stmt::Do(_) => "do",
        Stmt::Set(_) | Stmt::SetCharset(_) | Stmt::SetTransaction { .. } => "set_option",
        Stmt::SetNames { .. } => "set_option",
        Stmt::SetPassword { .. } => "alter_user",
        Stmt::Show { kind, .. } => match kind {
            ShowKind::Variables => "show_variables",
            ShowKind::Status => "show_status",
            ShowKind::Warnings | ShowKind::CountWarnings => "show_warnings",
            ShowKind::Errors | ShowKind::CountErrors => "show_errors",
            ShowKind::Databases => "show_databases",
            ShowKind::Processlist { .. } => "show_processlist",
            ShowKind::Engines => "show_storage_engines",
            ShowKind::Charset => "show_charsets",
            ShowKind::Collation => "show_collations",
            ShowKind::Grants(_) => "show_grants",
            ShowKind::Tables { .. } => "show_tables",
            ShowKind::Columns { .. } => "show_fields",
            ShowKind::Index(_) => "show_keys",
            ShowKind::CreateTable(_) | ShowKind::CreateView(_) => "show_create_table",
            ShowKind::CreateDatabase { .. } => "show_create_db",
            ShowKind::CreateTrigger(_) => "show_create_trigger",
            ShowKind::Triggers { .. } => "show_triggers",
            ShowKind::TableStatus(_) => "show_table_status",
            ShowKind::EngineStatus => "show_engine_status",
            ShowKind::CreateRoutine(crate::routine::RoutineKind::Procedure, _) => {
                "show_create_proc"
            }
            ShowKind::CreateRoutine(crate::routine::RoutineKind::Function, _) => "show_create_func",
            ShowKind::RoutineStatus(crate::routine::RoutineKind::Procedure) => {
                "show_procedure_status"
            }
            ShowKind::RoutineStatus(crate::routine::RoutineKind::Function) => {
                "show_function_status"
            }
        },
        Stmt::Insert(i) if i.replace => {
            if matches!(i.source, InsertSource::Select(_)) {
                "replace_select"
            } else {
                "replace"
            }
        }
        Stmt::Insert(i) => {
            if matches!(i.source, InsertSource::Select(_)) {
                "insert_select"
            } else {
                "insert"
            }
        }
        Stmt::LoadData(_) => "load",
        Stmt::Update(u) if crate::exec::dml_multi::is_multi_update(u) => "update_multi",
        Stmt::Update(_) => "update",
        Stmt::Delete(d) if d.multi => "delete_multi",
        Stmt::Delete(_) => "delete",
        Stmt::CreateDatabase { .. } => "create_db",
        Stmt::DropDatabase { .. } => "drop_db",
        Stmt::CreateTable(_) => "create_table",
        Stmt::CreateView(_) => "create_view",
        Stmt::DropView { .. } => "drop_view",
        Stmt::DropTable { .. } => "drop_table",
        Stmt::TruncateTable(_) => "truncate",
        Stmt::RenameTable(_) => "rename_table",
        Stmt::CreateTrigger(_) => "create_trigger",
        Stmt::DropTrigger { .. } => "drop_trigger",
        Stmt::CreateIndex { .. } => "create_index",
        Stmt::DropIndex { .. } => "drop_index",
        Stmt::AlterTable { .. } => "alter_table",
        Stmt::TableMaintenance { op, .. } => op.name(),
        Stmt::Savepoint(_) => "savepoint",
        Stmt::RollbackTo(_) => "rollback_to_savepoint",
        Stmt::ReleaseSavepoint(_) => "release_savepoint",
        Stmt::LockTables(_) => "lock_tables",
        Stmt::FlushTablesWithReadLock(_) => "flush",
        Stmt::UnlockTables => "unlock_tables",
        Stmt::Use(_) => "change_db",
        Stmt::Kill { .. } => "kill",
        Stmt::Shutdown => "shutdown",
        Stmt::Begin { .. } => "begin",
        Stmt::Commit => "commit",
        Stmt::Rollback => "rollback",
        Stmt::CreateUser { .. } => "create_user",
        Stmt::AlterUser { .. } => "alter_user",
        Stmt::DropUser { .. } => "drop_user",
        Stmt::RenameUser(_) => "rename_user",
        Stmt::Grant(_) => "grant",
        Stmt::Revoke(_) => "revoke",
        Stmt::RevokeAll(_) => "revoke_all",
        Stmt::NoOp(n) => n,
        // MySQL counts EXPLAIN under the explained statement's counter.
        Stmt::Explain { stmt, .. } => com_name(stmt),
    }
}

/// Per-session statement counters (SHOW SESSION STATUS).
#[derive(Debug, Clone)]
pub struct SessionCounters {
    pub questions: u64,
    /// Com_* of this session, by `status::COM_NAMES` index (an array, not a map: one
    /// cache line per statement, which counts with thousands of sessions).
    pub com: Box<[u64; crate::status::COM_NAMES.len()]>,
    /// This session's Sort_* counters (`status::SORT_COUNTERS` order).
    pub sort: [u64; 4],
    /// The last table read went through a key range (Sort_range, not Sort_scan).
    pub last_read_by_key: bool,
}

impl Default for SessionCounters {
    fn default() -> SessionCounters {
        SessionCounters {
            questions: 0,
            com: Box::new([0; crate::status::COM_NAMES.len()]),
            sort: [0; 4],
            last_read_by_key: false,
        }
    }
}
