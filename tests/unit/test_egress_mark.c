// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_egress_mark.c - marking for the fabric beyond (qos_class.set_dscp,
 * set_pcp; remark.h) as an egress task applies it, on fake sockets
 * (fake_xsk.h): frames are handed to the task with the meta an RX task
 * would give them (pkt_parse + frame_meta_pack), and read back from the
 * fake TX ring:
 *  - IPv4 and IPv6, untagged, 802.1Q-tagged and QinQ: the new DSCP with
 *    the ECN bits kept, the new PCP in the outermost tag with its DEI and
 *    VID (and the inner tag) kept, the IPv4 header checksum verifying,
 *    the UDP/TCP checksums untouched and still valid;
 *  - untagged frames of a PCP-setting class get no tag (pcp_untagged),
 *    non-IP frames of a DSCP-setting class are left alone (dscp_not_ip);
 *  - frames of a class without marking leave byte-identical;
 *  - a frame whose headers are not where its meta says, or cut short, is
 *    left alone and counted (remark_invalid);
 *  - a reload that renumbers the classes and changes a class's DSCP:
 *    the settings follow the class by name, the new value applies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "egress.h"
#include "fake_xsk.h"
#include "pkt_parse.h"
#include "rx_task.h"

#define FRAME 2048
#define PART 512
#define MAX_LEN (FRAME - FAKE_HEADROOM)
#define MAXF 256

enum { C_DSCP, C_BOTH, C_DEFAULT, C_PCP, N_CLASSES };

struct bed {
	struct umem_area umem;
	struct qos_policy pol;
	struct classifier cls;
	struct fake_socket a, b;
	struct handoff_ring ho;
	struct return_ring ret;
	struct rx_task rx;
	struct egress_task eg;
};

static void add_class(struct qos_policy *p, const char *name, int dscp, int pcp)
{
	struct qos_class *c = &p->classes[p->n_classes++];

	snprintf(c->name, QOS_NAME_MAX, "%s", name);
	c->quantum = 9000;
	c->limit_packets = 1024;
	c->limit_bytes = 1 << 22;
	c->has_set_dscp = dscp >= 0;
	c->set_dscp = (uint8_t)(dscp >= 0 ? dscp : 0);
	c->has_set_pcp = pcp >= 0;
	c->set_pcp = (uint8_t)(pcp >= 0 ? pcp : 0);
}

/* dscp: DSCP 46 only; both: DSCP 10 and PCP 5; default: nothing; pcp:
 * PCP 2 only. */
static void policy(struct qos_policy *p)
{
	memset(p, 0, sizeof(*p));
	add_class(p, "dscp", 46, -1);
	add_class(p, "both", 10, 5);
	add_class(p, "default", -1, -1);
	add_class(p, "pcp", -1, 2);
	p->default_class = C_DEFAULT;
}

static struct bed *bed_new(void)
{
	struct bed *b = NULL;

	if (posix_memalign((void **)&b, 64, sizeof(*b)))
		abort(); /* (not an assert: the compiler must see b set) */
	memset(b, 0, sizeof(*b));
	assert_int_equal(umem_area_init_plain(&b->umem, 2 * PART, FRAME, 2), 0);
	policy(&b->pol);
	assert_int_equal(classifier_build(&b->cls, &b->pol), 0);
	fake_socket_init(&b->a, 0);
	fake_socket_init(&b->b, 0);
	assert_int_equal(handoff_ring_init(&b->ho, 256), 0);
	assert_int_equal(return_ring_init(&b->ret, PART), 0);
	assert_int_equal(rx_task_init(&b->rx, &b->a.q, &b->umem, 0, &b->cls,
				      &b->ho, 32, MAX_LEN),
			 0);
	rx_task_add_return(&b->rx, &b->ret);
	assert_int_equal(egress_task_init(&b->eg, &b->b.q, &b->umem, 32,
					  &b->pol, 1, PART),
			 0);
	b->eg.copy_mode = false;
	b->eg.cls = &b->cls;
	assert_int_equal(egress_task_add_input(&b->eg, &b->ho, 0, &b->ret), 0);
	return b;
}

static void bed_free(struct bed *b)
{
	rx_task_fini(&b->rx);
	egress_task_fini(&b->eg);
	handoff_ring_fini(&b->ho);
	return_ring_fini(&b->ret);
	umem_area_fini(&b->umem);
	free(b);
}

/* ---- frames ---- */

static uint32_t sum16(const uint8_t *p, uint32_t n, uint32_t sum)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The one's complement sum of the L4 segment and its pseudo-header:
 * 0xffff when the checksum in it is right. */
static uint16_t l4_sum(const uint8_t *ip, bool v6, const uint8_t *l4,
		       uint32_t l4len, uint8_t proto)
{
	uint32_t sum = 0;

	if (v6)
		sum = sum16(ip + 8, 32, 0);
	else
		sum = sum16(ip + 12, 8, 0);
	sum += proto + l4len;
	return fold(sum16(l4, l4len, sum));
}

struct spec {
	int tags; /* 0, 1 (802.1Q), 2 (QinQ: 0x88a8 then 0x8100) */
	bool v6;
	uint8_t proto; /* 17 or 6 */
	uint8_t tos; /* IPv4 TOS / IPv6 traffic class */
	uint16_t tci; /* outer tag; the inner one is 0x0123 */
};

#define PAYLOAD 100

/* A frame of spec s with valid IP and L4 checksums; returns its length. */
static uint32_t build(uint8_t *f, const struct spec *s)
{
	uint32_t off = 12, l4len = (s->proto == 6 ? 20 : 8) + PAYLOAD;
	uint8_t *ip, *l4;

	memset(f, 0, 256);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (s->tags == 2) {
		f[off] = 0x88, f[off + 1] = 0xa8;
		f[off + 2] = (uint8_t)(s->tci >> 8),
			f[off + 3] = (uint8_t)s->tci;
		f[off + 4] = 0x81, f[off + 5] = 0x00;
		f[off + 6] = 0x01, f[off + 7] = 0x23;
		off += 8;
	} else if (s->tags == 1) {
		f[off] = 0x81, f[off + 1] = 0x00;
		f[off + 2] = (uint8_t)(s->tci >> 8),
			f[off + 3] = (uint8_t)s->tci;
		off += 4;
	}
	f[off] = s->v6 ? 0x86 : 0x08;
	f[off + 1] = s->v6 ? 0xdd : 0x00;
	ip = f + off + 2;
	if (s->v6) {
		ip[0] = (uint8_t)(0x60 | s->tos >> 4);
		ip[1] = (uint8_t)((s->tos & 0xf) << 4 | 0x0a); /* flow label */
		ip[2] = 0xbc, ip[3] = 0xde;
		ip[4] = (uint8_t)(l4len >> 8), ip[5] = (uint8_t)l4len;
		ip[6] = s->proto;
		ip[7] = 64;
		ip[8] = 0xfd, ip[23] = 1;
		ip[24] = 0xfd, ip[39] = 2;
		l4 = ip + 40;
	} else {
		uint16_t c;

		ip[0] = 0x45;
		ip[1] = s->tos;
		ip[2] = (uint8_t)((20 + l4len) >> 8),
		ip[3] = (uint8_t)(20 + l4len);
		ip[4] = 0x12, ip[5] = 0x34; /* id */
		ip[8] = 64;
		ip[9] = s->proto;
		memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
		c = (uint16_t)~fold(sum16(ip, 20, 0));
		ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
		l4 = ip + 20;
	}
	l4[0] = 0xc0, l4[1] = 0x01; /* sport 49153 */
	l4[2] = 0x12, l4[3] = 0x34; /* dport 4660 */
	if (s->proto == 17) {
		l4[4] = (uint8_t)(l4len >> 8), l4[5] = (uint8_t)l4len;
	} else {
		l4[12] = 5 << 4;
		l4[13] = 0x18; /* PSH ACK */
	}
	for (uint32_t i = 0; i < PAYLOAD; i++)
		l4[l4len - PAYLOAD + i] = (uint8_t)(i * 7);
	{
		unsigned int co = s->proto == 17 ? 6 : 16;
		uint16_t c = (uint16_t)~l4_sum(ip, s->v6, l4, l4len, s->proto);

		if (s->proto == 17 && !c)
			c = 0xffff;
		l4[co] = (uint8_t)(c >> 8), l4[co + 1] = (uint8_t)c;
	}
	return (uint32_t)(l4 - f) + l4len;
}

/* Hand frame f (len bytes) to the egress task in class cls, with the meta
 * the RX task gives it; or, meta_override non-zero, with that meta. */
static void hand(struct bed *b, const uint8_t *f, uint32_t len,
		 unsigned int cls, uint32_t meta_override)
{
	struct frame_desc d;
	struct pkt_meta m;

	assert_true(b->rx.pool.count > 0);
	d.addr = b->rx.pool.addrs[--b->rx.pool.count];
	d.len = len;
	memcpy((uint8_t *)b->umem.base + d.addr, f, len);
	if (meta_override) {
		d.meta = meta_override;
	} else {
		assert_int_equal(pkt_parse(f, len, &m), PKT_OK);
		d.meta = frame_meta_pack(cls, m.ecn, m.l3, m.l3_off) |
			 frame_meta_l4_of(&m);
	}
	assert_int_equal(handoff_ring_enqueue(&b->ho, &d, 1), 1);
}

/* Poll, then the one frame on the TX ring into out; returns its length. */
static uint32_t sent(struct bed *b, uint8_t *out)
{
	uint32_t tc = b->b.tx.consumer, lens[1] = {0};
	const struct xdp_desc *d;

	egress_task_poll(&b->eg);
	assert_int_equal(fake_load(&b->b.tx.producer) - tc, 1);
	d = &b->b.tx.descs[tc % FAKE_RING];
	memcpy(out, (uint8_t *)b->umem.base + d->addr, d->len);
	assert_int_equal(fake_kernel_tx(&b->b, lens, 1), 1);
	return lens[0];
}

static uint64_t stat(struct bed *b, unsigned int cls, size_t off)
{
	const struct sched_class_stats *st =
		sched_class_stats(&b->eg.sched, cls);

	assert_non_null(st);
	return ctr_read((const ctr_t *)((const uint8_t *)st + off));
}

#define STAT(b, cls, field)                                                    \
	stat(b, cls, offsetof(struct sched_class_stats, field))

/* Offsets of the L3 and L4 headers of a frame built from s. */
static uint32_t l3_at(const struct spec *s)
{
	return 14 + 4 * (uint32_t)s->tags;
}

/* Check frame out (from s, sent in a class with dscp / pcp, -1: none):
 * the values, the bits kept, the checksums, every other byte unchanged. */
static void check(const struct spec *s, const uint8_t *in, const uint8_t *out,
		  uint32_t len, int dscp, int pcp)
{
	uint32_t l3 = l3_at(s), l4len = (s->proto == 6 ? 20 : 8) + PAYLOAD;
	const uint8_t *ip = out + l3;
	uint8_t tos;

	if (s->v6)
		tos = (uint8_t)((ip[0] & 0xf) << 4 | ip[1] >> 4);
	else
		tos = ip[1];
	assert_int_equal(tos >> 2, dscp >= 0 ? dscp : s->tos >> 2);
	assert_int_equal(tos & 3, s->tos & 3); /* ECN kept */
	if (s->v6) {
		assert_int_equal(ip[0] >> 4, 6);
		assert_int_equal(ip[1] & 0xf, 0x0a); /* flow label kept */
		assert_memory_equal(ip + 2, in + l3 + 2, 38);
	} else {
		/* the header checksum verifies */
		assert_int_equal(fold(sum16(ip, 20, 0)), 0xffff);
		assert_memory_equal(ip + 2, in + l3 + 2, 8);
		assert_memory_equal(ip + 12, in + l3 + 12, 8);
	}
	/* L4: not one byte changed, and still valid */
	assert_memory_equal(ip + (s->v6 ? 40 : 20), in + l3 + (s->v6 ? 40 : 20),
			    l4len);
	assert_int_equal(
		l4_sum(ip, s->v6, ip + (s->v6 ? 40 : 20), l4len, s->proto),
		0xffff);
	/* Ethernet: addresses and TPIDs unchanged; the outer TCI's PCP
	 * replaced, its DEI and VID kept; an inner tag unchanged */
	assert_memory_equal(out, in, 14);
	if (s->tags) {
		assert_int_equal(out[14] >> 5,
				 pcp >= 0 ? pcp : (s->tci >> 13) & 7);
		assert_int_equal(out[14] & 0x1f, in[14] & 0x1f);
		assert_int_equal(out[15], in[15]);
		assert_memory_equal(out + 16, in + 16, l3 - 16);
	}
	(void)len;
}

static void run_case(struct bed *b, const struct spec *s, unsigned int cls,
		     int dscp, int pcp)
{
	uint8_t in[MAXF], out[MAXF];
	uint32_t len = build(in, s);

	hand(b, in, len, cls, 0);
	assert_int_equal(sent(b, out), len); /* no tag added or removed */
	check(s, in, out, len, dscp, pcp);
	if (dscp < 0 && pcp < 0)
		assert_memory_equal(out, in, len);
}

/* One family per case, each in its class. */
static void test_ipv4_untagged(void **state)
{
	struct bed *b = bed_new();
	struct spec s = {.tags = 0, .v6 = false, .proto = 17, .tos = 0x02};

	(void)state;
	run_case(b, &s, C_DSCP, 46, -1); /* ECT(0) stays */
	s.proto = 6;
	s.tos = 0xfb; /* DSCP 62, CE */
	run_case(b, &s, C_DSCP, 46, -1);
	assert_int_equal(STAT(b, C_DSCP, dscp_rewritten), 2);
	assert_int_equal(STAT(b, C_DSCP, pcp_rewritten), 0);
	assert_int_equal(STAT(b, C_DSCP, remark_invalid), 0);
	bed_free(b);
}

static void test_ipv6_untagged(void **state)
{
	struct bed *b = bed_new();
	struct spec s = {.tags = 0, .v6 = true, .proto = 17, .tos = 0x03};

	(void)state;
	run_case(b, &s, C_DSCP, 46, -1);
	s.proto = 6;
	s.tos = 0x01;
	run_case(b, &s, C_DSCP, 46, -1);
	assert_int_equal(STAT(b, C_DSCP, dscp_rewritten), 2);
	bed_free(b);
}

static void test_ipv4_tagged(void **state)
{
	struct bed *b = bed_new();
	/* PCP 1, DEI 1, VID 100 */
	struct spec s = {.tags = 1, .proto = 6, .tos = 0x02, .tci = 0x3064};

	(void)state;
	run_case(b, &s, C_BOTH, 10, 5);
	s.proto = 17;
	run_case(b, &s, C_PCP, -1, 2); /* PCP only: the DSCP stays */
	assert_int_equal(STAT(b, C_BOTH, dscp_rewritten), 1);
	assert_int_equal(STAT(b, C_BOTH, pcp_rewritten), 1);
	assert_int_equal(STAT(b, C_PCP, pcp_rewritten), 1);
	assert_int_equal(STAT(b, C_PCP, dscp_rewritten), 0);
	bed_free(b);
}

static void test_ipv6_tagged(void **state)
{
	struct bed *b = bed_new();
	/* PCP 7, DEI 0, VID 4095 */
	struct spec s = {
		.tags = 1, .v6 = true, .proto = 6, .tos = 0xb9, .tci = 0xefff};

	(void)state;
	run_case(b, &s, C_BOTH, 10, 5);
	s.proto = 17;
	run_case(b, &s, C_BOTH, 10, 5);
	assert_int_equal(STAT(b, C_BOTH, dscp_rewritten), 2);
	assert_int_equal(STAT(b, C_BOTH, pcp_rewritten), 2);
	bed_free(b);
}

/* QinQ: the outer (S-) tag's PCP; the inner tag as it was. */
static void test_qinq(void **state)
{
	struct bed *b = bed_new();
	struct spec s = {.tags = 2, .proto = 17, .tos = 0x02, .tci = 0x0064};

	(void)state;
	run_case(b, &s, C_BOTH, 10, 5);
	s.v6 = true;
	run_case(b, &s, C_BOTH, 10, 5);
	assert_int_equal(STAT(b, C_BOTH, pcp_rewritten), 2);
	bed_free(b);
}

/* No tag is added to an untagged frame; a non-IP frame keeps its bytes. */
static void test_untagged_and_not_ip(void **state)
{
	struct bed *b = bed_new();
	struct spec s = {.tags = 0, .proto = 17, .tos = 0x02};
	uint8_t arp[60] = {0}, out[MAXF];

	(void)state;
	run_case(b, &s, C_BOTH, 10, -1);
	assert_int_equal(STAT(b, C_BOTH, pcp_untagged), 1);
	assert_int_equal(STAT(b, C_BOTH, pcp_rewritten), 0);
	assert_int_equal(STAT(b, C_BOTH, dscp_rewritten), 1);
	memset(arp, 0xff, 6);
	arp[12] = 0x08, arp[13] = 0x06;
	arp[14] = 0x00, arp[15] = 0x01;
	hand(b, arp, sizeof(arp), C_DSCP, 0);
	assert_int_equal(sent(b, out), sizeof(arp));
	assert_memory_equal(out, arp, sizeof(arp));
	assert_int_equal(STAT(b, C_DSCP, dscp_not_ip), 1);
	assert_int_equal(STAT(b, C_DSCP, dscp_rewritten), 0);
	assert_int_equal(STAT(b, C_DSCP, remark_invalid), 0);
	bed_free(b);
}

/* A tagged frame whose meta has no L3 offset (not IP: the meta an RX
 * task gives a malformed frame, or an ARP) in a class that sets both: its
 * PCP is rewritten all the same, the DSCP is not IP's to set. */
static void test_pcp_not_ip(void **state)
{
	struct bed *b = bed_new();
	struct spec s = {.tags = 1, .proto = 17, .tos = 0x02, .tci = 0x3064};
	uint8_t in[MAXF], out[MAXF], want[MAXF];
	uint32_t len;

	(void)state;
	/* a tagged IPv4 frame cut short (malformed, default meta) */
	len = build(in, &s);
	hand(b, in, 40, C_BOTH, frame_meta_pack(C_BOTH, 0, 0, 0));
	assert_int_equal(sent(b, out), 40);
	memcpy(want, in, 40);
	want[14] = (uint8_t)((in[14] & 0x1f) | 5 << 5);
	assert_memory_equal(out, want, 40);
	/* a QinQ-tagged ARP, as the RX task parses it; and again with no
	 * L3 offset in its meta */
	memset(in, 0, 64);
	memset(in, 0xff, 6);
	in[12] = 0x88, in[13] = 0xa8, in[14] = 0x00, in[15] = 0x64;
	in[16] = 0x81, in[17] = 0x00, in[18] = 0x01, in[19] = 0x23;
	in[20] = 0x08, in[21] = 0x06;
	for (int k = 0; k < 2; k++) {
		hand(b, in, 64, C_BOTH,
		     k ? frame_meta_pack(C_BOTH, 0, 0, 0) : 0);
		assert_int_equal(sent(b, out), 64);
		memcpy(want, in, 64);
		want[14] = (uint8_t)(5 << 5);
		assert_memory_equal(out, want, 64);
	}
	assert_int_equal(STAT(b, C_BOTH, pcp_rewritten), 3);
	assert_int_equal(STAT(b, C_BOTH, dscp_not_ip), 3);
	assert_int_equal(STAT(b, C_BOTH, dscp_rewritten), 0);
	assert_int_equal(STAT(b, C_BOTH, remark_invalid), 0);
	(void)len;
	bed_free(b);
}

/* A class without marking: every family leaves byte-identical. */
static void test_no_marking_identical(void **state)
{
	struct bed *b = bed_new();
	static const struct spec specs[] = {
		{.tags = 0, .proto = 17, .tos = 0x02},
		{.tags = 0, .v6 = true, .proto = 6, .tos = 0xb8},
		{.tags = 1, .proto = 6, .tos = 0x02, .tci = 0x3064},
		{.tags = 2, .v6 = true, .proto = 17, .tos = 1, .tci = 0x0064},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		run_case(b, &specs[i], C_DEFAULT, -1, -1);
	assert_int_equal(STAT(b, C_DEFAULT, dscp_rewritten), 0);
	assert_int_equal(STAT(b, C_DEFAULT, pcp_rewritten), 0);
	assert_int_equal(STAT(b, C_DEFAULT, pcp_untagged), 0);
	bed_free(b);
}

/* Headers not where the meta says, or cut short: left alone, counted. */
static void test_invalid_left_alone(void **state)
{
	struct bed *b = bed_new();
	struct spec s4 = {.tags = 0, .proto = 17, .tos = 0x02};
	struct spec s6 = {.tags = 0, .v6 = true, .proto = 17, .tos = 0x02};
	uint8_t in[MAXF], out[MAXF];
	uint32_t len;

	(void)state;
	/* cut short: the meta says IPv4 at 14, the frame ends at 30 */
	len = build(in, &s4);
	hand(b, in, 30, C_DSCP, frame_meta_pack(C_DSCP, 2, 1, 14));
	assert_int_equal(sent(b, out), 30);
	assert_memory_equal(out, in, 30);
	assert_int_equal(STAT(b, C_DSCP, remark_invalid), 1);
	/* the meta says IPv4, the header there is IPv6 */
	len = build(in, &s6);
	hand(b, in, len, C_DSCP, frame_meta_pack(C_DSCP, 2, 1, 14));
	assert_int_equal(sent(b, out), len);
	assert_memory_equal(out, in, len);
	/* an IPv4 header 4 bytes off where the meta says */
	len = build(in, &s4);
	hand(b, in, len, C_DSCP, frame_meta_pack(C_DSCP, 2, 1, 18));
	assert_int_equal(sent(b, out), len);
	assert_memory_equal(out, in, len);
	/* a tag cut by the frame end: 16 bytes, TPID 0x8100 */
	memset(in, 0, 16);
	in[12] = 0x81;
	hand(b, in, 16, C_PCP, frame_meta_pack(C_PCP, 0, 0, 0));
	assert_int_equal(sent(b, out), 16);
	assert_memory_equal(out, in, 16);
	assert_int_equal(STAT(b, C_DSCP, remark_invalid), 3);
	assert_int_equal(STAT(b, C_PCP, remark_invalid), 1);
	assert_int_equal(STAT(b, C_DSCP, dscp_rewritten), 0);
	assert_int_equal(STAT(b, C_PCP, pcp_rewritten), 0);
	bed_free(b);
}

/* A reload renumbers the classes and changes one's DSCP: the settings
 * (and the counters) follow the classes by name. */
static void test_reload_follows_name(void **state)
{
	struct bed *b = bed_new();
	struct spec s = {.tags = 1, .proto = 17, .tos = 0x02, .tci = 0x0064};
	struct qos_policy p2;

	(void)state;
	run_case(b, &s, C_BOTH, 10, 5);
	memset(&p2, 0, sizeof(p2));
	add_class(&p2, "pcp", -1, 2); /* id 0 now */
	add_class(&p2, "default", -1, -1);
	add_class(&p2, "both", 34, 5); /* id 2, DSCP 10 -> 34 */
	add_class(&p2, "dscp", -1, -1); /* marking removed */
	p2.default_class = 1;
	assert_int_equal(egress_task_reconfigure(&b->eg, &p2), 0);
	run_case(b, &s, 2, 34, 5);
	run_case(b, &s, 3, -1, -1);
	run_case(b, &s, 0, -1, 2);
	assert_int_equal(STAT(b, 2, dscp_rewritten), 2);
	assert_int_equal(STAT(b, 2, pcp_rewritten), 2);
	assert_int_equal(STAT(b, 3, dscp_rewritten), 0);
	assert_int_equal(STAT(b, 0, pcp_rewritten), 1);
	bed_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_untagged),
		cmocka_unit_test(test_ipv6_untagged),
		cmocka_unit_test(test_ipv4_tagged),
		cmocka_unit_test(test_ipv6_tagged),
		cmocka_unit_test(test_qinq),
		cmocka_unit_test(test_untagged_and_not_ip),
		cmocka_unit_test(test_pcp_not_ip),
		cmocka_unit_test(test_no_marking_identical),
		cmocka_unit_test(test_invalid_left_alone),
		cmocka_unit_test(test_reload_follows_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
