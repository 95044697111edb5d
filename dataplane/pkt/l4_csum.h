/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * l4_csum.h - complete the TCP / UDP checksums that a virtual link left
 * partial.
 *
 * A host whose NIC offers TX checksum offload (a veth, virtio_net, tun,
 * ... in a container or a VM: on by default) hands the driver TCP and UDP
 * packets with the checksum still to be done (the kernel's
 * CHECKSUM_PARTIAL): the checksum field holds the folded pseudo-header sum
 * (tcp_v4_send_check(), udp4_hwcsum(), __tcp_v6_send_check(): the field is
 * ~csum_tcpudp_magic(saddr, daddr, len, proto, 0), i.e. the ones'
 * complement sum of the pseudo-header, not complemented), and whoever
 * receives the skb is told to finish it. AF_XDP copies the bytes only: the
 * frame leaves the gateway with that field, and the far host drops it as
 * a bad checksum. Ping crosses (ICMP has no offload); TCP and UDP do not.
 *
 * l4_csum_fix() applies the rule, on one frame the parser accepted:
 *   1. the full checksum (pseudo-header + L4 header + payload) verifies:
 *      nothing is touched (L4_CSUM_VALID);
 *   2. else, the field equals the folded pseudo-header sum P (what Linux
 *      writes), or its complement ~P (some other stacks): the checksum is
 *      computed over the segment and written (L4_CSUM_COMPLETED); UDP's
 *      result 0 is written 0xffff (RFC 768);
 *   3. else the checksum is simply bad: left as it is, the receiver drops
 *      the packet as the sender's fault (L4_CSUM_BAD).
 * A corrupted packet whose field happens to equal P or ~P (2 in 65536 of
 * those whose checksum field is random) is "completed", which turns a
 * packet the receiver would drop into one it accepts; that is the price
 * of step 2, as with any NIC that completes partial checksums.
 *
 * What is not looked at (L4_CSUM_SKIP): anything but TCP or UDP in IPv4 or
 * IPv6 (behind up to two VLAN tags, as pkt_parse() found them), UDP over
 * IPv4 with checksum 0 ("no checksum", RFC 768), UDP over IPv6 with
 * checksum 0 (invalid by RFC 8200, allowed for tunnels by RFC 6935: the
 * receiver decides), a fragment that is not the first (no L4 header).
 *
 * What cannot be decided here (L4_CSUM_NOT_COMPLETED): a first fragment
 * (IPv4 MF, IPv6 fragment header with M) whose field equals P or ~P: the
 * checksum covers the whole datagram, most of which is in the other
 * fragments (Linux checksums in software before it fragments, so this
 * should not happen); an IPv6 packet with a routing header with segments
 * left (the pseudo-header holds the final destination, not the one in the
 * IPv6 header). Such frames are left as they are.
 *
 * Inconsistent input (L4_CSUM_INVALID, nothing read past the frame,
 * nothing written): offsets in m that do not point at an IP and an L4
 * header, IP lengths past the bytes given, an L4 header the lengths cut.
 * pkt_parse() never produces these; they are the caller's bugs, refused
 * rather than trusted.
 *
 * Bounds: frame[0..len) -- or, for a multi-buffer packet, the bytes of
 * its segments -- is everything that may be read and written. The IP
 * datagram's length comes from its header (IPv4 total length, IPv6
 * payload length), never from the frame: Ethernet padding after a short
 * datagram is not summed. The checksum field must lie in the first
 * segment (pkt_parse_head() keeps every header there).
 *
 * Multi-buffer packets (AF_XDP chains, frame_chain.h): the segment is
 * summed over every buffer, whatever their lengths (odd lengths shift the
 * byte order of the next buffer's words, which the sum accounts for).
 *
 * Cost: one pass over the L4 bytes (8 bytes per step) for every TCP and
 * UDP frame given to it: enable it per port (ports[].checksum) where
 * partial checksums can arrive.
 *
 * Pure: no state, no allocation, no system call; any thread, on buffers
 * it owns.
 */
#ifndef XDPLANE_L4_CSUM_H
#define XDPLANE_L4_CSUM_H

#include <stdint.h>
#include "pkt_parse.h"

enum l4_csum_result {
	L4_CSUM_SKIP = 0, /* nothing to check (see above) */
	L4_CSUM_VALID, /* verifies: untouched */
	L4_CSUM_COMPLETED, /* was partial: the full checksum written */
	L4_CSUM_BAD, /* neither valid nor partial: untouched */
	L4_CSUM_NOT_COMPLETED, /* looks partial, cannot be completed here */
	L4_CSUM_INVALID, /* m does not describe the bytes: untouched */
	L4_CSUM_RESULT_MAX
};

/* One buffer of a multi-buffer packet, in packet order. */
struct l4_csum_seg {
	uint8_t *data;
	uint32_t len;
};

/* The rule above on frame[0..len), parsed by pkt_parse() into m (flags,
 * l3, l3_off, l4_off, proto). Returns an enum l4_csum_result. */
int l4_csum_fix(uint8_t *frame, uint32_t len, const struct pkt_meta *m);

/* The same on a packet made of n buffers (1..), parsed by
 * pkt_parse_head() from seg[0]: the packet is their concatenation. */
int l4_csum_fix_segs(const struct l4_csum_seg *seg, uint32_t n,
		     const struct pkt_meta *m);

/* Short name of a result ("skip", "valid", ...); "?" out of range. */
const char *l4_csum_result_name(int r);

#endif
