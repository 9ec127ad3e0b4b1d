"""Experiment 6, read/write mix and CPU (seed: MySQL 8.0 vs 5.7): sysbench
oltp_read_write at 16..2,048 client threads, kiln vs MariaDB, with InnoDB row
operations per second (Innodb_rows_* deltas; MariaDB 10.11 lacks them, so its handler
counters) and server CPU per transaction (/proc/<pid>/stat around the measured run)."""

from lib.matrixexp import run_matrix

from . import split, sysbench_options

NUMBER = 6
NAME = "rw-cpu"
TITLE = "Read/write mix and CPU: oltp_read_write, row operations/s and CPU per transaction"
OPTIONS = sysbench_options(threads="16,32,64,128,256,512,1024,2048", smoke_threads="4",
                           systems="kiln,MariaDB")


def run(a):
    return run_matrix(
        a, NAME, TITLE, ["oltp_read_write"], split(a.threads, int), ["unix"],
        ["tps", "row_ops_s", "cpu_ms_per_txn", "p99_ms"],
        "sysbench oltp_read_write (10 point selects, 4 range queries, 2 updates, a delete and "
        "an insert per transaction, durable commits). Row operations/s: the sum of the "
        "Innodb_rows_read/inserted/updated/deleted deltas over the measured run divided by "
        "sysbench's total time (MariaDB 10.11 has no Innodb_rows_* counters: for it, the sum "
        "of the Handler_read_*, Handler_write, Handler_update and Handler_delete deltas; "
        "the CSV's row_source column says which). CPU per transaction: user+system time of the server process "
        "(all threads) during the measured sysbench invocation, connection set-up included, "
        "divided by its transactions.", rows=True)
