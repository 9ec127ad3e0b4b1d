//! Generic response packets: OK (with session-state tracking), ERR and EOF.
//!
//! OK packet (protocol 4.1):
//!
//! | bytes  | field                                                         |
//! |--------|---------------------------------------------------------------|
//! | 1      | header: 0x00 (0xFE when it ends a result set under DEPRECATE_EOF) |
//! | lenenc | affected rows                                                 |
//! | lenenc | last insert id                                                |
//! | 2      | status flags                                                  |
//! | 2      | warning count                                                 |
//! | lenenc | info (length-encoded with or without CLIENT_SESSION_TRACK)      |
//! | lenenc | session state changes (only if SESSION_STATE_CHANGED is set)  |

use bytes::{BufMut, BytesMut};

use crate::consts::{cap, status};
use crate::wire::{put_lenenc_bytes, put_lenenc_int};

/// The session-state changes reported in an OK packet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionChanges {
    /// (name, value) of system variables that changed (SESSION_TRACK_SYSTEM_VARIABLES).
    pub system_variables: Vec<(String, String)>,
    /// New default schema (SESSION_TRACK_SCHEMA).
    pub schema: Option<String>,
    /// Whether any session state changed (SESSION_TRACK_STATE_CHANGE).
    pub state_changed: bool,
}

impl SessionChanges {
    pub fn is_empty(&self) -> bool {
        self.system_variables.is_empty() && self.schema.is_none() && !self.state_changed
    }

    fn encode(&self, out: &mut BytesMut) {
        let mut block = BytesMut::new();
        for (name, value) in &self.system_variables {
            let mut data = BytesMut::new();
            put_lenenc_bytes(&mut data, name.as_bytes());
            put_lenenc_bytes(&mut data, value.as_bytes());
            block.put_u8(0x00);
            put_lenenc_bytes(&mut block, &data);
        }
        if let Some(schema) = &self.schema {
            let mut data = BytesMut::new();
            put_lenenc_bytes(&mut data, schema.as_bytes());
            block.put_u8(0x01);
            put_lenenc_bytes(&mut block, &data);
        }
        if self.state_changed {
            block.put_u8(0x02);
            put_lenenc_bytes(&mut block, b"1");
        }
        put_lenenc_bytes(out, &block);
    }
}

/// Fields of an OK packet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OkPacket<'a> {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub status: u16,
    pub warnings: u16,
    pub info: &'a str,
    pub changes: Option<&'a SessionChanges>,
}

/// Appends an OK payload. `header` is 0x00, or 0xFE for the OK that ends a result set
/// when the client negotiated CLIENT_DEPRECATE_EOF.
pub fn put_ok(out: &mut BytesMut, ok: &OkPacket<'_>, header: u8, client_caps: u32) {
    out.put_u8(header);
    put_lenenc_int(out, ok.affected_rows);
    put_lenenc_int(out, ok.last_insert_id);
    let changes = ok
        .changes
        .filter(|c| !c.is_empty() && client_caps & cap::SESSION_TRACK != 0);
    let mut st = ok.status;
    if changes.is_some() {
        st |= status::SESSION_STATE_CHANGED;
    }
    out.put_u16_le(st);
    out.put_u16_le(ok.warnings);
    if client_caps & cap::SESSION_TRACK != 0 {
        if changes.is_some() || !ok.info.is_empty() {
            put_lenenc_bytes(out, ok.info.as_bytes());
        }
        if let Some(c) = changes {
            c.encode(out);
        }
    } else if !ok.info.is_empty() {
        // Length-encoded here too: MySQL's server writes it so (net_send_ok), and
        // libmysqlclient reads a length before the text whatever the capabilities
        // (the protocol documentation's "string<EOF>" is not what either side does).
        put_lenenc_bytes(out, ok.info.as_bytes());
    }
}

/// Appends an ERR payload. Messages are cut to MySQL's 512-byte limit.
pub fn put_err(out: &mut BytesMut, code: u16, sqlstate: &[u8; 5], message: &str) {
    out.put_u8(0xFF);
    out.put_u16_le(code);
    out.put_u8(b'#');
    out.put_slice(sqlstate);
    let mut m = message.as_bytes();
    if m.len() > 512 {
        let mut cut = 512;
        while !message.is_char_boundary(cut) {
            cut -= 1;
        }
        m = &m[..cut];
    }
    out.put_slice(m);
}

/// Appends a LOCAL INFILE request (LOAD DATA LOCAL): 0xFB and the file name, as the
/// statement wrote it. The client answers with the file's bytes in packets of any
/// size and an empty packet at the end (an empty packet alone when it refuses).
pub fn put_local_infile_request(out: &mut BytesMut, file_name: &[u8]) {
    out.put_u8(0xFB);
    out.put_slice(file_name);
}

/// Appends an EOF payload (only for clients without CLIENT_DEPRECATE_EOF).
pub fn put_eof(out: &mut BytesMut, warnings: u16, status: u16) {
    out.put_u8(0xFE);
    out.put_u16_le(warnings);
    out.put_u16_le(status);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Reader;

    #[test]
    fn ok_without_session_track_has_length_encoded_info() {
        let mut b = BytesMut::new();
        let ok = OkPacket {
            affected_rows: 3,
            info: "Rows matched: 3",
            status: 2,
            ..Default::default()
        };
        put_ok(&mut b, &ok, 0, cap::PROTOCOL_41);
        assert_eq!(&b[..], b"\x00\x03\x00\x02\x00\x00\x00\x0fRows matched: 3");
    }

    #[test]
    fn ok_with_schema_change() {
        let mut b = BytesMut::new();
        let ch = SessionChanges {
            schema: Some("test".into()),
            ..Default::default()
        };
        let ok = OkPacket {
            status: 2,
            changes: Some(&ch),
            ..Default::default()
        };
        put_ok(&mut b, &ok, 0, cap::PROTOCOL_41 | cap::SESSION_TRACK);
        let mut r = Reader::new(&b);
        r.skip(3).unwrap();
        assert_eq!(r.u16().unwrap(), 2 | status::SESSION_STATE_CHANGED);
        r.skip(2).unwrap();
        assert_eq!(r.lenenc_bytes().unwrap(), b"");
        let block = r.lenenc_bytes().unwrap();
        assert_eq!(block, b"\x01\x05\x04test");
    }

    #[test]
    fn err_layout() {
        let mut b = BytesMut::new();
        put_err(&mut b, 1045, b"28000", "Access denied");
        assert_eq!(&b[..], b"\xff\x15\x04#28000Access denied");
    }
}
