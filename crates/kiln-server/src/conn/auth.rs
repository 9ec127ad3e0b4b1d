//! Connection phase, server side: Handshake v10 → [SSLRequest → TLS] →
//! HandshakeResponse41 → [AuthSwitch] → plugin exchange → OK or ERR 1045.
//!
//! Plugins: `mysql_native_password` (SHA-1 scramble) and `caching_sha2_password`
//! (fast path against the in-memory cache; full authentication with the cleartext
//! password over TLS or the Unix socket, or RSA-OAEP encrypted over plain TCP).
//! Accounts that do not exist go through the same exchange and fail with the same
//! error as a wrong password, so the error does not reveal which user names exist.

use std::collections::HashMap;
use std::sync::Arc;

use kiln_common::{ErrorKind, KilnError};
use kiln_mysql::auth::{caching_sha2, native, rsa, scramble};
use kiln_mysql::consts::{cap, status};
use kiln_mysql::handshake::{
    ClientHello, HandshakeResponse, auth_more_data, auth_switch_request, handshake_v10,
    parse_client_hello,
};
use kiln_mysql::response::OkPacket;
use kiln_sql::session::Session;

use super::Peer;
use super::command::Conn;
use super::encode;
use super::io::{PacketIo, ReadError};
use crate::accounts::{Account, CACHING_SHA2, NATIVE};
use crate::server::Server;

/// Collation kiln announces in the handshake (utf8mb4_0900_ai_ci).
const SERVER_COLLATION_ID: u8 = 255;

/// Why a handshake ended without a session: `None` for a silent close (a client that
/// connected and left), `Some(reason)` for something worth a log line.
pub type HandshakeFailure = Option<String>;

fn read(io: &mut PacketIo) -> Result<kiln_mysql::packet::Packet, HandshakeFailure> {
    io.flush().map_err(|e| Some(format!("write failed: {e}")))?;
    match io.read_packet() {
        Ok(p) => Ok(p),
        Err(ReadError::Closed) => Err(None),
        Err(ReadError::TooLarge) => {
            let e = KilnError::from(ErrorKind::ER_NET_PACKET_TOO_LARGE);
            encode::write_err(io, e.code, &e.sqlstate, &e.message);
            let _ = io.flush();
            Err(Some("packet too large during handshake".into()))
        }
        Err(ReadError::OutOfOrder) => {
            let e = KilnError::from(ErrorKind::ER_NET_PACKETS_OUT_OF_ORDER);
            encode::write_err(io, e.code, &e.sqlstate, &e.message);
            let _ = io.flush();
            Err(Some("packets out of order during handshake".into()))
        }
        Err(ReadError::Timeout) | Err(ReadError::NotReady) => {
            Err(Some("timeout reading authorization packet".into()))
        }
        Err(ReadError::Truncated) => {
            Err(Some("connection closed in the middle of a packet".into()))
        }
        Err(ReadError::Io(e)) => Err(Some(format!("read error: {e}"))),
    }
}

fn bad_handshake(io: &mut PacketIo, why: &str) -> HandshakeFailure {
    let e = KilnError::from(ErrorKind::ER_HANDSHAKE_ERROR);
    encode::write_err(io, e.code, &e.sqlstate, &e.message);
    let _ = io.flush();
    Some(format!("bad handshake: {why}"))
}

pub fn handshake(
    server: &'static Server,
    io: &mut PacketIo,
    id: u64,
    peer: &Peer,
    shared: &crate::server::ConnShared,
) -> Result<Conn, HandshakeFailure> {
    let interrupt = shared.interrupt.clone();
    let scramble = scramble::new_scramble();
    let default_plugin = server
        .globals
        .string("default_authentication_plugin")
        .unwrap_or_else(|| CACHING_SHA2.into());
    let mut server_caps = cap::SERVER_DEFAULT;
    if server.tls.is_some() {
        server_caps |= cap::SSL;
    }
    io.seq = 0;
    io.write_packet(&handshake_v10(
        &server.settings.version,
        id as u32,
        &scramble,
        server_caps,
        SERVER_COLLATION_ID,
        status::AUTOCOMMIT,
        &default_plugin,
    ));
    let first = read(io)?;
    let hello =
        parse_client_hello(&first.payload).map_err(|e| bad_handshake(io, &format!("{e:?}")))?;
    let resp: HandshakeResponse = match hello {
        ClientHello::Response(r) => r,
        ClientHello::SslRequest { .. } => {
            let Some(tls) = &server.tls else {
                return Err(bad_handshake(io, "SSL requested but TLS is not configured"));
            };
            io.start_tls(tls.config.clone())
                .map_err(|e| Some(format!("TLS handshake failed: {e}")))?;
            server.stats.ssl_accepts.inc();
            let p = read(io)?;
            match parse_client_hello(&p.payload) {
                Ok(ClientHello::Response(r)) => r,
                Ok(ClientHello::SslRequest { .. }) => {
                    return Err(bad_handshake(io, "second SSLRequest"));
                }
                Err(e) => return Err(bad_handshake(io, &format!("{e:?}"))),
            }
        }
    };
    let caps = resp.capabilities & (server_caps | cap::SSL);
    let secure = io.is_tls() || io.socket().is_unix();
    if !secure
        && server
            .globals
            .bool("require_secure_transport")
            .unwrap_or(false)
    {
        let e = KilnError::from(ErrorKind::ER_SECURE_TRANSPORT_REQUIRED);
        encode::write_err(io, e.code, &e.sqlstate, &e.message);
        let _ = io.flush();
        return Err(Some("insecure transport refused".into()));
    }
    let user = String::from_utf8_lossy(&resp.user).into_owned();
    let client_plugin = resp
        .auth_plugin
        .clone()
        .unwrap_or_else(|| NATIVE.to_string());
    let account = server.accounts.find(&user, &peer.host, peer.ip.as_deref());
    let used_password = !resp.auth_response.is_empty();
    let authenticated = authenticate(
        server,
        io,
        caps,
        &scramble,
        account.as_ref(),
        &client_plugin,
        resp.auth_response.clone(),
        secure,
    )?;
    let Some(account) = authenticated else {
        return Err(deny(io, &user, &peer.host, used_password));
    };
    // Per-account connection limits, before the client is told it is in.
    if let Err(e) = server.admit_account(shared, &(account.user.clone(), account.host.clone())) {
        encode::write_err(io, e.code, &e.sqlstate, &e.message);
        let _ = io.flush();
        return Err(Some(e.message));
    }

    let vars = server.globals.new_session();
    let mut session = Session::new(id, vars, server_hooks(server), interrupt);
    session.user = user;
    session.host = peer.host.clone();
    session.account = (account.user.clone(), account.host.clone());
    if let Some(d) = &server.dict {
        session.set_dictionary(d.clone());
    }
    session.client_found_rows = caps & cap::FOUND_ROWS != 0;
    session.client_multi_results = caps & cap::MULTI_RESULTS != 0;
    apply_client_charset(&mut session, resp.collation_id);
    if caps & cap::INTERACTIVE != 0
        && let Some(t) = server.globals.get("interactive_timeout")
    {
        // Interactive clients idle out after interactive_timeout, as in MySQL.
        let _ = session.set_system(kiln_sql::ast::VarScope::Session, "wait_timeout", Some(&t));
        session.take_changes();
    }
    if let Some(db) = &resp.database {
        let db = String::from_utf8_lossy(db).into_owned();
        if let Err(e) = session.use_database(&db) {
            encode::write_err(io, e.code, &e.sqlstate, &e.message);
            let _ = io.flush();
            return Err(Some(format!("unknown database '{db}'")));
        }
        session.take_changes();
    }
    encode::write_ok(
        io,
        caps,
        &OkPacket {
            status: status::AUTOCOMMIT,
            ..Default::default()
        },
    );
    io.flush().map_err(|e| Some(format!("write failed: {e}")))?;
    Ok(Conn {
        session,
        caps,
        shared: None,
        stmts: HashMap::new(),
        next_stmt_id: 1,
        scramble,
        peer: peer.clone(),
        secure,
        read_timeout_secs: 0,
    })
}

pub fn server_hooks(server: &'static Server) -> Arc<dyn kiln_sql::session::ServerHooks> {
    crate::global_hooks(server)
}

fn deny(io: &mut PacketIo, user: &str, host: &str, used_password: bool) -> HandshakeFailure {
    let e = KilnError::new(
        ErrorKind::ER_ACCESS_DENIED_ERROR,
        &[&user, &host, &if used_password { "YES" } else { "NO" }],
    );
    encode::write_err(io, e.code, &e.sqlstate, &e.message);
    let _ = io.flush();
    Some(e.message)
}

/// Runs the plugin exchange. Ok(Some(account)) on success, Ok(None) on a failed check.
#[allow(clippy::too_many_arguments)]
pub fn authenticate(
    server: &Server,
    io: &mut PacketIo,
    caps: u32,
    scramble: &[u8; 20],
    account: Option<&Account>,
    client_plugin: &str,
    mut data: Vec<u8>,
    secure: bool,
) -> Result<Option<Account>, HandshakeFailure> {
    // Unknown users run the client's own plugin (or native) to the same failure.
    let plugin = account.map_or(client_plugin, |a| a.plugin.as_str());
    let plugin = if plugin == NATIVE || plugin == CACHING_SHA2 {
        plugin
    } else {
        NATIVE
    };
    if plugin != client_plugin {
        if caps & cap::PLUGIN_AUTH == 0 {
            return Ok(None);
        }
        io.write_packet(&auth_switch_request(plugin, scramble));
        data = read(io)?.payload.to_vec();
    }
    let Some(account) = account else {
        return Ok(None);
    };
    if plugin == NATIVE {
        if account.auth_string.is_empty() {
            return Ok(data.is_empty().then(|| account.clone()));
        }
        let Some(stored) = native::parse_stored_hex(&account.auth_string) else {
            return Ok(None);
        };
        return Ok(native::verify(&stored, scramble, &data).then(|| account.clone()));
    }
    // caching_sha2_password
    if account.auth_string.is_empty() {
        return Ok(data.is_empty().then(|| account.clone()));
    }
    if data.is_empty() {
        return Ok(None);
    }
    if let Some(cached) = server.accounts.cached_sha2(account) {
        if caching_sha2::verify_fast(&cached, scramble, &data) {
            io.write_packet(&auth_more_data(&[caching_sha2::FAST_AUTH_SUCCESS]));
            return Ok(Some(account.clone()));
        }
        return Ok(None);
    }
    io.write_packet(&auth_more_data(&[
        caching_sha2::PERFORM_FULL_AUTHENTICATION,
    ]));
    let reply = read(io)?.payload.to_vec();
    let password: Vec<u8> = if secure {
        let mut p = reply;
        if p.last() == Some(&0) {
            p.pop();
        }
        p
    } else if reply == [caching_sha2::REQUEST_PUBLIC_KEY] {
        let Some(tls) = &server.tls else {
            return Ok(None);
        };
        io.write_packet(&auth_more_data(tls.rsa_public_pem.as_bytes()));
        let encrypted = read(io)?.payload.to_vec();
        match tls.rsa.decrypt_oaep_sha1(&encrypted) {
            Ok(plain) => rsa::decode_password(&plain, scramble),
            Err(_) => return Ok(None),
        }
    } else {
        // A cleartext password over an insecure channel is refused, as MySQL does.
        return Ok(None);
    };
    if caching_sha2::verify_full(&account.auth_string, &password) {
        server
            .accounts
            .cache_sha2(account, caching_sha2::fast_digest(&password));
        return Ok(Some(account.clone()));
    }
    Ok(None)
}

/// Applies the character set the client asked for in its handshake (by collation id).
pub fn apply_client_charset(session: &mut Session, collation_id: u8) {
    let cs = match collation_id {
        8 | 47 => "latin1",
        11 => "ascii",
        33 | 83 => "utf8mb3",
        63 => "binary",
        _ => "utf8mb4",
    };
    let v = kiln_sql::value::Value::Str(cs.to_string());
    for name in [
        "character_set_client",
        "character_set_connection",
        "character_set_results",
    ] {
        let _ = session.set_system(kiln_sql::ast::VarScope::Session, name, Some(&v));
    }
    session.take_changes();
}
