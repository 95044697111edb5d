#!/usr/bin/env python3
"""l2frames.py - send hand-made Ethernet frames and check they arrive intact.

    l2frames.py recv IFACE COUNT OUTFILE   capture COUNT marked frames, as hex
    l2frames.py send IFACE DST_MAC SRC_MAC OUTFILE
                                           send the test frames, write them as hex

The frames: 802.1Q-tagged (TPID 0x8100, VLAN 100, every PCP, DEI set on
some), QinQ (0x88a8 outer, 0x8100 inner) and untagged, each carrying the
local experimental ethertype 0x88b5 and a unique marker. The receiver puts
tags that the kernel moved into packet metadata back into the frame
(PACKET_AUXDATA), so the two hex files compare the bytes on the wire.
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
MARK = b"XDPLANE-L2TEST"


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def frames(dst, src):
    out = []
    for i in range(16):
        pcp, dei = i % 8, (i // 8) & 1
        tci = (pcp << 13) | (dei << 12) | 100
        body = MARK + struct.pack("!H", i) + bytes(range(40 + i))
        out.append(dst + src + struct.pack("!HH", 0x8100, tci) +
                   struct.pack("!H", 0x88B5) + body)
    for i in range(4):
        body = MARK + struct.pack("!H", 100 + i) + bytes(50)
        out.append(dst + src + struct.pack("!HHHH", 0x88A8, 200 + i, 0x8100,
                                           300 + i) +
                   struct.pack("!H", 0x88B5) + body)
    body = MARK + struct.pack("!H", 200) + bytes(46)
    out.append(dst + src + struct.pack("!H", 0x88B5) + body)
    return out


def send(iface, dst, src, outfile):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    fs = frames(mac(dst), mac(src))
    with open(outfile, "w") as f:
        for fr in fs:
            s.send(fr)
            f.write(fr.hex() + "\n")
            time.sleep(0.01)


def recv(iface, count, outfile):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((iface, 0))
    s.settimeout(10)
    print("l2frames: ready", file=sys.stderr, flush=True)
    got = []
    while len(got) < count:
        try:
            data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(64))
        except socket.timeout:
            break
        if MARK not in data:
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
        for d in got:
            f.write(d.hex() + "\n")
    return 0 if len(got) == count else 1


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "recv":
        return recv(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    if len(sys.argv) == 6 and sys.argv[1] == "send":
        send(*sys.argv[2:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
