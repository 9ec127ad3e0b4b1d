//! Connection phase: the server's Handshake v10, the client's SSLRequest and
//! HandshakeResponse41, auth switch and "more data" packets, and COM_CHANGE_USER's
//! body (which carries a handshake response of its own).
//!
//! Handshake v10 payload (server → client):
//!
//! | bytes | field                                                     |
//! |-------|-----------------------------------------------------------|
//! | 1     | protocol version, always 10                               |
//! | n+1   | server version, NUL-terminated                            |
//! | 4     | connection id                                             |
//! | 8     | auth-plugin-data part 1 (first 8 scramble bytes)          |
//! | 1     | filler 0x00                                               |
//! | 2     | capability flags, lower 16 bits                           |
//! | 1     | character set (collation id)                              |
//! | 2     | status flags                                              |
//! | 2     | capability flags, upper 16 bits                           |
//! | 1     | length of auth-plugin-data (21: 20 scramble bytes + NUL)  |
//! | 10    | reserved, zero                                            |
//! | 13    | auth-plugin-data part 2 (12 scramble bytes + NUL)         |
//! | n+1   | auth plugin name, NUL-terminated                          |

use bytes::{BufMut, BytesMut};

use crate::consts::cap;
use crate::wire::{Reader, WireError, put_lenenc_bytes, put_nul_bytes};

/// Limits on what a client may send in its handshake response.
pub const USER_BYTES_MAX: usize = 512;
pub const AUTH_RESPONSE_BYTES_MAX: usize = 2048;
pub const DATABASE_BYTES_MAX: usize = 512;
pub const CONNECT_ATTRS_BYTES_MAX: usize = 65_536;
pub const CONNECT_ATTRS_COUNT_MAX: usize = 256;

/// Builds the Handshake v10 payload.
pub fn handshake_v10(
    server_version: &str,
    connection_id: u32,
    scramble: &[u8; 20],
    capabilities: u32,
    collation_id: u8,
    status_flags: u16,
    auth_plugin: &str,
) -> BytesMut {
    let mut p = BytesMut::with_capacity(128);
    p.put_u8(10);
    put_nul_bytes(&mut p, server_version.as_bytes());
    p.put_u32_le(connection_id);
    p.put_slice(&scramble[..8]);
    p.put_u8(0);
    p.put_u16_le(capabilities as u16);
    p.put_u8(collation_id);
    p.put_u16_le(status_flags);
    p.put_u16_le((capabilities >> 16) as u16);
    p.put_u8(21);
    p.put_slice(&[0u8; 10]);
    p.put_slice(&scramble[8..]);
    p.put_u8(0);
    put_nul_bytes(&mut p, auth_plugin.as_bytes());
    p
}

/// What the client sent in reply to the handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientHello {
    /// The short SSLRequest: the client wants TLS before sending credentials.
    SslRequest {
        capabilities: u32,
        max_packet: u32,
        collation_id: u8,
    },
    Response(HandshakeResponse),
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HandshakeResponse {
    pub capabilities: u32,
    pub max_packet: u32,
    pub collation_id: u8,
    pub user: Vec<u8>,
    pub auth_response: Vec<u8>,
    pub database: Option<Vec<u8>>,
    pub auth_plugin: Option<String>,
    pub attributes: Vec<(String, String)>,
}

/// Why a handshake response was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandshakeError {
    Wire(WireError),
    /// The client lacks CLIENT_PROTOCOL_41 (pre-4.1 clients are not supported).
    Protocol40,
    /// A field exceeded its limit.
    TooLong(&'static str),
}

impl From<WireError> for HandshakeError {
    fn from(e: WireError) -> Self {
        HandshakeError::Wire(e)
    }
}

/// Parses the client's first packet after the handshake.
pub fn parse_client_hello(payload: &[u8]) -> Result<ClientHello, HandshakeError> {
    let mut r = Reader::new(payload);
    let capabilities = r.u32()?;
    if capabilities & cap::PROTOCOL_41 == 0 {
        return Err(HandshakeError::Protocol40);
    }
    let max_packet = r.u32()?;
    let collation_id = r.u8()?;
    r.skip(23)?;
    if r.is_empty() && capabilities & cap::SSL != 0 {
        return Ok(ClientHello::SslRequest {
            capabilities,
            max_packet,
            collation_id,
        });
    }
    let user = r.nul_bytes()?;
    bounded("user", user, USER_BYTES_MAX)?;
    let auth_response = read_auth_response(&mut r, capabilities)?;
    let mut resp = HandshakeResponse {
        capabilities,
        max_packet,
        collation_id,
        user: user.to_vec(),
        auth_response,
        ..Default::default()
    };
    if capabilities & cap::CONNECT_WITH_DB != 0 && !r.is_empty() {
        let db = r.nul_or_eof_bytes();
        bounded("database", db, DATABASE_BYTES_MAX)?;
        if !db.is_empty() {
            resp.database = Some(db.to_vec());
        }
    }
    if capabilities & cap::PLUGIN_AUTH != 0 && !r.is_empty() {
        let plugin = r.nul_or_eof_bytes();
        bounded("auth plugin", plugin, 64)?;
        resp.auth_plugin = Some(String::from_utf8_lossy(plugin).into_owned());
    }
    if capabilities & cap::CONNECT_ATTRS != 0 && !r.is_empty() {
        resp.attributes = read_attributes(&mut r)?;
    }
    Ok(ClientHello::Response(resp))
}

fn bounded(what: &'static str, v: &[u8], max: usize) -> Result<(), HandshakeError> {
    if v.len() > max {
        Err(HandshakeError::TooLong(what))
    } else {
        Ok(())
    }
}

fn read_auth_response(r: &mut Reader<'_>, capabilities: u32) -> Result<Vec<u8>, HandshakeError> {
    let v = if capabilities & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        r.lenenc_bytes()?
    } else if capabilities & cap::SECURE_CONNECTION != 0 {
        let n = r.u8()? as usize;
        r.bytes(n)?
    } else {
        r.nul_bytes()?
    };
    bounded("auth response", v, AUTH_RESPONSE_BYTES_MAX)?;
    Ok(v.to_vec())
}

fn read_attributes(r: &mut Reader<'_>) -> Result<Vec<(String, String)>, HandshakeError> {
    let block = r.lenenc_bytes()?;
    bounded("connection attributes", block, CONNECT_ATTRS_BYTES_MAX)?;
    let mut a = Reader::new(block);
    let mut out = Vec::new();
    while !a.is_empty() {
        if out.len() >= CONNECT_ATTRS_COUNT_MAX {
            return Err(HandshakeError::TooLong("connection attributes"));
        }
        let k = a.lenenc_bytes()?;
        let v = a.lenenc_bytes()?;
        out.push((
            String::from_utf8_lossy(k).into_owned(),
            String::from_utf8_lossy(v).into_owned(),
        ));
    }
    Ok(out)
}

/// COM_CHANGE_USER's body (after the command byte).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangeUser {
    pub user: Vec<u8>,
    pub auth_response: Vec<u8>,
    pub database: Option<Vec<u8>>,
    pub collation_id: Option<u16>,
    pub auth_plugin: Option<String>,
    pub attributes: Vec<(String, String)>,
}

pub fn parse_change_user(body: &[u8], capabilities: u32) -> Result<ChangeUser, HandshakeError> {
    let mut r = Reader::new(body);
    let user = r.nul_bytes()?;
    bounded("user", user, USER_BYTES_MAX)?;
    let auth_response = if capabilities & cap::SECURE_CONNECTION != 0 {
        let n = r.u8()? as usize;
        r.bytes(n)?.to_vec()
    } else {
        r.nul_bytes()?.to_vec()
    };
    bounded("auth response", &auth_response, AUTH_RESPONSE_BYTES_MAX)?;
    let mut cu = ChangeUser {
        user: user.to_vec(),
        auth_response,
        ..Default::default()
    };
    if !r.is_empty() {
        let db = r.nul_or_eof_bytes();
        bounded("database", db, DATABASE_BYTES_MAX)?;
        if !db.is_empty() {
            cu.database = Some(db.to_vec());
        }
    }
    if r.remaining() >= 2 {
        cu.collation_id = Some(r.u16()?);
    }
    if capabilities & cap::PLUGIN_AUTH != 0 && !r.is_empty() {
        let plugin = r.nul_or_eof_bytes();
        bounded("auth plugin", plugin, 64)?;
        cu.auth_plugin = Some(String::from_utf8_lossy(plugin).into_owned());
    }
    if capabilities & cap::CONNECT_ATTRS != 0 && !r.is_empty() {
        cu.attributes = read_attributes(&mut r)?;
    }
    Ok(cu)
}

/// AuthSwitchRequest: asks the client to authenticate with another plugin.
pub fn auth_switch_request(plugin: &str, data: &[u8]) -> BytesMut {
    let mut p = BytesMut::with_capacity(2 + plugin.len() + data.len() + 1);
    p.put_u8(0xFE);
    put_nul_bytes(&mut p, plugin.as_bytes());
    p.put_slice(data);
    p.put_u8(0);
    p
}

/// AuthMoreData: plugin-specific data in the middle of an exchange (0x01 + data).
pub fn auth_more_data(data: &[u8]) -> BytesMut {
    let mut p = BytesMut::with_capacity(1 + data.len());
    p.put_u8(0x01);
    p.put_slice(data);
    p
}

/// Builds a HandshakeResponse41 (client side; used by tests and the fuzz corpus).
pub fn build_handshake_response(resp: &HandshakeResponse) -> BytesMut {
    let mut p = BytesMut::new();
    p.put_u32_le(resp.capabilities);
    p.put_u32_le(resp.max_packet);
    p.put_u8(resp.collation_id);
    p.put_slice(&[0u8; 23]);
    put_nul_bytes(&mut p, &resp.user);
    if resp.capabilities & cap::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        put_lenenc_bytes(&mut p, &resp.auth_response);
    } else {
        p.put_u8(resp.auth_response.len() as u8);
        p.put_slice(&resp.auth_response);
    }
    if resp.capabilities & cap::CONNECT_WITH_DB != 0 {
        put_nul_bytes(&mut p, resp.database.as_deref().unwrap_or(b""));
    }
    if resp.capabilities & cap::PLUGIN_AUTH != 0 {
        put_nul_bytes(&mut p, resp.auth_plugin.as_deref().unwrap_or("").as_bytes());
    }
    if resp.capabilities & cap::CONNECT_ATTRS != 0 {
        let mut a = BytesMut::new();
        for (k, v) in &resp.attributes {
            put_lenenc_bytes(&mut a, k.as_bytes());
            put_lenenc_bytes(&mut a, v.as_bytes());
        }
        put_lenenc_bytes(&mut p, &a);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handshake_layout() {
        let s: [u8; 20] = *b"abcdefghijklmnopqrst";
        let p = handshake_v10(
            "8.0.40-kiln",
            7,
            &s,
            cap::SERVER_DEFAULT,
            255,
            2,
            "caching_sha2_password",
        );
        assert_eq!(p[0], 10);
        let mut r = Reader::new(&p);
        r.u8().unwrap();
        assert_eq!(r.nul_bytes().unwrap(), b"8.0.40-kiln");
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.bytes(8).unwrap(), b"abcdefgh");
        assert_eq!(r.u8().unwrap(), 0);
        let lo = r.u16().unwrap() as u32;
        assert_eq!(r.u8().unwrap(), 255);
        assert_eq!(r.u16().unwrap(), 2);
        let hi = r.u16().unwrap() as u32;
        assert_eq!(lo | hi << 16, cap::SERVER_DEFAULT);
        assert_eq!(r.u8().unwrap(), 21);
        r.skip(10).unwrap();
        assert_eq!(r.bytes(13).unwrap(), b"ijklmnopqrst\0");
        assert_eq!(r.nul_bytes().unwrap(), b"caching_sha2_password");
        assert!(r.is_empty());
    }

    #[test]
    fn response_round_trip() {
        let resp = HandshakeResponse {
            capabilities: cap::SERVER_DEFAULT,
            max_packet: 1 << 24,
            collation_id: 45,
            user: b"root".to_vec(),
            auth_response: vec![1; 20],
            database: Some(b"test".to_vec()),
            auth_plugin: Some("mysql_native_password".into()),
            attributes: vec![("_client_name".into(), "libmariadb".into())],
        };
        let p = build_handshake_response(&resp);
        assert_eq!(parse_client_hello(&p).unwrap(), ClientHello::Response(resp));
    }

    #[test]
    fn ssl_request_is_32_bytes() {
        let mut p = BytesMut::new();
        p.put_u32_le(cap::PROTOCOL_41 | cap::SSL);
        p.put_u32_le(0);
        p.put_u8(33);
        p.put_slice(&[0; 23]);
        assert!(matches!(
            parse_client_hello(&p).unwrap(),
            ClientHello::SslRequest { .. }
        ));
    }

    #[test]
    fn truncated_responses_error_never_panic() {
        let resp = HandshakeResponse {
            capabilities: cap::SERVER_DEFAULT,
            user: b"root".to_vec(),
            auth_response: vec![9; 20],
            database: Some(b"d".to_vec()),
            auth_plugin: Some("x".into()),
            attributes: vec![("a".into(), "b".into())],
            ..Default::default()
        };
        let p = build_handshake_response(&resp);
        for n in 0..p.len() {
            let _ = parse_client_hello(&p[..n]);
        }
        assert_eq!(parse_client_hello(&[0; 4]), Err(HandshakeError::Protocol40));
    }
}
