//! Stand-ins for what EXPLAIN cannot know without running the statement: values for
//! subqueries and outer columns (typed like the real ones, so the planner picks the
//! access path it would), constant conditions, and whether a subquery is correlated.

use super::*;

/// A constant that is true: a conjunct the executor's check never rejects a row by.
pub(super) fn constant_true(sess: &mut Session, e: &Expr) -> bool {
    is_constant(e) && eval(e, sess).is_ok_and(|v| v.to_bool() == Some(true))
}

/// Whether a subquery names columns its own tables do not have (then it runs per
/// outer row, correlate.rs). Unknown tables count as correlated: planning it reports
/// their error.
pub(super) fn correlated(sess: &mut Session, sel: &Select) -> bool {
    escapes(sess, sel, &[])
}

/// Whether `sel` refers to a column outside `enclosing` and its own FROM tables.
pub(super) fn escapes(
    sess: &mut Session,
    sel: &Select,
    enclosing: &[(String, Vec<String>)],
) -> bool {
    let mut names = enclosing.to_vec();
    super::super::correlate::inner_names(sess, &sel.from, &mut names);
    let aliases: Vec<String> = sel.items.iter().map(|i| i.name.clone()).collect();
    let mut exprs: Vec<&Expr> = sel.items.iter().map(|i| &i.expr).collect();
    exprs.extend(sel.filter.iter());
    exprs.extend(sel.group_by.iter());
    exprs.extend(sel.having.iter());
    exprs.extend(sel.order_by.iter().map(|o| &o.expr));
    fn ons<'a>(f: &'a FromItem, out: &mut Vec<&'a Expr>) {
        if let FromItem::Join {
            left, right, on, ..
        } = f
        {
            ons(left, out);
            ons(right, out);
            out.extend(on.iter());
        }
    }
    for f in &sel.from {
        ons(f, &mut exprs);
    }
    let mut escaped = false;
    for e in exprs {
        bind::visit(e, &mut |x| match x {
            Expr::Column { qualifier, name } if name != "*" => {
                let inner = match qualifier {
                    Some(q) => {
                        let q = q.rsplit('.').next().unwrap_or(q);
                        names.iter().any(|(a, _)| a == q)
                    }
                    None => {
                        names.iter().any(|(_, cols)| {
                            cols.iter()
                                .any(|c| c == "*" || c.eq_ignore_ascii_case(name))
                        }) || aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
                    }
                };
                escaped |= !inner;
            }
            Expr::Subquery(s) | Expr::Exists(s) => escaped |= escapes(sess, s, &names),
            Expr::InSubquery { select, .. } => escaped |= escapes(sess, select, &names),
            Expr::Quantified(q) => escaped |= escapes(sess, &q.select, &names),
            _ => {}
        });
    }
    if let Some((_, next)) = &sel.union {
        escaped |= escapes(sess, next, enclosing);
    }
    escaped
}

/// `e` with its uncorrelated subqueries replaced as select.rs's `run_subqueries`
/// replaces them, by stand-in values of their result types instead of their results
/// (EXPLAIN runs no subquery). Returns whether any stand-in value was used.
pub(in crate::exec) fn stand_in_subqueries(sess: &mut Session, e: &Expr) -> Result<(Expr, bool)> {
    let mut used = false;
    let out = bind::rewrite(e, &mut |x| match x {
        Expr::Literal(Value::Bytes(b)) if outer_mark_param(b).is_some() => {
            Ok(outer_mark_param(b).map(Expr::Param))
        }
        Expr::Subquery(sel) if !correlated(sess, sel) => {
            used = true;
            let mut row = result_stand_ins(sess, sel, 0)?;
            Ok(Some(match row.len() {
                1 => bind::literal(row.remove(0)),
                _ => Expr::Row(row.into_iter().map(bind::literal).collect()),
            }))
        }
        Expr::Exists(sel) if !correlated(sess, sel) => Ok(Some(bind::literal(Value::Int(1)))),
        Expr::InSubquery {
            expr,
            select,
            negated,
        } if !correlated(sess, select) => {
            used = true;
            let (expr, _) = stand_in_subqueries(sess, expr)?;
            let mut list = Vec::new();
            for k in 0..2 {
                let mut row = result_stand_ins(sess, select, k)?;
                list.push(match row.len() {
                    1 => bind::literal(row.remove(0)),
                    _ => Expr::Row(row.into_iter().map(bind::literal).collect()),
                });
            }
            Ok(Some(Expr::InList {
                expr: Box::new(expr),
                list,
                negated: *negated,
            }))
        }
        _ => Ok(None),
    })?;
    Ok((out, used))
}

/// Stand-in values for a subquery's result row (variant `k`: distinct values).
pub(super) fn result_stand_ins(sess: &mut Session, sel: &Select, k: usize) -> Result<Vec<Value>> {
    let columns = if sel.from.is_empty() {
        sel.items
            .iter()
            .map(|i| crate::infer::column_for(&i.name, &i.expr))
            .collect()
    } else {
        super::super::columns::describe(sess, sel)?
    };
    Ok(columns.iter().map(|c| kind_stand_in(c, k)).collect())
}

/// A value of a result column's type.
pub(super) fn kind_stand_in(c: &ColumnInfo, k: usize) -> Value {
    let n = k as i64 + 1;
    match c.kind {
        ColumnKind::Tiny
        | ColumnKind::Short
        | ColumnKind::Int24
        | ColumnKind::Long
        | ColumnKind::LongLong
        | ColumnKind::Year
        | ColumnKind::Bit
        | ColumnKind::Null => {
            if c.unsigned {
                Value::UInt(n as u64)
            } else {
                Value::Int(n)
            }
        }
        ColumnKind::Float | ColumnKind::Double => Value::Double(n as f64),
        ColumnKind::NewDecimal => Value::Decimal(n.to_string()),
        ColumnKind::Date => Value::Str(format!("2000-01-0{n}")),
        ColumnKind::DateTime | ColumnKind::Timestamp => {
            Value::Str(format!("2000-01-0{n} 00:00:00"))
        }
        ColumnKind::Time => Value::Str(format!("00:00:0{n}")),
        ColumnKind::Json => Value::Str("{}".into()),
        ColumnKind::String | ColumnKind::VarString | ColumnKind::Blob if c.binary => {
            Value::Bytes(vec![b'a' + k as u8])
        }
        ColumnKind::String | ColumnKind::VarString | ColumnKind::Blob => {
            Value::Str(((b'a' + k as u8) as char).to_string())
        }
    }
}

/// A value a column of type `ty` stores as it is.
pub(super) fn type_stand_in(ty: &SqlType) -> Value {
    match ty {
        SqlType::Int { unsigned: true, .. } => Value::UInt(1),
        SqlType::Int { .. } | SqlType::Bit(_) | SqlType::Year => Value::Int(1),
        SqlType::Decimal { .. } => Value::Decimal("1".into()),
        SqlType::Float { .. } | SqlType::Double { .. } => Value::Double(1.0),
        SqlType::Char { .. } | SqlType::VarChar { .. } | SqlType::Text { .. } => {
            Value::Str("a".into())
        }
        SqlType::Enum { members, .. } | SqlType::Set { members, .. } => {
            Value::Str(members.first().cloned().unwrap_or_default())
        }
        SqlType::Binary(_) | SqlType::VarBinary(_) | SqlType::Blob(_) => Value::Bytes(vec![b'a']),
        SqlType::Date => Value::Str("2000-01-01".into()),
        SqlType::DateTime(_) | SqlType::Timestamp(_) => Value::Str("2000-01-01 00:00:00".into()),
        SqlType::Time(_) => Value::Str("00:00:01".into()),
        SqlType::Json => Value::Str("{}".into()),
    }
}

/// A block's scope with stand-in values and labels for its columns: base table
/// columns by their types (`tables`: each table with its first slot), the rest 1.
pub(super) fn outer_of(scope: Scope, tables: &[(&TableHandle, usize)]) -> Outer {
    let mut row = vec![Value::Int(1); scope.columns.len()];
    let mut labels: Vec<String> = scope
        .columns
        .iter()
        .map(|c| format!("{}.{}", c.table, c.name))
        .collect();
    for (h, offset) in tables {
        for (i, c) in h.def.columns.iter().enumerate() {
            if let Some(slot) = row.get_mut(offset + i) {
                *slot = type_stand_in(&c.ty);
                labels[offset + i] = format!("{}.{}", h.def.schema, labels[offset + i]);
            }
        }
    }
    Outer { scope, row, labels }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_columns_match_mysql() {
        let c = columns();
        let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "id",
                "select_type",
                "table",
                "partitions",
                "type",
                "possible_keys",
                "key",
                "key_len",
                "ref",
                "rows",
                "filtered",
                "Extra"
            ]
        );
        assert_eq!(c[0].kind, ColumnKind::LongLong);
        assert_eq!(c[9].kind, ColumnKind::LongLong);
        assert_eq!(c[10].kind, ColumnKind::Double);
        assert_eq!(c[10].decimals, 2);
        assert!(c[1..9].iter().all(|c| c.kind == ColumnKind::VarString));
    }

    #[test]
    fn filtered_prints_two_decimals() {
        let r = Row {
            filtered: Some(100.0),
            ..Row::new(1, "SIMPLE")
        };
        assert_eq!(r.values()[10], Value::Decimal("100.00".into()));
    }
}
