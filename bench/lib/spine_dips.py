#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""spine_dips.py - did the adaptive controller take gw1 under what the
collective sends? For the allreduce-spine-xdplane-on runs of bench/run
output directories (their logs/ files: the /metrics samples msample.py
writes every 100 ms, the ranks' JSON and per-10 ms timelines):

  rate below       share of gw1's adaptive-rate samples over the
                   collective's first --horizon ms that lie under --need
                   Mbit/s (the collective's hop through the spine: 25)
  CNP after a dip  per run, the first CNP each rank received; counted as
                   "after a dip" when gw1's adaptive rate was under --need
                   + --slack Mbit/s in the --before ms before it (the
                   controller's doing), against all of them

  bench/lib/spine_dips.py OUT_DIR...   (one line per directory)
"""
import argparse
import csv
import glob
import json
import os
from collections import defaultdict

RATE = "xdplane_adaptive_rate_bytes_per_second"


def run_dips(logs, run, o):
    start = json.load(open(f"{logs}/{run}-rank0.json"))["params"]["start_at"]
    rate = {}
    for r in csv.DictReader(open(f"{logs}/{run}-metrics.csv")):
        if r["port"].startswith("gw1") and r["metric"] == RATE:
            rate[(int(r["t_ns"]) - start) / 1e6] = float(r["value"]) * 8e-6
    ts = sorted(t for t in rate if 0 <= t <= o.horizon)
    below = sum(1 for t in ts if rate[t] < o.need)
    ranks = json.load(open(f"{logs}/{run}-rank0.json"))["nranks"]
    cnp = []
    for k in range(ranks):
        for r in csv.DictReader(open(f"{logs}/{run}-rank{k}-timeline.csv")):
            if r["dir"] == "tx" and int(r["cnps"]):
                cnp.append((int(r["t_ns"]) - start) / 1e6)
                break
    dips = 0
    for t in cnp:
        w = [rate[x] for x in ts if t - o.before <= x <= t + 20]
        dips += bool(w) and min(w) < o.need + o.slack
    return len(ts), below, len(cnp), dips


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="+", help="bench/run --out directories")
    ap.add_argument("--need", type=float, default=25.0,
                    help="what the collective sends through gw1, Mbit/s")
    ap.add_argument("--slack", type=float, default=0.5)
    ap.add_argument("--before", type=float, default=250.0, help="ms")
    ap.add_argument("--horizon", type=float, default=7000.0, help="ms")
    o = ap.parse_args()
    for d in o.out:
        tot = defaultdict(int)
        for f in sorted(glob.glob(f"{d}/logs/*xdplane-on-r*-metrics.csv")):
            run = os.path.basename(f)[:-len("-metrics.csv")]
            n, b, c, k = run_dips(f"{d}/logs", run, o)
            tot["n"] += n
            tot["below"] += b
            tot["cnp"] += c
            tot["dips"] += k
        print(f"{d}: rate samples {tot['n']}, below {o.need:g} Mbit/s "
              f"{tot['below']} ({100 * tot['below'] / max(tot['n'], 1):.1f} %); "
              f"first CNPs {tot['cnp']}, after a dip {tot['dips']}")


if __name__ == "__main__":
    main()
