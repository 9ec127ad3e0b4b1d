//! The statement and expression trees the parser produces and the executor runs.

use crate::value::Value;

/// The name of the call that carries GROUP_CONCAT's ORDER BY: its last argument, after
/// the separator, with (key, 1 if DESC else 0) pairs as arguments.
pub const GROUP_CONCAT_ORDER: &str = "group_concat order";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarScope {
    /// `@@x`: the session value if the variable has one, else the global.
    Default,
    Global,
    Session,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
    Plus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    Xor,
    And,
    Eq,
    NullSafeEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitOr,
    BitAnd,
    BitXor,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Literal(Value),
    /// The n-th `?` placeholder (0-based).
    Param(usize),
    SysVar {
        scope: VarScope,
        name: String,
    },
    UserVar(String),
    Column {
        qualifier: Option<String>,
        name: String,
    },
    Unary {
        op: UnaryOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `IS [NOT] TRUE|FALSE|UNKNOWN` (`value` None = UNKNOWN).
    IsBool {
        expr: Box<Expr>,
        value: Option<bool>,
        negated: bool,
    },
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    /// A function call; `name` is lower-case.
    Func {
        name: String,
        args: Vec<Expr>,
    },
    Cast {
        expr: Box<Expr>,
        to: CastType,
    },
    /// A column bound to slot `n` of the row being evaluated (the binder replaces
    /// `Column` references with these, so evaluation does no name lookups).
    Slot(usize),
    /// A scalar subquery `(SELECT ...)`.
    Subquery(Box<Select>),
    Exists(Box<Select>),
    InSubquery {
        expr: Box<Expr>,
        select: Box<Select>,
        negated: bool,
    },
    /// `(a, b, ...)`: a row constructor, an operand of comparisons and IN only
    /// (eval/rows.rs).
    Row(Vec<Expr>),
    /// `expr op ANY | SOME | ALL (SELECT ...)`.
    Quantified(Box<Quantified>),
    /// `@v := expr` inside an expression.
    Assign {
        name: String,
        expr: Box<Expr>,
    },
    /// `expr COLLATE name` (the parser resolves the name; 1273 if unknown): the
    /// value of `expr` with an explicit collation.
    Collate {
        expr: Box<Expr>,
        coll: crate::collate::Coll,
    },
    /// Added by the binder (never parsed): the comparison, LIKE or collation-sensitive
    /// function `expr` runs under `coll`, the collation MySQL's coercibility rules
    /// pick for its operands (see `coercion.rs`).
    InColl {
        expr: Box<Expr>,
        coll: crate::collate::Coll,
    },
    /// Added by the binder: the member number of an ENUM value (1-based, 0 for '') or
    /// the bit mask of a SET value, where MySQL uses ENUM/SET numerically.
    EnumIndex {
        expr: Box<Expr>,
        members: std::sync::Arc<[String]>,
        set: bool,
    },
    /// `f(args) OVER window`: a window function (exec/window.rs). Only the select list
    /// and ORDER BY of a SELECT may hold one; evaluating it anywhere else is 3593.
    Window(Box<WindowFunc>),
}

/// A window function call: ROW_NUMBER, RANK, ..., LAG, NTH_VALUE, or an aggregate
/// with OVER.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowFunc {
    /// Lower-case function name (an aggregate's name as in `Expr::Func`).
    pub name: String,
    pub args: Vec<Expr>,
    pub over: WindowSpec,
}

/// A window: `OVER w` (a reference, `bare`), `OVER ([w] [PARTITION BY ...] [ORDER BY
/// ...] [frame])`, or a `WINDOW w AS (...)` definition (`name`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WindowSpec {
    /// The window's own name (WINDOW clause definitions; named in errors).
    pub name: Option<String>,
    /// The named window this one refers to or refines.
    pub base: Option<String>,
    /// `OVER w` without parentheses: exactly the window `w`.
    pub bare: bool,
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<OrderItem>,
    pub frame: Option<WindowFrame>,
}

/// `ROWS | RANGE [BETWEEN] start [AND end]`.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowFrame {
    /// ROWS (else RANGE).
    pub rows: bool,
    pub start: FrameBound,
    pub end: FrameBound,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    /// `n PRECEDING` (a number or `?`), or `INTERVAL n unit PRECEDING` (the unit).
    Preceding(Expr, Option<String>),
    CurrentRow,
    Following(Expr, Option<String>),
    UnboundedFollowing,
}

/// `expr op ANY | SOME | ALL (SELECT ...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantified {
    pub expr: Expr,
    pub op: BinaryOp,
    /// ALL (else ANY / SOME).
    pub all: bool,
    pub select: Select,
    /// The subquery's rows once an uncorrelated one has run (exec/select.rs
    /// `run_subqueries`); None: it runs per row.
    pub rows: Option<Vec<Vec<Value>>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastType {
    Signed,
    Unsigned,
    /// CHAR[(n)]: at most n characters.
    Char(Option<u32>),
    /// BINARY[(n)]: at most n bytes.
    Binary(Option<u32>),
    /// DECIMAL(precision, scale); DECIMAL alone is (10, 0).
    Decimal(u32, u32),
    Double,
    Date,
    /// DATETIME(fsp)
    DateTime(u8),
    /// TIME(fsp)
    Time(u8),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SelectItem {
    pub expr: Expr,
    /// Column name: the alias, or the expression's text as the client wrote it.
    pub name: String,
}

/// A FROM-clause item.
#[derive(Debug, Clone, PartialEq)]
pub enum FromItem {
    Table {
        name: TableName,
        alias: Option<String>,
    },
    /// `(SELECT ...) AS alias`
    Derived {
        select: Box<Select>,
        alias: String,
        /// The view this derived table stands for (exec/view.rs): an unknown column
        /// inside it is the view's 1356.
        view: Option<Box<TableName>>,
    },
    Join {
        left: Box<FromItem>,
        right: Box<FromItem>,
        kind: JoinKind,
        on: Option<Expr>,
        /// `USING (a, b)`
        using: Vec<String>,
        /// `NATURAL [LEFT | RIGHT] JOIN`: USING every column name both sides have.
        natural: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Cross,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderItem {
    pub expr: Expr,
    pub desc: bool,
}

/// `FOR UPDATE` / `FOR SHARE` / `LOCK IN SHARE MODE`, with NOWAIT / SKIP LOCKED.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockClause {
    pub exclusive: bool,
    pub nowait: bool,
    pub skip_locked: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    pub distinct: bool,
    pub items: Vec<SelectItem>,
    pub from: Vec<FromItem>,
    pub filter: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
    pub order_by: Vec<OrderItem>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    pub lock: Option<LockClause>,
    /// `UNION [ALL|DISTINCT] select` chained after this one (all: true for ALL).
    pub union: Option<(bool, Box<Select>)>,
    /// ORDER BY / LIMIT / OFFSET of a whole UNION (on its first select).
    pub union_order: Vec<OrderItem>,
    pub union_limit: Option<Expr>,
    pub union_offset: Option<Expr>,
    /// `WINDOW w AS (...), ...`: the named windows (each with `name` set).
    pub windows: Vec<WindowSpec>,
    /// `SELECT STRAIGHT_JOIN` or a `STRAIGHT_JOIN` operator: the tables join in the
    /// written order (exec/join_order.rs does not reorder them).
    pub straight_join: bool,
}

impl Select {
    pub fn empty() -> Select {
        Select {
            distinct: false,
            items: Vec::new(),
            from: Vec::new(),
            filter: None,
            group_by: Vec::new(),
            having: None,
            order_by: Vec::new(),
            limit: None,
            offset: None,
            lock: None,
            union: None,
            union_order: Vec::new(),
            union_limit: None,
            union_offset: None,
            windows: Vec::new(),
            straight_join: false,
        }
    }
}

/// INSERT's row source.
#[derive(Debug, Clone, PartialEq)]
pub enum InsertSource {
    /// `VALUES (..), (..)`; `None` in a row is `DEFAULT`.
    Values(Vec<Vec<Option<Expr>>>),
    Select(Box<Select>),
    /// `SET a = 1, b = DEFAULT`
    Set(Vec<(String, Option<Expr>)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Insert {
    pub table: TableName,
    pub columns: Vec<String>,
    pub source: InsertSource,
    pub ignore: bool,
    pub replace: bool,
    /// `ON DUPLICATE KEY UPDATE col = expr, ...`
    pub on_duplicate: Vec<(String, Expr)>,
    /// `VALUES (...) AS alias` (MySQL 8 row alias for ON DUPLICATE KEY UPDATE).
    pub row_alias: Option<String>,
}

/// `LOAD DATA [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO TABLE t ...`
#[derive(Debug, Clone, PartialEq)]
pub struct LoadData {
    pub local: bool,
    pub file: String,
    pub replace: bool,
    pub ignore: bool,
    pub table: TableName,
    /// CHARACTER SET of the file (None: character_set_database).
    pub charset: Option<String>,
    pub format: crate::loadsplit::Format,
    /// ENCLOSED BY or ESCAPED BY was given more than one byte (1083 at run time).
    pub wrong_terminators: bool,
    /// IGNORE n LINES.
    pub ignore_lines: u64,
    /// The column / @variable list (empty: every visible column).
    pub targets: Vec<LoadTarget>,
    /// `SET col = expr | DEFAULT, ...`
    pub sets: Vec<(String, Option<Expr>)>,
}

/// Where one input field goes.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadTarget {
    Column(String),
    Var(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    pub tables: Vec<FromItem>,
    pub sets: Vec<(Option<String>, String, Option<Expr>)>,
    pub filter: Option<Expr>,
    pub order_by: Vec<OrderItem>,
    pub limit: Option<Expr>,
    pub ignore: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Delete {
    /// Single-table form: the table. Multi-table: the targets (aliases or names).
    pub targets: Vec<TableName>,
    pub from: Vec<FromItem>,
    pub filter: Option<Expr>,
    pub order_by: Vec<OrderItem>,
    pub limit: Option<Expr>,
    pub ignore: bool,
    pub multi: bool,
}

/// A column in CREATE TABLE / ALTER TABLE.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    pub name: String,
    pub ty: crate::types::SqlType,
    /// Collation/charset written on the column (resolved into `ty` by DDL).
    pub charset: Option<String>,
    pub collation: Option<String>,
    /// `NOT NULL` (Some(false)), `NULL` (Some(true)), or unsaid.
    pub nullable: Option<bool>,
    pub default: Option<DefaultSpec>,
    pub on_update_now: bool,
    pub auto_increment: bool,
    pub primary: bool,
    pub unique: bool,
    pub comment: Option<String>,
    pub invisible: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DefaultSpec {
    /// A literal or constant expression (`DEFAULT 0`, `DEFAULT (expr)`).
    Expr(Expr),
    /// `DEFAULT CURRENT_TIMESTAMP[(fsp)]` / NOW().
    CurrentTimestamp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    Primary,
    Unique,
    Key,
    Fulltext,
    Spatial,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IndexPartSpec {
    pub column: String,
    /// Prefix length in characters (`KEY (c(10))`).
    pub prefix: Option<u32>,
    pub desc: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IndexSpec {
    pub name: Option<String>,
    pub kind: IndexKind,
    pub parts: Vec<IndexPartSpec>,
    pub invisible: bool,
    pub comment: Option<String>,
}

/// `FOREIGN KEY` as written: parsed and stored, not enforced yet.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignKeySpec {
    pub name: Option<String>,
    pub columns: Vec<String>,
    pub ref_table: TableName,
    pub ref_columns: Vec<String>,
    /// The ON DELETE / ON UPDATE clauses as written.
    pub actions: String,
}

/// Table options (`ENGINE=`, `CHARSET=`, `COMMENT=`, `AUTO_INCREMENT=` ...).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableOptions {
    pub engine: Option<String>,
    pub charset: Option<String>,
    pub collation: Option<String>,
    pub comment: Option<String>,
    pub auto_increment: Option<u64>,
    pub row_format: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CreateTable {
    pub name: TableName,
    pub if_not_exists: bool,
    pub temporary: bool,
    pub columns: Vec<ColumnSpec>,
    pub indexes: Vec<IndexSpec>,
    pub foreign_keys: Vec<ForeignKeySpec>,
    pub options: TableOptions,
    pub like: Option<TableName>,
    pub as_select: Option<Box<Select>>,
}

/// The table maintenance statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceOp {
    Analyze,
    Optimize,
    Check,
    Repair,
}

impl MaintenanceOp {
    /// The Op column of the result, and the Com_ counter's name.
    pub fn name(self) -> &'static str {
        match self {
            MaintenanceOp::Analyze => "analyze",
            MaintenanceOp::Optimize => "optimize",
            MaintenanceOp::Check => "check",
            MaintenanceOp::Repair => "repair",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum AlterOp {
    /// FORCE: rebuild the table (copy every row into a new tablespace).
    Force,
    AddColumn {
        spec: ColumnSpec,
        /// None: last; Some(None): FIRST; Some(Some(c)): AFTER c.
        position: Option<Option<String>>,
    },
    DropColumn(String),
    /// MODIFY (old name = new name) / CHANGE old new.
    ChangeColumn {
        old: String,
        spec: ColumnSpec,
        position: Option<Option<String>>,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    AlterDefault {
        column: String,
        default: Option<Expr>,
    },
    AddIndex(IndexSpec),
    AddForeignKey(ForeignKeySpec),
    DropIndex(String),
    DropPrimaryKey,
    DropForeignKey(String),
    RenameIndex {
        old: String,
        new: String,
    },
    RenameTable(TableName),
    Options(TableOptions),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    pub schema: Option<String>,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SetTarget {
    System { scope: VarScope, name: String },
    User(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum SetValue {
    Expr(Expr),
    /// `= DEFAULT`
    Default,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSpec {
    pub user: String,
    pub host: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthSpec {
    pub plugin: Option<String>,
    pub password: Option<String>,
}

/// `WITH MAX_QUERIES_PER_HOUR n ...` of CREATE/ALTER USER: the limits a statement sets
/// (None: not mentioned, so unchanged by ALTER USER and 0 for CREATE USER).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResourceLimits {
    pub max_queries_per_hour: Option<u64>,
    pub max_updates_per_hour: Option<u64>,
    pub max_connections_per_hour: Option<u64>,
    pub max_user_connections: Option<u64>,
}

/// The object of GRANT / REVOKE as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrivLevel {
    /// `*.*`
    Global,
    /// `db.*`; `*` alone is the current database (None).
    Db(Option<String>),
    /// `db.table` or `table` (in the current database).
    Table(TableName),
}

/// GRANT privs ON level TO users / REVOKE privs ON level FROM users.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantStmt {
    /// The privileges named (`crate::privilege` bits). GRANT: WITH GRANT OPTION adds
    /// GRANT_OPTION; REVOKE: `GRANT OPTION` in the list does.
    pub privs: crate::privilege::PrivSet,
    /// `ALL [PRIVILEGES]` was named: the level's whole set (known once the level is).
    pub all: bool,
    pub level: PrivLevel,
    pub users: Vec<UserSpec>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ShowKind {
    Variables,
    Status,
    Warnings,
    Errors,
    CountWarnings,
    CountErrors,
    Databases,
    Processlist {
        full: bool,
    },
    Engines,
    Charset,
    Collation,
    Grants(Option<UserSpec>),
    Tables {
        full: bool,
        db: Option<String>,
    },
    Columns {
        table: TableName,
        full: bool,
    },
    Index(TableName),
    CreateTable(TableName),
    /// SHOW CREATE DATABASE [IF NOT EXISTS] (the flag adds `/*!32312 IF NOT EXISTS*/`
    /// to the statement shown, as mysqldump expects).
    CreateDatabase {
        name: String,
        if_not_exists: bool,
    },
    /// SHOW CREATE VIEW (exec/view.rs).
    CreateView(TableName),
    /// SHOW CREATE TRIGGER [db.]name.
    CreateTrigger(TableName),
    /// SHOW TRIGGERS [FROM db] (LIKE matches the table name).
    Triggers {
        db: Option<String>,
    },
    TableStatus(Option<String>),
    EngineStatus,
    /// SHOW CREATE PROCEDURE | FUNCTION [db.]name (exec/routine_show.rs).
    CreateRoutine(crate::routine::RoutineKind, TableName),
    /// SHOW PROCEDURE | FUNCTION STATUS (LIKE matches the name).
    RoutineStatus(crate::routine::RoutineKind),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ShowFilter {
    Like(String),
    Where(Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub enum TxAccess {
    ReadOnly,
    ReadWrite,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Select(Box<Select>),
    LoadData(Box<LoadData>),
    Do(Vec<Expr>),
    Set(Vec<(SetTarget, SetValue)>),
    SetNames {
        charset: Option<String>,
        collation: Option<String>,
    },
    SetCharset(Option<String>),
    SetTransaction {
        scope: VarScope,
        isolation: Option<String>,
        access: Option<TxAccess>,
    },
    SetPassword {
        user: Option<UserSpec>,
        password: String,
    },
    Show {
        kind: ShowKind,
        scope: VarScope,
        filter: Option<ShowFilter>,
        limit: Option<u64>,
    },
    Use(String),
    Kill {
        id: Expr,
        query_only: bool,
    },
    Shutdown,
    Begin {
        consistent_snapshot: bool,
        access: Option<TxAccess>,
    },
    Commit,
    Rollback,
    CreateUser {
        if_not_exists: bool,
        users: Vec<(UserSpec, AuthSpec)>,
        limits: ResourceLimits,
    },
    AlterUser {
        if_exists: bool,
        users: Vec<(UserSpec, AuthSpec)>,
        limits: ResourceLimits,
    },
    RenameUser(Vec<(UserSpec, UserSpec)>),
    Grant(GrantStmt),
    Revoke(GrantStmt),
    /// `REVOKE ALL [PRIVILEGES], GRANT OPTION FROM users`
    RevokeAll(Vec<UserSpec>),
    DropUser {
        if_exists: bool,
        users: Vec<UserSpec>,
    },
    Insert(Insert),
    Update(Update),
    Delete(Delete),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        charset: Option<String>,
        collation: Option<String>,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    CreateTable(Box<CreateTable>),
    DropTable {
        names: Vec<TableName>,
        if_exists: bool,
        temporary: bool,
    },
    TruncateTable(TableName),
    /// ANALYZE / OPTIMIZE / CHECK / REPAIR TABLE t, ... (exec/maintenance.rs).
    TableMaintenance {
        op: MaintenanceOp,
        tables: Vec<TableName>,
    },
    /// CREATE [OR REPLACE] VIEW / ALTER VIEW (exec/view.rs).
    CreateView(Box<CreateView>),
    /// DROP VIEW [IF EXISTS] v, ... [RESTRICT | CASCADE]
    DropView {
        names: Vec<TableName>,
        if_exists: bool,
    },
    RenameTable(Vec<(TableName, TableName)>),
    CreateTrigger(Box<CreateTrigger>),
    DropTrigger {
        name: TableName,
        if_exists: bool,
    },
    CreateIndex {
        table: TableName,
        spec: IndexSpec,
    },
    DropIndex {
        table: TableName,
        name: String,
    },
    AlterTable {
        table: TableName,
        ops: Vec<AlterOp>,
    },
    Savepoint(String),
    RollbackTo(String),
    ReleaseSavepoint(String),
    /// `LOCK TABLES t [[AS] a] READ | WRITE, ...` (session_lock.rs).
    LockTables(Vec<LockItem>),
    /// `UNLOCK TABLES`: releases LOCK TABLES' locks and the global read lock.
    UnlockTables,
    /// `FLUSH TABLES [t, ...] WITH READ LOCK`: the global read lock (no tables), or
    /// READ locks on the tables named.
    FlushTablesWithReadLock(Vec<TableName>),
    /// Statements accepted and answered with OK, having no effect kiln needs yet
    /// (FLUSH ...). The string names the statement for Com_* counters.
    NoOp(&'static str),
    /// `EXPLAIN [FORMAT = f] stmt` / `EXPLAIN ANALYZE stmt` (also spelled DESCRIBE /
    /// DESC): the plan of a SELECT, INSERT, REPLACE, UPDATE or DELETE (exec/explain.rs).
    Explain {
        format: ExplainFormat,
        analyze: bool,
        stmt: Box<Stmt>,
    },
    /// `PREPARE name FROM 'text'` / `PREPARE name FROM @var` (prepared_sql.rs).
    Prepare {
        name: String,
        source: PrepareSource,
    },
    /// `EXECUTE name [USING @a, @b ...]`: the user variables' values are the
    /// parameters.
    Execute {
        name: String,
        using: Vec<String>,
    },
    /// `{DEALLOCATE | DROP} PREPARE name`
    DeallocatePrepare(String),
    /// CREATE PROCEDURE / FUNCTION (exec/routine.rs).
    CreateRoutine(Box<crate::routine::CreateRoutine>),
    /// `DROP {PROCEDURE | FUNCTION} [IF EXISTS] [db.]name`
    DropRoutine {
        kind: crate::routine::RoutineKind,
        name: TableName,
        if_exists: bool,
    },
    /// `ALTER {PROCEDURE | FUNCTION} [db.]name characteristic ...`
    AlterRoutine {
        kind: crate::routine::RoutineKind,
        name: TableName,
        chars: crate::routine::Characteristics,
    },
    /// `CALL [db.]name [([args])]` (routine/call.rs).
    Call {
        name: TableName,
        args: Vec<Expr>,
    },
}

/// One table of LOCK TABLES.
#[derive(Debug, Clone, PartialEq)]
pub struct LockItem {
    pub table: TableName,
    pub alias: Option<String>,
    /// WRITE (else READ).
    pub write: bool,
}

/// Where PREPARE takes the statement text from.
#[derive(Debug, Clone, PartialEq)]
pub enum PrepareSource {
    Text(String),
    UserVar(String),
}

/// EXPLAIN's output format (`FORMAT = name`; TRADITIONAL when none is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainFormat {
    Traditional,
    Json,
    Tree,
}

/// `CREATE [OR REPLACE] [ALGORITHM = a] [DEFINER = u] [SQL SECURITY s] VIEW v [(cols)]
/// AS select [WITH [CASCADED | LOCAL] CHECK OPTION]`, and ALTER VIEW (`alter`).
#[derive(Debug, Clone, PartialEq)]
pub struct CreateView {
    pub name: TableName,
    pub or_replace: bool,
    pub alter: bool,
    /// UNDEFINED / MERGE / TEMPTABLE (upper-case); None: UNDEFINED.
    pub algorithm: Option<String>,
    /// None: CURRENT_USER.
    pub definer: Option<UserSpec>,
    /// Some(true): SQL SECURITY INVOKER; None: DEFINER.
    pub invoker: Option<bool>,
    pub columns: Vec<String>,
    pub select: Box<Select>,
    /// The SELECT's source text.
    pub select_text: String,
    /// None: no CHECK OPTION; Some(true): LOCAL; Some(false): CASCADED.
    pub check_local: Option<bool>,
}

/// BEFORE or AFTER.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TriggerTiming {
    Before,
    After,
}

/// INSERT, UPDATE or DELETE (in MySQL's EVENT_MANIPULATION order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TriggerEvent {
    Insert,
    Update,
    Delete,
}

impl TriggerTiming {
    pub fn name(self) -> &'static str {
        match self {
            TriggerTiming::Before => "BEFORE",
            TriggerTiming::After => "AFTER",
        }
    }
}

impl TriggerEvent {
    pub fn name(self) -> &'static str {
        match self {
            TriggerEvent::Insert => "INSERT",
            TriggerEvent::Update => "UPDATE",
            TriggerEvent::Delete => "DELETE",
        }
    }
}

/// `CREATE [DEFINER = u] TRIGGER [IF NOT EXISTS] name timing event ON tbl FOR EACH
/// ROW [FOLLOWS | PRECEDES other] body`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTrigger {
    pub name: TableName,
    pub if_not_exists: bool,
    pub definer: Option<UserSpec>,
    pub timing: TriggerTiming,
    pub event: TriggerEvent,
    pub table: TableName,
    /// (true: PRECEDES, false: FOLLOWS, the other trigger's name).
    pub order: Option<(bool, String)>,
    /// The body as parsed (checked at CREATE; the dictionary keeps `body_text`).
    pub body: crate::routine::Body,
    /// The body's text as written (from its first token to its last).
    pub body_text: String,
}
