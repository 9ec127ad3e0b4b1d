"""A small HandlerSocket client for tests (protocol: /work/shared/specs/handlersocket.md).

Tokens are `bytes`, `str` (UTF-8), `int` or `None` (NULL, sent as the single byte 0x00).
Inside a token, bytes 0x00-0x0f are escaped as 0x01 followed by (byte + 0x40).

    c = HSClient("127.0.0.1", port)
    c.request("P", 1, "db", "t", "PRIMARY", "id,v")      # -> [b"0", b"1"]
    c.find(1, "=", [5], limit=10)                          # -> [b"0", b"2", b"5", b"x"]

`request()` sends one line and returns the decoded tokens of the answer line;
`raw()` sends bytes as they are and `readline()` reads one raw answer line (without
the LF), for tests that need the exact bytes; `pipeline()` sends many lines in one
`send` and reads as many answers.
"""

import socket

NULL = None


def escape(value):
    """Encodes one token value (bytes/str/int/None) as HandlerSocket bytes."""
    if value is None:
        return b"\x00"
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        value = str(value)
    if isinstance(value, str):
        value = value.encode("utf-8")
    out = bytearray()
    for b in bytes(value):
        if b < 0x10:
            out.append(0x01)
            out.append(b + 0x40)
        else:
            out.append(b)
    return bytes(out)


def unescape(tok):
    """Decodes one received token: b"\\x00" alone is NULL (None)."""
    if tok == b"\x00":
        return None
    out = bytearray()
    i = 0
    n = len(tok)
    while i < n:
        b = tok[i]
        if b == 0x01 and i + 1 < n:
            out.append((tok[i + 1] - 0x40) & 0xFF)
            i += 2
        else:
            out.append(b)
            i += 1
    return bytes(out)


def build_line(*tokens):
    """One request line (with the trailing LF) from tokens."""
    return b"\t".join(escape(t) for t in tokens) + b"\n"


def decode_line(line):
    """Tokens of one response line (without its LF), unescaped; NULL is None."""
    if line.endswith(b"\r"):
        line = line[:-1]
    return [unescape(t) for t in line.split(b"\t")]


def show(line):
    """A readable form of raw bytes: TAB as `\\t`, LF as `\\n`, CR as `\\r`, a
    backslash as `\\\\`, other control and non-ASCII bytes as `\\xNN` (so a NULL
    token is `\\x00`). `unshow` is its inverse."""
    out = []
    for b in line:
        if b == 0x09:
            out.append("\\t")
        elif b == 0x0A:
            out.append("\\n")
        elif b == 0x0D:
            out.append("\\r")
        elif b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\x{b:02x}")
    if out and out[0] == " ":
        out[0] = "\\x20"  # so that the text survives strip()
    if out and out[-1] == " ":
        out[-1] = "\\x20"
    return "".join(out)


def unshow(text):
    """Bytes from the `show` form: `\\t`, `\\n`, `\\r`, `\\\\`, `\\xNN`; other
    characters are UTF-8."""
    simple = {"t": b"\t", "n": b"\n", "r": b"\r", "\\": b"\\"}
    out = bytearray()
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in simple:
            out += simple[text[i + 1]]
            i += 2
        elif ch == "\\" and text[i + 1 : i + 2] == "x" and i + 4 <= n:
            out.append(int(text[i + 2 : i + 4], 16))
            i += 4
        else:
            out += ch.encode("utf-8")
            i += 1
    return bytes(out)


class HSClosed(Exception):
    """The server closed the connection (or it broke) before a full line arrived."""


class HSClient:
    def __init__(self, host, port, timeout=30.0):
        self.host = host
        self.port = port
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.buf = b""

    # -- raw I/O -----------------------------------------------------------------------

    def raw(self, data):
        self.sock.sendall(data)

    def readline(self):
        """One response line without its LF. Raises HSClosed if the peer closed first."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 1 :]
                return line
            try:
                chunk = self.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError) as e:
                raise HSClosed(f"connection reset: {e}; partial {self.buf[:200]!r}")
            if not chunk:
                raise HSClosed(f"connection closed; partial {self.buf[:200]!r}")
            self.buf += chunk

    def closed_by_peer(self):
        """True if the server has closed the connection (reads EOF/reset; pending
        complete lines are discarded)."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    # -- requests ----------------------------------------------------------------------

    def request_raw(self, *tokens):
        """Sends one request; returns the raw response line."""
        self.raw(build_line(*tokens))
        return self.readline()

    def request(self, *tokens):
        """Sends one request; returns the decoded response tokens."""
        return decode_line(self.request_raw(*tokens))

    def pipeline(self, lines):
        """Sends several lines (lists of tokens, or raw bytes ending in LF) in a single
        send; returns the raw response lines, one per request line."""
        data = b"".join(l if isinstance(l, bytes) else build_line(*l) for l in lines)
        self.raw(data)
        return [self.readline() for _ in lines]

    def open_index(self, indexid, db, table, index, columns, fcolumns=None):
        toks = ["P", indexid, db, table, index, columns]
        if fcolumns is not None:
            toks.append(fcolumns)
        return self.request(*toks)

    def auth(self, secret, typ=1):
        return self.request("A", typ, secret)

    @staticmethod
    def find_tokens(indexid, op, keys, limit=None, offset=None, in_=None, filters=(), mod=None):
        """Tokens of a find / find_modify request.
        in_ = (icol, [values]); filters = [(ftyp, fop, fcol, fval)];
        mod = (mop, [values]) for find_modify."""
        toks = [indexid, op, len(keys), *keys]
        if limit is not None or offset is not None or in_ or filters or mod:
            toks += [1 if limit is None else limit, 0 if offset is None else offset]
        if in_ is not None:
            icol, ivals = in_
            toks += ["@", icol, len(ivals), *ivals]
        for f in filters:
            toks += list(f)
        if mod is not None:
            mop, mvals = mod
            toks += [mop, *mvals]
        return toks

    def find(self, indexid, op, keys, **kw):
        return self.request(*self.find_tokens(indexid, op, keys, **kw))

    def insert(self, indexid, values):
        return self.request(indexid, "+", len(values), *values)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


def rows_of(resp):
    """Splits a successful find response ([b"0", ncols, ...]) into rows of values."""
    assert resp[0] == b"0", resp
    n = int(resp[1])
    vals = resp[2:]
    if n == 0:
        return []
    assert len(vals) % n == 0, resp
    return [tuple(vals[i : i + n]) for i in range(0, len(vals), n)]
