# SPDX-License-Identifier: BSD-2-Clause
"""gapmeter.py - a timestamped UDP stream for the fault tests: when did
traffic stop, when did it come back.

  gapmeter.py send --to IP:PORT --rate PPS --duration S [--size N]
  gapmeter.py recv --bind IP:PORT --out FILE [--duration S]

Each datagram carries a 64-bit sequence number, its CLOCK_MONOTONIC send
time and the sender's count of failed sends so far (network byte order),
padded to --size bytes. The receiver appends one line per datagram to
FILE: "seq send_ns recv_ns errors". A sequence number whose send failed
(e.g. ENETUNREACH while the sender's own link is down) is never received:
the errors field lets the analysis tell those apart from frames lost on
the way. CLOCK_MONOTONIC is shared
by every network namespace of the host, so the test driver can compare its
own timestamps (time.monotonic_ns(), e.g. right after `ip link set up`)
with the arrivals. The sender paces to an absolute schedule (no drift);
when it falls behind it does not burst to catch up (and never skips a
sequence number).

Single process, no threads; the receiver stops at --duration or SIGTERM and
flushes FILE; on exit it prints a JSON summary line {"received": N}.
Helpers for the analysis: load(FILE), first_after(), gaps(), losses(),
losses_outside().
"""
import argparse
import json
import signal
import socket
import struct
import sys
import time

HDR = struct.Struct("!QQQ")


def addr(text):
    host, port = text.rsplit(":", 1)
    return host.strip("[]"), int(port)


def send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dst = addr(a.to)
    pad = b"\0" * max(0, a.size - HDR.size)
    period = 1e9 / a.rate
    t0 = time.monotonic_ns()
    end = t0 + int(a.duration * 1e9)
    seq = 0
    errors = 0
    while True:
        now = time.monotonic_ns()
        if now >= end:
            break
        due = t0 + int(seq * period)
        if due > now:
            time.sleep((due - now) / 1e9)
        elif now - due > 50 * period:
            # behind by more than 50 datagrams (CPU starved): re-anchor
            # the schedule rather than burst; sequence numbers stay dense
            t0 = now - int(seq * period)
        try:
            s.sendto(HDR.pack(seq, time.monotonic_ns(), errors) + pad, dst)
        except OSError:
            errors += 1  # e.g. ENOBUFS, or no route while a link is down
        seq += 1
    print(json.dumps({"sent": seq, "send_errors": errors}), flush=True)


def recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(addr(a.bind))
    s.settimeout(0.2)
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    end = time.monotonic_ns() + int(a.duration * 1e9) if a.duration else None
    n = 0
    print("ready", flush=True)
    with open(a.out, "w") as f:
        while not stop[0] and (end is None or time.monotonic_ns() < end):
            try:
                data = s.recv(65536)
            except socket.timeout:
                continue
            t = time.monotonic_ns()
            if len(data) < HDR.size:
                continue
            seq, sent, errs = HDR.unpack_from(data)
            f.write(f"{seq} {sent} {t} {errs}\n")
            n += 1
            if n % 1000 == 0:
                f.flush()
    print(json.dumps({"received": n}), flush=True)


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 4:
                rows.append(tuple(int(x) for x in p))
    rows.sort()
    return rows


def first_after(rows, t_ns):
    """The first datagram received after t_ns that was also sent after it
    (not one that waited in a queue through the fault): its receive time,
    or None."""
    for seq, sent, got, _ in sorted(rows, key=lambda r: r[2]):
        if got >= t_ns and sent >= t_ns:
            return got
    return None


def gaps(rows, min_ns):
    """(start, end) receive times of the silences longer than min_ns."""
    out = []
    t = sorted(r[2] for r in rows)
    for a, b in zip(t, t[1:]):
        if b - a > min_ns:
            out.append((a, b))
    return out


def losses(rows, lo_ns, hi_ns):
    """Sequence numbers missing between the datagrams received around the
    window [lo_ns, hi_ns] of send times: (lost on the way, failed sends).
    A missing seq belongs to the window when the send times of the received
    datagrams on either side of it overlap the window. rows sorted by seq;
    the seqs before the first and after the last received one are not
    counted (the stream's ends)."""
    lost = failed = 0
    for a, b in zip(rows, rows[1:]):
        gap = b[0] - a[0] - 1
        if gap <= 0 or b[1] < lo_ns or a[1] > hi_ns:
            continue
        err = min(gap, b[3] - a[3])
        failed += err
        lost += gap - err
    return lost, failed


def losses_outside(rows, windows):
    """Missing seqs whose neighbours' send times touch none of windows."""
    out = 0
    for a, b in zip(rows, rows[1:]):
        gap = b[0] - a[0] - 1
        if gap <= 0:
            continue
        if not any(b[1] >= lo and a[1] <= hi for lo, hi in windows):
            out += gap
    return out


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("--to", required=True)
    ps.add_argument("--rate", type=float, default=1000)
    ps.add_argument("--duration", type=float, required=True)
    ps.add_argument("--size", type=int, default=64)
    pr = sub.add_parser("recv")
    pr.add_argument("--bind", required=True)
    pr.add_argument("--out", required=True)
    pr.add_argument("--duration", type=float, default=0)
    a = ap.parse_args()
    if a.cmd == "send":
        send(a)
    else:
        recv(a)


if __name__ == "__main__":
    sys.exit(main())
