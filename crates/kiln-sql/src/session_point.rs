//! The session's side of point plans (exec/point.rs), statement digests
//! (digest.rs) and the text-statement cache (stmt_cache.rs): running a parsed
//! statement through its plan (a prepared statement's other plans, exec/
//! prepared_plan.rs, are taken up in `Session::dispatch_with`), COM_QUERY point
//! selects found by digest, and COM_QUERY statements run from their template.

use kiln_common::Result;

use crate::ast::Stmt;
use crate::parse::Parsed;
use crate::result::Outcome;
use crate::session::Session;
use crate::value::Value;

impl Session {
    /// `dispatch`, through the statement's point plan when it has a current one; a
    /// point-select candidate without a plan gets one from its general execution.
    pub(crate) fn dispatch_parsed(
        &mut self,
        parsed: &Parsed,
        infile: &mut dyn crate::exec::load::LocalInfile,
    ) -> Result<Outcome> {
        use crate::exec::point;
        let slot = Some(&parsed.plan);
        let Stmt::Select(s) = &parsed.stmt else {
            return self.dispatch_with(&parsed.stmt, infile, slot);
        };
        if self.locked.is_some() {
            // LOCK TABLES' checks run in dispatch.
            return self.dispatch(&parsed.stmt, infile);
        }
        if let Some(plan) = parsed.point.get() {
            // The metadata lock first, then the dictionary version (as resolve_table
            // does): a DDL that changed the table is then seen, and none can start.
            let (schema, name) = plan.lock_name();
            self.lock_name(schema, name, crate::mdl::Mode::Shared)?;
            if plan.current(self) {
                crate::privcheck::check(self, &parsed.stmt)?;
                let params = std::mem::take(&mut self.params);
                let r = point::execute(self, &plan, &params);
                self.params = params;
                if let Some(rows) = r? {
                    crate::status::add("Kiln_point_plan_hits", 1);
                    return Ok(Outcome::Rows(rows));
                }
                return self.dispatch_with(&parsed.stmt, infile, slot);
            }
            parsed.point.reset();
        }
        if !(parsed.point.undecided() && point::is_candidate(s)) {
            return self.dispatch_with(&parsed.stmt, infile, slot);
        }
        let r = self.dispatch_with(&parsed.stmt, infile, slot);
        if let Ok(Outcome::Rows(rows)) = &r {
            let plan = point::plan(self, s, rows).ok().flatten();
            if plan.is_some() {
                crate::status::add("Kiln_point_plans", 1);
            }
            parsed.point.set(plan);
        }
        r
    }

    /// A text statement run without the parser: a primary-key point select through
    /// its digest's plan (digest.rs), or any statement of a cacheable kind through
    /// its template (stmt_cache.rs); the first text of a template is parsed and run
    /// here too. None: neither applies; the caller parses and executes it as usual.
    pub fn execute_text_cached(&mut self, sql: &str) -> Option<Result<Outcome>> {
        let version = self.dict.as_ref()?.version();
        let mode = self.lex_mode();
        let n = crate::digest::normalize(sql, mode)?;
        self.digests.validate(mode);
        if let Some(digest) = &n.digest
            && let Some(r) = self.execute_text_point(digest, &n.literals, version, mode)
        {
            return Some(r);
        }
        self.execute_text_template(sql, n, version, mode)
    }

    fn execute_text_template(
        &mut self,
        sql: &str,
        n: crate::digest::Normalized,
        version: u64,
        mode: crate::lexer::LexMode,
    ) -> Option<Result<Outcome>> {
        use crate::stmt_cache::{Entry, examine, instantiate};
        self.cached_vars();
        let sql_mode = self.var_cache.as_ref().map_or("", |c| c.sql_mode.as_str());
        self.stmt_cache
            .validate(version, self.database.as_deref(), sql_mode);
        match self.stmt_cache.get(&n.key) {
            Some(Entry::Template(t)) => {
                let stmt = instantiate(t, &n.literals)?;
                crate::status::add("Kiln_stmt_cache_hits", 1);
                let parsed = Parsed {
                    stmt,
                    param_count: 0,
                    point: Default::default(),
                    plan: Default::default(),
                };
                Some(self.execute(&parsed, Vec::new()))
            }
            Some(Entry::Not) => {
                crate::status::add("Kiln_stmt_cache_misses", 1);
                None
            }
            None => {
                // A text that does not parse is left to the caller, which reports it.
                let parsed = crate::parse::parse_one(sql, mode).ok()?;
                crate::status::add("Kiln_stmt_cache_misses", 1);
                let entry = examine(&parsed.stmt, n.template(), &n.literals, mode);
                let cacheable = matches!(entry, Entry::Template(_));
                self.stmt_cache.insert(n.key, entry);
                if !cacheable {
                    // Other statement kinds take the caller's path (LOAD DATA LOCAL
                    // there reads from the client).
                    return None;
                }
                Some(self.execute(&parsed, Vec::new()))
            }
        }
    }

    /// A primary-key point select run through its digest's plan. None: not one.
    fn execute_text_point(
        &mut self,
        digest: &str,
        literals: &[Value],
        version: u64,
        mode: crate::lexer::LexMode,
    ) -> Option<Result<Outcome>> {
        let parsed = match self.digests.get(digest) {
            Some(crate::digest::Entry::Point(p)) => p.clone(),
            Some(crate::digest::Entry::Not {
                version: v,
                database,
            }) if *v == version && *database == self.database => {
                return None;
            }
            _ => {
                let entry = match crate::digest::examine(self, digest, mode) {
                    Some(p) => crate::digest::Entry::Point(p),
                    None => crate::digest::Entry::Not {
                        version,
                        database: self.database.clone(),
                    },
                };
                self.digests.insert(digest.to_string(), entry.clone());
                match entry {
                    crate::digest::Entry::Point(p) => p,
                    crate::digest::Entry::Not { .. } => return None,
                }
            }
        };
        if parsed.param_count != literals.len() {
            return None;
        }
        if parsed.point.undecided() {
            // Planned at this execution: only if it still is a point select (a DDL
            // since the digest was examined may have changed the table).
            let Stmt::Select(s) = &parsed.stmt else {
                return None;
            };
            if !matches!(crate::exec::point::analyze(self, s), Ok(Some(_))) {
                return None;
            }
        } else if parsed.point.get().is_none() {
            // Its general execution found it no point select after all.
            return None;
        }
        Some(self.execute(&parsed, literals.to_vec()))
    }
}
