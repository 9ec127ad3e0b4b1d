"""Progress lines on stderr while an experiment runs: elapsed time, which step of how
many, which server and what it is doing, and an estimate of the time left (from the
steps done so far, or from the caller's guess before the first one ends)."""

import sys
import time

_START = time.monotonic()


def fmt_dur(seconds):
    s = int(round(max(seconds, 0)))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def log(msg):
    el = time.monotonic() - _START
    print(f"[{int(el // 60):02d}:{int(el % 60):02d}] {msg}", file=sys.stderr, flush=True)


class Progress:
    """Counts the measured steps of one experiment.

    `step(what)` logs "step i/n: <what> (~T left)"; `guess_s` is the expected length
    of one step, used until a step has been timed."""

    def __init__(self, experiment, total, guess_s):
        self.experiment, self.total, self.guess = experiment, max(total, 1), guess_s
        self.done = 0
        self.t0 = time.monotonic()

    def step(self, what):
        per = (time.monotonic() - self.t0) / self.done if self.done else self.guess
        left = per * (self.total - self.done)
        self.done += 1
        log(f"{self.experiment} step {self.done}/{self.total}: {what} (~{fmt_dur(left)} left)")

    def note(self, msg):
        log(f"{self.experiment}: {msg}")
