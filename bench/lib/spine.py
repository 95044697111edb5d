# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""spine.py - the spine variant of bench/run's testbed: the bottleneck is a
FIFO one hop beyond the gateway, shared with traffic the gateway never sees.

  rack A ─ ToR A ═ gw0 [gateway] gw1 ═ sgw ─[spine]─ stor ═ uplink ─ ToR B
                                             │  (TBF FIFO         │
                                            pxs  towards ToR B)  rack B, xd
                                             │                 (cross sink)
                                            xs (cross-traffic source)

The spine is a namespace with a Linux bridge (static forwarding entries,
as the ToRs). Its port towards ToR B ("stor") is a TBF at the spine rate
(below the gateway's port rate) with a byte limit, the spine buffer: one
FIFO, as a switch port without QoS. The direction B -> A is not shaped: it
carries the TCP ACKs, the RoCE ACKs/CNPs and the ring's h7 -> h0 edge (at
most one GPU host's line rate, below the spine rate), none of which queues
there; unshaped, the reverse path adds no queueing delay of its own to the
round trips the gateway's adaptive egress measures, so what it sees is the
forward bottleneck's queue.

A cross-traffic source, namespace xs, is attached to the spine's bridge;
its sink xd hangs off ToR B, so its frames cross the spine's bottleneck
and never the gateway. It sends paced UDP (storgen udp, back-to-back
bursts: a constant rate) following the schedule --cross, e.g.
"0:0,2:0.25,4:0.1": from t = 0 no cross-traffic, from 2 s 25 % of the
spine rate, from 4 s 10 %; t is seconds from the collective's start, the
first entry applies from the storage traffic's start (1.5 s earlier). The
capacity left to the gateway's traffic is known at every moment:

  available(t) = spine_rate x (1 - share(t))

Frame bytes everywhere: xs's frames carry the 802.1Q tag like every host's,
the spine's TBF charges it (overhead 4, as the other shapers here), and the
cross-traffic's pacing counts it.

Ownership: Spine objects belong to a racks.Racks; their namespaces are
created through its procs.Runner, which deletes them in its cleanup()."""

import os

XS_SIZE = 1442  # storgen udp frame bytes (without the 4-byte tag)
XS_PERIOD_MS = 100  # one burst per period, paced across it: a constant rate
TAG = 4


def parse_schedule(text):
    """"T:SHARE,..." -> [(t_s, share)] sorted by time, shares in [0, 1).
    A schedule that starts after 0 has share 0 before its first entry."""
    out = []
    for item in str(text).replace(" ", "").split(","):
        if not item:
            continue
        try:
            t, share = item.split(":")
            t, share = float(t), float(share.rstrip("%"))
            if item.endswith("%"):
                share /= 100
        except ValueError:
            raise ValueError(f"bad --cross entry '{item}' (want T:SHARE, "
                             "e.g. 2:0.25)")
        if t < 0 or not 0 <= share < 1:
            raise ValueError(f"bad --cross entry '{item}': time >= 0, "
                             "0 <= share < 1")
        out.append((t, share))
    out.sort()
    if not out or out[0][0] > 0:
        out.insert(0, (0.0, 0.0))
    return out


def share_at(sched, t):
    s = sched[0][1]
    for ts, sh in sched:
        if ts <= t:
            s = sh
    return s


def available_bps(sched, rate, t):
    return rate * (1 - share_at(sched, t))


def mean_available(sched, rate, t0, t1):
    """Time-weighted mean of available(t) over [t0, t1] (seconds)."""
    if t1 <= t0:
        return available_bps(sched, rate, t0)
    edges = sorted({t0, t1} | {t for t, _ in sched if t0 < t < t1})
    tot = sum((b - a) * available_bps(sched, rate, a)
              for a, b in zip(edges, edges[1:]))
    return tot / (t1 - t0)


def integral_available(sched, rate, t0, t1):
    """Bits the spine leaves to the gateway's traffic over [t0, t1]."""
    return mean_available(sched, rate, t0, t1) * max(0.0, t1 - t0)


def handshaped_rate(how, sched, rate, horizon):
    """The gateway port's rate set by hand to the spine: 'start' (available
    at t = 0: the ideal when the capacity does not move), 'min' (the lowest
    available rate of the schedule), 'mean' (time-weighted over
    [0, horizon] s), 'auto' (start for a schedule that does not move, else
    min) or a number of bit/s.
    Why min and not mean for a moving schedule: while the available rate
    is below a fixed rate, the spine's FIFO grows by the difference (at the
    defaults: mean 36 Mbit/s over 0-8 s against 32 in the dip from 2 to
    4 s, 1 MB in 2 s: the whole buffer, 250 ms of queueing for every
    packet, RoCE's included, and drops once it is full): the mean is
    no ideal. The minimum is the best a fixed rate can do for the
    collective (never a queue beyond); it leaves the capacity above it
    unused, which storage would have had."""
    moves = len({sh for _, sh in sched}) > 1
    if how == "auto":
        how = "min" if moves else "start"
    if how == "start":
        return int(available_bps(sched, rate, 0)), "start"
    if how == "min":
        return int(min(rate * (1 - sh) for _, sh in sched)), "min"
    if how == "mean":
        return int(mean_available(sched, rate, 0, horizon)), \
            f"mean over 0-{horizon:g} s"
    return int(how), "given"


def segments(sched, rate, t_first_ns, t_zero_ns, end_ns):
    """The cross-traffic senders: [(start_ns, duration_s, storgen udp
    args)] for every schedule entry with a share > 0. Entry 0 starts at
    t_first_ns (the storage traffic's start), entry k at t_zero_ns + t_k;
    each runs until the next entry (the last one until end_ns).
    Bursts of n datagrams every XS_PERIOD_MS, paced at n datagrams per
    period: a constant frame rate (tag included) of share x rate, within
    one datagram per period (about 0.1 Mbit/s)."""
    out = []
    period_ns = XS_PERIOD_MS * 1_000_000
    starts = [t_first_ns] + [t_zero_ns + int(t * 1e9) for t, _ in sched[1:]]
    ends = starts[1:] + [end_ns]
    for (t, share), a, b in zip(sched, starts, ends):
        if share <= 0 or b <= a:
            continue
        per = round(share * rate * XS_PERIOD_MS / 1000 / 8 / (XS_SIZE + TAG))
        if per < 1:
            continue
        # whole periods, so that one segment's last burst ends as the next
        # one's first starts
        dur = max(1, round((b - a) / period_ns)) * XS_PERIOD_MS / 1000
        pace = per * XS_SIZE * 8 * 1000 // XS_PERIOD_MS  # storgen: no tag
        out.append((a, dur, ["--burst-bytes", str(per * XS_SIZE),
                             "--period-ms", str(XS_PERIOD_MS),
                             "--rate", str(pace), "--size", str(XS_SIZE)],
                    per * (XS_SIZE + TAG) * 8 * 1000 / XS_PERIOD_MS))
    return out


class Spine:
    """Built by racks.Racks.create() when the testbed has a spine. spec:
    rate (bit/s), buffer (bytes), burst (bytes) of the TBF towards ToR B."""

    def __init__(self, bed, spec, host_cls, subnet):
        self.bed, self.spec = bed, spec
        p = bed.prefix
        self.ns = f"{p}sp"
        self.xsrc = host_cls("xs", "spine", None, f"{subnet}.110",
                             "02:79:00:00:02:0a")
        self.xdst = host_cls("xd", "b", None, f"{subnet}.111",
                             "02:79:00:00:02:0b")
        self.xsrc.ns, self.xdst.ns = f"{p}xs", f"{p}xd"
        self.extra = [self.xsrc, self.xdst]

    def namespaces(self):
        return [self.ns, self.xsrc.ns, self.xdst.ns]

    def build(self):
        """After Racks.create() made the namespaces, the ToRs (ToR B's
        uplink peered with 'stor' here) and the hosts: the bridge, gw1, the
        cross-traffic's two ends, forwarding entries, the TBF."""
        bed, run, ns = self.bed, self.bed.run, self.ns
        run.cmd(["ip", "-n", ns, "link", "add", "spine", "type", "bridge",
                 "forward_delay", "0", "stp_state", "0"])
        run.cmd(["ip", "-n", ns, "link", "add", "sgw", "type", "veth",
                 "peer", "name", "gw1", "netns", bed.ns_gw])
        bed._veth_common(ns, "sgw")
        bed._veth_common(bed.ns_gw, "gw1")
        bed._veth_common(ns, "stor")
        tor_b = bed.ns_tor["b"]
        tag_obj = os.path.join(bed.build, "bench/pcp_tag.o")
        for h, sw, port in ((self.xsrc, ns, "pxs"),
                            (self.xdst, tor_b, "pxd")):
            run.cmd(["ip", "-n", h.ns, "link", "add", "eth0", "address",
                     h.mac, "type", "veth", "peer", "name", port, "netns",
                     sw])
            bed._veth_common(h.ns, "eth0")
            bed._veth_common(sw, port)
            run.cmd(["ip", "-n", h.ns, "addr", "add", f"{h.ip}/24", "dev",
                     "eth0"])
            run.cmd(["tc", "qdisc", "add", "dev", "eth0", "clsact"], ns=h.ns)
            run.cmd(["tc", "filter", "add", "dev", "eth0", "egress", "bpf",
                     "direct-action", "obj", tag_obj, "sec", "tc"], ns=h.ns)
            run.cmd(["ip", "-n", h.ns, "link", "set", "eth0", "up"])
            run.cmd(["ip", "-n", sw, "link", "set", port, "master",
                     "tor" if sw == tor_b else "spine"])
            run.cmd(["ip", "-n", sw, "link", "set", port, "up"])
        for a, b in ((self.xsrc, self.xdst), (self.xdst, self.xsrc)):
            run.cmd(["ip", "-n", a.ns, "neigh", "replace", b.ip, "lladdr",
                     b.mac, "nud", "permanent", "dev", "eth0"])
        for dev in ("sgw", "stor"):
            run.cmd(["ip", "-n", ns, "link", "set", dev, "master", "spine"])
        # Static forwarding: rack A behind the gateway, rack B and the sink
        # behind ToR B, the source on its own port; ToR B sends the sink's
        # frames to its port and the source's up.
        fdb = [(h.mac, "sgw" if h.rack == "a" else "stor")
               for h in bed.hosts]
        fdb += [(self.xsrc.mac, "pxs"), (self.xdst.mac, "stor")]
        for mac, port in fdb:
            run.cmd(["bridge", "-n", ns, "fdb", "replace", mac, "dev", port,
                     "master", "static"])
        run.cmd(["bridge", "-n", tor_b, "fdb", "replace", self.xdst.mac,
                 "dev", "pxd", "master", "static"])
        run.cmd(["bridge", "-n", tor_b, "fdb", "replace", self.xsrc.mac,
                 "dev", "uplink", "master", "static"])
        # The gateway's bridge (fifo, htb) never sees the cross-traffic;
        # its entries for rack B point at gw1 as before.
        s = self.spec
        run.cmd(["tc", "qdisc", "replace", "dev", "stor", "root", "tbf",
                 "rate", f"{s['rate']}bit", "burst", str(s["burst"]),
                 "limit", str(s["buffer"]), "overhead", str(TAG)], ns=ns)
        # gw1 transmits by AF_XDP (xdplane): veth delivers what is
        # redirected into it only when its peer has an XDP program.
        obj = os.path.join(bed.build, "tests/tools/xdp_pass.o")
        run.cmd(["ip", "-n", ns, "link", "set", "dev", "sgw", "xdpdrv",
                 "obj", obj, "sec", "xdp"])
        for dev in ("sgw", "stor", "spine"):
            run.cmd(["ip", "-n", ns, "link", "set", dev, "up"])

    def wait(self):
        self.bed.wait_links(self.namespaces())
        self.bed.wait_forwarding(self.ns)
