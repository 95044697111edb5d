/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_parse.h - what the unit tests of pkt_parse() (test_parse_*.c)
 * share: a frame builder (struct fb: Ethernet with tags, IPv4, IPv6 and
 * extension headers, UDP, TCP, RoCEv2 BTH), parse() and parse_n() that run
 * pkt_parse() on an exactly-sized heap copy of the frame, so that an
 * over-read is an ASan error (the unit tests run under ASan in CI),
 * address checks and a full QinQ / IPv6 / UDP / RoCEv2 / ICRC frame. Each
 * test file uses some of them.
 */
#ifndef XDPLANE_TEST_PARSE_H
#define XDPLANE_TEST_PARSE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "frame_meta.h"
#include "pkt_parse.h"

/* ---- frame builder ---- */

struct fb {
	uint8_t b[1024];
	uint32_t n;
};

static inline void put8(struct fb *f, uint32_t v)
{
	assert_true(f->n < sizeof(f->b));
	f->b[f->n++] = (uint8_t)v;
}

static inline void put16(struct fb *f, uint32_t v)
{
	put8(f, v >> 8);
	put8(f, v);
}

static inline void put24(struct fb *f, uint32_t v)
{
	put8(f, v >> 16);
	put16(f, v);
}

static inline void put32(struct fb *f, uint32_t v)
{
	put16(f, v >> 16);
	put16(f, v);
}

static inline void putn(struct fb *f, const void *p, uint32_t n)
{
	assert_true(f->n + n <= sizeof(f->b));
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static inline void zeros(struct fb *f, uint32_t n)
{
	while (n--)
		put8(f, 0);
}

static inline void set16(struct fb *f, uint32_t at, uint32_t v)
{
	f->b[at] = (uint8_t)(v >> 8);
	f->b[at + 1] = (uint8_t)v;
}

/* Ethernet header: dst, src, then the tags (tpid, tci pairs), ethertype. */
static inline void eth(struct fb *f, int n_tags, const uint32_t *tags,
		       uint32_t et)
{
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x02};

	f->n = 0;
	putn(f, dmac, 6);
	putn(f, smac, 6);
	for (int i = 0; i < n_tags; i++) {
		put16(f, tags[2 * i]);
		put16(f, tags[2 * i + 1]);
	}
	put16(f, et);
}

static inline uint32_t tci(uint32_t pcp, uint32_t vid)
{
	return pcp << 13 | vid;
}

static inline uint32_t v4addr(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return ntohl(a.s_addr);
}

static inline void v6addr(const char *s, uint8_t out[16])
{
	assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

/* IPv4 header with opt_words 32-bit words of options (NOPs); total length
 * left 0: ipv4_fix() sets it to the end of the frame. Returns its offset. */
static inline uint32_t ipv4(struct fb *f, uint32_t tos, uint32_t proto,
			    const char *src, const char *dst,
			    uint32_t opt_words, uint32_t frag)
{
	uint32_t at = f->n;

	put8(f, 0x40 | (5 + opt_words));
	put8(f, tos);
	put16(f, 0);
	put16(f, 0x1234);
	put16(f, frag);
	put8(f, 64);
	put8(f, proto);
	put16(f, 0);
	put32(f, v4addr(src));
	put32(f, v4addr(dst));
	for (uint32_t i = 0; i < opt_words; i++)
		put32(f, 0x01010101);
	return at;
}

static inline void ipv4_fix(struct fb *f, uint32_t at)
{
	set16(f, at + 2, f->n - at);
}

/* IPv6 header; ipv6_fix() sets the payload length to the end of frame. */
static inline uint32_t ipv6(struct fb *f, uint32_t tc, uint32_t nh,
			    const char *src, const char *dst)
{
	uint8_t a[16];
	uint32_t at = f->n;

	put32(f, 6u << 28 | tc << 20 | 0x12345);
	put16(f, 0);
	put8(f, nh);
	put8(f, 64);
	v6addr(src, a);
	putn(f, a, 16);
	v6addr(dst, a);
	putn(f, a, 16);
	return at;
}

static inline void ipv6_fix(struct fb *f, uint32_t at)
{
	set16(f, at + 4, f->n - at - 40);
}

/* Hop-by-hop / routing / destination options: (len8 + 1) * 8 bytes. */
static inline void ext(struct fb *f, uint32_t nh, uint32_t len8)
{
	put8(f, nh);
	put8(f, len8);
	zeros(f, (len8 + 1) * 8 - 2);
}

/* AH: (len4 + 2) * 4 bytes. */
static inline void ah(struct fb *f, uint32_t nh, uint32_t len4)
{
	put8(f, nh);
	put8(f, len4);
	zeros(f, (len4 + 2) * 4 - 2);
}

/* Fragment header: offset in 8-byte units. */
static inline void frag6(struct fb *f, uint32_t nh, uint32_t offset, int more)
{
	put8(f, nh);
	put8(f, 0);
	put16(f, offset << 3 | (more ? 1 : 0));
	put32(f, 0xdeadbeef);
}

/* UDP header, length 8 (header only); udp_fix() sets the length to the
 * end of the frame. Returns its offset. */
static inline uint32_t udp(struct fb *f, uint32_t sport, uint32_t dport)
{
	uint32_t at = f->n;

	put16(f, sport);
	put16(f, dport);
	put16(f, 8);
	put16(f, 0);
	return at;
}

static inline void udp_fix(struct fb *f, uint32_t at)
{
	set16(f, at + 4, f->n - at);
}

static inline void tcp(struct fb *f, uint32_t sport, uint32_t dport)
{
	put16(f, sport);
	put16(f, dport);
	put32(f, 1);
	put32(f, 0);
	put16(f, 0x5002); /* doff 5, SYN */
	put16(f, 65535);
	put32(f, 0);
}

static inline void bth(struct fb *f, uint32_t opcode, uint32_t dqpn)
{
	put8(f, opcode);
	put8(f, 0);
	put16(f, 0xffff);
	put8(f, opcode == BTH_OPCODE_CNP ? 0x40 : 0);
	put24(f, dqpn);
	put32(f, 0x00000123); /* AckReq 0, PSN 0x123 */
}

/* Parse an exactly-sized heap copy of frame[0..len). */
static inline int parse_n(const uint8_t *frame, uint32_t len,
			  struct pkt_meta *m)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, frame, len);
	/* len 0: a 1-byte buffer, but the parser is told 0 */
	rc = pkt_parse(copy, len, m);
	free(copy);
	return rc;
}

static inline int parse(const struct fb *f, struct pkt_meta *m)
{
	return parse_n(f->b, f->n, m);
}

static inline void assert_v4(const uint8_t a[16], const char *s)
{
	static const uint8_t zero[12];
	uint32_t v = htonl(v4addr(s));

	assert_memory_equal(a, &v, 4);
	assert_memory_equal(a + 4, zero, 12);
}

static inline void assert_v6(const uint8_t a[16], const char *s)
{
	uint8_t b[16];

	v6addr(s, b);
	assert_memory_equal(a, b, 16);
}

/* QinQ (22) | IPv6 (40) @22 | HBH (8) @62 | DSTOPTS (16) @70 |
 * FRAG first (8) @86 | UDP (8) @94 | BTH (12) @102 | 16 + ICRC 4 @114 */
static inline void full_roce_frame(struct fb *f)
{
	const uint32_t tags[] = {ETHERTYPE_QINQ, tci(3, 500), ETHERTYPE_VLAN,
				 tci(5, 600)};
	uint32_t ip, u;

	eth(f, 2, tags, ETHERTYPE_IPV6);
	ip = ipv6(f, 26 << 2 | 1, IPPROTO_HOPOPTS, "2001:db8::10",
		  "2001:db8::20");
	ext(f, IPPROTO_DSTOPTS, 0);
	ext(f, IPPROTO_FRAGMENT, 1);
	frag6(f, IPPROTO_UDP, 0, 1);
	u = udp(f, 0xf000, ROCEV2_UDP_PORT);
	bth(f, BTH_OPCODE_CNP, 0x123456);
	zeros(f, 16);
	put32(f, 0xdafc1bef);
	udp_fix(f, u);
	ipv6_fix(f, ip);
	assert_int_equal(f->n, 134);
}

#endif
