/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * roce_udp.h - the ICRC of a RoCEv2 packet seen from a UDP socket: the
 * caller has the UDP payload (BTH ... ICRC) and the addresses and ports;
 * the kernel writes the IP and UDP headers. The ICRC covers those headers
 * (variant fields masked, see dataplane/pkt/roce.h), so they are rebuilt as the
 * kernel sends them: IPv4 with DF set and identification 0 (what Linux
 * puts in an unfragmentable datagram of an unconnected socket with
 * IP_PMTUDISC_DO), IPv6 without extension headers.
 *
 * Shared by the RoCEv2 test endpoint (roce_peer) and the collective
 * generator (bench/coll/rocegen). Pure; the caller owns the buffers.
 * Every function needs ROCE_UDP_HEADROOM writable bytes before the payload
 * (the pseudo headers are written there).
 */
#ifndef XDPLANE_TOOLS_ROCE_UDP_H
#define XDPLANE_TOOLS_ROCE_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROCE_UDP_HEADROOM 48 /* IPv6 (40) + UDP (8) */

/* One end of a UDP flow: family 4 or 6, the address in network order
 * (IPv4 in addr[0..4)), the port in host order. */
struct roce_udp_ep {
	int family;
	uint8_t addr[16];
	uint16_t port;
};

/* The bytes of the IP + UDP header the ICRC sees: 28 (IPv4) or 48. */
size_t roce_udp_pseudo_len(int family);

/* Write at h the IP + UDP header of a UDP payload of n bytes from src to
 * dst, variant fields (TOS, TTL, checksums, flow label) 0. */
void roce_udp_pseudo_hdr(uint8_t *h, const struct roce_udp_ep *src,
			 const struct roce_udp_ep *dst, size_t n);

/* Fill the last 4 bytes of the payload p[0..n) with its ICRC. False when
 * n cannot hold a BTH and an ICRC or the families differ. */
bool roce_udp_seal(uint8_t *p, size_t n, const struct roce_udp_ep *src,
		   const struct roce_udp_ep *dst);

/* True when the last 4 bytes of p[0..n) are its ICRC. */
bool roce_udp_icrc_ok(uint8_t *p, size_t n, const struct roce_udp_ep *src,
		      const struct roce_udp_ep *dst);

#endif
