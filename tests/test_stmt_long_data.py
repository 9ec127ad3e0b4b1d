"""COM_STMT_SEND_LONG_DATA on the raw protocol (crates/kiln-server/src/conn/command.rs,
`execute`): data sent in pieces is the parameter's value at the next COM_STMT_EXECUTE,
is used by that execution only, and COM_STMT_RESET drops it; executions without long
data (the common case, which skips the long-data bookkeeping) take their values from
the execute packet. Both thread_handling modes."""

import struct

import pytest

import rawproto

COM_STMT_PREPARE = 0x16
COM_STMT_EXECUTE = 0x17
COM_STMT_SEND_LONG_DATA = 0x18
COM_STMT_RESET = 0x1A
MYSQL_TYPE_VAR_STRING = 0xFD


def lenenc_str(b):
    assert len(b) < 251
    return bytes([len(b)]) + b


def read_until_eof(sock, n_eofs):
    """Reads packets until `n_eofs` EOF packets (0xFE, short) were seen."""
    out = []
    while n_eofs:
        seq, p = rawproto.read_packet(sock)
        assert p[0] != 0xFF, rawproto.parse_err(p)
        if p[0] == 0xFE and len(p) < 9:
            n_eofs -= 1
        else:
            out.append(p)
    return out


def prepare(sock, sql):
    rawproto.write_packet(sock, 0, bytes([COM_STMT_PREPARE]) + sql.encode())
    seq, p = rawproto.read_packet(sock)
    assert p[0] == 0x00, rawproto.parse_err(p)
    stmt_id, ncols, nparams = struct.unpack_from("<IHH", p, 1)
    read_until_eof(sock, (nparams > 0) + (ncols > 0))
    return stmt_id


def send_long(sock, stmt_id, param, data):
    body = struct.pack("<BIH", COM_STMT_SEND_LONG_DATA, stmt_id, param) + data
    rawproto.write_packet(sock, 0, body)


def execute(sock, stmt_id, values):
    """Executes with two VAR_STRING parameters; None = sent as long data before.
    Returns the first column of the one row, as bytes, and the second (a BIGINT)."""
    body = struct.pack("<BIBI", COM_STMT_EXECUTE, stmt_id, 0, 1)
    body += b"\x00"  # null bitmap (2 parameters)
    body += b"\x01" + bytes([MYSQL_TYPE_VAR_STRING, 0]) * 2
    for v in values:
        if v is not None:
            body += lenenc_str(v)
    rawproto.write_packet(sock, 0, body)
    seq, p = rawproto.read_packet(sock)
    assert p[0] != 0xFF, rawproto.parse_err(p)
    assert p[0] == 2, p  # two columns
    read_until_eof(sock, 1)  # column definitions
    (row,) = read_until_eof(sock, 1)
    assert row[0] == 0x00 and row[1] == 0x00, row  # binary row, no NULLs
    n = row[2]
    text = bytes(row[3 : 3 + n])
    (length,) = struct.unpack_from("<q", row, 3 + n)
    return text, length


@pytest.mark.parametrize("mode", ["one-thread-per-connection", "pool-of-threads"])
def test_send_long_data(kiln_factory, mode):
    s = kiln_factory([f"--thread-handling={mode}"])
    sock = rawproto.login_root(s.port)
    stmt = prepare(sock, "SELECT CONCAT(?, '|'), LENGTH(?)")
    # No long data: values from the execute packet.
    assert execute(sock, stmt, [b"ab", b"xyz"]) == (b"ab|", 3)
    # Parameter 0 in two pieces, parameter 1 inline.
    send_long(sock, stmt, 0, b"long ")
    send_long(sock, stmt, 0, b"data")
    assert execute(sock, stmt, [None, b"12345"]) == (b"long data|", 5)
    # Used by that execution only: the next one takes its values inline again.
    assert execute(sock, stmt, [b"c", b"d"]) == (b"c|", 1)
    # Long data for parameter 1 only.
    send_long(sock, stmt, 1, b"0123456789")
    assert execute(sock, stmt, [b"e", None]) == (b"e|", 10)
    # COM_STMT_RESET drops long data sent before it.
    send_long(sock, stmt, 0, b"dropped")
    rawproto.write_packet(sock, 0, struct.pack("<BI", COM_STMT_RESET, stmt))
    seq, p = rawproto.read_packet(sock)
    assert p[0] == 0x00, p
    assert execute(sock, stmt, [b"f", b"gh"]) == (b"f|", 2)
    sock.close()
