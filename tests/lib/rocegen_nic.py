#!/usr/bin/env python3
"""rocegen_nic.py ME PEER - play rank 1 (ME, port 4791) against an idle
rocegen rank 0 (PEER): send one packet with a bad ICRC (to be dropped) and
one CE-marked RDMA WRITE ONLY with AckReq (valid ICRC), then expect from
PEER an ACK (0x11, syndrome 0x1f, PSN 0, dest QP 0x100010, DSCP 26,
Not-ECT, from port 4791) and a CNP (0x81, BECN, dest QP 0x100010, 32
bytes, DSCP 48, from port 0xf000), both with a valid ICRC. Exit 0 if so,
1 with the reason otherwise. Used by tests/integration/t-rocegen-smoke.sh.
"""
import socket
import struct
import sys
import zlib

ME, PEER = sys.argv[1], sys.argv[2]


def icrc(src, sport, dst, dport, payload):
    """The ICRC of a UDP payload (its last 4 bytes excluded) as the kernel
    sends it: IPv4, DF, ID 0; variant fields masked (dataplane/pkt/roce.h)."""
    n = len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0xff, 28 + n, 0, 0x4000, 0xff,
                     17, 0xffff, socket.inet_aton(src),
                     socket.inet_aton(dst))
    udp = struct.pack("!HHHH", sport, dport, 8 + n, 0xffff)
    bth = bytearray(payload[:-4])
    bth[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + ip + udp + bytes(bth)) & 0xffffffff
    return struct.pack("<I", crc)


def fail(why):
    print("rocegen_nic:", why, file=sys.stderr)
    sys.exit(1)


s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 2)  # IP_MTU_DISCOVER = DO: IP ID 0
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 26 << 2 | 3)  # CE
s.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
s.bind((ME, 4791))
s.settimeout(2)
# BTH: WRITE ONLY, M, P_Key, dest QP qpn(0, 1), AckReq, PSN 0; RETH (VA,
# R_Key, length 100); rocegen's header (id 7, offset 0, send time 0)
bth = struct.pack("!BBHII", 0x0a, 0x40, 0xffff, 0x100001, 0x80000000)
body = (struct.pack("!QII", 7 << 32, 0, 100) + struct.pack("!IIQ", 7, 0, 0)
        + bytes(100))
pkt = bth + body + bytes(4)
s.sendto(pkt[:-4] + b"\0\0\0\1", (PEER, 4791))  # bad ICRC
s.sendto(pkt[:-4] + icrc(ME, 4791, PEER, 4791, pkt), (PEER, 4791))
got = {}
try:
    while len(got) < 2:
        data, anc, _, src = s.recvmsg(2048, 64)
        tos = [c[2][0] for c in anc if c[1] == socket.IP_TOS][0]
        if data[-4:] != icrc(src[0], src[1], ME, 4791, data):
            fail(f"bad ICRC on {data.hex()}")
        got[data[0]] = (data, tos, src[1])
except socket.timeout:
    fail(f"only got opcodes {[hex(k) for k in got]}")
ack, tos, sport = got[0x11]
if struct.unpack("!I", ack[4:8])[0] & 0xffffff != 0x100010:
    fail(f"ACK dest QP: {ack.hex()}")
if struct.unpack("!I", ack[8:12])[0] & 0xffffff != 0 or ack[12] != 0x1f:
    fail(f"ACK PSN / syndrome: {ack.hex()}")
if tos != 26 << 2 or sport != 4791:
    fail(f"ACK TOS {tos:#x} sport {sport}")
cnp, tos, sport = got[0x81]
if not cnp[4] & 0x40 or struct.unpack("!I", cnp[4:8])[0] & 0xffffff != 0x100010:
    fail(f"CNP BECN / dest QP: {cnp.hex()}")
if len(cnp) != 32 or tos != 48 << 2 or sport != 0xf000:
    fail(f"CNP length {len(cnp)} TOS {tos:#x} sport {sport:#x}")
