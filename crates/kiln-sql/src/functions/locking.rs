//! The locking functions over the server's user-level lock table
//! (`crate::userlock`): GET_LOCK, RELEASE_LOCK, RELEASE_ALL_LOCKS, IS_FREE_LOCK,
//! IS_USED_LOCK, with MySQL 8.0's results — GET_LOCK is 1 (granted), 0 (timed out)
//! or NULL (killed while waiting); RELEASE_LOCK 1, 0 (another connection holds it)
//! or NULL (nobody does). A NULL or empty name, or one over 64 characters, is error
//! 3057.

use std::time::Duration;

use kiln_common::{ErrorKind, KilnError, Result};

use crate::eval::Env;
use crate::userlock::{Acquire, locks};
use crate::value::Value;

/// Calls of the functions above; None when `name` is not one of them.
pub fn call(name: &str, v: &[Value], env: &mut dyn Env) -> Result<Option<Value>> {
    let arity = match name {
        "get_lock" => (2, 2),
        "release_lock" | "is_free_lock" | "is_used_lock" => (1, 1),
        "release_all_locks" => (0, 0),
        _ => return Ok(None),
    };
    super::check_arity(name, v.len(), arity.0, arity.1)?;
    let conn = env.connection_id();
    if name == "release_all_locks" {
        return Ok(Some(Value::UInt(locks().release_all(conn))));
    }
    let lock_name = match v[0].to_string_lossy() {
        Some(s) => s,
        None => {
            return Err(KilnError::new(
                ErrorKind::ER_USER_LOCK_WRONG_NAME,
                &[&"NULL"],
            ));
        }
    };
    Ok(Some(match name {
        "get_lock" => {
            // The timeout is taken as an integer (MySQL's val_int); negative: none.
            let secs = v[1].to_f64().unwrap_or(0.0).round();
            let timeout = (secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
            let env_ref: &dyn Env = env;
            match locks().acquire(conn, &lock_name, timeout, &|| env_ref.is_interrupted())? {
                Acquire::Granted => Value::Int(1),
                Acquire::TimedOut => Value::Int(0),
                Acquire::Interrupted => Value::Null,
            }
        }
        "release_lock" => match locks().release(conn, &lock_name)? {
            Some(true) => Value::Int(1),
            Some(false) => Value::Int(0),
            None => Value::Null,
        },
        "is_free_lock" => Value::Int(locks().holder(&lock_name)?.is_none() as i64),
        "is_used_lock" => locks().holder(&lock_name)?.map_or(Value::Null, Value::UInt),
        _ => unreachable!("arity table covers {name}"),
    }))
}
