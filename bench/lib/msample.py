#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""msample.py - samples xdplane's Prometheus endpoint for bench/run's spine
scenarios until SIGTERM (run it inside the gateway's namespace: the
endpoint listens on that namespace's loopback). One CSV row per (sample,
series):

  t_ns,metric,port,value

t_ns is CLOCK_MONOTONIC when the response arrived. Kept: every
xdplane_adaptive_* sample (the adaptive egress's gauges: the effective
rate xdplane_adaptive_rate_bytes_per_second{port=...,queue=...} and whatever else the daemon
exports under that prefix; port = its port label, other labels appended as
port/label=value), and xdplane_tx_bytes_total summed over the port's
queues (the port's transmitted bytes: the effective egress rate when no
adaptive gauge is exported).

  msample.py --url http://127.0.0.1:9470/metrics --interval 0.1 --out FILE

Runs in one thread; the output is line-buffered, so rows written before a
SIGTERM are complete. Connection errors while the daemon starts are
retried; a scrape that fails later is skipped (counted on stderr)."""

import argparse
import re
import signal
import sys
import time
import urllib.request

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """(metric, port key, value) for the series msample keeps."""
    tx = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        m = LINE.match(line)
        if not m:
            continue
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        if not (name.startswith("xdplane_adaptive_") or
                name == "xdplane_tx_bytes_total"):
            continue
        try:
            v = float(value)
        except ValueError:
            continue
        lab = dict(LABEL.findall(labels))
        port = lab.pop("port", "")
        if name == "xdplane_tx_bytes_total":
            tx[port] = tx.get(port, 0) + v
            continue
        key = "/".join([port] + [f"{k}={lab[k]}" for k in sorted(lab)])
        yield name, key, v
    for port, v in tx.items():
        yield "xdplane_tx_bytes_total", port, v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--out", required=True)
    o = ap.parse_args()
    stop = []
    signal.signal(signal.SIGTERM, lambda s, f: stop.append(s))
    signal.signal(signal.SIGINT, lambda s, f: stop.append(s))
    failed = ok = 0
    # the endpoint is local to the namespace: never through a proxy
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with open(o.out, "w", buffering=1) as f:
        f.write("t_ns,metric,port,value\n")
        nxt = time.monotonic()
        while not stop:
            try:
                with opener.open(o.url, timeout=2) as resp:
                    text = resp.read().decode("utf-8", "replace")
                t = time.monotonic_ns()
                f.write("".join(f"{t},{n},{p},{v:.17g}\n"
                                for n, p, v in parse(text)))
                ok += 1
            except (OSError, ValueError):
                failed += 1
            nxt += o.interval
            delay = nxt - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                nxt = time.monotonic()
    print(f"msample: {ok} scrapes, {failed} failed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
