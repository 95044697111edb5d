# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""racks.py - the two-rack testbed of bench/run: emulated GPU hosts and
storage nodes in two racks, each rack behind a top-of-rack switch (a Linux
bridge in a namespace of its own), the racks joined through one gateway:

  rack A                                                  rack B
  [h0..h3] [sa] ─ ToR A (bridge) ─ uplink ══ gw0 [gateway] gw1 ══ uplink ─ ToR B ─ [h4..h7] [sb]

Every host has one port, eth0 (a veth whose other end is a port of its
rack's bridge). A tc egress program on it (bench/tools/pcp_tag.bpf.c) gives
each frame an 802.1Q priority tag (VLAN 0) whose PCP is the socket priority
(SO_PRIORITY), as a RoCE NIC in PCP mode does: the frames on the wire carry
DSCP and PCP marks. VLAN offload is off on every veth, so the tag travels in
the frame's bytes (what the gateway's XDP program sees, as on a NIC without
tag stripping); receivers strip VLAN-0 tags by themselves.
All hosts share one subnet; neighbours and bridge forwarding entries are
static, so no ARP and no flooding disturb a measurement.

The gateway namespace holds gw0 and gw1 and one of:
  xdplane  the daemon (the caller starts it with a config for gw0/gw1)
  fifo     a Linux bridge; each port shaped by TBF to the link rate, one FIFO
           of `limit` bytes
  htb      a Linux bridge; each port an HTB tree with the classes, rates and
           u32 filters of the xdplane config it mirrors (see htb_tree()).
The ToR uplinks ("uplink", the gateway's peers) carry an XDP pass program:
veth delivers frames redirected into it (AF_XDP transmit in zero-copy,
DEVMAP) only when its peer has one.

With a spine (spine.py), gw1 is peered with the spine's port and ToR B's
uplink with the spine's other side; the spine's port towards ToR B is a
TBF FIFO below the gateway's rate, shared with a cross-traffic source (xs)
whose sink (xd) hangs off ToR B.

Shapers charge frame bytes including the 4-byte tag: tc sees a frame
before its tag is written (`overhead 4` on TBF and HTB), xdplane sees the
whole frame (its config uses `overhead: 0`).

Ownership: a Racks object creates the namespaces through a procs.Runner,
which deletes them in its cleanup(); nothing here outlives the Runner."""

import json
import os
import time

from procs import BenchError

SUBNET = "10.79.0"


class Host:
    def __init__(self, name, rack, rank, ip, mac):
        self.name, self.rack, self.rank = name, rack, rank
        self.ip, self.mac = ip, mac
        self.ns = None


class Racks:
    """hosts_per_rack GPU hosts per rack (ranks 0.. in rack A first) and one
    storage node per rack (sa, sb)."""

    def __init__(self, run, prefix, hosts_per_rack, build, spine=None):
        """spine: None, or a dict (rate, buffer, burst) for spine.Spine."""
        self.run, self.prefix, self.build = run, prefix, build
        self.gpus = []
        for r in range(2 * hosts_per_rack):
            rack = "a" if r < hosts_per_rack else "b"
            self.gpus.append(Host(f"h{r}", rack, r, f"{SUBNET}.{10 + r}",
                                  f"02:79:00:00:00:{r + 1:02x}"))
        self.storage = {
            "a": Host("sa", "a", None, f"{SUBNET}.100", "02:79:00:00:01:0a"),
            "b": Host("sb", "b", None, f"{SUBNET}.101", "02:79:00:00:01:0b"),
        }
        self.hosts = self.gpus + list(self.storage.values())
        for h in self.hosts:
            h.ns = f"{prefix}{h.name}"
        self.ns_gw = f"{prefix}gw"
        self.ns_tor = {"a": f"{prefix}ta", "b": f"{prefix}tb"}
        self.spine = None
        if spine:
            import spine as spine_mod
            self.spine = spine_mod.Spine(self, spine, Host, SUBNET)

    # ---- construction ----------------------------------------------------
    def create(self):
        run = self.run
        sp = self.spine
        for ns in [self.ns_gw] + list(self.ns_tor.values()) + \
                [h.ns for h in self.hosts] + (sp.namespaces() if sp else []):
            run.add_netns(ns)
            run.cmd(["ip", "-n", ns, "link", "set", "lo", "up"])
            run.cmd(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                     "net.ipv6.conf.default.disable_ipv6=1"], ns=ns)
            # Bridges forward without calling iptables (br_netfilter).
            run.cmd(["sysctl", "-qw", "net.bridge.bridge-nf-call-iptables=0",
                     "net.bridge.bridge-nf-call-ip6tables=0",
                     "net.bridge.bridge-nf-call-arptables=0"], ns=ns,
                    check=False)
        for rack, tor in self.ns_tor.items():
            run.cmd(["ip", "-n", tor, "link", "add", "tor", "type", "bridge",
                     "forward_delay", "0", "stp_state", "0"])
            gwport = "gw0" if rack == "a" else "gw1"
            peer_ns = self.ns_gw
            if sp and rack == "b":  # ToR B's uplink goes to the spine
                gwport, peer_ns = "stor", sp.ns
            run.cmd(["ip", "-n", tor, "link", "add", "uplink", "type", "veth",
                     "peer", "name", gwport, "netns", peer_ns])
            self._veth_common(tor, "uplink")
            if peer_ns == self.ns_gw:
                self._veth_common(self.ns_gw, gwport)
            run.cmd(["ip", "-n", tor, "link", "set", "uplink", "master", "tor"])
        tag_obj = os.path.join(self.build, "bench/pcp_tag.o")
        for h in self.hosts:
            tor = self.ns_tor[h.rack]
            port = f"p{h.name}"
            run.cmd(["ip", "-n", h.ns, "link", "add", "eth0", "address", h.mac,
                     "type", "veth", "peer", "name", port, "netns", tor])
            self._veth_common(h.ns, "eth0")
            self._veth_common(tor, port)
            run.cmd(["ip", "-n", tor, "link", "set", port, "master", "tor"])
            run.cmd(["ip", "-n", h.ns, "addr", "add", f"{h.ip}/24", "dev",
                     "eth0"])
            run.cmd(["tc", "qdisc", "add", "dev", "eth0", "clsact"], ns=h.ns)
            run.cmd(["tc", "filter", "add", "dev", "eth0", "egress", "bpf",
                     "direct-action", "obj", tag_obj, "sec", "tc"], ns=h.ns)
            run.cmd(["ip", "-n", h.ns, "link", "set", "eth0", "up"])
            run.cmd(["ip", "-n", tor, "link", "set", port, "up"])
            for o in self.hosts:
                if o is not h:
                    run.cmd(["ip", "-n", h.ns, "neigh", "replace", o.ip,
                             "lladdr", o.mac, "nud", "permanent", "dev",
                             "eth0"])
        # Static forwarding entries: each ToR knows its hosts' ports and
        # sends everything else up.
        for rack, tor in self.ns_tor.items():
            for h in self.hosts:
                port = f"p{h.name}" if h.rack == rack else "uplink"
                run.cmd(["bridge", "-n", tor, "fdb", "replace", h.mac, "dev",
                         port, "master", "static"])
            run.cmd(["ip", "-n", tor, "link", "set", "tor", "up"])
        if sp:
            sp.build()
        obj = os.path.join(self.build, "tests/tools/xdp_pass.o")
        for tor in self.ns_tor.values():
            run.cmd(["ip", "-n", tor, "link", "set", "dev", "uplink", "xdpdrv",
                     "obj", obj, "sec", "xdp"])
            run.cmd(["ip", "-n", tor, "link", "set", "uplink", "up"])
        for dev in ("gw0", "gw1"):
            run.cmd(["ip", "-n", self.ns_gw, "link", "set", dev, "up"])
        self.wait_links([h.ns for h in self.hosts] + [self.ns_gw] +
                        list(self.ns_tor.values()))
        for tor in self.ns_tor.values():
            self.wait_forwarding(tor)
        if sp:
            sp.wait()

    def wait_links(self, namespaces, timeout=10.0):
        """Until every interface that is set up in these namespaces has its
        carrier (a veth reports carrier only once both ends are up, and
        attaching an XDP program takes it down for a moment)."""
        t_end = time.monotonic() + timeout
        for ns in namespaces:
            while True:
                links = json.loads(self.run.cmd(["ip", "-j", "link", "show"],
                                                ns=ns) or "[]")
                waiting = [lk["ifname"] for lk in links
                           if "UP" in lk.get("flags", []) and
                           lk["ifname"] != "lo" and
                           lk.get("operstate") != "UP"]
                if not waiting:
                    break
                if time.monotonic() > t_end:
                    raise BenchError(f"{ns}: no carrier on "
                                     f"{', '.join(waiting)}")
                time.sleep(0.05)

    def wait_forwarding(self, ns, timeout=10.0):
        """Until every bridge port in ns that is up forwards (a port starts
        in the listening/learning states even with forward_delay 0)."""
        t_end = time.monotonic() + timeout
        while True:
            links = json.loads(self.run.cmd(["bridge", "-j", "link", "show"],
                                            ns=ns) or "[]")
            waiting = [lk["ifname"] for lk in links
                       if lk.get("state") not in ("forwarding", "disabled")]
            if not waiting:
                return
            if time.monotonic() > t_end:
                raise BenchError(f"{ns}: bridge ports not forwarding: "
                                 f"{', '.join(waiting)}")
            time.sleep(0.05)

    def _veth_common(self, ns, dev):
        # Tags in the frame's bytes, software checksums (a frame that leaves
        # through AF_XDP has no checksum offload state left to complete),
        # no segmentation offload: every shaper, Linux's and xdplane's,
        # sees and charges the frames the wire would carry.
        self.run.cmd(["ethtool", "-K", dev, "txvlan", "off", "rxvlan", "off",
                      "tx", "off", "gso", "off", "gro", "off"], ns=ns,
                     check=False)

    def gw_ports_up(self):
        self.wait_links([self.ns_gw] + list(self.ns_tor.values()) +
                        ([self.spine.ns] if self.spine else []))

    # ---- gateways made of Linux parts ---------------------------------------
    def linux_bridge(self):
        run, ns = self.run, self.ns_gw
        run.cmd(["ip", "-n", ns, "link", "add", "br0", "type", "bridge",
                 "forward_delay", "0", "stp_state", "0"])
        for dev in ("gw0", "gw1"):
            run.cmd(["ip", "-n", ns, "link", "set", dev, "master", "br0"])
        for h in self.hosts:
            port = "gw0" if h.rack == "a" else "gw1"
            run.cmd(["bridge", "-n", ns, "fdb", "replace", h.mac, "dev", port,
                     "master", "static"])
        run.cmd(["ip", "-n", ns, "link", "set", "br0", "up"])
        self.gw_ports_up()
        self.wait_forwarding(ns)

    def tc(self, script):
        """tc -batch in the gateway namespace; script: lines of tc
        commands without the leading `tc`."""
        self.run.cmd(["tc", "-batch", "-"], ns=self.ns_gw, input=script)

    def fifo(self, rate_bps, limit_bytes, burst_bytes):
        self.linux_bridge()
        lines = []
        for dev in ("gw0", "gw1"):
            lines.append(f"qdisc replace dev {dev} root tbf rate {rate_bps}bit "
                         f"burst {burst_bytes} limit {limit_bytes} overhead 4")
        self.tc("\n".join(lines) + "\n")

    def htb(self, script_by_dev):
        self.linux_bridge()
        self.tc("".join(script_by_dev[d] for d in ("gw0", "gw1")))


def htb_tree(dev, rate_bps, classes, rules, default_class, limit_bytes,
             burst_bytes):
    """The tc commands of an HTB tree that mirrors an xdplane policy on one
    port: root class at the port rate; per xdplane class an HTB class with
    prio = level, ceil = its ceil (else the port rate), rate = its min, or
    its ceil when it is the only class of the highest level that has one
    (so that a strict-priority class is guaranteed what xdplane would give
    it), else 1 % of the port; a bfifo leaf of limit_bytes; u32 filters for
    the rules in order, for untagged and tagged frames (what u32 can express: proto, dport, sport, dscp,
    bth opcode at UDP payload byte 0; IPv4 without options). classes: list of dicts with name,
    level, ceil_bps (0: none), min_bps (0: none)."""
    out = []
    ids = {c["name"]: 10 + i for i, c in enumerate(classes)}
    out.append(f"qdisc replace dev {dev} root handle 1: htb default "
               f"{ids[default_class]:x} r2q 1000")
    out.append(f"class add dev {dev} parent 1: classid 1:1 htb rate "
               f"{rate_bps}bit ceil {rate_bps}bit burst {burst_bytes} "
               f"cburst {burst_bytes} overhead 4")
    for c in classes:
        ceil = c["ceil_bps"] or rate_bps
        rate = c["min_bps"] or (c["ceil_bps"] if c.get("guarantee") else
                                max(rate_bps // 100, 8000))
        cid = ids[c["name"]]
        out.append(f"class add dev {dev} parent 1:1 classid 1:{cid:x} htb "
                   f"rate {rate}bit ceil {ceil}bit prio {c['level']} "
                   f"burst {burst_bytes} cburst {burst_bytes} overhead 4")
        out.append(f"qdisc add dev {dev} parent 1:{cid:x} handle {cid:x}: "
                   f"bfifo limit {limit_bytes}")
    prio = 1
    for r in rules:
        m = r["match"]
        sel = []
        if "proto" in m:
            sel.append(f"match ip protocol {m['proto']} 0xff")
        if "dport" in m:
            sel.append(f"match ip dport {m['dport']} 0xffff")
        if "sport" in m:
            sel.append(f"match ip sport {m['sport']} 0xffff")
        if "dscp" in m:
            sel.append(f"match ip dsfield {m['dscp'] << 2:#x} 0xfc")
        if "bth_opcode" in m:
            # UDP payload byte 0: offset 28 for IPv4 without options (u32's
            # "ip sport/dport" assume no options too).
            sel.append(f"match u8 {m['bth_opcode']:#x} 0xff at 28")
        # Tagged frames (the hosts' priority tags) reach the qdisc with
        # protocol 802.1Q and the network header at the IP header.
        for proto in ("ip", "802.1q"):
            out.append(f"filter add dev {dev} parent 1: protocol {proto} "
                       f"prio {prio} u32 {' '.join(sel) or 'match u32 0 0'} "
                       f"flowid 1:{ids[r['class']]:x}")
            prio += 1
    return "\n".join(out) + "\n"
