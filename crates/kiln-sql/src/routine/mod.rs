//! Compound statements — the bodies of triggers (and, later, stored procedures and
//! functions): the tree the parser builds (`Body`, `RStmt`, parse/routine.rs) and the
//! interpreter that runs it (`exec.rs`) against a frame of local variables and, in a
//! trigger, the OLD and NEW rows (`Rows`).
//!
//! What a body may hold: `BEGIN ... END` blocks (labelled or not), DECLARE of local
//! variables (with DEFAULT), SET (local variables, NEW.col, @user and @@system
//! variables), IF / ELSEIF / ELSE, the CASE statement, WHILE / REPEAT / LOOP with
//! LEAVE and ITERATE, SIGNAL / RESIGNAL-free error raising (`SIGNAL SQLSTATE ...
//! SET MESSAGE_TEXT = ..., MYSQL_ERRNO = ...`), SELECT ... INTO, and the data
//! statements INSERT / REPLACE / UPDATE / DELETE / DO.
//!
//! Limits: a body nests at most `NESTING_MAX` blocks deep; a loop runs at most
//! `LOOP_ITERATIONS_MAX` iterations per execution (then 1235, so a runaway loop
//! cannot hold a connection forever); local variables per frame `VARIABLES_MAX`.

pub mod exec;
pub mod subst;

use crate::ast::{Expr, Select, Stmt};
use crate::types::SqlType;

/// Deepest nesting of blocks, loops and IFs in one body.
pub const NESTING_MAX: usize = 64;
/// Iterations one loop statement may run per execution.
pub const LOOP_ITERATIONS_MAX: u64 = 1_000_000;
/// Local variables a frame may hold.
pub const VARIABLES_MAX: usize = 1024;

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
    Signal {
        sqlstate: String,
        message: Option<Expr>,
        errno: Option<Expr>,
    },
}

impl RStmt {
    /// Calls `f` on this statement and every statement nested in it.
    pub fn walk(&self, f: &mut dyn FnMut(&RStmt)) {
        f(self);
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
            _ => Vec::new(),
        }
    }
}
