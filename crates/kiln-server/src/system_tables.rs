//! The tables of the `mysql` schema that clients expect to find: created at start-up
//! when missing, by a session of the server's own (`Session::run_bootstrap`).
//!
//! - `general_log` and `slow_log`, with MySQL 8.0's columns. kiln writes its logs to
//!   files (`log_output=FILE`), so they stay empty; `mysqldump` / `mariadb-dump
//!   --all-databases` reads their definitions unconditionally and stopped with
//!   "Table 'mysql.general_log' doesn't exist" before they were created.

use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use kiln_sql::session::Session;

use crate::server::Server;

/// MySQL 8.0's definitions (engine aside: kiln stores every table in its engine).
const LOG_TABLES: &str = "\
CREATE TABLE IF NOT EXISTS mysql.general_log (
  event_time TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  user_host MEDIUMTEXT NOT NULL,
  thread_id BIGINT UNSIGNED NOT NULL,
  server_id INT UNSIGNED NOT NULL,
  command_type VARCHAR(64) NOT NULL,
  argument MEDIUMBLOB NOT NULL
) DEFAULT CHARSET=utf8mb3 COMMENT='General log';
CREATE TABLE IF NOT EXISTS mysql.slow_log (
  start_time TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  user_host MEDIUMTEXT NOT NULL,
  query_time TIME(6) NOT NULL,
  lock_time TIME(6) NOT NULL,
  rows_sent INT NOT NULL,
  rows_examined INT NOT NULL,
  db VARCHAR(512) NOT NULL,
  last_insert_id INT NOT NULL,
  insert_id INT NOT NULL,
  server_id INT UNSIGNED NOT NULL,
  sql_text MEDIUMBLOB NOT NULL,
  thread_id BIGINT UNSIGNED NOT NULL
) DEFAULT CHARSET=utf8mb3 COMMENT='Slow log'";

/// Creates the missing system tables. Runs before the listeners accept anyone.
pub fn ensure(server: &'static Server) -> Result<(), String> {
    let Some(dict) = &server.dict else {
        return Ok(());
    };
    let mut s = Session::new(
        server.next_connection_id(),
        server.globals.new_session(),
        crate::global_hooks(server),
        Arc::new(AtomicU8::new(0)),
    );
    s.user = "system user".into();
    s.set_dictionary(dict.clone());
    s.run_bootstrap(LOG_TABLES)
        .map_err(|e| format!("cannot create the mysql schema's log tables: {}", e.message))
}
