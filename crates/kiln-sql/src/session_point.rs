//! The session's side of point plans (exec/point.rs) and statement digests
//! (digest.rs): running a parsed statement through its plan, and COM_QUERY point
//! selects found by digest.

use kiln_common::Result;

use crate::ast::Stmt;
use crate::parse::Parsed;
use crate::result::Outcome;
use crate::session::Session;

impl Session {
    /// `dispatch`, through the statement's point plan when it has a current one; a
    /// point-select candidate without a plan gets one from its general execution.
    pub(crate) fn dispatch_parsed(
        &mut self,
        parsed: &Parsed,
        infile: &mut dyn crate::exec::load::LocalInfile,
    ) -> Result<Outcome> {
        use crate::exec::point;
        let Stmt::Select(s) = &parsed.stmt else {
            return self.dispatch(&parsed.stmt, infile);
        };
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
                return self.dispatch(&parsed.stmt, infile);
            }
            parsed.point.reset();
        }
        if !(parsed.point.undecided() && point::is_candidate(s)) {
            return self.dispatch(&parsed.stmt, infile);
        }
        let r = self.dispatch(&parsed.stmt, infile);
        if let Ok(Outcome::Rows(rows)) = &r {
            let plan = point::plan(self, s, rows).ok().flatten();
            if plan.is_some() {
                crate::status::add("Kiln_point_plans", 1);
            }
            parsed.point.set(plan);
        }
        r
    }

    /// A text statement that is a primary-key point select, run through its digest's
    /// plan (digest.rs). None: not one; the caller parses and executes it as usual.
    pub fn execute_text_point(&mut self, sql: &str) -> Option<Result<Outcome>> {
        self.dict.as_ref()?;
        let nbe = self.no_backslash_escapes();
        let (digest, literals) = crate::digest::normalize(sql, nbe)?;
        let version = self.dict().ok()?.version();
        let parsed = match self.digests.get(&digest) {
            Some(crate::digest::Entry::Point(p)) => p.clone(),
            Some(crate::digest::Entry::Not {
                version: v,
                database,
            }) if *v == version && *database == self.database => {
                return None;
            }
            _ => {
                let entry = match crate::digest::examine(self, &digest, nbe) {
                    Some(p) => crate::digest::Entry::Point(p),
                    None => crate::digest::Entry::Not {
                        version,
                        database: self.database.clone(),
                    },
                };
                self.digests.insert(digest.clone(), entry.clone());
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
        Some(self.execute(&parsed, literals))
    }
}
