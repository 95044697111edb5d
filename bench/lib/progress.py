# SPDX-License-Identifier: BSD-2-Clause
"""progress.py - "k of N" and the time left, for the long benchmark runs
(bench/fwd, bench/run). The estimate before the first step ends is the
caller's guess per step; after that it is the mean time of the steps done
so far times the steps left."""

import time


def fmt_duration(s):
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Progress:
    def __init__(self, total, log, guess_s=None, unit="step"):
        self.total = max(1, total)
        self.log = log
        self.guess = guess_s
        self.unit = unit
        self.k = 0
        self.t0 = time.monotonic()

    def left_s(self):
        if self.k:
            return (time.monotonic() - self.t0) / self.k * \
                (self.total - self.k)
        return self.guess * self.total if self.guess is not None else None

    def start(self, what):
        """Log that step k+1 of N (what) starts, with the time left."""
        left = self.left_s()
        eta = f", about {fmt_duration(left)} left" if left is not None \
            else ""
        self.log(f"{self.unit} {self.k + 1} of {self.total}: {what}{eta}")

    def done(self, n=1):
        self.k = min(self.total, self.k + n)

    def finish(self):
        self.log(f"{self.k} of {self.total} {self.unit}s done in "
                 f"{fmt_duration(time.monotonic() - self.t0)}")
