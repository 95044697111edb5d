#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""qsample.py - samples a gateway's egress queues for bench/run until
SIGTERM, one CSV row per (sample, port, class):

  t_ns,port,class,depth_bytes,depth_packets,sent_bytes,sent_packets,drops,marks

t_ns is CLOCK_MONOTONIC (the clock the hosts' generators stamp with: every
namespace of one machine shares it). Counters are cumulative as the gateway
reports them; depth is the backlog at the sample.

  qsample.py --xdplane SOCKET --interval S --out FILE
      xdplane: one control session (tests/lib/xdpctl.py), `stats` per sample;
      class = the xdplane class, drops = every drop reason of the class,
      marks = CE marks.
  qsample.py --tc DEV[,DEV] --interval S --out FILE      (run in the gateway's
      namespace) `tc -s -j class show` for HTB (class = the classid), else
      `tc -s -j qdisc show` (class = the root qdisc's kind); marks = 0.
      tc of iproute2 6.1 (Debian 12) prints classes as text even with -j:
      then the root qdisc's counters are sampled (an HTB tree as one row,
      class "htb"). Also the spine's TBF (bench/lib/spine.py).

Runs in one thread; the output is line-buffered, so rows written before a
SIGTERM are complete."""

import argparse
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "lib"))

HEADER = ("t_ns,port,class,depth_bytes,depth_packets,sent_bytes,"
          "sent_packets,drops,marks\n")


def xdplane_rows(ctl):
    st = ctl.call("stats")
    t = time.monotonic_ns()
    for p in st["ports"]:
        for c in p.get("classes", []):
            yield (t, p["name"], c["name"], c["depth_bytes"],
                   c["depth_packets"], c["sent_bytes"], c["sent_packets"],
                   sum(c["drops"].values()), c.get("ecn_marks", 0))


def tc_rows(devs):
    for dev in devs:
        out = subprocess.run(["tc", "-s", "-j", "class", "show", "dev", dev],
                             stdout=subprocess.PIPE, text=True).stdout
        t = time.monotonic_ns()
        try:
            classes = [c for c in json.loads(out or "[]")
                       if c.get("class") == "htb" and "parent" in c]
        except ValueError:
            # iproute2 6.1 prints `tc -j class show` as text: per class
            # counters are not to be had as JSON; the root qdisc's are
            classes = []
        if not classes:
            out = subprocess.run(["tc", "-s", "-j", "qdisc", "show", "dev",
                                  dev], stdout=subprocess.PIPE,
                                 text=True).stdout
            t = time.monotonic_ns()
            classes = [q for q in json.loads(out or "[]")
                       if q.get("root")]
            for q in classes:
                yield (t, dev, q["kind"], q.get("backlog", 0),
                       q.get("qlen", 0), q.get("bytes", 0),
                       q.get("packets", 0), q.get("drops", 0), 0)
            continue
        for c in classes:
            yield (t, dev, c["handle"], c.get("backlog", 0),
                   c.get("qlen", 0), c.get("bytes", 0), c.get("packets", 0),
                   c.get("drops", 0), 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xdplane")
    ap.add_argument("--tc")
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--out", required=True)
    o = ap.parse_args()
    stop = []
    signal.signal(signal.SIGTERM, lambda s, f: stop.append(s))
    signal.signal(signal.SIGINT, lambda s, f: stop.append(s))
    ctl = None
    if o.xdplane:
        import xdpctl
        for _ in range(100):
            try:
                ctl = xdpctl.Ctl(o.xdplane, timeout=5, client="qsample")
                break
            except OSError:
                time.sleep(0.1)
        if ctl is None:
            print(f"qsample: cannot connect to {o.xdplane}", file=sys.stderr)
            return 1
    devs = o.tc.split(",") if o.tc else []
    with open(o.out, "w", buffering=1) as f:
        f.write(HEADER)
        nxt = time.monotonic()
        while not stop:
            try:
                rows = list(xdplane_rows(ctl) if ctl else tc_rows(devs))
            except Exception as e:  # the gateway went away: stop sampling
                print(f"qsample: {e}", file=sys.stderr)
                break
            f.write("".join(",".join(str(v) for v in r) + "\n"
                            for r in rows))
            nxt += o.interval
            delay = nxt - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                nxt = time.monotonic()
    return 0


if __name__ == "__main__":
    sys.exit(main())
