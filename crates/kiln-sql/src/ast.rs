//! The statement and expression trees the parser produces and the executor runs.

use crate::value::Value;

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
    /// `@v := expr` inside an expression.
    Assign {
        name: String,
        expr: Box<Expr>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastType {
    Signed,
    Unsigned,
    Char,
    Binary,
    Decimal,
    Double,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SelectItem {
    pub expr: Expr,
    /// Column name: the alias, or the expression's text as the client wrote it.
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    pub items: Vec<SelectItem>,
    /// A table reference (no tables exist yet: resolving it fails with MySQL's error).
    pub from: Option<TableName>,
    pub filter: Option<Expr>,
    pub limit: Option<Expr>,
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

#[derive(Debug, Clone, PartialEq)]
pub enum ShowKind {
    Variables,
    Status,
    Warnings,
    Errors,
    CountWarnings,
    CountErrors,
    Databases,
    Processlist { full: bool },
    Engines,
    Charset,
    Collation,
    Grants(Option<UserSpec>),
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
    Select(Select),
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
    },
    AlterUser {
        if_exists: bool,
        users: Vec<(UserSpec, AuthSpec)>,
    },
    DropUser {
        if_exists: bool,
        users: Vec<UserSpec>,
    },
    /// Statements accepted and answered with OK, having no effect kiln needs yet
    /// (FLUSH ...). The string names the statement for Com_* counters.
    NoOp(&'static str),
}
