//! INSERT, UPDATE and DELETE through a view (view.rs's `expand` calls these for a
//! statement whose single target is a view): resolving each updatable view level onto
//! its base table (`merge_chain`), rewriting the statement's column references and
//! WHERE, WITH CHECK OPTION, and UPDATE of a join view as a multi-table UPDATE. The
//! rules are in view.rs's module comment.

use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError, Result};

use super::view::{NESTING_MAX, columns_of, updatable_shape};
use crate::ast::*;
use crate::dict::{Catalog, CheckOption, ViewDef};
use crate::exec::bind;
use crate::parse::Parsed;
use crate::privilege;
use crate::session::Session;
use crate::value::Value;

/// One updatable view level, resolved onto its base table.
struct Merge {
    view: Arc<ViewDef>,
    /// The base table (maybe another view: the next level).
    base: TableName,
    /// View column name → expression over the base table (unqualified columns).
    columns: Vec<(String, Expr)>,
    /// The view's WHERE over the base table.
    filter: Option<Expr>,
}

/// Resolves the view a single-target DML names through every view level down to a
/// base table. None: the target is not a view.
fn merge_chain(
    sess: &mut Session,
    cat: &Arc<Catalog>,
    target: &TableName,
    stmt: &str,
) -> Result<Option<Vec<Merge>>> {
    let Some(schema) = target.schema.clone().or_else(|| sess.database.clone()) else {
        return Ok(None);
    };
    if sess.temp.get(&schema, &target.name).is_some() {
        return Ok(None);
    }
    let Some(mut v) = cat.view(&schema, &target.name).cloned() else {
        return Ok(None);
    };
    let mut chain: Vec<Merge> = Vec::new();
    loop {
        if chain.len() >= NESTING_MAX {
            return Err(KilnError::new(
                ErrorKind::ER_VIEW_RECURSIVE,
                &[&v.schema, &v.name],
            ));
        }
        let not_updatable = || {
            let kind = if stmt == "INSERT" {
                ErrorKind::ER_NON_INSERTABLE_TABLE
            } else {
                ErrorKind::ER_NON_UPDATABLE_TABLE
            };
            KilnError::new(kind, &[&target.name, &stmt])
        };
        let body = match crate::parse::parse_one(&v.select_text, v.lex_mode) {
            Ok(p) => match p.stmt {
                Stmt::Select(s) => *s,
                _ => return Err(not_updatable()),
            },
            Err(_) => {
                return Err(KilnError::new(
                    ErrorKind::ER_VIEW_INVALID,
                    &[&v.schema, &v.name],
                ));
            }
        };
        if !updatable_shape(&body) {
            return Err(not_updatable());
        }
        let [FromItem::Table { name, .. }] = body.from.as_slice() else {
            // A join view: MySQL updates one of its tables at a time; kiln does not.
            if stmt == "DELETE" {
                return Err(KilnError::new(
                    ErrorKind::ER_VIEW_DELETE_MERGE_VIEW,
                    &[&v.schema, &v.name],
                ));
            }
            return Err(not_updatable());
        };
        let base = TableName {
            schema: Some(name.schema.clone().unwrap_or_else(|| v.body_db.clone())),
            name: name.name.clone(),
        };
        let base_schema = base.schema.clone().unwrap_or_default();
        // The definer (or invoker) must hold the statement's privilege on the base.
        let need = match stmt {
            "INSERT" => privilege::INSERT,
            "UPDATE" => privilege::UPDATE,
            _ => privilege::DELETE,
        };
        let privs = if v.invoker {
            Some(sess.privileges())
        } else {
            sess.server
                .account_privileges(&v.definer_user, &v.definer_host)
        };
        let Some(privs) = privs else {
            return Err(KilnError::new(
                ErrorKind::ER_NO_SUCH_USER,
                &[&v.definer_user, &v.definer_host],
            ));
        };
        if !privs.table_has(&base_schema, &base.name, need) {
            return Err(KilnError::new(
                ErrorKind::ER_VIEW_INVALID,
                &[&v.schema, &v.name],
            ));
        }
        let next_view = cat.view(&base_schema, &base.name).cloned();
        if next_view.is_none() && cat.table(&base_schema, &base.name).is_none() {
            return Err(KilnError::new(
                ErrorKind::ER_VIEW_INVALID,
                &[&v.schema, &v.name],
            ));
        }
        // The view's columns as expressions over the base (qualifiers dropped: the
        // base is the only table).
        let mut columns = Vec::new();
        for item in &body.items {
            if matches!(&item.expr, Expr::Column { name, .. } if name == "*") {
                let base_cols: Vec<String> = match &next_view {
                    Some(nv) => {
                        let nv = nv.clone();
                        columns_of(sess, &nv)?.into_iter().map(|c| c.name).collect()
                    }
                    None => cat
                        .table(&base_schema, &base.name)
                        .map(|t| {
                            t.def
                                .columns
                                .iter()
                                .filter(|c| !c.invisible)
                                .map(|c| c.name.clone())
                                .collect()
                        })
                        .unwrap_or_default(),
                };
                for c in base_cols {
                    columns.push((
                        c.clone(),
                        Expr::Column {
                            qualifier: None,
                            name: c,
                        },
                    ));
                }
            } else {
                columns.push((item.name.clone(), unqualify(&item.expr)?));
            }
        }
        if !v.columns.is_empty() {
            if v.columns.len() != columns.len() {
                return Err(KilnError::new(
                    ErrorKind::ER_VIEW_INVALID,
                    &[&v.schema, &v.name],
                ));
            }
            for ((n, _), new) in columns.iter_mut().zip(&v.columns) {
                *n = new.clone();
            }
        }
        let filter = body.filter.as_ref().map(unqualify).transpose()?;
        chain.push(Merge {
            view: v.clone(),
            base: base.clone(),
            columns,
            filter,
        });
        match next_view {
            Some(nv) => v = nv,
            None => return Ok(Some(chain)),
        }
    }
}

/// `e` with the qualifiers of its columns dropped (not inside subqueries).
fn unqualify(e: &Expr) -> Result<Expr> {
    bind::rewrite(e, &mut |x| {
        Ok(match x {
            Expr::Column { name, .. } if name != "*" => Some(Expr::Column {
                qualifier: None,
                name: name.clone(),
            }),
            _ => None,
        })
    })
}

impl Merge {
    /// The expression of view column `name` (qualified by the view's alias or not).
    fn column(&self, qualifier: Option<&str>, name: &str, alias: &str) -> Option<&Expr> {
        if qualifier.is_some_and(|q| q != alias) {
            return None;
        }
        self.columns
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, e)| e)
    }

    /// `e` (over the view) as an expression over the base table.
    fn substitute(&self, e: &Expr, alias: &str) -> Result<Expr> {
        bind::rewrite(e, &mut |x| {
            Ok(match x {
                Expr::Column { qualifier, name } if name != "*" => {
                    match self.column(qualifier.as_deref(), name, alias) {
                        Some(r) => Some(r.clone()),
                        None => {
                            return Err(KilnError::new(
                                ErrorKind::ER_BAD_FIELD_ERROR,
                                &[&name, &"field list"],
                            ));
                        }
                    }
                }
                _ => None,
            })
        })
    }

    /// A statement's WHERE and ORDER BY over the view, moved onto the base table (the
    /// view's WHERE ANDed in).
    fn merge_where(
        &self,
        filter: &mut Option<Expr>,
        order_by: &mut [OrderItem],
        alias: &str,
    ) -> Result<()> {
        let own = filter
            .as_ref()
            .map(|f| self.substitute(f, alias))
            .transpose()?;
        *filter = and(own, self.filter.clone());
        for o in order_by {
            o.expr = self.substitute(&o.expr, alias)?;
        }
        Ok(())
    }

    /// The base column a view column assigns to (1348 when it is an expression).
    fn base_column(&self, name: &str) -> Result<String> {
        match self.column(None, name, "") {
            Some(Expr::Column { name: base, .. }) => Ok(base.clone()),
            Some(_) => Err(KilnError::new(ErrorKind::ER_NONUPDATEABLE_COLUMN, &[&name])),
            None => Err(KilnError::new(
                ErrorKind::ER_BAD_FIELD_ERROR,
                &[&name, &"field list"],
            )),
        }
    }
}

fn and(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Expr::Binary {
            op: BinaryOp::And,
            left: Box::new(a),
            right: Box::new(b),
        }),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The WHERE conditions WITH CHECK OPTION enforces, over the final base table: a
/// level's own when it or a view above it is CASCADED, or it has a CHECK OPTION.
fn check_conditions(chain: &[Merge]) -> Vec<(Expr, Arc<ViewDef>)> {
    let mut out: Vec<(Expr, Arc<ViewDef>)> = Vec::new();
    let mut cascaded = false;
    let top = chain[0].view.clone();
    for (i, m) in chain.iter().enumerate() {
        let own = m.view.check != CheckOption::None;
        if let Some(f) = &m.filter
            && (own || cascaded)
        {
            // Bring the condition down through the levels below this one.
            let mut e = f.clone();
            for lower in &chain[i + 1..] {
                match lower.substitute(&e, "") {
                    Ok(x) => e = x,
                    Err(_) => break,
                }
            }
            out.push((e, top.clone()));
        }
        cascaded |= m.view.check == CheckOption::Cascaded;
    }
    out
}

fn check_failed(v: &ViewDef) -> KilnError {
    KilnError::new(ErrorKind::ER_VIEW_CHECK_FAILED, &[&v.schema, &v.name])
}

pub(super) fn dml_target_update(
    sess: &mut Session,
    cat: &Arc<Catalog>,
    u: &mut Update,
) -> Result<()> {
    let [FromItem::Table { name, alias }] = u.tables.as_slice() else {
        return Ok(());
    };
    let (name, alias) = (name.clone(), alias.clone());
    if join_view_update(sess, cat, u, &name, alias.as_deref())? {
        return Ok(());
    }
    let Some(chain) = merge_chain(sess, cat, &name, "UPDATE")? else {
        return Ok(());
    };
    let mut alias = alias.unwrap_or_else(|| name.name.clone());
    let checks = check_conditions(&chain);
    for m in &chain {
        let mut sets = Vec::with_capacity(u.sets.len());
        for (q, c, e) in &u.sets {
            if q.as_deref().is_some_and(|q| q != alias) {
                return Err(KilnError::new(
                    ErrorKind::ER_BAD_FIELD_ERROR,
                    &[
                        &format!("{}.{c}", q.as_deref().unwrap_or_default()),
                        &"field list",
                    ],
                ));
            }
            let e = match e {
                Some(e) => Some(m.substitute(e, &alias)?),
                None => None,
            };
            sets.push((None, m.base_column(c)?, e));
        }
        u.sets = sets;
        m.merge_where(&mut u.filter, &mut u.order_by, &alias)?;
        alias = m.base.name.clone();
    }
    let base = chain.last().expect("a chain has a level").base.clone();
    u.tables = vec![FromItem::Table {
        name: base.clone(),
        alias: None,
    }];
    // CHECK OPTION: no row this statement changes may leave the view.
    for (cond, v) in checks {
        let new_values = bind::rewrite(&cond, &mut |x| {
            Ok(match x {
                Expr::Column { name, .. } => u
                    .sets
                    .iter()
                    .find(|(_, c, _)| c.eq_ignore_ascii_case(name))
                    .and_then(|(_, _, e)| e.clone()),
                _ => None,
            })
        })?;
        let mut probe = Select::empty();
        probe.items = vec![SelectItem {
            expr: Expr::Literal(Value::Int(1)),
            name: "1".into(),
        }];
        probe.from = vec![FromItem::Table {
            name: base.clone(),
            alias: None,
        }];
        probe.filter = and(
            u.filter.clone(),
            Some(Expr::IsBool {
                expr: Box::new(new_values),
                value: Some(true),
                negated: true,
            }),
        );
        probe.limit = Some(Expr::Literal(Value::Int(1)));
        if !super::select::run(sess, &probe)?.rows.is_empty() {
            return Err(check_failed(&v));
        }
    }
    Ok(())
}

/// UPDATE of a join view over base tables (MySQL's rule: the assigned columns all
/// belong to one of its tables, else 1393): a multi-table UPDATE over the view's
/// joins, its WHERE ANDed in. Returns false when `name` is no such view (CHECK OPTION
/// views and views over views take the single-table path, which refuses joins).
fn join_view_update(
    sess: &mut Session,
    cat: &Arc<Catalog>,
    u: &mut Update,
    name: &TableName,
    alias: Option<&str>,
) -> Result<bool> {
    let Some(schema) = name.schema.clone().or_else(|| sess.database.clone()) else {
        return Ok(false);
    };
    if sess.temp.get(&schema, &name.name).is_some() {
        return Ok(false);
    }
    let Some(v) = cat.view(&schema, &name.name).cloned() else {
        return Ok(false);
    };
    let Ok(Parsed {
        stmt: Stmt::Select(mut body),
        ..
    }) = crate::parse::parse_one(&v.select_text, v.lex_mode)
    else {
        return Ok(false);
    };
    let star = body
        .items
        .iter()
        .any(|i| matches!(&i.expr, Expr::Column { name, .. } if name == "*"));
    if v.check != CheckOption::None
        || star
        || !updatable_shape(&body)
        || matches!(body.from.as_slice(), [FromItem::Table { .. }])
    {
        return Ok(false);
    }
    // Qualify the joined tables; each must be a base table the definer may change.
    let mut tables = Vec::new();
    for f in &mut body.from {
        qualify_from(f, &v.body_db, &mut tables);
    }
    let privs = if v.invoker {
        Some(sess.privileges())
    } else {
        sess.server
            .account_privileges(&v.definer_user, &v.definer_host)
    };
    let invalid = || KilnError::new(ErrorKind::ER_VIEW_INVALID, &[&v.schema, &v.name]);
    for (s, t) in &tables {
        if cat.table(s, t).is_none() {
            return Err(if cat.view(s, t).is_some() {
                KilnError::new(ErrorKind::ER_NON_UPDATABLE_TABLE, &[&name.name, &"UPDATE"])
            } else {
                invalid()
            });
        }
        if !privs
            .as_ref()
            .is_some_and(|p| p.table_has(s, t, privilege::UPDATE | privilege::SELECT))
        {
            return Err(invalid());
        }
    }
    let names: Vec<String> = if v.columns.is_empty() {
        body.items.iter().map(|i| i.name.clone()).collect()
    } else {
        v.columns.clone()
    };
    if names.len() != body.items.len() {
        return Err(invalid());
    }
    let alias = alias.unwrap_or(&name.name).to_string();
    let lookup = |q: Option<&str>, c: &str| -> Result<Expr> {
        if q.is_some_and(|q| q != alias) {
            return Err(KilnError::new(
                ErrorKind::ER_BAD_FIELD_ERROR,
                &[&c, &"field list"],
            ));
        }
        names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(c))
            .map(|i| body.items[i].expr.clone())
            .ok_or_else(|| KilnError::new(ErrorKind::ER_BAD_FIELD_ERROR, &[&c, &"field list"]))
    };
    let substitute = |e: &Expr| {
        bind::rewrite(e, &mut |x| {
            Ok(match x {
                Expr::Column { qualifier, name } if name != "*" => {
                    Some(lookup(qualifier.as_deref(), name)?)
                }
                _ => None,
            })
        })
    };
    let mut sets = Vec::with_capacity(u.sets.len());
    let mut target: Option<Option<String>> = None;
    for (q, c, e) in &u.sets {
        let Expr::Column {
            qualifier,
            name: base,
        } = lookup(q.as_deref(), c)?
        else {
            return Err(KilnError::new(ErrorKind::ER_NONUPDATEABLE_COLUMN, &[c]));
        };
        if target.as_ref().is_some_and(|t| *t != qualifier) {
            return Err(KilnError::new(
                ErrorKind::ER_VIEW_MULTIUPDATE,
                &[&v.schema, &v.name],
            ));
        }
        target = Some(qualifier.clone());
        let e = e.as_ref().map(&substitute).transpose()?;
        sets.push((qualifier, base, e));
    }
    let filter = u.filter.as_ref().map(&substitute).transpose()?;
    u.filter = and(filter, body.filter.take());
    u.sets = sets;
    u.tables = body.from;
    Ok(true)
}

/// Qualifies the tables of a FROM item with `db`; collects (schema, name) of each.
fn qualify_from(f: &mut FromItem, db: &str, out: &mut Vec<(String, String)>) {
    match f {
        FromItem::Table { name, .. } => {
            let s = name.schema.get_or_insert_with(|| db.to_string());
            out.push((s.clone(), name.name.clone()));
        }
        FromItem::Derived { .. } => {}
        FromItem::Join { left, right, .. } => {
            qualify_from(left, db, out);
            qualify_from(right, db, out);
        }
    }
}

pub(super) fn dml_target_delete(
    sess: &mut Session,
    cat: &Arc<Catalog>,
    d: &mut Delete,
) -> Result<()> {
    if d.multi {
        return Ok(());
    }
    let [FromItem::Table { name, alias }] = d.from.as_slice() else {
        return Ok(());
    };
    let (name, alias) = (name.clone(), alias.clone());
    let Some(chain) = merge_chain(sess, cat, &name, "DELETE")? else {
        return Ok(());
    };
    let mut alias = alias.unwrap_or_else(|| name.name.clone());
    for m in &chain {
        m.merge_where(&mut d.filter, &mut d.order_by, &alias)?;
        alias = m.base.name.clone();
    }
    let base = chain.last().expect("a chain has a level").base.clone();
    d.targets = vec![base.clone()];
    d.from = vec![FromItem::Table {
        name: base,
        alias: None,
    }];
    Ok(())
}

pub(super) fn dml_target_insert(
    sess: &mut Session,
    cat: &Arc<Catalog>,
    i: &mut Insert,
) -> Result<()> {
    let Some(chain) = merge_chain(sess, cat, &i.table, "INSERT")? else {
        return Ok(());
    };
    let checks = check_conditions(&chain);
    for m in &chain {
        let names: Vec<String> = if i.columns.is_empty() {
            m.columns.iter().map(|(n, _)| n.clone()).collect()
        } else {
            i.columns.clone()
        };
        if let InsertSource::Set(sets) = &mut i.source {
            for (c, _) in sets.iter_mut() {
                *c = m.base_column(c)?;
            }
        } else {
            i.columns = names
                .iter()
                .map(|n| m.base_column(n))
                .collect::<Result<_>>()?;
        }
        let mut dup = Vec::with_capacity(i.on_duplicate.len());
        for (c, e) in &i.on_duplicate {
            dup.push((m.base_column(c)?, m.substitute(e, "")?));
        }
        i.on_duplicate = dup;
    }
    i.table = chain.last().expect("a chain has a level").base.clone();
    if checks.is_empty() {
        return Ok(());
    }
    // CHECK OPTION: every row given by value must satisfy the conditions.
    let rows: Vec<Vec<(String, Option<Expr>)>> = match &i.source {
        InsertSource::Values(rows) => rows
            .iter()
            .map(|r| i.columns.iter().cloned().zip(r.iter().cloned()).collect())
            .collect(),
        InsertSource::Set(sets) => vec![sets.clone()],
        InsertSource::Select(_) => Vec::new(),
    };
    for row in rows {
        for (cond, v) in &checks {
            let e = bind::rewrite(cond, &mut |x| {
                Ok(match x {
                    Expr::Column { name, .. } => Some(
                        row.iter()
                            .find(|(c, _)| c.eq_ignore_ascii_case(name))
                            .and_then(|(_, e)| e.clone())
                            .unwrap_or(Expr::Literal(Value::Null)),
                    ),
                    _ => None,
                })
            })?;
            if crate::eval::eval(&e, sess)?.to_bool() != Some(true) {
                return Err(check_failed(v));
            }
        }
    }
    Ok(())
}
