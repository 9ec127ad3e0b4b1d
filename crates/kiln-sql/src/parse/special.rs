//! Built-in calls and operators with their own syntax: `INTERVAL expr unit` (in
//! DATE_ADD/DATE_SUB/ADDDATE/SUBDATE and with `+`/`-`), EXTRACT(unit FROM x),
//! TIMESTAMPDIFF/TIMESTAMPADD(unit, …), SUBSTRING(x FROM n FOR m),
//! TRIM([LEADING|TRAILING|BOTH] [r] FROM s), POSITION(a IN b), typed temporal literals
//! (DATE '…', TIME '…', TIMESTAMP '…') and CAST target types.
//!
//! Units travel as a string literal argument (the canonical unit name), so the
//! evaluator sees plain calls: `date_add_interval(d, n, 'DAY')`,
//! `date_sub_interval(…)`, `extract('YEAR', x)`, `timestampdiff('MONTH', a, b)`,
//! `trim_leading(s, r)` / `trim_trailing` / `trim_both`, `locate(a, b)`.

use super::*;
use crate::value::Value;
use kiln_types::temporal::{self, Flags, IntervalUnit};

fn unit_lit(u: IntervalUnit) -> Expr {
    Expr::Literal(Value::Str(u.name().to_string()))
}

fn func(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Func {
        name: name.into(),
        args,
    }
}

impl<'a> Parser<'a> {
    /// An interval unit keyword (TIMESTAMPDIFF also takes `SQL_TSI_` names).
    pub(super) fn interval_unit(&mut self) -> Result<IntervalUnit> {
        let at = self.peek().start;
        let w = match &self.peek().tok {
            Tok::Word(w) => w.to_ascii_uppercase(),
            _ => return Err(self.error()),
        };
        let name = w.strip_prefix("SQL_TSI_").unwrap_or(&w);
        let u = IntervalUnit::from_name(name).ok_or_else(|| self.error_at(at))?;
        self.bump();
        Ok(u)
    }

    /// After the INTERVAL keyword: `expr unit`.
    pub(super) fn interval_tail(&mut self) -> Result<(Expr, IntervalUnit)> {
        let e = self.expr()?;
        let u = self.interval_unit()?;
        Ok((e, u))
    }

    /// `left + INTERVAL …` / `left - INTERVAL …` (the operator already consumed).
    pub(super) fn interval_op(&mut self, left: Expr, subtract: bool) -> Result<Expr> {
        self.expect_kw("INTERVAL")?;
        let (n, u) = self.interval_tail()?;
        let name = if subtract {
            "date_sub_interval"
        } else {
            "date_add_interval"
        };
        Ok(func(name, vec![left, n, unit_lit(u)]))
    }

    /// `INTERVAL n unit + expr` as a primary.
    pub(super) fn interval_prefix(&mut self) -> Result<Expr> {
        let (n, u) = self.interval_tail()?;
        if !self.eat_op("+") {
            return Err(self.error());
        }
        let right = self.nested(10)?;
        Ok(func("date_add_interval", vec![right, n, unit_lit(u)]))
    }

    /// `col->'path'` (JSON_EXTRACT) and `col->>'path'` (JSON_UNQUOTE of it) after a
    /// column reference.
    pub(super) fn json_arrow(&mut self, e: Expr) -> Result<Expr> {
        if !matches!(e, Expr::Column { .. }) {
            return Ok(e);
        }
        let unquote = if self.eat_op("->>") {
            true
        } else if self.eat_op("->") {
            false
        } else {
            return Ok(e);
        };
        let path = Expr::Literal(Value::Str(self.string()?));
        let x = func("json_extract", vec![e, path]);
        Ok(if unquote {
            func("json_unquote", vec![x])
        } else {
            x
        })
    }

    /// Calls with special argument syntax; the "(" is consumed, and so is the ")" when
    /// this returns Some.
    pub(super) fn special_call(&mut self, name: &str) -> Result<Option<Expr>> {
        let e = match name {
            "extract" => {
                let u = self.interval_unit()?;
                self.expect_kw("FROM")?;
                let x = self.expr()?;
                func("extract", vec![unit_lit(u), x])
            }
            "timestampdiff" | "timestampadd" => {
                let u = self.interval_unit()?;
                self.expect_op(",")?;
                let a = self.expr()?;
                self.expect_op(",")?;
                let b = self.expr()?;
                if name == "timestampadd" {
                    func("date_add_interval", vec![b, a, unit_lit(u)])
                } else {
                    func(name, vec![unit_lit(u), a, b])
                }
            }
            "date_add" | "date_sub" | "adddate" | "subdate" => {
                let d = self.expr()?;
                self.expect_op(",")?;
                let sub = name == "date_sub" || name == "subdate";
                let fname = if sub {
                    "date_sub_interval"
                } else {
                    "date_add_interval"
                };
                if self.eat_kw("INTERVAL") {
                    let (n, u) = self.interval_tail()?;
                    func(fname, vec![d, n, unit_lit(u)])
                } else if name == "adddate" || name == "subdate" {
                    let n = self.expr()?;
                    func(fname, vec![d, n, unit_lit(IntervalUnit::Day)])
                } else {
                    return Err(self.error());
                }
            }
            "substring" | "substr" if !self.is_op(")") => {
                let s = self.expr()?;
                let mut args = vec![s];
                if self.eat_kw("FROM") {
                    args.push(self.expr()?);
                    if self.eat_kw("FOR") {
                        args.push(self.expr()?);
                    }
                } else if self.eat_kw("FOR") {
                    args.push(Expr::Literal(Value::Int(1)));
                    args.push(self.expr()?);
                } else {
                    while self.eat_op(",") {
                        args.push(self.expr()?);
                    }
                }
                func("substring", args)
            }
            "trim" => {
                let mode = if self.eat_kw("LEADING") {
                    Some("trim_leading")
                } else if self.eat_kw("TRAILING") {
                    Some("trim_trailing")
                } else if self.eat_kw("BOTH") {
                    Some("trim_both")
                } else {
                    None
                };
                let space = || Expr::Literal(Value::Str(" ".into()));
                match mode {
                    Some(m) => {
                        if self.eat_kw("FROM") {
                            let s = self.expr()?;
                            func(m, vec![s, space()])
                        } else {
                            let r = self.expr()?;
                            self.expect_kw("FROM")?;
                            let s = self.expr()?;
                            func(m, vec![s, r])
                        }
                    }
                    None => {
                        let first = self.expr()?;
                        if self.eat_kw("FROM") {
                            let s = self.expr()?;
                            func("trim_both", vec![s, first])
                        } else {
                            func("trim", vec![first])
                        }
                    }
                }
            }
            "position" => {
                let needle = self.binary(6)?;
                self.expect_kw("IN")?;
                let hay = self.expr()?;
                func("locate", vec![needle, hay])
            }
            _ => return Ok(None),
        };
        self.expect_op(")")?;
        Ok(Some(e))
    }

    /// DATE '…', TIME '…', TIMESTAMP '…': checked here (an invalid one is error 1525)
    /// and kept as the canonical text.
    pub(super) fn typed_literal(&mut self, kind: &str, s: &str) -> Result<Expr> {
        let bad = || KilnError::new(ErrorKind::ER_WRONG_VALUE, &[&kind.to_ascii_uppercase(), &s]);
        let text = match kind {
            "date" => temporal::parse_date(s, Flags::LENIENT)
                .map_err(|_| bad())?
                .value
                .to_string(),
            "time" => {
                let p = temporal::parse_time(s).map_err(|_| bad())?;
                let fsp = frac_digits(s);
                p.value.format_time(fsp)
            }
            _ => {
                let p = temporal::parse_datetime(s, Flags::LENIENT).map_err(|_| bad())?;
                p.value.format_datetime(frac_digits(s))
            }
        };
        Ok(Expr::Literal(Value::Str(text)))
    }

    /// A CAST/CONVERT target type with its length / precision.
    pub(super) fn cast_type(&mut self) -> Result<CastType> {
        let t = match &self.peek().tok {
            Tok::Word(w) => w.to_ascii_uppercase(),
            _ => return Err(self.error()),
        };
        self.bump();
        let ty = match t.as_str() {
            "SIGNED" => {
                let _ = self.eat_kw("INTEGER") || self.eat_kw("INT");
                CastType::Signed
            }
            "UNSIGNED" => {
                let _ = self.eat_kw("INTEGER") || self.eat_kw("INT");
                CastType::Unsigned
            }
            "CHAR" | "NCHAR" | "VARCHAR" => CastType::Char(self.opt_len()?.map(|(n, _)| n)),
            "BINARY" => CastType::Binary(self.opt_len()?.map(|(n, _)| n)),
            "DECIMAL" | "DEC" | "NUMERIC" => {
                let (p, s) = self.opt_len()?.unwrap_or((10, None));
                CastType::Decimal(p.clamp(1, 65), s.unwrap_or(0).min(30))
            }
            "DOUBLE" | "REAL" => CastType::Double,
            "FLOAT" => {
                self.opt_len()?;
                CastType::Double
            }
            "DATE" => CastType::Date,
            "DATETIME" => CastType::DateTime(self.opt_len()?.map_or(0, |(n, _)| n.min(6)) as u8),
            "TIME" => CastType::Time(self.opt_len()?.map_or(0, |(n, _)| n.min(6)) as u8),
            "JSON" => CastType::Char(None),
            _ => return Err(self.error_at(self.toks[self.pos - 1].start)),
        };
        while self.eat_kw("CHARACTER") || self.eat_kw("CHARSET") || self.eat_kw("COLLATE") {
            self.eat_kw("SET");
            self.ident_or_string()?;
        }
        Ok(ty)
    }

    /// `(n)` or `(n, m)` after a type name.
    fn opt_len(&mut self) -> Result<Option<(u32, Option<u32>)>> {
        if !self.eat_op("(") {
            return Ok(None);
        }
        let n = self.u64_literal()?.min(u32::MAX as u64) as u32;
        let m = if self.eat_op(",") {
            Some(self.u64_literal()?.min(u32::MAX as u64) as u32)
        } else {
            None
        };
        self.expect_op(")")?;
        Ok(Some((n, m)))
    }
}

/// Digits after the '.' of a temporal literal's seconds (its fractional precision).
fn frac_digits(s: &str) -> u8 {
    match s.trim_end().rsplit_once('.') {
        Some((head, f)) if head.contains(':') && f.bytes().all(|c| c.is_ascii_digit()) => {
            f.len().min(6) as u8
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{Expr, Stmt};

    fn item(sql: &str) -> Expr {
        let p = crate::parse::parse_one(sql, crate::lexer::LexMode::default()).unwrap();
        let Stmt::Select(s) = p.stmt else { panic!() };
        s.items[0].expr.clone()
    }

    fn name(e: &Expr) -> &str {
        match e {
            Expr::Func { name, .. } => name,
            _ => panic!("not a call: {e:?}"),
        }
    }

    #[test]
    fn aggregate_all_and_spaced_distinct() {
        assert_eq!(name(&item("SELECT COUNT(ALL x) FROM t")), "count");
        assert_eq!(name(&item("SELECT MIN( ALL x ) FROM t")), "min");
        assert_eq!(
            name(&item("SELECT AVG ( DISTINCT x ) FROM t")),
            "avg distinct"
        );
        assert_eq!(name(&item("SELECT COUNT ( * ) FROM t")), "count");
    }

    #[test]
    fn special_forms() {
        assert_eq!(name(&item("SELECT EXTRACT(YEAR FROM d)")), "extract");
        assert_eq!(
            name(&item("SELECT d + INTERVAL 1 DAY")),
            "date_add_interval"
        );
        assert_eq!(
            name(&item("SELECT d - INTERVAL '1:30' HOUR_MINUTE")),
            "date_sub_interval"
        );
        assert_eq!(
            name(&item("SELECT TRIM(LEADING 'x' FROM s)")),
            "trim_leading"
        );
        assert_eq!(name(&item("SELECT POSITION('b' IN s)")), "locate");
        assert!(
            crate::parse::parse_one("SELECT DATE_ADD(d, 1)", crate::lexer::LexMode::default())
                .is_err()
        );
    }
}
