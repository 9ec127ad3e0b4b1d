//! Window syntax (MySQL 8.0): `f(args) [FROM FIRST] [RESPECT NULLS] OVER w` /
//! `OVER ([w] [PARTITION BY ...] [ORDER BY ...] [frame])` after a call, and the
//! `WINDOW w AS (...), ...` clause of a SELECT. Frames are `ROWS | RANGE` with
//! `UNBOUNDED PRECEDING`, `n PRECEDING`, `CURRENT ROW`, `n FOLLOWING`, `UNBOUNDED
//! FOLLOWING` (n a number, `?`, or `INTERVAL expr unit`), alone or `BETWEEN … AND …`;
//! as in MySQL's grammar, the one-bound form starts the frame and ends it at the
//! current row, and a bound is never a general expression. The meaning (named-window
//! rules, frame checks, evaluation) is exec/window.rs's.

use super::*;

/// Functions that exist only as window functions: without OVER they are a syntax
/// error, as in MySQL.
fn window_only(name: &str) -> bool {
    matches!(
        name,
        "row_number"
            | "rank"
            | "dense_rank"
            | "percent_rank"
            | "cume_dist"
            | "ntile"
            | "lag"
            | "lead"
            | "first_value"
            | "last_value"
            | "nth_value"
    )
}

/// Aggregates MySQL 8.0 also runs as window functions: all but GROUP_CONCAT and
/// ANY_VALUE.
fn window_aggregate(name: &str) -> bool {
    let base = name.strip_suffix(" distinct").unwrap_or(name);
    crate::exec::bind::is_aggregate(base) && !matches!(base, "group_concat" | "any_value")
}

impl<'a> Parser<'a> {
    /// After a call's ")": the OVER clause of a window function, if any.
    pub(super) fn window_tail(&mut self, name: String, args: Vec<Expr>) -> Result<Expr> {
        let only = window_only(&name);
        let windowed = only || (window_aggregate(&name) && self.is_kw("OVER"));
        if !windowed {
            return Ok(Expr::Func { name, args });
        }
        if name == "nth_value"
            && self.is_kw("FROM")
            && (self.is_kw_at(1, "FIRST") || self.is_kw_at(1, "LAST"))
        {
            self.bump();
            if self.eat_kw("LAST") {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"FROM LAST"],
                ));
            }
            self.expect_kw("FIRST")?;
        }
        if matches!(
            name.as_str(),
            "nth_value" | "first_value" | "last_value" | "lag" | "lead"
        ) {
            if self.is_kw("IGNORE") && self.is_kw_at(1, "NULLS") {
                return Err(KilnError::new(
                    ErrorKind::ER_NOT_SUPPORTED_YET,
                    &[&"IGNORE NULLS"],
                ));
            }
            if self.eat_kw("RESPECT") {
                self.expect_kw("NULLS")?;
            }
        }
        self.expect_kw("OVER")?;
        if name.ends_with(" distinct") {
            return Err(KilnError::new(
                ErrorKind::ER_NOT_SUPPORTED_YET,
                &[&"<window function>(DISTINCT ..)"],
            ));
        }
        let over = if self.is_op("(") {
            self.bump();
            let spec = self.window_spec(None)?;
            self.expect_op(")")?;
            spec
        } else {
            WindowSpec {
                base: Some(self.ident()?),
                bare: true,
                ..WindowSpec::default()
            }
        };
        Ok(Expr::Window(Box::new(WindowFunc { name, args, over })))
    }

    /// The inside of `( ... )` of a window: `[w] [PARTITION BY ...] [ORDER BY ...]
    /// [frame]`.
    fn window_spec(&mut self, name: Option<&str>) -> Result<WindowSpec> {
        let mut spec = WindowSpec::default();
        let starts_clause = ["PARTITION", "ORDER", "ROWS", "RANGE"]
            .iter()
            .any(|k| self.is_kw(k));
        if !starts_clause && !self.is_op(")") {
            spec.base = Some(self.ident()?);
        }
        if self.eat_kw("PARTITION") {
            self.expect_kw("BY")?;
            spec.partition_by = self.expr_list()?;
        }
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            spec.order_by = self.order_list()?;
        }
        // MySQL reads an integer there as a position, which windows do not allow.
        let position = spec
            .partition_by
            .iter()
            .chain(spec.order_by.iter().map(|o| &o.expr))
            .any(|e| {
                matches!(
                    e,
                    Expr::Literal(crate::value::Value::Int(_) | crate::value::Value::UInt(_))
                )
            });
        if position {
            return Err(KilnError::new(
                ErrorKind::ER_WINDOW_ILLEGAL_ORDER_BY,
                &[&name.unwrap_or("<unnamed window>")],
            ));
        }
        let rows = if self.eat_kw("ROWS") {
            Some(true)
        } else if self.eat_kw("RANGE") {
            Some(false)
        } else {
            None
        };
        if let Some(rows) = rows {
            let (start, end) = if self.eat_kw("BETWEEN") {
                let start = self.frame_bound(false)?;
                self.expect_kw("AND")?;
                (start, self.frame_bound(false)?)
            } else {
                (self.frame_bound(true)?, FrameBound::CurrentRow)
            };
            spec.frame = Some(WindowFrame { rows, start, end });
        }
        Ok(spec)
    }

    /// One frame bound. `short`: the bound of `ROWS x` without BETWEEN, which may
    /// only look back (MySQL's window_frame_start: FOLLOWING there is 1064). A bound
    /// BETWEEN takes every form; exec/window.rs rejects the impossible ones with
    /// MySQL's errors (3584, 3585).
    fn frame_bound(&mut self, short: bool) -> Result<FrameBound> {
        if self.eat_kw("UNBOUNDED") {
            if self.eat_kw("PRECEDING") {
                return Ok(FrameBound::UnboundedPreceding);
            }
            if short {
                return Err(self.error());
            }
            self.expect_kw("FOLLOWING")?;
            return Ok(FrameBound::UnboundedFollowing);
        }
        if self.eat_kw("CURRENT") {
            self.expect_kw("ROW")?;
            return Ok(FrameBound::CurrentRow);
        }
        let (value, unit) = if self.eat_kw("INTERVAL") {
            let (e, u) = self.interval_tail()?;
            (e, Some(u.name().to_string()))
        } else {
            match self.peek().tok {
                Tok::Int(_) | Tok::Decimal(_) | Tok::Float(_) | Tok::Placeholder => {
                    (self.primary()?, None)
                }
                _ => return Err(self.error()),
            }
        };
        if self.eat_kw("PRECEDING") {
            return Ok(FrameBound::Preceding(value, unit));
        }
        if short {
            return Err(self.error());
        }
        self.expect_kw("FOLLOWING")?;
        Ok(FrameBound::Following(value, unit))
    }

    /// `WINDOW w AS (...), ...` (the WINDOW keyword consumed).
    pub(super) fn window_clause(&mut self) -> Result<Vec<WindowSpec>> {
        let mut out = Vec::new();
        loop {
            let name = self.ident()?;
            self.expect_kw("AS")?;
            self.expect_op("(")?;
            let mut spec = self.window_spec(Some(&name))?;
            self.expect_op(")")?;
            spec.name = Some(name);
            out.push(spec);
            if !self.eat_op(",") {
                return Ok(out);
            }
        }
    }
}
