"""Experiment 1, point-select scalability (seed: MySQL 5.7 read-only scalability):
sysbench oltp_point_select at 1..1,024 client threads over the Unix socket and TCP,
kiln and MariaDB, each with one thread per connection and with its thread pool."""

from lib.matrixexp import run_matrix

from . import split, sysbench_options

NUMBER = 1
NAME = "point-select"
TITLE = "Point-select scalability: kiln vs MariaDB, Unix socket and TCP, thread pool on/off"
OPTIONS = sysbench_options(
    threads="1,2,4,8,16,32,64,128,256,512,1024", smoke_threads="4",
    systems="kiln,kiln pool,MariaDB,MariaDB pool") + [
    ("--transports", str, "unix,tcp", "unix,tcp", "unix and/or tcp (127.0.0.1)"),
]


def run(a):
    return run_matrix(
        a, NAME, TITLE, ["oltp_point_select"], split(a.threads, int), split(a.transports),
        ["qps", "p99_ms"],
        "sysbench oltp_point_select (one primary-key SELECT per transaction) against each "
        "system; the client is sysbench on the same machine.")
