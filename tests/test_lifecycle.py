"""The server process: first start and restart, the error log, the datadir lock and
format check, SHUTDOWN and signals, KILL and PROCESSLIST, and the command line."""

import os
import re
import signal
import threading
import time

import pymysql
import pytest

from conftest import free_port, run_kiln

EMPTY_ROOT = "root@localhost is created with an empty password"
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def base_args(datadir, port=None):
    port = port or free_port()
    return [
        "--no-defaults",
        f"--datadir={datadir}",
        f"--port={port}",
        f"--socket={datadir}/kiln-{port}.sock",
    ]


# -- first start, restart, error log ------------------------------------------------


def test_first_start_logs_root_with_empty_password(kiln):
    assert EMPTY_ROOT in kiln.log_text()


def test_restart_does_not_log_root_with_empty_password_again(kiln_factory):
    k = kiln_factory()
    assert k.stop() == 0
    before = len(k.log_text())
    k2 = kiln_factory(datadir=k.datadir)
    later = k2.log_text()[before:]
    assert "ready for connections" in later
    assert EMPTY_ROOT not in later
    assert later.count("empty password") == 0


def test_error_log_lines_start_with_iso8601_timestamp(kiln):
    kiln.stop()
    lines = [l for l in kiln.log_text().splitlines() if l.strip()]
    assert len(lines) >= 3
    bad = [l for l in lines if not TIMESTAMP.match(l)]
    assert not bad, bad


def test_error_log_inside_fresh_datadir_is_accepted(tmp_path):
    # mysqld --initialize-insecure --log-error=<datadir>/x.err works: the server's
    # own error log is not "foreign data" in an otherwise empty datadir.
    d = tmp_path / "fresh"
    d.mkdir()
    port = free_port()
    from conftest import KilnServer

    k = KilnServer(d, port=port, out_dir=tmp_path)
    try:
        k.start()
    except Exception as e:
        pytest.fail(str(e), pytrace=False)
    finally:
        rc = k.stop()
    assert rc == 0


# -- the datadir lock and format ----------------------------------------------------


def test_second_server_on_same_datadir_is_refused(kiln, tmp_path):
    log = tmp_path / "second.log"
    rc, out, err = run_kiln(
        base_args(kiln.datadir) + [f"--log-error={log}"], timeout=15
    )
    assert rc != 0
    text = (out + err + (log.read_text() if log.exists() else "")).lower()
    assert "lock" in text or "another" in text, text
    # the first server is unharmed
    assert kiln.query("SELECT 1") == ((1,),)


@pytest.mark.parametrize("form", ["same-layout", "bare-number"])
def test_unsupported_datadir_format_is_refused_and_left_untouched(kiln, tmp_path, form):
    assert kiln.stop() == 0
    fmt = kiln.datadir / "kiln_format"
    original = fmt.read_text()
    if form == "same-layout" and re.search(r"\d", original):
        bumped = re.sub(r"\d+", "999", original)  # the marker as written, version 999
    else:
        bumped = "999\n"
    fmt.write_text(bumped)
    mtime = fmt.stat().st_mtime_ns
    log = tmp_path / "refused.log"
    rc, out, err = run_kiln(base_args(kiln.datadir) + [f"--log-error={log}"])
    assert rc != 0
    text = out + err + (log.read_text() if log.exists() else "")
    assert "999" in text, text
    words = text.replace(str(kiln.datadir), "<datadir>").lower()
    assert any(w in words for w in ("version", "format", "unsupported", "corrupt")), text
    assert fmt.read_text() == bumped
    assert fmt.stat().st_mtime_ns == mtime


# -- shutdown ---------------------------------------------------------------------------


def test_shutdown_statement_exits_0_and_removes_socket_and_pid_file(kiln):
    c = kiln.connect()
    (pid_file,) = run(c, "SELECT @@pid_file")[0]
    assert os.path.exists(kiln.socket)
    assert os.path.exists(pid_file)
    assert open(pid_file).read().strip() == str(kiln.proc.pid)
    try:
        run(c, "SHUTDOWN")
    except pymysql.err.MySQLError as e:
        # the server may drop the connection before the OK arrives
        assert e.args[0] in (2013, 2006), e.args
    assert kiln.wait() == 0
    assert not os.path.exists(kiln.socket)
    assert not os.path.exists(pid_file)
    assert "Shutdown complete" in kiln.log_text()


def test_shutdown_needs_privilege(kiln):
    c = kiln.connect()
    run(c, "CREATE USER 'u'@'%' IDENTIFIED WITH mysql_native_password BY 'p'")
    u = kiln.connect(user="u", password="p")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(u, "SHUTDOWN")
    assert ei.value.args[0] == 1227
    time.sleep(0.3)
    assert kiln.alive()


def test_sigint_exits_0(kiln):
    assert kiln.stop(sig=signal.SIGINT) == 0
    assert not os.path.exists(kiln.socket)


def test_sigterm_with_open_connections_exits_0(kiln):
    conns = [kiln.connect() for _ in range(3)]
    assert kiln.stop() == 0
    for c in conns:
        c.close()


# -- KILL and PROCESSLIST ----------------------------------------------------------------


def test_kill_connection_ends_it(kiln_shared):
    victim = kiln_shared.connect()
    vid = victim.thread_id()
    killer = kiln_shared.connect()
    run(killer, f"KILL {vid}")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(victim, "SELECT 1")
    assert ei.value.args[0] in (2006, 2013, 1053, 4031), ei.value.args
    # gone from the process list
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        ids = [r[0] for r in run(killer, "SHOW PROCESSLIST")]
        if vid not in ids:
            break
        time.sleep(0.1)
    assert vid not in ids
    killer.close()


def test_kill_unknown_thread_is_1094(kiln_shared):
    c = kiln_shared.connect()
    with pytest.raises(pymysql.err.MySQLError) as ei:
        run(c, "KILL 987654")
    assert ei.value.args[0] == 1094
    assert ei.value.args[1] == "Unknown thread id: 987654"
    c.close()


def test_kill_query_interrupts_sleep(kiln_shared):
    sleeper = kiln_shared.connect()
    sid = sleeper.thread_id()
    result = {}

    def sleep():
        t0 = time.monotonic()
        try:
            result["row"] = run(sleeper, "SELECT SLEEP(30)")
        except Exception as e:  # recorded, checked below
            result["error"] = e
        result["secs"] = time.monotonic() - t0

    t = threading.Thread(target=sleep)
    t.start()
    killer = kiln_shared.connect()
    # wait until the sleep is running
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        rows = [r for r in run(killer, "SHOW PROCESSLIST") if r[0] == sid]
        if rows and rows[0][7] and "SLEEP" in rows[0][7].upper():
            break
        time.sleep(0.05)
    run(killer, f"KILL QUERY {sid}")
    t.join(10)
    assert not t.is_alive(), "SLEEP(30) was not interrupted"
    assert "error" not in result, result
    assert result["row"] == ((1,),)
    assert result["secs"] < 5
    # the connection itself survives
    assert run(sleeper, "SELECT 2") == ((2,),)
    sleeper.close()
    killer.close()


def test_show_processlist_lists_both_connections(kiln_shared):
    a = kiln_shared.connect()
    b = kiln_shared.connect()
    with a.cursor() as cur:
        cur.execute("SHOW PROCESSLIST")
        cols = [d[0] for d in cur.description]
        rows = cur.fetchall()
    assert cols == ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"]
    by_id = {r[0]: r for r in rows}
    assert a.thread_id() in by_id and b.thread_id() in by_id
    assert by_id[a.thread_id()][1] == "root"
    assert by_id[a.thread_id()][4] == "Query"
    assert by_id[a.thread_id()][7] == "SHOW PROCESSLIST"
    assert by_id[b.thread_id()][4] == "Sleep"
    a.close()
    b.close()


# -- command line -----------------------------------------------------------------------


def test_version_option(tmp_path):
    rc, out, err = run_kiln(["--version"])
    assert rc == 0, err
    assert "8.0" in out


def test_help_option_mentions_defaults_file():
    rc, out, err = run_kiln(["--help"])
    assert rc == 0, err
    assert "--defaults-file" in out


def test_verbose_help_lists_options_with_defaults():
    rc, out, err = run_kiln(["--verbose", "--help"])
    assert rc == 0, err
    assert re.search(r"^\s*port\s+3306\s*$", out, re.M), out[-3000:]
    assert re.search(r"^\s*max[-_]allowed[-_]packet\s+\d+\s*$", out, re.M)
    assert re.search(r"^\s*datadir\b", out, re.M)


def test_unknown_option_exits_1_naming_it(tmp_path):
    rc, out, err = run_kiln(base_args(tmp_path / "d") + ["--no-such-option=1"])
    assert rc == 1
    assert "no-such-option" in out + err


def test_loose_unknown_option_starts(kiln_factory):
    k = kiln_factory(["--loose-no-such-option=1"])
    assert k.query("SELECT 1") == ((1,),)
