#!/usr/bin/env python3
"""markframes.py - DSCP/PCP marking seen on the wire (tests/integration/t-mark.sh).

    markframes.py send IFACE DST_MAC SRC_MAC SRC4 DST4 SRC6 DST6 TAG OUTFILE
        send the test frames (TAG marks this round), write them as hex
    markframes.py recv IFACE COUNT TAG OUTFILE
        capture COUNT frames of round TAG, as hex (tags the kernel moved
        into packet metadata put back into the frame, PACKET_AUXDATA)
    markframes.py check SENT GOT PORT DSCP PCP
        frames to UDP/TCP port PORT must arrive with DSCP DSCP (ECN bits
        as sent) and, when tagged, PCP PCP in the outer tag (-1: as sent;
        DEI, VID and an inner tag as sent); every other frame byte-identical; the IPv4
        header checksum and the UDP/TCP checksum verify; nothing else
        changed. Prints one line per kind of frame.

The frames: IPv4 and IPv6, UDP and TCP, untagged, 802.1Q (VLAN 0, PCP 1,
DEI 1) and QinQ (0x88a8 VLAN 0 PCP 2, then 0x8100 VLAN 0 PCP 3), to
ports 5001 and 5002, sent with DSCP 8 and ECN ECT(0) or CE, each carrying
a marker with its index. VLAN 0 (priority tags): the receiving host's
stack takes them as untagged, and they cross the testbed like any frame.
"""
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
MARK = b"XDPLANE-MARK"


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def l4_segment(proto, sport, dport, payload, pseudo):
    if proto == 17:
        seg = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
        c = 0xFFFF - csum(pseudo + seg) or 0xFFFF
        return seg[:6] + struct.pack("!H", c) + seg[8:]
    seg = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x18, 512, 0,
                      0) + payload
    c = 0xFFFF - csum(pseudo + seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def ip_packet(fam, proto, tos, src, dst, dport, payload):
    if fam == 4:
        s, d = socket.inet_aton(src), socket.inet_aton(dst)
        n = (8 if proto == 17 else 20) + len(payload)
        pseudo = s + d + struct.pack("!BBH", 0, proto, n)
        seg = l4_segment(proto, 40000, dport, payload, pseudo)
        h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + n, 0x1234, 0, 64,
                        proto, 0, s, d)
        h = h[:10] + struct.pack("!H", 0xFFFF - csum(h)) + h[12:]
        return 0x0800, h + seg
    s, d = (socket.inet_pton(socket.AF_INET6, x) for x in (src, dst))
    n = (8 if proto == 17 else 20) + len(payload)
    pseudo = s + d + struct.pack("!IxxxB", n, proto)
    seg = l4_segment(proto, 40000, dport, payload, pseudo)
    first = (6 << 28) | (tos << 20) | 0xABCDE
    return 0x86DD, struct.pack("!IHBB", first, n, proto, 64) + s + d + seg


def frames(dst, src, a4, b4, a6, b6, tag):
    out = []
    i = 0
    for port in (5001, 5002):
        for fam in (4, 6):
            for proto in (17, 6):
                for tags in (0, 1, 2):
                    for ecn in (2, 3):
                        body = MARK + struct.pack("!BH", tag, i) + bytes(
                            range(32))
                        et, pkt = ip_packet(fam, proto, 8 << 2 | ecn,
                                            a4 if fam == 4 else a6,
                                            b4 if fam == 4 else b6, port,
                                            body)
                        hdr = dst + src
                        if tags == 1:
                            hdr += struct.pack("!HH", 0x8100, 1 << 13 | 1 << 12)
                        elif tags == 2:
                            hdr += struct.pack("!HHHH", 0x88A8, 2 << 13, 0x8100,
                                               3 << 13)
                        out.append(hdr + struct.pack("!H", et) + pkt)
                        i += 1
    return out


def send(iface, dst, src, a4, b4, a6, b6, tag, outfile):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    with open(outfile, "w") as f:
        for fr in frames(mac(dst), mac(src), a4, b4, a6, b6, int(tag)):
            s.send(fr)
            f.write(fr.hex() + "\n")
            time.sleep(0.005)


def recv(iface, count, tag, outfile):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((iface, 0))
    s.settimeout(10)
    print("markframes: ready", file=sys.stderr, flush=True)
    want = MARK + bytes([int(tag)])
    got = []
    while len(got) < count:
        try:
            data, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(64))
        except socket.timeout:
            break
        if want not in data or addr[2] == socket.PACKET_OUTGOING:
            continue
        for level, kind, cdata in anc:
            if level != SOL_PACKET or kind != PACKET_AUXDATA:
                continue
            (status, _, _, _, _, tci, tpid) = struct.unpack(
                "IIIHHHH", cdata[:20])
            if status & TP_STATUS_VLAN_VALID:
                if not status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = 0x8100
                data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
        got.append(data)
    with open(outfile, "w") as f:
        for fr in got:
            f.write(fr.hex() + "\n")


def parse(fr):
    """(outer TCI offset or None, L3 offset, family)"""
    off, tci_at = 12, None
    while struct.unpack("!H", fr[off:off + 2])[0] in (0x8100, 0x88A8):
        if tci_at is None:
            tci_at = off + 2
        off += 4
    et = struct.unpack("!H", fr[off:off + 2])[0]
    return tci_at, off + 2, 4 if et == 0x0800 else 6


def check(sent_file, got_file, port, dscp, pcp):
    sent = [bytes.fromhex(x) for x in open(sent_file).read().split()]
    got = {}
    for x in open(got_file).read().split():
        fr = bytes.fromhex(x)
        i = fr.index(MARK) + len(MARK) + 1
        got[struct.unpack("!H", fr[i:i + 2])[0]] = fr
    bad = []
    kinds = {}
    for i, s in enumerate(sent):
        tci_at, l3, fam = parse(s)
        g = got.get(i)
        if g is None:
            bad.append("frame %d missing" % i)
            continue
        if len(g) != len(s):
            bad.append("frame %d: %d bytes, sent %d" % (i, len(g), len(s)))
            continue
        ip_s, ip_g = s[l3:], g[l3:]
        if fam == 4:
            proto, tos_s, tos_g = ip_g[9], ip_s[1], ip_g[1]
            hl = (ip_g[0] & 15) * 4
            if csum(ip_g[:hl]) != 0xFFFF:
                bad.append("frame %d: IPv4 header checksum wrong" % i)
            pseudo = ip_g[12:20] + struct.pack("!BBH", 0, proto,
                                               len(ip_g) - hl)
            l4 = ip_g[hl:]
        else:
            proto = ip_g[6]
            tos_s = (struct.unpack("!I", ip_s[:4])[0] >> 20) & 0xFF
            tos_g = (struct.unpack("!I", ip_g[:4])[0] >> 20) & 0xFF
            pseudo = ip_g[8:40] + struct.pack("!IxxxB", len(ip_g) - 40, proto)
            l4 = ip_g[40:]
        if csum(pseudo + l4) != 0xFFFF:
            bad.append("frame %d: L4 checksum wrong" % i)
        dport = struct.unpack("!H", l4[2:4])[0]
        marked = dport == port
        exp = bytearray(s)
        if marked:
            if tos_g >> 2 != dscp or tos_g & 3 != tos_s & 3:
                bad.append("frame %d: TOS 0x%02x, want DSCP %d ECN %d" %
                           (i, tos_g, dscp, tos_s & 3))
            if tci_at is not None and pcp >= 0:
                exp[tci_at] = (exp[tci_at] & 0x1F) | pcp << 5
            # the bytes the rewrite may touch: TOS (+ checksum) / TC
            if fam == 4:
                for k in (l3 + 1, l3 + 10, l3 + 11):
                    exp[k] = g[k]
            else:
                exp[l3] = (s[l3] & 0xF0) | (g[l3] & 0x0F)
                exp[l3 + 1] = (g[l3 + 1] & 0xF0) | (s[l3 + 1] & 0x0F)
        if bytes(exp) != g:
            bad.append("frame %d: other bytes changed (%s)" %
                       (i, "marked" if marked else "not marked"))
        k = "IPv%d %s %s %s" % (fam, "UDP" if proto == 17 else "TCP",
                                ["untagged", "802.1Q", "QinQ"][
                                    (g[12:14] == b"\x81\x00") +
                                    2 * (g[12:14] == b"\x88\xa8")],
                                "port %d" % dport)
        kinds.setdefault(k, []).append((tos_g >> 2, g[tci_at] >> 5
                                        if tci_at is not None else None))
    for k in sorted(kinds):
        v = kinds[k]
        print("%-34s %d frames, DSCP %s, PCP %s, checksums valid" %
              (k, len(v), sorted({d for d, _ in v}),
               sorted({p for _, p in v if p is not None}) or "-"))
    for b in bad:
        print("BAD: " + b)
    return 1 if bad else 0


def main(argv):
    if len(argv) == 11 and argv[1] == "send":
        send(*argv[2:])
        return 0
    if len(argv) == 6 and argv[1] == "recv":
        recv(argv[2], int(argv[3]), argv[4], argv[5])
        return 0
    if len(argv) == 7 and argv[1] == "check":
        return check(argv[2], argv[3], int(argv[4]), int(argv[5]),
                     int(argv[6]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
