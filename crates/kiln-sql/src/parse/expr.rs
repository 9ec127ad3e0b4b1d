//! Expressions: precedence climbing over MySQL's operator table, predicates (IN,
//! BETWEEN, LIKE, IS), primaries (literals, columns, calls, CASE, CAST, CONVERT).

use super::*;
use crate::value::Value;

impl<'a> Parser<'a> {
    pub(super) fn expr_list(&mut self) -> Result<Vec<Expr>> {
        let mut v = vec![self.expr()?];
        while self.eat_op(",") {
            v.push(self.expr()?);
        }
        Ok(v)
    }

    pub fn expr(&mut self) -> Result<Expr> {
        self.nested(0)
    }

    /// `binary(min_prec)` one nesting level deeper. Every path by which an
    /// expression's parse recurses into a new operand (a parenthesis, a prefix
    /// operator: `- - … 1`, `NOT NOT …`, `BINARY BINARY …`, `INTERVAL … + INTERVAL …`)
    /// comes through here, so `EXPRESSION_DEPTH_MAX` bounds the parser's stack.
    pub(super) fn nested(&mut self, min_prec: u8) -> Result<Expr> {
        if self.depth == 0 {
            // a new top-level expression: a fresh operator budget
            self.operators = 0;
        }
        self.depth += 1;
        if self.depth > EXPRESSION_DEPTH_MAX {
            return Err(KilnError::new(
                ErrorKind::ER_STACK_OVERRUN_NEED_MORE,
                &[&0, &0, &0],
            ));
        }
        let r = self.binary(min_prec);
        self.depth -= 1;
        r
    }

    pub(super) fn binary(&mut self, min_prec: u8) -> Result<Expr> {
        let mut left = self.prefix()?;
        while let Some((prec, op)) = self.infix_op() {
            if prec < min_prec {
                break;
            }
            // Each turn makes `left` one level deeper (see EXPRESSION_OPERATORS_MAX).
            self.operators += 1;
            if self.operators > EXPRESSION_OPERATORS_MAX {
                return Err(KilnError::new(
                    ErrorKind::ER_STACK_OVERRUN_NEED_MORE,
                    &[&0, &0, &0],
                ));
            }
            left = match op {
                Infix::Bin(op, n) => {
                    for _ in 0..n {
                        self.bump();
                    }
                    if matches!(op, BinaryOp::Add | BinaryOp::Sub) && self.is_kw("INTERVAL") {
                        left = self.interval_op(left, op == BinaryOp::Sub)?;
                        continue;
                    }
                    if prec == 5
                        && let Some(all) = self.quantifier()
                    {
                        self.enter()?;
                        let select = self.select()?;
                        self.depth -= 1;
                        self.expect_op(")")?;
                        left = Expr::Quantified(Box::new(Quantified {
                            expr: left,
                            op,
                            all,
                            select,
                            rows: None,
                        }));
                        continue;
                    }
                    let right = self.binary(prec + 1)?;
                    Expr::Binary {
                        op,
                        left: Box::new(left),
                        right: Box::new(right),
                    }
                }
                Infix::Predicate => self.predicate(left)?,
                Infix::Concat => {
                    self.bump();
                    let right = self.binary(prec + 1)?;
                    Expr::Func {
                        name: "concat".into(),
                        args: vec![left, right],
                    }
                }
            };
        }
        Ok(left)
    }

    /// After a comparison operator: `ANY (` / `SOME (` / `ALL (` before a subquery are
    /// consumed up to the "(" and give whether it is ALL.
    fn quantifier(&mut self) -> Option<bool> {
        let all = if self.is_kw("ALL") {
            true
        } else if self.is_kw("ANY") || self.is_kw("SOME") {
            false
        } else {
            return None;
        };
        let subquery = matches!(self.peek_at(1), Tok::Op("("))
            && (self.is_kw_at(2, "SELECT") || matches!(self.peek_at(2), Tok::Op("(")));
        if !subquery {
            return None;
        }
        self.bump();
        self.bump();
        Some(all)
    }

    fn infix_op(&self) -> Option<(u8, Infix)> {
        use BinaryOp::*;
        Some(match &self.peek().tok {
            Tok::Op(o) => match *o {
                // PIPES_AS_CONCAT: CONCAT, binding tighter than `^` and looser than
                // the unary operators, as MySQL's grammar has it.
                "||" if self.mode.pipes_as_concat => (12, Infix::Concat),
                "||" => (1, Infix::Bin(Or, 1)),
                "&&" => (3, Infix::Bin(And, 1)),
                "=" => (5, Infix::Bin(Eq, 1)),
                "<=>" => (5, Infix::Bin(NullSafeEq, 1)),
                "!=" | "<>" => (5, Infix::Bin(Ne, 1)),
                "<" => (5, Infix::Bin(Lt, 1)),
                "<=" => (5, Infix::Bin(Le, 1)),
                ">" => (5, Infix::Bin(Gt, 1)),
                ">=" => (5, Infix::Bin(Ge, 1)),
                "|" => (6, Infix::Bin(BitOr, 1)),
                "&" => (7, Infix::Bin(BitAnd, 1)),
                "<<" => (8, Infix::Bin(Shl, 1)),
                ">>" => (8, Infix::Bin(Shr, 1)),
                "+" => (9, Infix::Bin(Add, 1)),
                "-" => (9, Infix::Bin(Sub, 1)),
                "*" => (10, Infix::Bin(Mul, 1)),
                "/" => (10, Infix::Bin(Div, 1)),
                "%" => (10, Infix::Bin(Mod, 1)),
                "^" => (11, Infix::Bin(BitXor, 1)),
                _ => return None,
            },
            Tok::Word(w) => match w.to_ascii_uppercase().as_str() {
                "OR" => (1, Infix::Bin(Or, 1)),
                "XOR" => (2, Infix::Bin(Xor, 1)),
                "AND" => (3, Infix::Bin(And, 1)),
                "DIV" => (10, Infix::Bin(IntDiv, 1)),
                "MOD" => (10, Infix::Bin(Mod, 1)),
                "IS" | "LIKE" | "IN" | "BETWEEN" => (5, Infix::Predicate),
                "NOT"
                    if self.is_kw_at(1, "LIKE")
                        || self.is_kw_at(1, "IN")
                        || self.is_kw_at(1, "BETWEEN") =>
                {
                    (5, Infix::Predicate)
                }
                _ => return None,
            },
            _ => return None,
        })
    }

    pub(super) fn predicate(&mut self, left: Expr) -> Result<Expr> {
        let left = Box::new(left);
        if self.eat_kw("IS") {
            let negated = self.eat_kw("NOT");
            if self.eat_kw("NULL") {
                return Ok(Expr::IsNull {
                    expr: left,
                    negated,
                });
            }
            let value = if self.eat_kw("TRUE") {
                Some(true)
            } else if self.eat_kw("FALSE") {
                Some(false)
            } else {
                self.expect_kw("UNKNOWN")?;
                None
            };
            return Ok(Expr::IsBool {
                expr: left,
                value,
                negated,
            });
        }
        let negated = self.eat_kw("NOT");
        if self.eat_kw("LIKE") {
            let pattern = Box::new(self.binary(6)?);
            let escape = if self.eat_kw("ESCAPE") {
                Some(Box::new(self.binary(6)?))
            } else {
                None
            };
            return Ok(Expr::Like {
                expr: left,
                pattern,
                escape,
                negated,
            });
        }
        if self.eat_kw("IN") {
            self.expect_op("(")?;
            if self.is_kw("SELECT") {
                self.enter()?;
                let sel = self.select()?;
                self.depth -= 1;
                self.expect_op(")")?;
                return Ok(Expr::InSubquery {
                    expr: left,
                    select: Box::new(sel),
                    negated,
                });
            }
            let list = self.expr_list()?;
            self.expect_op(")")?;
            return Ok(Expr::InList {
                expr: left,
                list,
                negated,
            });
        }
        self.expect_kw("BETWEEN")?;
        let low = Box::new(self.binary(6)?);
        self.expect_kw("AND")?;
        let high = Box::new(self.binary(6)?);
        Ok(Expr::Between {
            expr: left,
            low,
            high,
            negated,
        })
    }

    pub(super) fn prefix(&mut self) -> Result<Expr> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Op("-") => {
                self.bump();
                let number_next = matches!(self.peek().tok, Tok::Int(_));
                let e = self.nested(13)?;
                // Fold negative numeric literals so -9223372036854775808 is a BIGINT
                // (only a number written right after the sign: - -98 stays a negation).
                if number_next && let Expr::Literal(v) = &e {
                    match v {
                        Value::Int(i) => return Ok(Expr::Literal(Value::Int(-i))),
                        Value::UInt(u) if *u == 1u64 << 63 => {
                            return Ok(Expr::Literal(Value::Int(i64::MIN)));
                        }
                        _ => {}
                    }
                }
                Ok(Expr::Unary {
                    op: UnaryOp::Neg,
                    expr: Box::new(e),
                })
            }
            Tok::Op("+") => {
                self.bump();
                let e = self.nested(13)?;
                Ok(Expr::Unary {
                    op: UnaryOp::Plus,
                    expr: Box::new(e),
                })
            }
            Tok::Op("~") => {
                self.bump();
                Ok(Expr::Unary {
                    op: UnaryOp::BitNot,
                    expr: Box::new(self.nested(13)?),
                })
            }
            Tok::Op("!") => {
                self.bump();
                Ok(Expr::Unary {
                    op: UnaryOp::Not,
                    expr: Box::new(self.nested(14)?),
                })
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("NOT") => {
                self.bump();
                // HIGH_NOT_PRECEDENCE: NOT binds as `!` does.
                let prec = if self.mode.high_not_precedence { 14 } else { 4 };
                Ok(Expr::Unary {
                    op: UnaryOp::Not,
                    expr: Box::new(self.nested(prec)?),
                })
            }
            _ => self.primary(),
        }
    }

    pub(super) fn primary(&mut self) -> Result<Expr> {
        let t = self.bump();
        let e = match t.tok {
            Tok::Int(s) => Expr::Literal(match s.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => match s.parse::<u64>() {
                    Ok(u) => Value::UInt(u),
                    Err(_) => Value::Decimal(s.trim_start_matches('0').to_string()),
                },
            }),
            Tok::Decimal(s) => Expr::Literal(Value::Decimal(normalize_decimal_literal(s))),
            Tok::Float(s) => Expr::Literal(Value::Double(s.parse().unwrap_or(0.0))),
            Tok::Str(s) => {
                let mut v = s.into_owned();
                // Adjacent string literals concatenate: 'a' 'b' = 'ab'.
                while let Tok::Str(next) = &self.peek().tok {
                    v.extend_from_slice(next);
                    self.bump();
                }
                introduced(introducer(&self.sql[..t.start]), v)
            }
            Tok::Hex(v) | Tok::Bits(v) => Expr::Literal(Value::Bytes(v)),
            Tok::Placeholder => {
                self.params += 1;
                if self.params > kiln_common::limits::PREPARED_PARAMS_MAX {
                    return Err(ErrorKind::ER_PS_MANY_PARAM.into());
                }
                Expr::Param(self.params - 1)
            }
            Tok::UserVar(n) => {
                let name = n.to_string();
                if self.eat_op(":=") {
                    return Ok(Expr::Assign {
                        name,
                        expr: Box::new(self.expr()?),
                    });
                }
                Expr::UserVar(name)
            }
            Tok::AtAt => {
                let (scope, name) = self.sysvar_name()?;
                Expr::SysVar { scope, name }
            }
            Tok::Op("(")
                if self.is_kw("SELECT") || (self.is_op("(") && self.is_kw_at(1, "SELECT")) =>
            {
                self.enter()?;
                let sel = self.select()?;
                self.depth -= 1;
                self.expect_op(")")?;
                Expr::Subquery(Box::new(sel))
            }
            Tok::Op("(") => {
                let e = self.expr()?;
                if self.eat_op(",") {
                    let mut items = vec![e];
                    items.extend(self.expr_list()?);
                    self.expect_op(")")?;
                    return Ok(Expr::Row(items));
                }
                self.expect_op(")")?;
                e
            }
            Tok::QuotedIdent(s) => {
                let c = self.column_or_call(s.into_owned(), true)?;
                self.json_arrow(c)?
            }
            Tok::Word(w) => {
                let u = w.to_ascii_uppercase();
                match u.as_str() {
                    "NULL" => Expr::Literal(Value::Null),
                    "TRUE" => Expr::Literal(Value::Int(1)),
                    "FALSE" => Expr::Literal(Value::Int(0)),
                    "CASE" => return self.case(),
                    "EXISTS" if self.is_op("(") => {
                        self.bump();
                        self.enter()?;
                        let sel = self.select()?;
                        self.depth -= 1;
                        self.expect_op(")")?;
                        return Ok(Expr::Exists(Box::new(sel)));
                    }
                    "CAST" if self.is_op("(") => return self.cast(),
                    "CONVERT" if self.is_op("(") => return self.convert(),
                    "INTERVAL" if !self.is_op("(") => return self.interval_prefix(),
                    "BINARY" if !self.is_op("(") => {
                        let e = self.nested(14)?;
                        Expr::Cast {
                            expr: Box::new(e),
                            to: CastType::Binary(None),
                        }
                    }
                    "CURRENT_TIMESTAMP" | "CURRENT_DATE" | "CURRENT_TIME" | "LOCALTIME"
                    | "LOCALTIMESTAMP" | "CURRENT_USER" | "UTC_TIMESTAMP" | "UTC_DATE"
                    | "UTC_TIME"
                        if !self.is_op("(") =>
                    {
                        Expr::Func {
                            name: u.to_ascii_lowercase(),
                            args: vec![],
                        }
                    }
                    "DATE" | "TIME" | "TIMESTAMP" if matches!(self.peek().tok, Tok::Str(_)) => {
                        let Tok::Str(s) = self.bump().tok else {
                            unreachable!()
                        };
                        let s = String::from_utf8_lossy(&s).into_owned();
                        self.typed_literal(&u.to_ascii_lowercase(), &s)?
                    }
                    _ if is_reserved(w) && !self.is_op("(") => return Err(self.error_at(t.start)),
                    _ => {
                        let c = self.column_or_call(w.to_string(), false)?;
                        self.json_arrow(c)?
                    }
                }
            }
            _ => return Err(self.error_at(t.start)),
        };
        if self.eat_kw("COLLATE") {
            let name = self.ident_or_string()?;
            let coll = crate::collate::Coll::by_name(&name)
                .ok_or_else(|| KilnError::new(ErrorKind::ER_UNKNOWN_COLLATION, &[&name]))?;
            return Ok(Expr::Collate {
                expr: Box::new(e),
                coll,
            });
        }
        Ok(e)
    }

    pub(super) fn error_at(&self, at: usize) -> KilnError {
        syntax_error_at(self.sql, at)
    }

    pub(super) fn column_or_call(&mut self, first: String, quoted: bool) -> Result<Expr> {
        if !quoted && self.is_op("(") && self.peek().start == self.toks[self.pos - 1].end {
            self.bump();
            return self.call_args(first);
        }
        if !quoted && self.is_op("(") {
            // MySQL without IGNORE_SPACE: "f (x)" is still a call for built-ins; treat alike.
            return self.column_or_call_spaced(first);
        }
        if self.eat_op(".") {
            let name = self.ident_or_keyword()?;
            if !quoted_name_call_blocked(&first) && self.eat_op("(") {
                // `db.f(args)`: a stored function of database db (the name part is
                // case-insensitive, the database name is not).
                let mut args = Vec::new();
                if !self.eat_op(")") {
                    args = self.expr_list()?;
                    self.expect_op(")")?;
                }
                return Ok(Expr::Func {
                    name: format!("{first}.{}", name.to_ascii_lowercase()),
                    args,
                });
            }
            if self.eat_op(".") {
                let col = self.ident_or_keyword()?;
                return Ok(Expr::Column {
                    qualifier: Some(format!("{first}.{name}")),
                    name: col,
                });
            }
            return Ok(Expr::Column {
                qualifier: Some(first),
                name,
            });
        }
        Ok(Expr::Column {
            qualifier: None,
            name: first,
        })
    }

    pub(super) fn column_or_call_spaced(&mut self, first: String) -> Result<Expr> {
        self.bump();
        self.call_args(first)
    }

    /// The arguments of a call after its "(": `COUNT(*)`, `[ALL | DISTINCT] args`
    /// (DISTINCT is kept as the name suffix " distinct"; ALL is the default), and
    /// GROUP_CONCAT's ORDER BY / SEPARATOR; a few built-ins with special syntax are
    /// parsed in `special_call`.
    pub(super) fn call_args(&mut self, first: String) -> Result<Expr> {
        let mut name = first.to_ascii_lowercase();
        if let Some(e) = self.special_call(&name)? {
            return Ok(e);
        }
        let mut args = Vec::new();
        if name == "count" && self.eat_op("*") {
            self.expect_op(")")?;
            return self.window_tail(name, vec![Expr::Literal(Value::Int(1))]);
        }
        if !self.eat_op(")") {
            if self.eat_kw("DISTINCT") {
                name.push_str(" distinct");
            } else {
                self.eat_kw("ALL");
            }
            args = self.expr_list()?;
            if name.starts_with("group_concat") {
                // SEPARATOR follows the values; an ORDER BY is kept after it as a
                // `group_concat order` call of (key, desc flag) pairs.
                let order = if self.eat_kw("ORDER") {
                    self.expect_kw("BY")?;
                    Some(self.order_list()?)
                } else {
                    None
                };
                let sep = if self.eat_kw("SEPARATOR") {
                    self.primary()?
                } else {
                    Expr::Literal(Value::Str(",".into()))
                };
                args.push(sep);
                if let Some(order) = order {
                    args.push(Expr::Func {
                        name: GROUP_CONCAT_ORDER.into(),
                        args: order
                            .into_iter()
                            .flat_map(|o| [o.expr, Expr::Literal(Value::Int(i64::from(o.desc)))])
                            .collect(),
                    });
                }
            }
            self.expect_op(")")?;
        }
        self.window_tail(name, args)
    }

    pub(super) fn case(&mut self) -> Result<Expr> {
        let operand = if self.is_kw("WHEN") {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let mut whens = Vec::new();
        while self.eat_kw("WHEN") {
            let w = self.expr()?;
            self.expect_kw("THEN")?;
            whens.push((w, self.expr()?));
        }
        if whens.is_empty() {
            return Err(self.error());
        }
        let otherwise = if self.eat_kw("ELSE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        self.expect_kw("END")?;
        Ok(Expr::Case {
            operand,
            whens,
            otherwise,
        })
    }

    pub(super) fn cast(&mut self) -> Result<Expr> {
        self.expect_op("(")?;
        let e = self.expr()?;
        self.expect_kw("AS")?;
        let to = self.cast_type()?;
        self.expect_op(")")?;
        Ok(Expr::Cast {
            expr: Box::new(e),
            to,
        })
    }

    pub(super) fn convert(&mut self) -> Result<Expr> {
        self.expect_op("(")?;
        let e = self.expr()?;
        let to = if self.eat_kw("USING") {
            let cs = self.ident_or_string()?;
            if kiln_types::collation::Charset::by_name(&cs).is_none() {
                return Err(KilnError::new(ErrorKind::ER_UNKNOWN_CHARACTER_SET, &[&cs]));
            }
            self.expect_op(")")?;
            return Ok(Expr::Func {
                name: "convert_using".into(),
                args: vec![e, Expr::Literal(Value::Str(cs.to_ascii_lowercase()))],
            });
        } else {
            self.expect_op(",")?;
            self.cast_type()?
        };
        self.expect_op(")")?;
        Ok(Expr::Cast {
            expr: Box::new(e),
            to,
        })
    }
}

/// The charset introducer written right before a string literal (`_binary'..'`,
/// `_latin1'..'`): the lexer drops it, so it is read back from the text before the
/// literal. None when there is none or it names no charset kiln has.
/// A database name that cannot qualify a function call (one holding a dot would make
/// the call's name ambiguous).
fn quoted_name_call_blocked(db: &str) -> bool {
    db.contains('.')
}

fn introducer(before: &str) -> Option<kiln_types::collation::Charset> {
    let b = before.as_bytes();
    let mut i = b.len();
    while i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        i -= 1;
    }
    let word = before[i..].strip_prefix('_')?;
    kiln_types::collation::Charset::by_name(word)
}

/// A string literal's value: bytes for `_binary`, text otherwise; a literal
/// introduced as latin1/ascii holds bytes of that charset, converted to the UTF-8 kiln
/// keeps text in and marked as that charset (`CONVERT ... USING`).
fn introduced(cs: Option<kiln_types::collation::Charset>, v: Vec<u8>) -> Expr {
    use kiln_types::collation::{Charset, convert};
    let text = |v: Vec<u8>| match String::from_utf8(v) {
        Ok(s) => Value::Str(s),
        Err(e) => Value::Bytes(e.into_bytes()),
    };
    match cs {
        Some(Charset::Binary) => Expr::Literal(Value::Bytes(v)),
        Some(cs @ (Charset::Latin1 | Charset::Ascii)) => Expr::Func {
            name: "convert_using".into(),
            args: vec![
                Expr::Literal(text(convert(cs, Charset::Utf8mb4, &v).0)),
                Expr::Literal(Value::Str(cs.name().into())),
            ],
        },
        _ => Expr::Literal(text(v)),
    }
}

enum Infix {
    Bin(BinaryOp, usize),
    Predicate,
    /// `||` under PIPES_AS_CONCAT.
    Concat,
}

fn normalize_decimal_literal(s: &str) -> String {
    let s = if s.starts_with('.') {
        format!("0{s}")
    } else {
        s.to_string()
    };
    let trimmed = s.trim_start_matches('0');
    if trimmed.starts_with('.') || trimmed.is_empty() {
        format!("0{trimmed}")
    } else {
        trimmed.to_string()
    }
}
