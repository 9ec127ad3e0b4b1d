//! Compound statements — the bodies of triggers, stored procedures and stored
//! functions: the tree the parser builds (`Body`, `RStmt`, parse/routine.rs and
//! parse/routine_decl.rs), CREATE PROCEDURE / FUNCTION's parts (`CreateRoutine`), and
//! the interpreter that runs a body (`exec.rs`, with `handler.rs` for conditions and
//! handlers, `call.rs` for invoking routines) against a frame of local variables and,
//! in a trigger, the OLD and NEW rows (`Rows`).
//!
//! What a body may hold: `BEGIN ... END` blocks (labelled or not), DECLARE of local
//! variables (with DEFAULT), conditions, handlers and cursors, SET (local variables,
//! NEW.col, @user and @@system variables), IF / ELSEIF / ELSE, the CASE statement,
//! WHILE / REPEAT / LOOP with LEAVE and ITERATE, SIGNAL / RESIGNAL, OPEN / FETCH /
//! CLOSE, RETURN (functions), CALL, SELECT ... INTO, and other statements as the
//! routine's kind allows (`check.rs`).
//!
//! Limits: a body nests at most `NESTING_MAX` blocks deep; a loop runs at most
//! `LOOP_ITERATIONS_MAX` iterations per execution (then 1235, so a runaway loop
//! cannot hold a connection forever); local variables per frame `VARIABLES_MAX`;
//! routine calls nest at most `CALL_DEPTH_MAX` deep.

pub mod call;
pub mod check;
pub mod exec;
pub mod handler;
pub mod names;
pub mod subst;

use crate::ast::{Expr, Select, Stmt};
use crate::types::SqlType;

/// Deepest nesting of blocks, loops and IFs in one body.
pub const NESTING_MAX: usize = 64;
/// Iterations one loop statement may run per execution.
pub const LOOP_ITERATIONS_MAX: u64 = 1_000_000;
/// Local variables a frame may hold (also: conditions, handlers, cursors).
pub const VARIABLES_MAX: usize = 1024;
/// Stored routine calls (procedures and functions together) nested in one statement.
pub const CALL_DEPTH_MAX: usize = 64;

/// PROCEDURE or FUNCTION.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoutineKind {
    Procedure,
    Function,
}

impl RoutineKind {
    pub fn name(self) -> &'static str {
        match self {
            RoutineKind::Procedure => "PROCEDURE",
            RoutineKind::Function => "FUNCTION",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamMode {
    In,
    Out,
    InOut,
}

impl ParamMode {
    pub fn name(self) -> &'static str {
        match self {
            ParamMode::In => "IN",
            ParamMode::Out => "OUT",
            ParamMode::InOut => "INOUT",
        }
    }
}

/// A parameter of a routine: its type's CHARACTER SET / COLLATE as written (the
/// database's apply otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub mode: ParamMode,
    pub name: String,
    pub ty: SqlType,
    pub charset: Option<String>,
    pub collation: Option<String>,
}

/// CONTAINS SQL (the default), NO SQL, READS SQL DATA, MODIFIES SQL DATA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataAccess {
    #[default]
    ContainsSql,
    NoSql,
    ReadsSqlData,
    ModifiesSqlData,
}

impl DataAccess {
    pub fn name(self) -> &'static str {
        match self {
            DataAccess::ContainsSql => "CONTAINS SQL",
            DataAccess::NoSql => "NO SQL",
            DataAccess::ReadsSqlData => "READS SQL DATA",
            DataAccess::ModifiesSqlData => "MODIFIES SQL DATA",
        }
    }
}

/// The characteristics written in CREATE / ALTER PROCEDURE | FUNCTION (None: not
/// written).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Characteristics {
    pub comment: Option<String>,
    pub deterministic: Option<bool>,
    pub access: Option<DataAccess>,
    /// SQL SECURITY INVOKER (true) / DEFINER (false).
    pub invoker: Option<bool>,
}

/// CREATE [DEFINER = u] PROCEDURE | FUNCTION [IF NOT EXISTS] [db.]name (params)
/// [RETURNS type] [characteristics] body.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateRoutine {
    pub kind: RoutineKind,
    pub name: crate::ast::TableName,
    pub if_not_exists: bool,
    pub definer: Option<crate::ast::UserSpec>,
    pub params: Vec<Param>,
    /// The parameter list as written (between the parentheses).
    pub params_text: String,
    /// A function's RETURNS type, with its CHARACTER SET / COLLATE as written.
    pub returns: Option<(SqlType, Option<String>, Option<String>)>,
    pub chars: Characteristics,
    pub body: Body,
    pub body_text: String,
}

/// A condition value: `SQLSTATE 'xxxxx'` or a MySQL error number.
#[derive(Debug, Clone, PartialEq)]
pub enum CondValue {
    SqlState(String),
    Errno(u16),
}

/// What a handler is declared FOR.
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerCond {
    Value(CondValue),
    /// A DECLAREd condition's name.
    Name(String),
    SqlWarning,
    NotFound,
    SqlException,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandlerAction {
    Continue,
    Exit,
}

/// A routine body: one statement (a `BEGIN ... END` block is one statement).
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub stmt: RStmt,
}

/// Where SET and SELECT ... INTO store a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A DECLAREd local variable.
    Local(String),
    /// `@name`.
    User(String),
    /// `NEW.col` (BEFORE triggers only).
    New(String),
    /// `OLD.col` (never writable: 1362 at CREATE).
    Old(String),
    /// `@@[scope.]name`.
    System(crate::ast::VarScope, String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    Loop,
    While,
    Repeat,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RStmt {
    /// INSERT / REPLACE / UPDATE / DELETE / DO.
    Sql(Box<Stmt>),
    SelectInto {
        select: Box<Select>,
        targets: Vec<Target>,
    },
    Set(Vec<(Target, Expr)>),
    Declare {
        names: Vec<String>,
        ty: SqlType,
        default: Option<Expr>,
    },
    Block {
        label: Option<String>,
        body: Vec<RStmt>,
    },
    If {
        branches: Vec<(Expr, Vec<RStmt>)>,
        otherwise: Option<Vec<RStmt>>,
    },
    Case {
        operand: Option<Expr>,
        whens: Vec<(Expr, Vec<RStmt>)>,
        otherwise: Option<Vec<RStmt>>,
    },
    Loop {
        kind: LoopKind,
        label: Option<String>,
        /// WHILE's condition (checked before each pass) or REPEAT's UNTIL (after).
        cond: Option<Expr>,
        body: Vec<RStmt>,
    },
    Leave(String),
    Iterate(String),
    /// SIGNAL / RESIGNAL: a SQLSTATE or a named condition (RESIGNAL may name none:
    /// the condition being handled).
    Signal {
        resignal: bool,
        sqlstate: Option<String>,
        condition: Option<String>,
        message: Option<Expr>,
        errno: Option<Expr>,
    },
    /// RETURN expr (functions).
    Return(Expr),
    DeclareCondition {
        name: String,
        value: CondValue,
    },
    DeclareHandler {
        action: HandlerAction,
        conds: Vec<HandlerCond>,
        body: Box<RStmt>,
    },
    DeclareCursor {
        name: String,
        select: Box<Select>,
    },
    Open(String),
    Fetch {
        cursor: String,
        targets: Vec<Target>,
    },
    Close(String),
}

impl RStmt {
    /// Calls `f` on this statement and every statement nested in it.
    pub fn walk(&self, f: &mut dyn FnMut(&RStmt)) {
        f(self);
        if let RStmt::DeclareHandler { body, .. } = self {
            body.walk(f);
            return;
        }
        let lists: Vec<&Vec<RStmt>> = match self {
            RStmt::Block { body, .. } | RStmt::Loop { body, .. } => vec![body],
            RStmt::If {
                branches,
                otherwise,
            } => branches
                .iter()
                .map(|(_, b)| b)
                .chain(otherwise.iter())
                .collect(),
            RStmt::Case {
                whens, otherwise, ..
            } => whens
                .iter()
                .map(|(_, b)| b)
                .chain(otherwise.iter())
                .collect(),
            _ => Vec::new(),
        };
        for l in lists {
            for s in l {
                s.walk(f);
            }
        }
    }

    /// The expressions this statement itself holds (not those of nested statements;
    /// data statements' expressions are reached through `exec::stmt_exprs`).
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            RStmt::Set(items) => items.iter().map(|(_, e)| e).collect(),
            RStmt::Declare { default, .. } => default.iter().collect(),
            RStmt::If { branches, .. } => branches.iter().map(|(e, _)| e).collect(),
            RStmt::Case { operand, whens, .. } => {
                operand.iter().chain(whens.iter().map(|(e, _)| e)).collect()
            }
            RStmt::Loop { cond, .. } => cond.iter().collect(),
            RStmt::Signal { message, errno, .. } => message.iter().chain(errno.iter()).collect(),
            RStmt::Return(e) => vec![e],
            _ => Vec::new(),
        }
    }
}
