//! EXPLAIN of INSERT / REPLACE, UPDATE and DELETE (single- and multi-table): the
//! target table's row, then what the statement reads, as MySQL 8.0 shows them.

use super::*;

impl Explainer<'_> {
    /// EXPLAIN INSERT / REPLACE: the target (MySQL shows it as ALL), then the
    /// SELECT's rows under the same id.
    pub(super) fn insert(&mut self, i: &Insert) -> Result<()> {
        let h = resolve_table(self.sess, &i.table)?;
        let st = if i.replace { "REPLACE" } else { "INSERT" };
        self.rows.push(Row {
            table: Some(h.def.name.clone()),
            access: Some("ALL"),
            ..Row::new(1, st)
        });
        if let InsertSource::Select(s) = &i.source {
            self.unit(s, 1, Unit::Top, false)?;
        }
        Ok(())
    }

    pub(super) fn update(&mut self, u: &Update) -> Result<()> {
        if super::super::dml_multi::is_multi_update(u) {
            let mut leaves = Vec::new();
            for f in &u.tables {
                join_leaves(self.sess, f, &mut leaves, false)?;
            }
            check_unique_aliases(&u.tables)?;
            let targets: Vec<String> = leaves
                .iter()
                .filter(|l| {
                    u.sets.iter().any(|(q, c, _)| match (q, &l.source) {
                        (Some(q), _) => *q == l.alias,
                        (None, LeafSource::Base(h)) => h.def.column_index(c).is_some(),
                        _ => false,
                    })
                })
                .map(|l| l.alias.clone())
                .collect();
            return self.multi(&u.tables, &leaves, &targets, "UPDATE", u.filter.as_ref());
        }
        let mut exprs: Vec<&Expr> = u.sets.iter().filter_map(|(_, _, e)| e.as_ref()).collect();
        exprs.extend(u.filter.iter());
        self.single_dml(&u.tables, u.filter.as_ref(), &u.order_by, "UPDATE", &exprs)
    }

    pub(super) fn delete(&mut self, d: &Delete) -> Result<()> {
        if d.multi {
            let mut leaves = Vec::new();
            for f in &d.from {
                join_leaves(self.sess, f, &mut leaves, false)?;
            }
            check_unique_aliases(&d.from)?;
            let targets: Vec<String> = d.targets.iter().map(|t| t.name.clone()).collect();
            return self.multi(&d.from, &leaves, &targets, "DELETE", d.filter.as_ref());
        }
        let exprs: Vec<&Expr> = d.filter.iter().collect();
        self.single_dml(&d.from, d.filter.as_ref(), &d.order_by, "DELETE", &exprs)
    }

    /// A single-table UPDATE / DELETE: dml.rs target_rows reads through access.rs
    /// with a locking read, then sorts for ORDER BY.
    fn single_dml(
        &mut self,
        from: &[FromItem],
        filter: Option<&Expr>,
        order_by: &[OrderItem],
        st: &str,
        exprs: &[&Expr],
    ) -> Result<()> {
        let [FromItem::Table { name, alias }] = from else {
            return Err(KilnError::internal(
                "a single-table statement with several tables",
            ));
        };
        let h = resolve_table(self.sess, name)?;
        let alias = alias.clone().unwrap_or_else(|| h.def.name.clone());
        let scope = Scope {
            columns: table_scope(&h, &alias),
        };
        let (bound, guessed) = match filter {
            Some(f) => {
                let (e, g) = stand_in_subqueries(self.sess, f)?;
                (Some(bind(&e, &scope, "where clause")?), g)
            }
            None => (None, false),
        };
        let table = TableRead {
            h: &h,
            alias: &alias,
            scope: &scope,
            filter: bound.as_ref(),
            dml: true,
            guessed,
            needed: None,
            order: None,
        };
        if let Some(mut row) = self.table_row(&table, 1, st)? {
            if !order_by.is_empty() {
                row.extra.push("Using filesort".into());
            }
            self.rows.push(row);
        }
        let mut next_id = 2;
        for e in exprs {
            let mut nested = Vec::new();
            subqueries_of(e, &mut nested);
            for u in nested {
                next_id = self.unit(
                    &u.select,
                    next_id,
                    Unit::Subquery { dependent: false },
                    false,
                )?;
            }
        }
        Ok(())
    }

    /// A multi-table UPDATE / DELETE: dml_multi.rs reads every table whole, joins,
    /// then filters by WHERE.
    fn multi(
        &mut self,
        from: &[FromItem],
        leaves: &[Leaf],
        targets: &[String],
        st: &str,
        filter: Option<&Expr>,
    ) -> Result<()> {
        let probe = Select {
            from: from.to_vec(),
            filter: filter.cloned(),
            ..Select::empty()
        };
        let nested = nested_units(&probe);
        let (ids, derived, _) = number(&nested, 2);
        let where_filters = filter.is_some();
        let name = |l: &Leaf| {
            if targets.contains(&l.alias) {
                st.to_string()
            } else {
                "SIMPLE".to_string()
            }
        };
        self.join_rows(leaves, 1, name, &derived, where_filters, Vec::new(), None)?;
        for (u, uid) in nested.iter().zip(ids) {
            let unit = if u.derived.is_some() {
                Unit::Derived
            } else {
                Unit::Subquery { dependent: false }
            };
            self.unit(&u.select, uid, unit, false)?;
        }
        Ok(())
    }
}
