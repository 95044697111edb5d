#!/usr/bin/env python3
"""badframes.py - hand-made malformed (and some well-formed but odd) frames
for t-malformed and for the fuzz seed corpora.

    badframes.py list                       kind id, name, expected parser
                                            verdict ("ok" or the malformed
                                            reason, as in xdplanectl stats)
    badframes.py send IFACE DST_MAC COUNT OUTFILE [KIND...]
                                            send COUNT copies of every kind
                                            (or of the named ones),
                                            interleaved; write each frame
                                            sent as "id hex" to OUTFILE
    badframes.py capture IFACE OUTFILE      capture the test frames on
                                            IFACE ("id hex" lines) until
                                            SIGTERM / SIGINT
    badframes.py probe-runt IFACE           try to send frames of 1..13
                                            bytes; print what the kernel did
    badframes.py corpus DIR                 one frame of every kind as
                                            DIR/<name>.bin

Every test frame has the source MAC 02:ee:KK:SS:SS:SS (KK: kind id, SS:
a sequence number), so that frames are unique and a receiver can tell
them from other traffic (xdp_count.bpf.c counts them by KK before the
stack). Addresses: 10.77.0.1 -> 10.77.0.2, fd77::1 -> fd77::2 (the
testbed's). The receiver puts VLAN tags the kernel moved into packet
metadata back into the frame (PACKET_AUXDATA), so the bytes compare as
they were on the wire.
"""
import errno
import os
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40

IP4_A = bytes([10, 77, 0, 1])
IP4_B = bytes([10, 77, 0, 2])
IP6_A = bytes.fromhex("fd770000000000000000000000000001")
IP6_B = bytes.fromhex("fd770000000000000000000000000002")
UDP, TCP = 17, 6
HOPOPTS, ROUTING, FRAGMENT, DSTOPTS, NONE = 0, 43, 44, 60, 59


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(proto, payload, ihl=5, opts=b"", totlen=None, ver=4):
    hl = 20 + len(opts)
    if totlen is None:
        totlen = hl + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", ver << 4 | ihl, 0, totlen & 0xFFFF,
                    0x1234, 0x4000, 64, proto, 0, IP4_A, IP4_B) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(nh, payload, plen=None, ver=6):
    if plen is None:
        plen = len(payload)
    return struct.pack("!IHBB16s16s", ver << 28, plen & 0xFFFF, nh, 64,
                       IP6_A, IP6_B) + payload


def udp(dport, payload, length=None, sport=40000):
    if length is None:
        length = 8 + len(payload)
    return struct.pack("!HHHH", sport, dport, length & 0xFFFF, 0) + payload


def tcp(dport, doff=5, payload=b"", sport=40001):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, doff << 4, 0x02,
                       8192, 0, 0) + payload


def ext(nh, hdrlen, body_len=None):
    """An IPv6 extension header (hop-by-hop, routing, dst options): next
    header nh, length field hdrlen; its bytes are (hdrlen + 1) * 8 unless
    body_len cuts it (a lying length)."""
    n = (hdrlen + 1) * 8 if body_len is None else body_len
    b = bytes([nh, hdrlen]) + bytes([1, n - 4 if n >= 4 else 0]) + bytes(n)
    return b[:n]


def frag(nh, offset=0, more=0):
    return struct.pack("!BBHI", nh, 0, offset << 3 | more, 0xABCD)


def ext_chain(kinds, last_nh, payload):
    """kinds: a list of extension header numbers, in order."""
    out = b""
    for i, k in enumerate(kinds):
        nh = kinds[i + 1] if i + 1 < len(kinds) else last_nh
        out += frag(nh) if k == FRAGMENT else ext(nh, 0)
    return out + payload


PAY = b"XDPLANE-BAD" + bytes(range(21))  # 32 bytes
BTH_WRITE = bytes([0x0A, 0, 0xFF, 0xFF, 0, 0, 0x01, 0x11, 0, 0, 0, 7])
RV = 4791

# (name, expected verdict, L2 after the MACs: ethertype + payload)
# The expected verdict is what the gateway's parser says (pkt_parse.h):
# "ok" for a frame it finds well-formed.
KINDS = [
    ("eth_hdr_only", "ok", struct.pack("!H", 0x88B5)),
    ("eth_ipv4_10B", "ipv4_truncated", struct.pack("!H", 0x0800) + bytes(10)),
    ("eth_59B", "ok", struct.pack("!H", 0x88B5) + PAY + bytes(13)),
    ("vlan_truncated", "vlan_truncated",
     struct.pack("!HH", 0x8100, 100)),
    ("qinq_truncated", "vlan_truncated",
     struct.pack("!HHHH", 0x88A8, 200, 0x8100, 300)[:6] + b"\x81"),
    ("qinq_ipv4_udp", "ok",
     struct.pack("!HHHH", 0x88A8, 200, 0x8100, 300) +
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY))),
    ("vlan_ipv4_8B", "ipv4_truncated",
     struct.pack("!HHH", 0x8100, 100, 0x0800) + ipv4(UDP, b"")[:8]),
    ("ipv4_version_6", "ipv4_version",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY), ver=6)),
    ("ipv4_ihl_4", "ipv4_bad_ihl",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY), ihl=4)),
    ("ipv4_ihl_past_frame", "ipv4_bad_ihl",
     struct.pack("!H", 0x0800) + ipv4(UDP, b"", ihl=15, totlen=60) +
     bytes(10)),
    ("ipv4_options_udp", "ok",
     struct.pack("!H", 0x0800) +
     ipv4(UDP, udp(9, PAY), ihl=8, opts=b"\x01\x01\x01\x01" +
          b"\x94\x04\x00\x00" + b"\x01\x01\x01\x00")),
    ("ipv4_totlen_past_frame", "ipv4_bad_totlen",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY), totlen=1000)),
    ("ipv4_totlen_lt_header", "ipv4_bad_totlen",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY), totlen=19)),
    ("ipv6_30B", "ipv6_truncated",
     struct.pack("!H", 0x86DD) + ipv6(UDP, b"")[:30]),
    ("ipv6_version_4", "ipv6_version",
     struct.pack("!H", 0x86DD) + ipv6(UDP, udp(9, PAY), ver=4)),
    ("ipv6_plen_past_frame", "ipv6_bad_plen",
     struct.pack("!H", 0x86DD) + ipv6(UDP, udp(9, PAY), plen=1000)),
    ("ipv6_ext_hbh_rt_frag_dst_udp", "ok",
     struct.pack("!H", 0x86DD) +
     ipv6(HOPOPTS, ext_chain([HOPOPTS, ROUTING, FRAGMENT, DSTOPTS], UDP,
                             udp(9, PAY)))),
    ("ipv6_ext_8_at_limit", "ok",
     struct.pack("!H", 0x86DD) +
     ipv6(DSTOPTS, ext_chain([DSTOPTS] * 8, UDP, udp(9, PAY)))),
    ("ipv6_ext_9_over_limit", "exthdr_too_long",
     struct.pack("!H", 0x86DD) +
     ipv6(DSTOPTS, ext_chain([DSTOPTS] * 9, UDP, udp(9, PAY)))),
    ("ipv6_ext_lying_length", "exthdr_truncated",
     struct.pack("!H", 0x86DD) +
     ipv6(HOPOPTS, ext(UDP, 10, body_len=16) + udp(9, PAY)[:8])),
    ("ipv6_ext_cut", "exthdr_truncated",
     struct.pack("!H", 0x86DD) + ipv6(ROUTING, bytes([UDP, 0, 0, 0]))),
    ("ipv4_udp_4B", "udp_truncated",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, b"")[:4])),
    ("ipv6_udp_4B", "udp_truncated",
     struct.pack("!H", 0x86DD) + ipv6(UDP, udp(9, b"")[:4])),
    # lying UDP lengths: below 8, or past the IP datagram
    ("udp_length_too_big", "udp_bad_len",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY, length=1000))),
    ("udp_length_too_small", "udp_bad_len",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY, length=4))),
    ("udp_length_0_ipv6", "udp_bad_len",
     struct.pack("!H", 0x86DD) + ipv6(UDP, udp(9, PAY, length=0))),
    # ...but fewer UDP bytes than the datagram carries is fine
    ("udp_length_lt_datagram", "ok",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY, length=8 + 16))),
    ("ipv4_tcp_10B", "tcp_truncated",
     struct.pack("!H", 0x0800) + ipv4(TCP, tcp(9)[:10])),
    # TCP data offsets below 5, or a header past the IP datagram
    ("tcp_doff_2", "tcp_bad_doff",
     struct.pack("!H", 0x0800) + ipv4(TCP, tcp(9, doff=2, payload=PAY))),
    ("tcp_doff_4_ipv6", "tcp_bad_doff",
     struct.pack("!H", 0x86DD) + ipv6(TCP, tcp(9, doff=4, payload=PAY))),
    ("tcp_doff_past_frame", "tcp_bad_doff",
     struct.pack("!H", 0x0800) + ipv4(TCP, tcp(9, doff=15))),
    ("tcp_doff_15_options", "ok",
     struct.pack("!H", 0x0800) +
     ipv4(TCP, tcp(9, doff=15, payload=b"\x01" * 40 + PAY))),
    ("bth_udp_length_cut", "bth_truncated",
     struct.pack("!H", 0x0800) +
     ipv4(UDP, udp(RV, BTH_WRITE + PAY, length=8 + 6))),
    ("bth_6B", "bth_truncated",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(RV, BTH_WRITE[:6]))),
    ("bth_11B_ipv6", "bth_truncated",
     struct.pack("!H", 0x86DD) + ipv6(UDP, udp(RV, BTH_WRITE[:11]))),
    ("bth_valid_write", "ok",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(RV, BTH_WRITE + PAY))),
    # 1518 bytes untagged: 4 more than the MTU allows; veth lets it
    # through (it allows MTU + 14 + 4), the gateway's parser finds it fine
    ("oversized_1518B", "ok",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY + bytes(1504 - 60)))),
    # 3000 bytes: above any 1500-byte MTU: the receiving veth drops it
    # before XDP ("veth_drop": the gateway never sees it)
    ("oversized_3000B", "veth_drop",
     struct.pack("!H", 0x0800) + ipv4(UDP, udp(9, PAY + bytes(2986 - 60)))),
]


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def frame(kid, seq, dst):
    src = bytes([0x02, 0xEE, kid]) + struct.pack("!I", seq)[1:]
    return dst + src + KINDS[kid - 1][2]


def kind_ids(names):
    if not names:
        return list(range(1, len(KINDS) + 1))
    by = {k[0]: i + 1 for i, k in enumerate(KINDS)}
    return [by[n] for n in names]


def send_one(s, fr):
    """Send fr; ENOBUFS (the receiving veth's ring is full: the frame was
    dropped before anyone saw it) is retried, for at most a second."""
    for _ in range(1000):
        try:
            s.send(fr)
            return
        except OSError as e:
            if e.errno != errno.ENOBUFS:
                raise
            time.sleep(0.001)
    raise OSError(errno.ENOBUFS, "veth ring full for a second")


def send(iface, dst, count, outfile, names):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    d = mac(dst)
    seq = refused = 0
    with open(outfile, "w") as f:
        for _ in range(int(count)):
            for kid in kind_ids(names):
                fr = frame(kid, seq, d)
                seq += 1
                if KINDS[kid - 1][1] == "veth_drop":
                    # over the receiving veth's MTU + 18: veth drops it
                    # at once and the send fails with ENOBUFS
                    try:
                        s.send(fr)
                    except OSError as e:
                        if e.errno != errno.ENOBUFS:
                            raise
                        if not refused:
                            print("badframes: %s: %d bytes refused: %s "
                                  "(the receiving veth drops frames over "
                                  "its MTU + 18 before XDP)" %
                                  (KINDS[kid - 1][0], len(fr), e.strerror),
                                  file=sys.stderr)
                        refused += 1
                else:
                    send_one(s, fr)
                f.write("%d %s\n" % (kid, fr.hex()))
                time.sleep(0.0005)
    return 0


def capture(iface, outfile):
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((iface, 0))
    s.settimeout(0.2)
    out = open(outfile, "w")
    print("badframes: ready", file=sys.stderr, flush=True)
    while not stop:
        try:
            data, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(64))
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        for level, typ, cdata in anc:
            if level != SOL_PACKET or typ != PACKET_AUXDATA:
                continue
            (status, _, _, _, _, tci, tpid) = struct.unpack(
                "IIIHHHH", cdata[:20])
            if status & TP_STATUS_VLAN_VALID:
                if not status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = 0x8100
                data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
        if len(data) < 9 or data[6:8] != b"\x02\xee":
            continue
        out.write("%d %s\n" % (data[8], data.hex()))
        out.flush()
    out.close()
    return 0


def probe_runt(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    for n in (1, 5, 13):
        fr = frame(1, n, b"\xff" * 6)[:n]
        try:
            r = s.send(fr)
            print("runt %d bytes: sent (send returned %d)" % (n, r))
        except OSError as e:
            print("runt %d bytes: refused: %s" % (n, e.strerror))
    return 0


def corpus(d):
    os.makedirs(d, exist_ok=True)
    for kid, k in enumerate(KINDS, 1):
        if len(frame(kid, 0, b"\0" * 6)) > 1600:
            continue
        with open(os.path.join(d, k[0] + ".bin"), "wb") as f:
            f.write(frame(kid, 0, mac("02:77:00:00:00:0b")))
    return 0


def main():
    a = sys.argv[1:]
    if a == ["list"]:
        for kid, k in enumerate(KINDS, 1):
            print(kid, k[0], k[1])
        return 0
    if len(a) >= 5 and a[0] == "send":
        return send(a[1], a[2], a[3], a[4], a[5:])
    if len(a) == 3 and a[0] == "capture":
        return capture(a[1], a[2])
    if len(a) == 2 and a[0] == "probe-runt":
        return probe_runt(a[1])
    if len(a) == 2 and a[0] == "corpus":
        return corpus(a[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
