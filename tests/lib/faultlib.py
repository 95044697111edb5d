# SPDX-License-Identifier: BSD-2-Clause
"""faultlib.py - shared checks of the fault tests (t-fault-*.sh): the
gateway's frame accounting per direction, read through the control socket
(xdpctl.py) or from the final-stats JSON line.

For frames entering port P and leaving port Q (the daemon's counters):

  rx(P) = rx drops(P)          handoff_full + invalid_desc + multibuf +
                               malformed (dropped by policy) + the
                               multi-buffer chain drops of RX
        + CNPs absorbed(P)     DCQCN feedback the gateway consumed
        + class drops(Q)       every reason, every class of egress Q
        + port_down(Q)         handed over while Q's interface was gone
        + chain_tx(Q)          chains Q's TX ring had no room for
        + tx(Q)                put on Q's TX ring
        + in flight            class queues of Q (depth) + handoff rings

in_flight() returns the last term. After a drained stop it must be 0; on a
running daemon 0 <= in flight <= depth + handoff ring size (the caller's
bound). The NP path (CNPs the gateway builds) adds to tx(Q) without an rx:
the fault tests run without DCQCN classes, so it is 0 there.
"""


def port(stats, name):
    for p in stats["ports"]:
        if p["name"] == name:
            return p
    raise KeyError(name)


def rx_drops(p):
    d = p["drops"]
    return (d["handoff_full"] + d["invalid_desc"] + d["multibuf"] + d["malformed"]
            + d.get("chain_long", 0) + d.get("chain_head", 0) + d.get("chain_room", 0))



def class_drops(p):
    return sum(sum(c["drops"].values()) for c in p["classes"])


def egress_drops(p):
    """Frames to leave port p dropped on the way: class drops and frames
    handed over while its interface was gone."""
    return (class_drops(p) + p["drops"].get("port_down", 0)
            + p["drops"].get("chain_tx", 0))


def depth(p):
    return sum(c["depth_packets"] for c in p["classes"])


def in_flight(stats, src, dst):
    """Frames received on src not yet transmitted on dst nor dropped."""
    p, q = port(stats, src), port(stats, dst)
    return (p["rx_packets"] - rx_drops(p) - p["dcqcn"]["cnps_absorbed"]
            - egress_drops(q) - q["tx_packets"])


def describe(stats, src, dst):
    p, q = port(stats, src), port(stats, dst)
    return (f"{src}->{dst}: rx {p['rx_packets']} = rx drops {rx_drops(p)} + "
            f"egress drops {egress_drops(q)} + tx {q['tx_packets']} + in flight "
            f"{in_flight(stats, src, dst)} (queued {depth(q)})")


def drops_by_reason(p):
    """{reason: count} over the classes of an egress port and its RX."""
    out = {}
    for c in p["classes"]:
        for r, v in c["drops"].items():
            out[r] = out.get(r, 0) + v
    for r, v in p["drops"].items():
        out["rx_" + r] = out.get("rx_" + r, 0) + v
    return out
