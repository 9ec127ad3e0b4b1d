"""Connection buffers are given back after a command (issue 7; crates/kiln-server/src/
conn/io.rs, `shrink_buffers`, `borrow_thread_buffers`): a connection that read a large
statement or sent a large result does not keep that much buffer while it then sits
idle (as MySQL shrinks its net buffer back to net_buffer_length), in both
thread_handling modes, and a pooled connection holds no buffer at all between commands.

Observed as the server's resident memory: connections take turns fetching one large
result and stay open; with the buffers given back each turn reuses the memory the
previous one freed, without it every idle connection pins its own (~8-16 MiB here:
234 / 210 MiB for 24 connections before the change, 14 / 3 MiB after). The read
buffer is shrunk by the same code, but a large *statement* is not a usable probe: its
text is copied several times on the way to the parser, and the allocator keeps those
freed pages per thread (hundreds of MiB with a thread per connection)."""

import time

import pytest

BIG = 8 * 1024 * 1024
CONNECTIONS = 24


def rss_bytes(server):
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.parametrize("mode", ["one-thread-per-connection", "pool-of-threads"])
def test_idle_connections_give_large_buffers_back(kiln_factory, mode):
    s = kiln_factory([f"--thread-handling={mode}", "--thread-pool-size=2"])
    conns = [s.connect(ssl_disabled=True) for _ in range(CONNECTIONS)]
    # Everything else warm: one connection runs the large statements once.
    with conns[0].cursor() as cur:
        cur.execute("SELECT REPEAT('x', %s)", (BIG,))
        assert len(cur.fetchone()[0]) == BIG
    time.sleep(0.5)
    before = rss_bytes(s)
    for c in conns:
        with c.cursor() as cur:
            # A large result: one 8 MiB row, so one packet in the write buffer.
            cur.execute("SELECT REPEAT('x', %s)", (BIG,))
            assert len(cur.fetchone()[0]) == BIG
    time.sleep(0.5)
    grown = rss_bytes(s) - before
    # Pinned buffers would be ~CONNECTIONS * BIG or more (~200 MiB); a few turns'
    # worth of allocator slack is allowed.
    assert grown < 6 * BIG, f"{mode}: {grown / 2**20:.0f} MiB more for idle connections"
    # The connections still work, and small answers after a large one are right.
    for i, c in enumerate(conns):
        with c.cursor() as cur:
            cur.execute("SELECT %s + 1, REPEAT('z', 3)", (i,))
            assert cur.fetchone() == (i + 1, "zzz")
        c.close()
