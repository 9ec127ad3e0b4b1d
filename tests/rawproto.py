"""Just enough of the MySQL wire protocol, on a raw socket, to send what real clients
never send (garbage, wrong sequence ids, oversized headers) and see what comes back."""

import socket
import struct

CLIENT_LONG_PASSWORD = 1
CLIENT_LOCAL_FILES = 0x80
CLIENT_PROTOCOL_41 = 0x200
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_TRANSACTIONS = 0x2000

COM_QUERY = 0x03


def recv_exact(sock, n):
    """Reads exactly n bytes; returns fewer (possibly b"") if the peer closed."""
    buf = b""
    while len(buf) < n:
        try:
            chunk = sock.recv(n - len(buf))
        except ConnectionResetError:
            break
        if not chunk:
            break
        buf += chunk
    return buf


def read_packet(sock):
    """Returns (sequence id, payload), or None if the connection closed."""
    hdr = recv_exact(sock, 4)
    if len(hdr) < 4:
        return None
    length = hdr[0] | (hdr[1] << 8) | (hdr[2] << 16)
    body = recv_exact(sock, length)
    if len(body) < length:
        return None
    return hdr[3], body


def packet(seq, payload):
    n = len(payload)
    return bytes([n & 0xFF, (n >> 8) & 0xFF, (n >> 16) & 0xFF, seq & 0xFF]) + payload


def write_packet(sock, seq, payload):
    sock.sendall(packet(seq, payload))


def parse_err(payload):
    """(error code, sqlstate, message) of an ERR packet, or None."""
    if not payload or payload[0] != 0xFF:
        return None
    code = struct.unpack_from("<H", payload, 1)[0]
    if payload[3:4] == b"#":
        return code, payload[4:9].decode(), payload[9:].decode(errors="replace")
    return code, "", payload[3:].decode(errors="replace")


def parse_handshake(payload):
    assert payload[0] == 10, f"protocol version {payload[0]}"
    end = payload.index(b"\0", 1)
    version = payload[1:end].decode()
    pos = end + 1
    conn_id = struct.unpack_from("<I", payload, pos)[0]
    pos += 4
    scramble = payload[pos : pos + 8]
    pos += 9
    caps = struct.unpack_from("<H", payload, pos)[0]
    pos += 2
    charset = payload[pos]
    pos += 1
    pos += 2  # status
    caps |= struct.unpack_from("<H", payload, pos)[0] << 16
    pos += 2
    auth_len = payload[pos]
    pos += 1 + 10
    rest = max(13, auth_len - 8)
    scramble += payload[pos : pos + rest].rstrip(b"\0")
    pos += rest
    plugin = b""
    if caps & CLIENT_PLUGIN_AUTH:
        plugin = payload[pos:].split(b"\0", 1)[0]
    return {
        "version": version,
        "connection_id": conn_id,
        "capabilities": caps,
        "charset": charset,
        "scramble": scramble,
        "plugin": plugin.decode(),
    }


def connect(port, timeout=10):
    """Opens a TCP connection and reads the server greeting: (socket, handshake)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    p = read_packet(s)
    assert p is not None, "server closed the connection before its greeting"
    return s, parse_handshake(p[1])


# Capabilities of the logins below.
LOGIN_CAPS = (
    CLIENT_LONG_PASSWORD
    | CLIENT_PROTOCOL_41
    | CLIENT_SECURE_CONNECTION
    | CLIENT_PLUGIN_AUTH
    | CLIENT_TRANSACTIONS
)


def login_root(port, timeout=10, caps=LOGIN_CAPS):
    """Logs in as root with an empty password; returns the socket, ready for commands."""
    s, hs = connect(port, timeout)
    body = struct.pack("<IIB", caps, 16 * 1024 * 1024, 45) + b"\0" * 23
    body += b"root\0" + b"\0" + hs["plugin"].encode() + b"\0"
    write_packet(s, 1, body)
    while True:
        p = read_packet(s)
        assert p is not None, "server closed the connection during login"
        seq, payload = p
        if payload[0] == 0x00:
            return s
        if payload[0] == 0xFF:
            raise AssertionError(f"login failed: {parse_err(payload)}")
        if payload[0] == 0xFE:  # auth switch: answer with an empty password
            write_packet(s, seq + 1, b"")
            continue
        if payload[0] == 0x01:  # caching_sha2 fast-auth result, OK follows
            continue
        raise AssertionError(f"unexpected login packet {payload[:20]!r}")


def closed_or_error(sock, timeout=5.0):
    """After sending something bad: reads until the server closes the connection.
    Returns the list of ERR tuples seen. Fails if the server keeps it open and silent
    past `timeout` seconds without sending an error."""
    sock.settimeout(timeout)
    errors = []
    try:
        while True:
            p = read_packet(sock)
            if p is None:
                return errors
            e = parse_err(p[1])
            if e:
                errors.append(e)
    except socket.timeout:
        if errors:
            return errors
        raise AssertionError(f"server neither answered nor closed within {timeout}s")


def scramble_native(password, nonce):
    """mysql_native_password: SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw)))."""
    import hashlib

    if not password:
        return b""
    h1 = hashlib.sha1(password.encode()).digest()
    h2 = hashlib.sha1(h1).digest()
    h3 = hashlib.sha1(nonce[:20] + h2).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def scramble_sha2(password, nonce):
    """caching_sha2_password fast path: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce)."""
    import hashlib

    if not password:
        return b""
    h1 = hashlib.sha256(password.encode()).digest()
    h2 = hashlib.sha256(h1).digest()
    h3 = hashlib.sha256(h2 + nonce[:20]).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def _scramble(plugin, password, nonce):
    if plugin == "mysql_native_password":
        return scramble_native(password, nonce)
    if plugin == "caching_sha2_password":
        return scramble_sha2(password, nonce)
    raise AssertionError(f"unexpected auth plugin {plugin!r}")


def auth_trace(port, user, password, timeout=10):
    """Logs in over plain TCP with the plugin the greeting names, following auth
    switches, and records what the server said. Stops at OK, ERR, or a
    caching_sha2 request for full authentication (which needs TLS or RSA).

    Returns (socket, greeting, events); events are ("switch", plugin),
    ("fast_ok",), ("full_auth",), ("ok",), ("err", (code, state, msg)),
    ("closed",)."""
    s, hs = connect(port, timeout)
    caps = LOGIN_CAPS
    auth = _scramble(hs["plugin"], password, hs["scramble"])
    body = struct.pack("<IIB", caps, 16 * 1024 * 1024, 45) + b"\0" * 23
    body += user.encode() + b"\0" + bytes([len(auth)]) + auth
    body += hs["plugin"].encode() + b"\0"
    write_packet(s, 1, body)
    events = []
    while True:
        p = read_packet(s)
        if p is None:
            events.append(("closed",))
            return s, hs, events
        seq, payload = p
        if payload[0] == 0x00:
            events.append(("ok",))
            return s, hs, events
        if payload[0] == 0xFF:
            events.append(("err", parse_err(payload)))
            return s, hs, events
        if payload[0] == 0xFE:
            plugin, _, rest = payload[1:].partition(b"\0")
            plugin = plugin.decode()
            events.append(("switch", plugin))
            write_packet(s, seq + 1, _scramble(plugin, password, rest.rstrip(b"\0")))
            continue
        if payload[:2] == b"\x01\x03":
            events.append(("fast_ok",))
            continue
        if payload[:2] == b"\x01\x04":
            events.append(("full_auth",))
            return s, hs, events
        raise AssertionError(f"unexpected auth packet {payload[:40]!r}")
