//! Command phase: decoding the first byte and body of each client packet into a
//! [`Command`]. Bodies are borrowed from the packet; nothing is copied here.

use crate::consts::com;
use crate::wire::{Reader, WireError};

/// A client command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command<'a> {
    Quit,
    InitDb(&'a [u8]),
    Query(&'a [u8]),
    FieldList {
        table: &'a [u8],
        wildcard: &'a [u8],
    },
    Statistics,
    ProcessInfo,
    ProcessKill(u32),
    Ping,
    /// Body is parsed by `handshake::parse_change_user`, which needs the capabilities.
    ChangeUser(&'a [u8]),
    StmtPrepare(&'a [u8]),
    /// Body is parsed by `stmt::parse_execute`, which needs the statement's parameter count.
    StmtExecute {
        statement_id: u32,
        body: &'a [u8],
    },
    StmtSendLongData {
        statement_id: u32,
        param_id: u16,
        data: &'a [u8],
    },
    StmtClose(u32),
    StmtReset(u32),
    StmtFetch {
        statement_id: u32,
        rows: u32,
    },
    SetOption(u16),
    ResetConnection,
    Debug,
    Shutdown,
    /// A command byte kiln does not implement (answered with ER_UNKNOWN_COM_ERROR).
    Unsupported(u8),
}

/// Decodes one command packet. An empty packet is malformed.
pub fn parse_command(payload: &[u8]) -> Result<Command<'_>, WireError> {
    let mut r = Reader::new(payload);
    let code = r.u8()?;
    Ok(match code {
        com::QUIT => Command::Quit,
        com::INIT_DB => Command::InitDb(r.rest()),
        com::QUERY => Command::Query(r.rest()),
        com::FIELD_LIST => {
            let table = r.nul_or_eof_bytes();
            Command::FieldList {
                table,
                wildcard: r.rest(),
            }
        }
        com::STATISTICS => Command::Statistics,
        com::PROCESS_INFO => Command::ProcessInfo,
        com::PROCESS_KILL => Command::ProcessKill(r.u32()?),
        com::PING => Command::Ping,
        com::CHANGE_USER => Command::ChangeUser(r.rest()),
        com::STMT_PREPARE => Command::StmtPrepare(r.rest()),
        com::STMT_EXECUTE => {
            let statement_id = r.u32()?;
            Command::StmtExecute {
                statement_id,
                body: r.rest(),
            }
        }
        com::STMT_SEND_LONG_DATA => {
            let statement_id = r.u32()?;
            let param_id = r.u16()?;
            Command::StmtSendLongData {
                statement_id,
                param_id,
                data: r.rest(),
            }
        }
        com::STMT_CLOSE => Command::StmtClose(r.u32()?),
        com::STMT_RESET => Command::StmtReset(r.u32()?),
        com::STMT_FETCH => {
            let statement_id = r.u32()?;
            Command::StmtFetch {
                statement_id,
                rows: r.u32()?,
            }
        }
        com::SET_OPTION => Command::SetOption(r.u16()?),
        com::RESET_CONNECTION => Command::ResetConnection,
        com::DEBUG => Command::Debug,
        com::SHUTDOWN => Command::Shutdown,
        other => Command::Unsupported(other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_common_commands() {
        assert_eq!(
            parse_command(b"\x03SELECT 1").unwrap(),
            Command::Query(b"SELECT 1")
        );
        assert_eq!(parse_command(b"\x0e").unwrap(), Command::Ping);
        assert_eq!(
            parse_command(b"\x0c\x05\x00\x00\x00").unwrap(),
            Command::ProcessKill(5)
        );
        assert_eq!(
            parse_command(b"\x19\x01\x00\x00\x00").unwrap(),
            Command::StmtClose(1)
        );
        assert_eq!(parse_command(b"\x0c\x05"), Err(WireError::Truncated));
        assert_eq!(parse_command(b""), Err(WireError::Truncated));
        assert_eq!(parse_command(b"\x99").unwrap(), Command::Unsupported(0x99));
    }
}
