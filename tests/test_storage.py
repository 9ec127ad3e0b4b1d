"""The storage engine inside the server: data files in the datadir, innodb_* options
and variables, Innodb_* status counters, restart after SIGKILL, a damaged redo log."""

import pymysql
import pytest

from conftest import KilnServer, KilnStartError


def rows(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def test_first_start_creates_engine_files_and_logs_them(kiln):
    assert (kiln.datadir / "ibdata1").is_file()
    assert (kiln.datadir / "ib_redo0").is_file()
    # The transaction system's undo tablespaces (innodb_undo_tablespaces = 2).
    assert (kiln.datadir / "undo_001").is_file()
    assert (kiln.datadir / "undo_002").is_file()
    log = kiln.log_text()
    assert "kiln storage: created ibdata1" in log
    assert "kiln storage: buffer pool 128 MB in 8 instance(s)" in log


def test_innodb_variables_defaults_and_scope(kiln):
    c = kiln.connect(ssl_disabled=True)
    got = dict(rows(c, "SHOW GLOBAL VARIABLES LIKE 'innodb%'"))
    assert got["innodb_buffer_pool_size"] == "134217728"
    assert got["innodb_buffer_pool_instances"] == "8"
    assert got["innodb_redo_log_capacity"] == "104857600"
    assert got["innodb_doublewrite"] == "ON"
    assert got["innodb_flush_log_at_trx_commit"] == "1"
    assert got["innodb_old_blocks_pct"] == "37"
    assert got["innodb_old_blocks_time"] == "1000"
    with pytest.raises(pymysql.err.OperationalError) as e:
        rows(c, "SET GLOBAL innodb_buffer_pool_size = 1073741824")
    assert e.value.args[0] == 1238  # read only (deviation: dynamic in MySQL 8.0)
    rows(c, "SET GLOBAL innodb_flush_log_at_trx_commit = 2")
    assert rows(c, "SELECT @@global.innodb_flush_log_at_trx_commit") == ((2,),)


def test_options_size_the_engine(kiln_factory):
    s = kiln_factory(
        [
            "--innodb-buffer-pool-size=32M",
            "--innodb_buffer_pool_instances=2",
            "--innodb-redo-log-capacity=16M",
        ]
    )
    assert "buffer pool 32 MB in 2 instance(s)" in s.log_text()
    assert "a 16 MB redo log" in s.log_text()
    c = s.connect(ssl_disabled=True)
    status = dict(rows(c, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_total'"))
    assert int(status["Innodb_buffer_pool_pages_total"]) == 32 * 64


def test_innodb_status_counters(kiln):
    c = kiln.connect(ssl_disabled=True)
    status = dict(rows(c, "SHOW GLOBAL STATUS LIKE 'Innodb%'"))
    for name in [
        "Innodb_buffer_pool_read_requests",
        "Innodb_buffer_pool_reads",
        "Innodb_buffer_pool_pages_dirty",
        "Innodb_buffer_pool_pages_flushed",
        "Innodb_buffer_pool_wait_free",
        "Innodb_os_log_fsyncs",
        "Innodb_redo_log_current_lsn",
        "Innodb_redo_log_checkpoint_lsn",
        "Innodb_redo_log_flushed_to_disk_lsn",
    ]:
        assert name in status, name
        assert int(status[name]) >= 0
    assert int(status["Innodb_buffer_pool_read_requests"]) > 0  # startup read page 0s
    lsn = int(status["Innodb_redo_log_current_lsn"])
    assert int(status["Innodb_redo_log_checkpoint_lsn"]) <= lsn


def test_transaction_variables_and_status(kiln):
    c = kiln.connect(ssl_disabled=True)
    got = dict(rows(c, "SHOW GLOBAL VARIABLES LIKE 'innodb%'"))
    assert got["innodb_lock_wait_timeout"] == "50"
    assert got["innodb_deadlock_detect"] == "ON"
    assert got["innodb_rollback_on_timeout"] == "OFF"
    assert got["innodb_rollback_segments"] == "128"
    assert got["innodb_undo_tablespaces"] == "2"
    assert got["innodb_purge_threads"] == "4"
    assert got["innodb_max_purge_lag"] == "0"
    rows(c, "SET GLOBAL innodb_deadlock_detect = OFF")
    assert rows(c, "SELECT @@global.innodb_deadlock_detect") == ((0,),)
    rows(c, "SET GLOBAL innodb_deadlock_detect = ON")
    with pytest.raises(pymysql.err.OperationalError) as e:
        rows(c, "SET GLOBAL innodb_rollback_segments = 4")
    assert e.value.args[0] == 1238  # read-only variable
    rows(c, "SET SESSION innodb_lock_wait_timeout = 5")
    assert rows(c, "SELECT @@session.innodb_lock_wait_timeout") == ((5,),)
    status = dict(rows(c, "SHOW GLOBAL STATUS LIKE 'Innodb%'"))
    for name in [
        "Innodb_row_lock_waits",
        "Innodb_row_lock_time",
        "Innodb_row_lock_time_avg",
        "Innodb_row_lock_current_waits",
        "Innodb_deadlocks",
        "Innodb_history_list_length",
    ]:
        assert status[name] == "0", name


def test_restart_after_sigkill_and_after_clean_stop(kiln_factory):
    s = kiln_factory()
    d = s.datadir
    s.kill()
    kiln_factory.servers.remove(s)  # SIGKILLed on purpose: not a failed exit
    s2 = kiln_factory(datadir=d)
    assert s2.query("SELECT 1") == ((1,),)
    s2.stop()
    s3 = kiln_factory(datadir=d)
    assert "shutdown complete at LSN" in s3.log_text()
    assert s3.query("SELECT 1") == ((1,),)


def test_damaged_redo_log_is_refused_with_a_clear_error(kiln_factory):
    s = kiln_factory()
    d = s.datadir
    s.stop()
    with open(d / "ib_redo0", "r+b") as f:
        f.write(b"NOT-A-LOG" * 10)
    s2 = KilnServer(d, out_dir=d.parent)
    kiln_factory.servers.append(s2)
    with pytest.raises(KilnStartError):
        s2.start()
    assert s2.exit_code not in (0, None)
    s2.exit_code = 0  # expected failure: keep the teardown's exit-code check quiet
    text = s2.log_text() + s2.output_text()
    assert "redo log is corrupt" in text, text


def test_native_aio_is_reported_and_can_be_switched_off(kiln_factory):
    s = kiln_factory()
    c = s.connect(ssl_disabled=True)
    native = rows(c, "SELECT @@innodb_use_native_aio")[0][0]
    log = s.log_text()
    # io_uring when the kernel allows it; the variable tells the truth either way.
    assert ("page I/O via io_uring" in log) == (native == 1), log
    assert ("page I/O via pread/pwrite threads" in log) == (native == 0), log
    off = kiln_factory(["--skip-innodb-use-native-aio", "--innodb-write-io-threads=2"])
    c = off.connect(ssl_disabled=True)
    assert rows(c, "SELECT @@innodb_use_native_aio, @@innodb_write_io_threads") == ((0, 2),)
    assert "page I/O via pread/pwrite threads" in off.log_text()
