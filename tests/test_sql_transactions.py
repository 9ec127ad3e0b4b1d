"""Transactions through SQL with several real PyMySQL connections.

Hermitage (github.com/ept/hermitage, mysql.md): G0, G1a, G1b, G1c, OTV, PMP, P4,
G-single, G2-item and G2 at READ COMMITTED, REPEATABLE READ and, where Hermitage
lists it, SERIALIZABLE, asserting the InnoDB outcome: which anomalies are prevented,
which statements block, which are allowed. Then deadlocks (1213), lock wait timeouts
(1205), SAVEPOINT, autocommit=0, implicit commits, consistent snapshots, SET
TRANSACTION, locking reads (FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE, NOWAIT,
SKIP LOCKED), gap locks.

A statement that should block runs in a thread; it counts as blocked once
Innodb_row_lock_current_waits rises (the harness only waits for that or for the
statement to finish, with a generous hang guard: nothing here asserts speed). Every
session has innodb_lock_wait_timeout = 15, so a statement that blocks where it
should not fails with 1205 instead of hanging.

The reference is MySQL 8.0 / InnoDB: a failing assertion is a difference from it.
"""

import itertools
import re
import threading
import time

import mysql.connector
import pymysql
import pytest

WAIT_LOCK = 15  # innodb_lock_wait_timeout of every session (seconds)
HANG = 30  # hang guard: longest the harness waits for a statement to block or finish

RC, RR, SER = "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"

DEADLOCK = (1213, "Deadlock found when trying to get lock; try restarting transaction")
TIMEOUT = (1205, "Lock wait timeout exceeded; try restarting transaction")
NOWAIT = (3572, "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set.")

_ids = itertools.count(1)


def q(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]


def ex(conn, sql):
    with conn.cursor() as cur:
        return cur.execute(sql)


def err(conn, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        ex(conn, sql)
    return tuple(e.value.args[:2])


class Bg:
    """One statement running on `conn` in a thread."""

    def __init__(self, conn, sql):
        self.conn, self.sql = conn, sql
        self.rows = self.rowcount = self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            with self.conn.cursor() as cur:
                self.rowcount = cur.execute(self.sql)
                self.rows = [tuple(r) for r in cur.fetchall()]
        except Exception as e:  # reported by result()
            self.error = e

    def done(self, timeout=0):
        self.thread.join(timeout)
        return not self.thread.is_alive()

    def outcome(self):
        if self.error is not None:
            return f"error {self.error.args!r}"
        return f"rows {self.rows!r} (rowcount {self.rowcount})"

    def wait(self):
        assert self.done(HANG), f"{self.sql!r} still blocked after {HANG}s"

    def result(self):
        """Waits for the statement; returns its rows or raises its error."""
        self.wait()
        if self.error is not None:
            raise self.error
        return self.rows

    def errinfo(self):
        self.wait()
        assert self.error is not None, f"{self.sql!r} succeeded: {self.outcome()}"
        return tuple(self.error.args[:2])


class Env:
    """Sessions on one database holding Hermitage's table:
    test(id INT PRIMARY KEY, value INT) = (1, 10), (2, 20)."""

    def __init__(self, server):
        self.server = server
        self.db = f"sqlt{next(_ids)}"
        self.mon = server.connect()
        ex(self.mon, f"CREATE DATABASE {self.db}")
        ex(self.mon, f"CREATE TABLE {self.db}.test (id INT PRIMARY KEY, value INT)")
        ex(self.mon, f"INSERT INTO {self.db}.test (id, value) VALUES (1, 10), (2, 20)")
        self.conns = []
        self.bgs = []

    def conn(self, level=None, timeout=WAIT_LOCK):
        c = self.server.connect(database=self.db, read_timeout=120)
        self.conns.append(c)
        ex(c, f"SET SESSION innodb_lock_wait_timeout = {timeout}")
        if level:
            ex(c, f"SET SESSION TRANSACTION ISOLATION LEVEL {level}")
        return c

    def begin(self, level=None):
        c = self.conn(level)
        ex(c, "BEGIN")
        return c

    def waits(self):
        r = q(self.mon, "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_current_waits'")
        assert r, "Innodb_row_lock_current_waits missing"
        return int(r[0][1])

    def bg(self, conn, sql):
        b = Bg(conn, sql)
        self.bgs.append(b)
        return b

    def blocks(self, conn, sql):
        """Starts `sql` on `conn` and returns once it waits for a row lock; fails if
        it finishes instead."""
        base = self.waits()
        b = self.bg(conn, sql)
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            if b.done():
                pytest.fail(f"expected {sql!r} to block, but it finished: {b.outcome()}")
            if self.waits() > base:
                return b
            time.sleep(0.01)
        pytest.fail(
            f"{sql!r} neither finished nor waited for a row lock "
            f"(Innodb_row_lock_current_waits stayed at {base}) within {HANG}s"
        )

    def still_blocked(self, b):
        """A statement that was blocked is still blocked (nothing it waits for was
        released): it has not finished and a row lock wait is still counted."""
        assert not b.done(), f"{b.sql!r} should still be blocked, but: {b.outcome()}"
        assert self.waits() >= 1

    def table(self, conn=None):
        return q(conn or self.mon, f"SELECT * FROM {self.db}.test ORDER BY id")

    def close(self):
        alive = [b for b in self.bgs if not b.done()]
        if alive:
            for c in self.conns:
                try:
                    ex(self.mon, f"KILL {c.thread_id()}")
                except Exception:
                    pass
            for b in alive:
                b.done(HANG)
        for c in self.conns:
            try:
                c.close()
            except Exception:
                pass
        try:
            ex(self.mon, f"DROP DATABASE IF EXISTS {self.db}")
        finally:
            self.mon.close()


@pytest.fixture
def env(kiln_shared):
    e = Env(kiln_shared)
    yield e
    e.close()


def one_deadlock(*bgs):
    """All statements finish; exactly one fails with 1213, the others succeed.
    Returns the index of the victim."""
    for b in bgs:
        b.wait()
    outcomes = [b.outcome() for b in bgs]
    victims = [i for i, b in enumerate(bgs) if b.error is not None]
    assert len(victims) == 1, f"expected exactly one deadlock victim: {outcomes}"
    assert tuple(bgs[victims[0]].error.args[:2]) == DEADLOCK, outcomes
    return victims[0]


# ======================================================================================
# Hermitage
# ======================================================================================


@pytest.mark.parametrize("level", [RC, RR, SER])
def test_g0_write_cycles_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    ex(t1, "update test set value = 11 where id = 1")
    b = env.blocks(t2, "update test set value = 12 where id = 1")
    ex(t1, "update test set value = 21 where id = 2")
    ex(t1, "commit")
    b.result()  # T1's commit unblocks T2
    assert q(t1, "select * from test order by id") == [(1, 11), (2, 21)]
    ex(t2, "update test set value = 22 where id = 2")
    ex(t2, "commit")
    assert q(t1, "select * from test order by id") == [(1, 12), (2, 22)]
    assert q(t2, "select * from test order by id") == [(1, 12), (2, 22)]


@pytest.mark.parametrize("level", [RC, RR])
def test_g1a_aborted_reads_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    ex(t1, "update test set value = 101 where id = 1")
    assert q(t2, "select * from test order by id") == [(1, 10), (2, 20)]
    ex(t1, "rollback")
    assert q(t2, "select * from test order by id") == [(1, 10), (2, 20)]
    ex(t2, "commit")


@pytest.mark.parametrize("level", [RC, RR])
def test_g1b_intermediate_reads_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    ex(t1, "update test set value = 101 where id = 1")
    assert q(t2, "select * from test order by id") == [(1, 10), (2, 20)]
    ex(t1, "update test set value = 11 where id = 1")
    ex(t1, "commit")
    # Never the intermediate 101: RC sees the committed 11, RR keeps its snapshot.
    expected = [(1, 11), (2, 20)] if level == RC else [(1, 10), (2, 20)]
    assert q(t2, "select * from test order by id") == expected
    ex(t2, "commit")


@pytest.mark.parametrize("level", [RC, RR])
def test_g1c_circular_information_flow_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    ex(t1, "update test set value = 11 where id = 1")
    ex(t2, "update test set value = 22 where id = 2")
    assert q(t1, "select * from test where id = 2") == [(2, 20)]
    assert q(t2, "select * from test where id = 1") == [(1, 10)]
    ex(t1, "commit")
    ex(t2, "commit")
    assert env.table() == [(1, 11), (2, 22)]


@pytest.mark.parametrize("level", [RC, RR])
def test_otv_observed_transaction_vanishes_prevented(env, level):
    t1, t2, t3 = env.begin(level), env.begin(level), env.begin(level)
    ex(t1, "update test set value = 11 where id = 1")
    ex(t1, "update test set value = 19 where id = 2")
    b = env.blocks(t2, "update test set value = 12 where id = 1")
    ex(t1, "commit")
    b.result()
    assert q(t3, "select * from test order by id") == [(1, 11), (2, 19)]
    ex(t2, "update test set value = 18 where id = 2")
    assert q(t3, "select * from test order by id") == [(1, 11), (2, 19)]
    ex(t2, "commit")
    expected = [(1, 12), (2, 18)] if level == RC else [(1, 11), (2, 19)]
    assert q(t3, "select * from test order by id") == expected
    ex(t3, "commit")


@pytest.mark.parametrize("level", [RC, RR])
def test_pmp_predicate_many_preceders_read_predicates(env, level):
    """RC does not prevent PMP; RR prevents it for read predicates."""
    t1, t2 = env.begin(level), env.begin(level)
    assert q(t1, "select * from test where value = 30") == []
    ex(t2, "insert into test (id, value) values (3, 30)")
    ex(t2, "commit")
    expected = [(3, 30)] if level == RC else []
    assert q(t1, "select * from test where value % 3 = 0") == expected
    ex(t1, "commit")


@pytest.mark.parametrize("level", [RC, RR])
def test_pmp_write_predicates_not_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    assert ex(t1, "update test set value = value + 10") == 2
    assert q(t2, "select * from test order by id") == [(1, 10), (2, 20)]
    b = env.blocks(t2, "delete from test where value = 20")
    ex(t1, "commit")
    b.result()
    assert b.rowcount == 1  # deletes row 1, whose value became 20
    # RC: 2 => 30. RR: 2 => 20, though rows with value 20 were "deleted".
    expected = [(2, 30)] if level == RC else [(2, 20)]
    assert q(t2, "select * from test order by id") == expected
    ex(t2, "commit")
    assert env.table() == [(2, 30)]


@pytest.mark.parametrize("level", [RC, RR])
def test_p4_lost_update_not_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    assert q(t2, "select * from test where id = 1") == [(1, 10)]
    ex(t1, "update test set value = 11 where id = 1")
    b = env.blocks(t2, "update test set value = 11 where id = 1")
    ex(t1, "commit")
    b.result()  # no error: T1's update is lost
    ex(t2, "commit")
    assert env.table() == [(1, 11), (2, 20)]


def test_p4_lost_update_prevented_serializable(env):
    t1, t2 = env.begin(SER), env.begin(SER)
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    assert q(t2, "select * from test where id = 1") == [(1, 10)]
    b1 = env.blocks(t1, "update test set value = 11 where id = 1")
    b2 = env.bg(t2, "update test set value = 11 where id = 1")
    victim = one_deadlock(b1, b2)
    survivor = [t1, t2][1 - victim]
    ex(survivor, "commit")
    ex([t1, t2][victim], "rollback")
    assert env.table() == [(1, 11), (2, 20)]


@pytest.mark.parametrize("level", [RC, RR])
def test_g_single_read_skew(env, level):
    """RC does not prevent read skew; RR prevents it for a read-only transaction."""
    t1, t2 = env.begin(level), env.begin(level)
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    assert q(t2, "select * from test where id = 1") == [(1, 10)]
    assert q(t2, "select * from test where id = 2") == [(2, 20)]
    ex(t2, "update test set value = 12 where id = 1")
    ex(t2, "update test set value = 18 where id = 2")
    ex(t2, "commit")
    expected = [(2, 18)] if level == RC else [(2, 20)]
    assert q(t1, "select * from test where id = 2") == expected
    ex(t1, "commit")


@pytest.mark.parametrize("level", [RC, RR])
def test_g_single_predicate_dependencies(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    assert q(t1, "select * from test where value % 5 = 0 order by id") == [(1, 10), (2, 20)]
    assert ex(t2, "update test set value = 12 where value = 10") == 1
    ex(t2, "commit")
    expected = [(1, 12)] if level == RC else []
    assert q(t1, "select * from test where value % 3 = 0") == expected
    ex(t1, "commit")


def test_g_single_write_predicate_not_prevented_repeatable_read(env):
    t1, t2 = env.begin(RR), env.begin(RR)
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    assert q(t2, "select * from test order by id") == [(1, 10), (2, 20)]
    ex(t2, "update test set value = 12 where id = 1")
    ex(t2, "update test set value = 18 where id = 2")
    ex(t2, "commit")
    assert ex(t1, "delete from test where value = 20") == 0  # deletes nothing
    assert q(t1, "select * from test where id = 2") == [(2, 20)]
    ex(t1, "commit")
    assert env.table() == [(1, 12), (2, 18)]


def test_g_single_write_predicate_prevented_serializable(env):
    t1, t2 = env.begin(SER), env.begin(SER)
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    assert q(t2, "select * from test order by id") == [(1, 10), (2, 20)]
    b2 = env.blocks(t2, "update test set value = 12 where id = 1")
    b1 = env.bg(t1, "delete from test where value = 20")
    victim = one_deadlock(b1, b2)
    if victim == 0:  # Hermitage's outcome: T1 is rolled back, T2 goes on
        ex(t2, "update test set value = 18 where id = 2")
        ex(t2, "commit")
        assert env.table() == [(1, 12), (2, 18)]
    else:
        ex(t1, "commit")
        assert env.table() == [(1, 10)]


@pytest.mark.parametrize("level", [RC, RR])
def test_g2_item_write_skew_not_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    assert q(t1, "select * from test where id in (1, 2) order by id") == [(1, 10), (2, 20)]
    assert q(t2, "select * from test where id in (1, 2) order by id") == [(1, 10), (2, 20)]
    ex(t1, "update test set value = 11 where id = 1")
    ex(t2, "update test set value = 21 where id = 2")
    ex(t1, "commit")
    ex(t2, "commit")
    assert env.table() == [(1, 11), (2, 21)]


def test_g2_item_write_skew_prevented_serializable(env):
    t1, t2 = env.begin(SER), env.begin(SER)
    assert q(t1, "select * from test where id in (1, 2) order by id") == [(1, 10), (2, 20)]
    assert q(t2, "select * from test where id in (1, 2) order by id") == [(1, 10), (2, 20)]
    b1 = env.blocks(t1, "update test set value = 11 where id = 1")
    b2 = env.bg(t2, "update test set value = 21 where id = 2")
    victim = one_deadlock(b1, b2)
    ex([t1, t2][1 - victim], "commit")
    ex([t1, t2][victim], "rollback")
    assert env.table() in ([(1, 11), (2, 20)], [(1, 10), (2, 21)])


@pytest.mark.parametrize("level", [RC, RR])
def test_g2_anti_dependency_cycles_not_prevented(env, level):
    t1, t2 = env.begin(level), env.begin(level)
    assert q(t1, "select * from test where value % 3 = 0") == []
    assert q(t2, "select * from test where value % 3 = 0") == []
    ex(t1, "insert into test (id, value) values (3, 30)")
    ex(t2, "insert into test (id, value) values (4, 42)")
    ex(t1, "commit")
    ex(t2, "commit")
    assert q(t1, "select * from test where value % 3 = 0 order by id") == [(3, 30), (4, 42)]


def test_g2_anti_dependency_cycles_prevented_serializable(env):
    t1, t2 = env.begin(SER), env.begin(SER)
    assert q(t1, "select * from test where value % 3 = 0") == []
    assert q(t2, "select * from test where value % 3 = 0") == []
    b1 = env.blocks(t1, "insert into test (id, value) values (3, 30)")
    b2 = env.bg(t2, "insert into test (id, value) values (4, 42)")
    victim = one_deadlock(b1, b2)
    ex([t1, t2][1 - victim], "commit")
    ex([t1, t2][victim], "rollback")
    assert q(env.mon, f"select * from {env.db}.test where value % 3 = 0") in ([(3, 30)], [(4, 42)])


def test_g2_fekete_two_anti_dependency_edges_serializable(env):
    """Hermitage: T1's update closes a cycle T1 -> T3 -> T2 -> T1; InnoDB rolls back
    T2 (the lightest: it holds no granted row lock), T3 reads the old values."""
    t1 = env.begin(SER)
    assert q(t1, "select * from test order by id") == [(1, 10), (2, 20)]
    t2 = env.begin(SER)
    b2 = env.blocks(t2, "update test set value = value + 5 where id = 2")
    t3 = env.begin(SER)
    b3 = env.blocks(t3, "select * from test order by id")
    b1 = env.bg(t1, "update test set value = 0 where id = 1")
    assert b2.errinfo() == DEADLOCK
    assert b3.result() == [(1, 10), (2, 20)]
    env.still_blocked(b1)  # waits for T3's shared lock on row 1
    ex(t3, "commit")
    b1.result()
    ex(t1, "commit")
    ex(t2, "rollback")
    assert env.table() == [(1, 0), (2, 20)]


# ======================================================================================
# Deadlocks and lock wait timeouts
# ======================================================================================


def test_deadlock_gives_1213_to_one_and_the_other_proceeds(env):
    t1, t2 = env.begin(), env.begin()
    ex(t1, "update test set value = 11 where id = 1")
    ex(t2, "update test set value = 22 where id = 2")
    b1 = env.blocks(t1, "update test set value = 12 where id = 2")
    b2 = env.bg(t2, "update test set value = 21 where id = 1")
    victim = one_deadlock(b1, b2)
    survivor, loser = ([t1, t2][1 - victim], [t1, t2][victim])
    ex(survivor, "commit")
    # The victim's whole transaction was rolled back, not just the statement.
    expected = [(1, 11), (2, 12)] if victim == 1 else [(1, 21), (2, 22)]
    assert env.table() == expected
    # ...and the victim's session is out of the transaction: autocommit again.
    ex(loser, "update test set value = 99 where id = 1")
    assert env.table()[0] == (1, 99)


def test_deadlock_victim_is_the_smaller_transaction(env):
    """InnoDB rolls back the transaction that changed fewer rows, whichever closes
    the cycle: here the heavy T1 closes it and the light T2 is rolled back."""
    ex(env.mon, f"CREATE TABLE {env.db}.side (id INT PRIMARY KEY)")
    t1, t2 = env.begin(), env.begin()
    ex(t1, "insert into side values " + ", ".join(f"({i})" for i in range(50)))
    ex(t1, "update test set value = 11 where id = 1")
    ex(t2, "update test set value = 22 where id = 2")
    b2 = env.blocks(t2, "update test set value = 21 where id = 1")
    b1 = env.bg(t1, "update test set value = 12 where id = 2")
    assert one_deadlock(b1, b2) == 1, "T2 (1 row) should be the victim, not T1 (51 rows)"
    ex(t1, "commit")
    assert env.table() == [(1, 11), (2, 12)]
    assert q(env.mon, f"select count(*) from {env.db}.side") == [(50,)]
    # SHOW ENGINE INNODB STATUS describes the deadlock as InnoDB does: each
    # transaction's held and awaited lock (table, index, mode) and the one rolled back.
    status = q(env.mon, "SHOW ENGINE INNODB STATUS")[0][2]
    section = status.split("LATEST DETECTED DEADLOCK")[1].split("TRANSACTIONS")[0]
    assert section.count("TRANSACTION:") == 2, section
    assert section.count("HOLDS THE LOCK(S):") == 2, section
    assert section.count("WAITING FOR THIS LOCK TO BE GRANTED:") == 2, section
    assert f"index PRIMARY of table `{env.db}`.`test`" in section, section
    assert "lock_mode X locks rec but not gap waiting" in section, section
    # The victim named in the verdict is the lighter one, T2.
    weights = [int(w) for w in re.findall(r"TRANSACTION \d+, ACTIVE, weight (\d+)", section)]
    victim = int(re.search(r"\*\*\* WE ROLL BACK TRANSACTION \((\d+)\)", section).group(1))
    assert len(weights) == 2 and weights[victim - 1] < weights[2 - victim], section


def test_deadlock_sqlstate_40001(env, kiln_shared):
    t1 = env.begin()
    m = mysql.connector.connect(host="127.0.0.1", port=kiln_shared.port, user="root", password="",
                                database=env.db, ssl_disabled=True, autocommit=True)
    try:
        cur = m.cursor()
        cur.execute(f"SET SESSION innodb_lock_wait_timeout = {WAIT_LOCK}")
        cur.execute("BEGIN")
        ex(t1, "insert into test values (3, 30), (4, 40), (5, 50)")  # T1 is heavier
        ex(t1, "update test set value = 11 where id = 1")
        cur.execute("update test set value = 22 where id = 2")
        b1 = env.blocks(t1, "update test set value = 12 where id = 2")
        # T2 closes the cycle and is the lighter transaction: it is the victim.
        with pytest.raises(mysql.connector.Error) as e:
            cur.execute("update test set value = 21 where id = 1")
        assert (e.value.errno, e.value.sqlstate, e.value.msg) == (DEADLOCK[0], "40001", DEADLOCK[1])
        b1.result()
        ex(t1, "commit")
        assert env.table() == [(1, 11), (2, 12), (3, 30), (4, 40), (5, 50)]
    finally:
        m.close()


def test_lock_wait_timeout_1205_rolls_back_only_the_statement(env):
    t1 = env.begin()
    ex(t1, "update test set value = 11 where id = 1")
    t2 = env.conn(timeout=1)
    ex(t2, "begin")
    ex(t2, "update test set value = 21 where id = 2")
    assert err(t2, "update test set value = 12 where id = 1") == TIMEOUT
    assert err(t2, "select * from test where id = 1 for update") == TIMEOUT
    # innodb_rollback_on_timeout=OFF: T2 is still open and keeps its own change.
    assert q(t2, "select * from test order by id") == [(1, 10), (2, 21)]
    assert env.table() == [(1, 10), (2, 20)]
    ex(t1, "rollback")
    ex(t2, "commit")
    assert env.table() == [(1, 10), (2, 21)]


def test_lock_wait_timeout_sqlstate(env, kiln_shared):
    t1 = env.begin()
    ex(t1, "update test set value = 11 where id = 1")
    m = mysql.connector.connect(host="127.0.0.1", port=kiln_shared.port, user="root", password="",
                                database=env.db, ssl_disabled=True, autocommit=True)
    try:
        cur = m.cursor()
        cur.execute("SET SESSION innodb_lock_wait_timeout = 1")
        with pytest.raises(mysql.connector.Error) as e:
            cur.execute("update test set value = 12 where id = 1")
        assert (e.value.errno, e.value.sqlstate, e.value.msg) == (TIMEOUT[0], "HY000", TIMEOUT[1])
        with pytest.raises(mysql.connector.Error) as e:
            cur.execute("select * from test where id = 1 for update nowait")
            cur.fetchall()
        assert (e.value.errno, e.value.sqlstate, e.value.msg) == (NOWAIT[0], "HY000", NOWAIT[1])
    finally:
        m.close()
    ex(t1, "rollback")


# ======================================================================================
# SAVEPOINT
# ======================================================================================


def test_savepoint_rollback_to_and_release(env):
    c = env.conn()
    ex(c, "BEGIN")
    ex(c, "insert into test values (3, 30)")
    ex(c, "SAVEPOINT a")
    ex(c, "insert into test values (4, 40)")
    ex(c, "update test set value = 11 where id = 1")
    ex(c, "SAVEPOINT b")
    ex(c, "insert into test values (5, 50)")
    ex(c, "delete from test where id = 2")
    ex(c, "ROLLBACK TO SAVEPOINT b")
    assert q(c, "select * from test order by id") == [(1, 11), (2, 20), (3, 30), (4, 40)]
    ex(c, "ROLLBACK TO a")
    assert q(c, "select * from test order by id") == [(1, 10), (2, 20), (3, 30)]
    # Rolling back to a removes the savepoints set after it.
    assert err(c, "ROLLBACK TO SAVEPOINT b") == (1305, "SAVEPOINT b does not exist")
    # ...but keeps a itself.
    ex(c, "insert into test values (6, 60)")
    ex(c, "ROLLBACK WORK TO SAVEPOINT a")
    assert q(c, "select * from test order by id") == [(1, 10), (2, 20), (3, 30)]
    ex(c, "insert into test values (7, 70)")
    ex(c, "RELEASE SAVEPOINT a")
    assert err(c, "ROLLBACK TO SAVEPOINT a") == (1305, "SAVEPOINT a does not exist")
    assert err(c, "RELEASE SAVEPOINT a") == (1305, "SAVEPOINT a does not exist")
    # Still the same transaction: nothing visible outside yet.
    assert env.table() == [(1, 10), (2, 20)]
    ex(c, "COMMIT")
    assert env.table() == [(1, 10), (2, 20), (3, 30), (7, 70)]


def test_savepoint_same_name_moves_and_commit_clears(env):
    c = env.conn()
    ex(c, "START TRANSACTION")
    ex(c, "SAVEPOINT s")
    ex(c, "insert into test values (3, 30)")
    ex(c, "SAVEPOINT s")  # replaces the earlier s
    ex(c, "insert into test values (4, 40)")
    ex(c, "ROLLBACK TO SAVEPOINT s")
    assert q(c, "select id from test order by id") == [(1,), (2,), (3,)]
    ex(c, "COMMIT")
    assert err(c, "ROLLBACK TO SAVEPOINT s") == (1305, "SAVEPOINT s does not exist")
    ex(c, "BEGIN")
    ex(c, "SAVEPOINT s")
    ex(c, "insert into test values (5, 50)")
    ex(c, "ROLLBACK")  # a full rollback ends the transaction and its savepoints
    assert err(c, "ROLLBACK TO SAVEPOINT s") == (1305, "SAVEPOINT s does not exist")
    assert env.table() == [(1, 10), (2, 20), (3, 30)]


def test_rollback_to_savepoint_keeps_row_locks(env):
    """InnoDB does not release the row locks taken after the savepoint (MySQL
    manual, SAVEPOINT): another session still waits until the transaction ends."""
    t1 = env.begin()
    ex(t1, "SAVEPOINT s")
    ex(t1, "update test set value = 11 where id = 1")
    ex(t1, "ROLLBACK TO SAVEPOINT s")
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    t2 = env.begin()
    b = env.blocks(t2, "update test set value = 12 where id = 1")
    ex(t1, "commit")
    b.result()
    ex(t2, "commit")
    assert env.table() == [(1, 12), (2, 20)]


# ======================================================================================
# autocommit, implicit commits
# ======================================================================================


def test_autocommit_0_keeps_a_transaction_open_until_commit(env):
    c = env.conn()
    other = env.conn()
    ex(c, "SET autocommit = 0")
    assert q(c, "SELECT @@autocommit") == [(0,)]
    ex(c, "insert into test values (3, 30)")
    assert env.table(other) == [(1, 10), (2, 20)]
    assert q(c, "select count(*) from test") == [(3,)]
    ex(c, "COMMIT")
    assert env.table(other) == [(1, 10), (2, 20), (3, 30)]
    # The next statement starts the next transaction by itself.
    ex(c, "update test set value = 11 where id = 1")
    assert err(other, "select * from test where id = 1 for update nowait") == NOWAIT
    ex(c, "ROLLBACK")
    assert env.table(other) == [(1, 10), (2, 20), (3, 30)]
    q(other, "select * from test where id = 1 for update nowait")  # lock released
    # Setting autocommit back to 1 commits the open transaction.
    ex(c, "delete from test where id = 3")
    assert len(env.table(other)) == 3
    ex(c, "SET autocommit = 1")
    assert env.table(other) == [(1, 10), (2, 20)]


def test_autocommit_0_through_the_client_api(env):
    c = env.conn()
    c.autocommit(False)
    ex(c, "insert into test values (3, 30)")
    assert env.table() == [(1, 10), (2, 20)]
    c.rollback()
    assert env.table() == [(1, 10), (2, 20)]
    ex(c, "insert into test values (4, 40)")
    c.commit()
    assert env.table() == [(1, 10), (2, 20), (4, 40)]


IMPLICIT_COMMIT = [
    "CREATE TABLE side2 (a INT)",
    "DROP TABLE side",
    "ALTER TABLE side ADD COLUMN b INT",
    "RENAME TABLE side TO side3",
    "TRUNCATE TABLE side",
    "CREATE INDEX kv ON test (value)",
    "CREATE DATABASE {db}_extra",
    "BEGIN",
    "START TRANSACTION",
]


@pytest.mark.parametrize("stmt", IMPLICIT_COMMIT)
def test_statement_commits_the_open_transaction_implicitly(env, stmt):
    ex(env.mon, f"CREATE TABLE {env.db}.side (a INT PRIMARY KEY)")
    c = env.conn()
    try:
        ex(c, "BEGIN")
        ex(c, "insert into test values (3, 30)")
        ex(c, "update test set value = 11 where id = 1")
        ex(c, stmt.replace("{db}", env.db))
        # Committed: visible to others, and ROLLBACK can no longer undo it.
        assert env.table() == [(1, 11), (2, 20), (3, 30)]
        ex(c, "ROLLBACK")
        assert env.table() == [(1, 11), (2, 20), (3, 30)]
    finally:
        ex(env.mon, f"DROP DATABASE IF EXISTS {env.db}_extra")


def test_ddl_commits_under_autocommit_0(env):
    c = env.conn()
    ex(c, "SET autocommit = 0")
    ex(c, "insert into test values (3, 30)")
    ex(c, "CREATE TABLE side (a INT)")
    ex(c, "ROLLBACK")
    assert env.table() == [(1, 10), (2, 20), (3, 30)]


def test_disconnect_rolls_back_and_releases_locks(env):
    t1 = env.begin()
    ex(t1, "update test set value = 99 where id = 1")
    ex(t1, "insert into test values (3, 30)")
    t1.close()
    t2 = env.begin()
    assert ex(t2, "update test set value = value + 1 where id = 1") == 1
    ex(t2, "insert into test values (3, 31)")
    ex(t2, "commit")
    assert env.table() == [(1, 11), (2, 20), (3, 31)]


# ======================================================================================
# snapshots and isolation settings
# ======================================================================================


def test_consistent_snapshot_starts_at_start_transaction(env):
    other = env.conn()
    t1 = env.conn(RR)
    ex(t1, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
    ex(other, "update test set value = 15 where id = 1")
    ex(other, "delete from test where id = 2")
    assert q(t1, "select * from test order by id") == [(1, 10), (2, 20)]
    ex(t1, "commit")
    # A plain BEGIN takes its snapshot at the first consistent read instead.
    t2 = env.conn(RR)
    ex(t2, "BEGIN")
    ex(other, "update test set value = 16 where id = 1")
    assert q(t2, "select * from test order by id") == [(1, 16)]
    ex(other, "insert into test values (5, 50)")
    assert q(t2, "select * from test order by id") == [(1, 16)]
    ex(t2, "commit")
    assert q(t2, "select * from test order by id") == [(1, 16), (5, 50)]


def test_repeatable_read_dml_and_locking_reads_see_the_latest_committed_rows(env):
    other = env.conn()
    t1 = env.begin(RR)
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    ex(other, "update test set value = 15 where id = 1")
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    assert q(t1, "select * from test where id = 1 for share") == [(1, 15)]
    assert q(t1, "select * from test where id = 1") == [(1, 10)]
    # An UPDATE reads the latest committed version, and its result is then visible
    # to the transaction's own consistent reads.
    assert ex(t1, "update test set value = value + 1 where id = 1") == 1
    assert q(t1, "select * from test where id = 1") == [(1, 16)]
    ex(t1, "commit")
    assert env.table() == [(1, 16), (2, 20)]


def test_set_transaction_applies_to_the_next_transaction_only(env):
    """SET TRANSACTION without GLOBAL/SESSION sets the level of the next transaction
    only. SERIALIZABLE makes a plain SELECT inside a transaction a locking read,
    which shows which level a transaction runs at."""
    t1 = env.begin()
    ex(t1, "update test set value = 11 where id = 1")
    c = env.conn()
    assert q(c, "SELECT @@transaction_isolation") == [("REPEATABLE-READ",)]
    ex(c, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    ex(c, "BEGIN")
    b = env.blocks(c, "select value from test where id = 1")  # serializable
    ex(t1, "commit")
    assert b.result() == [(11,)]
    ex(c, "COMMIT")
    ex(t1, "begin")
    ex(t1, "update test set value = 12 where id = 1")
    ex(c, "SET SESSION innodb_lock_wait_timeout = 2")  # a consistent read never waits
    ex(c, "BEGIN")
    assert q(c, "select value from test where id = 1") == [(11,)]  # repeatable read again
    ex(c, "COMMIT")
    ex(t1, "rollback")
    ex(c, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
    assert q(c, "SELECT @@transaction_isolation, @@session.transaction_isolation") == [
        ("READ-COMMITTED", "READ-COMMITTED")
    ]


def test_set_transaction_inside_a_transaction_is_1568(env):
    c = env.conn()
    ex(c, "BEGIN")
    q(c, "select * from test")
    assert err(c, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE") == (
        1568, "Transaction characteristics can't be changed while a transaction is in progress"
    )
    ex(c, "COMMIT")
    ex(c, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")


def test_serializable_plain_select_locks_only_inside_a_transaction(env):
    t1 = env.begin()
    ex(t1, "update test set value = 11 where id = 1")
    s = env.conn(SER)
    # autocommit: a consistent, non-locking read
    assert q(s, "select * from test order by id") == [(1, 10), (2, 20)]
    ex(s, "BEGIN")
    b = env.blocks(s, "select * from test where id = 1")  # LOCK IN SHARE MODE
    ex(t1, "commit")
    assert b.result() == [(1, 11)]
    ex(s, "commit")


# ======================================================================================
# locking reads
# ======================================================================================


def test_select_for_update_blocks_writers_and_locking_readers_not_plain_readers(env):
    t1 = env.begin()
    assert q(t1, "select * from test where id = 1 for update") == [(1, 10)]
    t2 = env.conn()
    assert q(t2, "select * from test where id = 1") == [(1, 10)]  # no wait
    ex(t2, "BEGIN")
    b = env.blocks(t2, "select * from test where id = 1 for update")
    ex(t1, "update test set value = 11 where id = 1")
    ex(t1, "commit")
    assert b.result() == [(1, 11)]
    t3 = env.begin()
    b3 = env.blocks(t3, "update test set value = 12 where id = 1")
    ex(t2, "commit")
    b3.result()
    ex(t3, "commit")
    assert env.table() == [(1, 12), (2, 20)]


@pytest.mark.parametrize("share", ["FOR SHARE", "LOCK IN SHARE MODE"])
def test_shared_locks_are_compatible_with_each_other_not_with_writers(env, share):
    t1, t2, t3 = env.begin(), env.begin(), env.begin()
    assert q(t1, f"select * from test where id = 1 {share}") == [(1, 10)]
    assert q(t2, f"select * from test where id = 1 {share}") == [(1, 10)]  # no wait
    b = env.blocks(t3, "update test set value = 13 where id = 1")
    ex(t1, "commit")
    env.still_blocked(b)  # T2 still holds its shared lock
    ex(t2, "commit")
    b.result()
    ex(t3, "commit")
    assert env.table() == [(1, 13), (2, 20)]


def test_nowait_fails_at_once_with_3572(env):
    t1 = env.begin()
    q(t1, "select * from test where id = 1 for update")
    t2 = env.begin()
    assert err(t2, "select * from test where id = 1 for update nowait") == NOWAIT
    assert err(t2, "select * from test where id = 1 for share nowait") == NOWAIT
    assert q(t2, "select * from test where id = 2 for update nowait") == [(2, 20)]
    ex(t1, "commit")
    assert q(t2, "select * from test where id = 1 for update nowait") == [(1, 10)]
    ex(t2, "commit")


def test_skip_locked_skips_locked_rows(env):
    ex(env.mon, f"insert into {env.db}.test values (3, 30), (4, 40)")
    t1 = env.begin()
    q(t1, "select * from test where id in (1, 3) for share")
    t2 = env.begin()
    assert q(t2, "select * from test order by id for update skip locked") == [(2, 20), (4, 40)]
    t3 = env.begin()
    # Shared locks do not conflict with T1's; T2's exclusive ones are skipped.
    assert q(t3, "select id from test order by id for share skip locked") == [(1,), (3,)]
    ex(t1, "commit")
    ex(t2, "commit")
    ex(t3, "commit")


@pytest.mark.parametrize("level", [RR, SER])
def test_next_key_locks_block_inserts_into_a_locked_range(env, level):
    ex(env.mon, f"insert into {env.db}.test values (10, 100)")
    t1 = env.begin(level)
    assert q(t1, "select id from test where id > 1 for update") == [(2,), (10,)]
    t2 = env.begin(level)
    b = env.blocks(t2, "insert into test values (5, 50)")  # the gap (2, 10)
    ex(t1, "commit")
    b.result()
    ex(t2, "commit")
    # Phantom-free: under the lock, T1 saw no row that is not there any more.
    assert env.table() == [(1, 10), (2, 20), (5, 50), (10, 100)]


def test_read_committed_takes_no_gap_locks(env):
    ex(env.mon, f"insert into {env.db}.test values (10, 100)")
    t1 = env.begin(RC)
    assert q(t1, "select id from test where id > 1 for update") == [(2,), (10,)]
    t2 = env.begin(RC)
    ex(t2, "insert into test values (5, 50)")  # no wait
    ex(t2, "commit")
    assert q(t1, "select id from test where id > 1 for update") == [(2,), (5,), (10,)]
    ex(t1, "commit")


def test_insert_of_a_key_inserted_by_an_open_transaction_waits_for_its_outcome(env):
    t1, t2 = env.begin(), env.begin()
    ex(t1, "insert into test values (3, 30)")
    b = env.blocks(t2, "insert into test values (3, 31)")
    ex(t1, "rollback")
    b.result()  # the key is free again
    ex(t2, "commit")
    ex(t1, "begin")
    ex(t2, "begin")
    ex(t1, "insert into test values (4, 40)")
    b = env.blocks(t2, "insert into test values (4, 41)")
    ex(t1, "commit")
    assert b.errinfo() == (1062, "Duplicate entry '4' for key 'test.PRIMARY'")
    ex(t2, "commit")
    assert env.table() == [(1, 10), (2, 20), (3, 31), (4, 40)]
