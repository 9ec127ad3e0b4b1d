//! Conditions and handlers: which handler takes an error or a warning raised by a
//! statement of a body, running it (CONTINUE / EXIT), and SIGNAL / RESIGNAL.
//!
//! MySQL's rules: the handlers of the innermost block that has one for the
//! condition are searched first, and among them the most specific wins (an error
//! number over a SQLSTATE over SQLWARNING / NOT FOUND / SQLEXCEPTION). While a
//! handler runs, the handlers of its own block (and of the blocks inside it that were
//! open) are not active, and an error leaving the handler's body goes to the blocks
//! outside. Warnings a statement leaves (SELECT ... INTO of no row: NOT FOUND) go to
//! the handlers too, after the statement; an unhandled warning stays a warning.
//! KILL, and errors kiln raises for its own limits, cannot be handled.

use kiln_common::{ErrorKind, KilnError, Result};

use super::exec::{Cx, Flow};
use super::{CondValue, HandlerAction, HandlerCond, RStmt};
use crate::ast::Expr;
use crate::eval::{Env, Level};

/// A condition raised in a body: an error, or a warning a statement left.
#[derive(Debug, Clone)]
pub struct Cond {
    pub code: u16,
    pub state: [u8; 5],
    pub message: String,
    pub error: bool,
}

impl Cond {
    pub fn from_error(e: KilnError) -> Cond {
        Cond {
            code: e.code,
            state: e.sqlstate,
            message: e.message,
            error: true,
        }
    }

    pub fn into_error(self) -> KilnError {
        KilnError {
            code: self.code,
            sqlstate: self.state,
            message: self.message,
        }
    }

    fn class(&self) -> &[u8] {
        &self.state[..2]
    }
}

/// Whether a handler may take `e` (not a KILL, nor kiln's own limits, nor an
/// internal error).
pub fn handleable(e: &KilnError) -> bool {
    !(e.is(ErrorKind::ER_QUERY_INTERRUPTED)
        || e.is(ErrorKind::ER_NOT_SUPPORTED_YET)
        || e.is(ErrorKind::ER_INTERNAL_ERROR))
}

/// A declared handler of a frame: its conditions (names resolved when it was
/// declared), action, body, and the nesting level of its block.
pub struct ActiveHandler<'b> {
    conds: Vec<Match>,
    action: HandlerAction,
    body: &'b RStmt,
    level: usize,
}

enum Match {
    Errno(u16),
    State([u8; 5]),
    Warning,
    NotFound,
    Exception,
}

impl Match {
    /// 3: an error number, 2: a SQLSTATE, 1: a class of conditions; 0: no match.
    fn rank(&self, c: &Cond) -> u8 {
        match self {
            Match::Errno(n) if *n == c.code => 3,
            Match::State(s) if *s == c.state => 2,
            Match::Warning if c.class() == b"01" => 1,
            Match::NotFound if c.class() == b"02" => 1,
            Match::Exception if !matches!(c.class(), b"00" | b"01" | b"02") => 1,
            _ => 0,
        }
    }
}

fn state_bytes(s: &str) -> [u8; 5] {
    let mut out = [b'0'; 5];
    for (o, b) in out.iter_mut().zip(s.bytes()) {
        *o = b;
    }
    out
}

impl<'b> Cx<'_, '_, '_, 'b> {
    /// The value of a DECLAREd condition in scope.
    fn condition(&self, name: &str) -> Result<CondValue> {
        self.frame
            .conds
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| KilnError::new(ErrorKind::ER_SP_COND_MISMATCH, &[&name]))
    }

    pub(super) fn declare_handler(
        &self,
        action: HandlerAction,
        conds: &[HandlerCond],
        body: &'b RStmt,
    ) -> Result<ActiveHandler<'b>> {
        let value = |v: &CondValue| match v {
            CondValue::Errno(n) => Match::Errno(*n),
            CondValue::SqlState(s) => Match::State(state_bytes(s)),
        };
        let mut out = Vec::with_capacity(conds.len());
        for c in conds {
            out.push(match c {
                HandlerCond::Value(v) => value(v),
                HandlerCond::Name(n) => value(&self.condition(n)?),
                HandlerCond::SqlWarning => Match::Warning,
                HandlerCond::NotFound => Match::NotFound,
                HandlerCond::SqlException => Match::Exception,
            });
        }
        Ok(ActiveHandler {
            conds: out,
            action,
            body,
            level: self.level,
        })
    }

    /// The first warning (or NOT FOUND) condition among the diagnostics a statement
    /// added after `mark` that a handler in scope takes, with its index (a handled
    /// condition leaves the diagnostics, as in MySQL).
    pub(super) fn warning_condition(&self, mark: usize) -> Option<(Cond, usize)> {
        if self.frame.handlers.is_empty() {
            return None;
        }
        let diags = self.sess.diagnostics();
        for (i, d) in diags.get(mark..).unwrap_or_default().iter().enumerate() {
            if d.level != Level::Warning {
                continue;
            }
            let state = self
                .signal_states
                .iter()
                .rev()
                .find(|(c, _)| *c == d.code)
                .map(|(_, s)| *s)
                .or_else(|| ErrorKind::from_code(d.code).map(|k| state_bytes(k.sqlstate())))
                .filter(|s| matches!(&s[..2], b"01" | b"02"))
                .unwrap_or(*b"01000");
            let c = Cond {
                code: d.code,
                state,
                message: d.message.clone(),
                error: false,
            };
            if self.find_handler(&c).is_some() {
                return Some((c, mark + i));
            }
        }
        None
    }

    /// The handler (index into the frame's) that takes `c`, if any.
    pub(super) fn find_handler(&self, c: &Cond) -> Option<usize> {
        let limit = self
            .escape_mask
            .unwrap_or(self.frame.handlers.len())
            .min(self.frame.handlers.len());
        let mut best: Option<(usize, usize, u8)> = None; // (level, index, rank)
        for i in (0..limit).rev() {
            if self.masked.iter().any(|r| r.contains(&i)) {
                continue;
            }
            let h = &self.frame.handlers[i];
            if let Some((level, _, _)) = best
                && h.level < level
            {
                break;
            }
            let rank = h.conds.iter().map(|m| m.rank(c)).max().unwrap_or(0);
            if rank > 0 && best.is_none_or(|(_, _, r)| rank > r) {
                best = Some((h.level, i, rank));
            }
        }
        best.map(|(_, i, _)| i)
    }

    /// Runs handler `i` for `cond`: CONTINUE resumes after the statement, EXIT leaves
    /// the handler's block. An error in its body goes to the blocks outside.
    pub(super) fn run_handler(&mut self, i: usize, cond: Cond) -> Result<Flow> {
        let (body, action, level) = {
            let h = &self.frame.handlers[i];
            (h.body, h.action, h.level)
        };
        // The handlers of the handler's block and of the blocks open inside it.
        let first = self
            .frame
            .handlers
            .iter()
            .position(|h| h.level >= level)
            .unwrap_or(i);
        self.escape_mask = None;
        self.masked.push(first..self.frame.handlers.len());
        self.handling.push(cond);
        let r = self.stmt(body);
        self.handling.pop();
        self.masked.pop();
        match r {
            Err(e) => {
                self.escape_mask = Some(first);
                Err(e)
            }
            Ok(Flow::Next) => Ok(match action {
                HandlerAction::Continue => Flow::Next,
                HandlerAction::Exit => Flow::Exit(level),
            }),
            // An EXIT of a handler outside this one (it took an error of this body),
            // a RETURN, a LEAVE: as they are.
            Ok(other) => Ok(other),
        }
    }

    /// SIGNAL / RESIGNAL. Class 01 is a warning (the body goes on), anything else an
    /// error; RESIGNAL without a condition raises the one being handled again.
    pub(super) fn signal(
        &mut self,
        resignal: bool,
        sqlstate: Option<&str>,
        condition: Option<&str>,
        message: Option<&Expr>,
        errno: Option<&Expr>,
    ) -> Result<Flow> {
        let handled = self.handling.last().cloned();
        if resignal && handled.is_none() {
            return Err(ErrorKind::ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER.into());
        }
        let state: Option<[u8; 5]> = match (sqlstate, condition) {
            (Some(s), _) => Some(state_bytes(s)),
            (None, Some(n)) => match self.condition(n)? {
                CondValue::SqlState(s) => Some(state_bytes(&s)),
                CondValue::Errno(_) => {
                    return Err(ErrorKind::ER_SIGNAL_BAD_CONDITION_TYPE.into());
                }
            },
            (None, None) => None,
        };
        let (state, default_code, default_text) = match (state, &handled) {
            (Some(s), _) => {
                let default = match &s[..2] {
                    b"01" => ErrorKind::ER_SIGNAL_WARN,
                    b"02" => ErrorKind::ER_SIGNAL_NOT_FOUND,
                    _ => ErrorKind::ER_SIGNAL_EXCEPTION,
                };
                (s, default.code(), KilnError::from(default).message)
            }
            (None, Some(h)) => (h.state, h.code, h.message.clone()),
            (None, None) => return Err(ErrorKind::ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER.into()),
        };
        let text = match message {
            Some(e) => self
                .value(e)?
                .to_string_lossy()
                .unwrap_or_default()
                .chars()
                .take(128)
                .collect(),
            None => default_text,
        };
        let code = match errno {
            Some(e) => match self.value(e)?.to_i64() {
                Some(n) if (1..=65535).contains(&n) => n as u16,
                _ => {
                    return Err(KilnError::new(
                        ErrorKind::ER_WRONG_VALUE_FOR_VAR,
                        &[&"MYSQL_ERRNO", &"?"],
                    ));
                }
            },
            None => default_code,
        };
        if &state[..2] == b"01" {
            self.signal_states.push((code, state));
            if self.signal_states.len() > 64 {
                self.signal_states.remove(0);
            }
            self.sess.warn(Level::Warning, code, text);
            return Ok(Flow::Next);
        }
        Err(KilnError {
            code,
            sqlstate: state,
            message: text,
        })
    }
}
