//! Command packets, including COM_STMT_EXECUTE parameter blocks with any declared
//! parameter count.
#![no_main]
use kiln_mysql::command::{Command, parse_command};
use kiln_mysql::stmt::parse_execute_params;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(Command::StmtExecute { body, .. }) = parse_command(data) {
        let n = body.first().copied().unwrap_or(0) as usize % 40;
        let mut types = Vec::new();
        let _ = parse_execute_params(body, n, &mut types, &[]);
        let long = vec![true; n];
        let _ = parse_execute_params(body, n, &mut types, &long);
    }
});
