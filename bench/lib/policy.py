# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""policy.py - the one traffic policy of bench/run, written once and
rendered twice: as an xdplane config (xdplane_yaml) and as the HTB tree that
carries the same classes, levels, rates and rules on Linux (htb_classes,
HTB_RULES for racks.htb_tree). Only what both can express is used: classes
by level with ceilings, rules on protocol, ports and the BTH opcode.

  cnp      level 0, ceil 5 %   RoCEv2 CNPs (UDP 4791, BTH opcode 0x81)
  roce     level 1, ceil 90 %  RoCEv2 (UDP 4791); ECN marking (RED) in
                               xdplane when asked, DCQCN flows when asked
  default  level 2             everything else (TCP ACKs of storage, ...)
  storage  level 3             NFS-port TCP (2049) and the UDP bursts (2050)
"""

CLASSES = [
    {"name": "cnp", "level": 0, "ceil_pct": 5},
    {"name": "roce", "level": 1, "ceil_pct": 90},
    {"name": "default", "level": 2, "ceil_pct": 0},
    {"name": "storage", "level": 3, "ceil_pct": 0},
]
RULES = [
    {"class": "cnp", "match": {"proto": 17, "dport": 4791,
                               "bth_opcode": 0x81}},
    {"class": "roce", "match": {"proto": 17, "dport": 4791}},
    {"class": "storage", "match": {"proto": 6, "dport": 2049}},
    {"class": "storage", "match": {"proto": 6, "sport": 2049}},
    {"class": "storage", "match": {"proto": 17, "dport": 2050}},
]
PROTO_NAME = {6: "tcp", 17: "udp"}


def xdplane_yaml(rate_bps, limit_bytes, socket, ecn, dcqcn, line_bps,
                 timescale=1, gw1_rate_bps=None, adaptive=None,
                 metrics_listen="", poll=None):
    """The daemon's config: ports gw0/gw1 shaped to rate_bps, overhead 0
    (the hosts' frames include their 4-byte tag; the Linux shapers add
    `overhead 4` for it), every class queue limit_bytes deep.
    The spine scenarios (bench/lib/spine.py) add: gw1_rate_bps, gw1's rate
    when it differs (shaped by hand to the spine); adaptive, a dict written
    under each port as `adaptive: {...}` (mode, target, floor, probe_gain);
    metrics_listen, the Prometheus endpoint. poll (bench/run --poll): a
    dict written as the `poll:` mapping (e.g. shaper_wait, shaper_spin_us).
    The defaults give the config of the other scenarios, byte for byte."""
    def port(dev, rate):
        extra = ""
        if adaptive:
            extra = ", adaptive: {" + ", ".join(
                f"{k}: {v}" for k, v in adaptive.items()) + "}"
        return f"  - {{interface: {dev}, rate: {rate}bit{extra}}}"
    y = ["ports:",
         port("gw0", rate_bps),
         port("gw1", gw1_rate_bps or rate_bps),
         "overhead: 0",
         f"control: {{socket: \"{socket}\", "
         f"metrics_listen: \"{metrics_listen}\"}}",
         "classes:"]
    for c in CLASSES:
        line = f"  - {{name: {c['name']}, level: {c['level']}, " \
               f"limit_bytes: {limit_bytes}"
        if c["ceil_pct"]:
            line += f", ceil: {c['ceil_pct']}%"
        if c["name"] == "roce":
            if ecn:
                line += ", ecn: {kmin: 30KB, kmax: 300KB, pmax: 1%}"
            if dcqcn:
                line += ", dcqcn: true"
        y.append(line + "}")
    y.append("rules:")
    for r in RULES:
        m = ", ".join(f"{k}: {PROTO_NAME[v] if k == 'proto' else v}"
                      for k, v in r["match"].items())
        y.append(f"  - {{class: {r['class']}, match: {{{m}}}}}")
    y.append("default_class: default")
    if poll:
        y.append("poll: {" + ", ".join(f"{k}: {v}" for k, v in poll.items())
                 + "}")
    if dcqcn:
        # The paper profile, dilated like the hosts' (rocegen
        # --dcqcn-timescale): this testbed runs `timescale` times slower
        # than the fabric it stands for, so every timer and the CNP
        # interval are that much longer and every rate step that much
        # smaller; bytes (byte counter, queue thresholds) stay.
        x = timescale
        y += ["dcqcn:", "  profile: paper", f"  line_rate: {line_bps}bit",
              f"  min_rate: {min(100_000_000 // x, line_bps // 100)}bit",
              f"  rate_ai: {min(40_000_000 // x, line_bps // 20)}bit",
              f"  rate_hai: {min(200_000_000 // x, line_bps // 5)}bit",
              f"  alpha_timer: {55 * x}us",
              f"  increase_timer: {55 * x}us",
              f"  cnp_interval: {50 * x}us",
              f"  flow_idle: {min(100 * x, 60000)}ms",
              # The hosts' NICs run DCQCN too (they get the CNPs: forward):
              # the gateway's RP per queue pair must not cut on its own
              # marks as well (cp_loop), or it falls below the host's rate
              # and its flow queue grows without bound; its NP tells the
              # senders at once instead of a round trip later.
              "  flow_key: qp", "  cnp: forward", "  cp_loop: false",
              "  np: {enabled: true}"]
    return "\n".join(y) + "\n"


def htb_classes(rate_bps):
    """Classes for racks.htb_tree: the strict-priority roce class is
    guaranteed its ceiling (what xdplane's strict level gives it), the
    others borrow up to the port rate."""
    out = []
    for c in CLASSES:
        ceil = rate_bps * c["ceil_pct"] // 100
        out.append({"name": c["name"], "level": c["level"], "ceil_bps": ceil,
                    "min_bps": 0, "guarantee": c["name"] in ("roce", "cnp")})
    return out
