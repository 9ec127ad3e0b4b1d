//! Which function names may be stored functions, for the parts of the executor that
//! decide without a session whether a call can be folded into a constant or
//! evaluated inside a running scan (`functions::has_side_effects`,
//! `exec::select::has_subquery`): a stored function's body may read and write tables
//! and is never constant.
//!
//! The answer is conservative: every name a stored function was ever created or
//! loaded with in this process (lower-cased, any database), and every qualified
//! call (`db.f`). A dropped function's name stays (it only costs the folding of a
//! call that would now fail anyway). One relaxed atomic load answers for servers
//! without stored functions; the set is bounded (`NAMES_MAX`, then every unknown name
//! counts).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{OnceLock, RwLock};

/// Names kept before every name is assumed to be a stored function's.
const NAMES_MAX: usize = 1 << 16;

static ANY: AtomicBool = AtomicBool::new(false);
static ALL: AtomicBool = AtomicBool::new(false);

fn set() -> &'static RwLock<HashSet<String>> {
    static SET: OnceLock<RwLock<HashSet<String>>> = OnceLock::new();
    SET.get_or_init(Default::default)
}

/// A stored function named `name` exists (CREATE FUNCTION, or loaded at start).
pub fn note(name: &str) {
    let lower = name.to_lowercase();
    let mut s = set().write().unwrap_or_else(|e| e.into_inner());
    if s.len() >= NAMES_MAX {
        ALL.store(true, Ordering::Relaxed);
    } else {
        s.insert(lower);
    }
    ANY.store(true, Ordering::Relaxed);
}

/// Whether any stored function may exist (one relaxed load).
pub fn any() -> bool {
    ANY.load(Ordering::Relaxed)
}

/// Whether a call of `name` (lower-case, as `Expr::Func` holds it) may be a stored
/// function's.
pub fn may_be_stored(name: &str) -> bool {
    if name.contains('.') {
        return true;
    }
    if !ANY.load(Ordering::Relaxed) {
        return false;
    }
    ALL.load(Ordering::Relaxed)
        || set()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(name)
}
