// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_roce.c - libFuzzer target: the RoCEv2 code that reads received
 * frames or builds frames (dataplane/pkt/roce.c), and the dataplane's path
 * from a received RoCEv2 frame to DCQCN state (rx_task.c's feedback and
 * flowq.c's flow key and NP peer learning).
 *
 * Every input is used twice:
 *   1. as a received frame, copied to a heap buffer of exactly its size (a
 *      read at or past frame + len is an ASan heap-buffer-overflow):
 *      pkt_parse(); on a BTH, the bth_*() readers must agree with pkt_meta;
 *      roce_icrc_check() and roce_icrc_valid() must agree; roce_icrc() runs
 *      on the bytes after every possible L2 header for both families; then,
 *      as rx_task.c does, a CNP or an RC ACK goes to a flow table as wire
 *      feedback (flowq_cnp_from_wire(), flowq_ack()), and the frame is
 *      queued as the egress task would (meta packed from the parse,
 *      flowq_key_of(), flowq_push(): the NP learns its peer from the
 *      frame's bytes);
 *   2. as a CNP spec (its first bytes, zero-padded) for roce_build_cnp()
 *      into a buffer of a capacity taken from the input: the builder must
 *      refuse exactly the out-of-range specs and too small buffers and then
 *      write nothing; otherwise its output must parse as a CNP carrying the
 *      spec's fields with a valid ICRC.
 *
 * Single-threaded; the flow table is created and freed per input, so that
 * no state carries over between inputs (reproducers replay alone).
 */
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flowq.h"
#include "frame_meta.h"
#include "pkt_parse.h"
#include "roce.h"
#include "fuzz_check.h"

#define MS 1000000ull
#define SPEC_BYTES 64
#define CNP_BUF_MAX (ROCE_CNP_MAX_LEN + 8)

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static struct flowq *flows_new(bool np)
{
	struct flowq *q = calloc(1, sizeof(*q));
	struct qos_dcqcn c;

	CHECK(q != NULL);
	memset(&c, 0, sizeof(c));
	dcqcn_params_default(&c.par, DCQCN_PAPER, 1e9);
	c.key = QOS_FLOW_QP;
	c.max_flows = 8;
	c.flow_idle_ns = 10 * MS;
	c.cp_loop = true;
	c.np = np;
	CHECK(flowq_init(q, 16, &c, 1e9, 1, 0) == 0);
	return q;
}

static void flows_free(struct flowq *q)
{
	flowq_fini(q);
	free(q);
}

/* rx_task.c post_feedback() and the egress task's queueing of the frame. */
static void feedback_and_queue(const uint8_t *frame, uint32_t len,
			       const struct pkt_meta *m, bool np)
{
	struct flowq *q = flows_new(np);
	struct flowq_entry out[16];
	struct flowq_key k;
	struct frame_desc d;
	uint8_t family = m->l3 == PKT_L3_IPV6 ? 6 : 4;
	uint32_t meta;

	if ((m->flags & PKT_F_BTH) && m->l3 != PKT_L3_NONE) {
		if (m->bth_opcode == BTH_OP_CNP)
			flowq_cnp_from_wire(q, family, m->src, m->bth_dqpn,
					    1 * MS);
		else if (m->bth_opcode == BTH_OP_RC_ACK)
			flowq_ack(q, family, m->src, m->bth_dqpn, m->bth_psn);
	}
	meta = frame_meta_pack(0, m->ecn, m->l3, m->l3_off) |
	       frame_meta_l4_of(m);
	CHECK(frame_meta_l3off(meta) == m->l3_off);
	CHECK(!(meta & FRAME_META_TCP) ||
	      (m->proto == IPPROTO_TCP && frame_meta_l4off(meta) == m->l4_off));
	CHECK(!(meta & FRAME_META_BTH) || frame_meta_l4off(meta) == m->l4_off);
	flowq_key_of(frame, len, meta, QOS_FLOW_QP, &k);
	if (k.family == 4 || k.family == 6)
		CHECK(m->l3 != PKT_L3_NONE);
	if (k.qpn)
		CHECK(m->flags & PKT_F_BTH);
	d.addr = 0;
	d.len = len;
	d.meta = meta;
	if (flowq_push(q, &k, &d, frame, 2 * MS) != FLOWQ_NONE)
		CHECK(flowq_drain(q, out, 16) == 1);
	/* a CNP for the flow just learned, and an ACK for it */
	if (m->flags & PKT_F_BTH) {
		flowq_cnp_from_wire(q, k.family, k.addr, k.qpn, 3 * MS);
		flowq_ack(q, k.family, k.addr, k.qpn, m->bth_psn);
	}
	flowq_expire(q, 1000 * MS);
	flows_free(q);
}

static void check_frame(const uint8_t *data, size_t size)
{
	uint32_t len = (uint32_t)size, icrc;
	struct pkt_meta m;
	const uint8_t *bth;
	uint8_t *frame = malloc(size ? size : 1);
	bool ok;

	CHECK(frame != NULL);
	memcpy(frame, data, size);

	/* the raw ICRC on whatever follows an L2 header of 14, 18, 22 bytes */
	for (uint32_t off = 14; off <= 22 && off <= len; off += 4) {
		(void)roce_icrc(frame + off, len - off, 4, &icrc);
		(void)roce_icrc(frame + off, len - off, 6, &icrc);
	}
	CHECK(!roce_icrc(frame, len, 5, &icrc));

	if (pkt_parse(frame, len, &m) != PKT_OK) {
		CHECK(!roce_icrc_valid(frame, len));
		free(frame);
		return;
	}
	bth = roce_bth(frame, &m);
	CHECK(!bth == !(m.flags & PKT_F_BTH));
	if (bth) {
		CHECK(bth + BTH_LEN <= frame + len);
		CHECK(bth_opcode(bth) == m.bth_opcode);
		CHECK(bth_dqpn(bth) == m.bth_dqpn);
		CHECK(bth_psn(bth) == m.bth_psn);
		CHECK(bth_becn(bth) == !!(m.bth_flags & PKT_BTH_BECN));
		CHECK(bth_fecn(bth) == !!(m.bth_flags & PKT_BTH_FECN));
		CHECK(bth_ackreq(bth) == !!(m.bth_flags & PKT_BTH_ACKREQ));
		(void)bth_pkey(bth);
	}
	ok = roce_icrc_check(frame, len, &m);
	CHECK(ok == roce_icrc_valid(frame, len));
	if (ok)
		CHECK(bth && !(m.flags & PKT_F_FRAG));
	feedback_and_queue(frame, len, &m, true);
	feedback_and_queue(frame, len, &m, false);
	free(frame);
}

/* The spec's fields from b[0..SPEC_BYTES): mostly in range, out of range
 * when the input's bit asks for it. */
static void spec_of(const uint8_t *b, struct cnp_spec *s)
{
	const uint8_t raw = b[0];

	roce_cnp_spec_default(s);
	memcpy(s->dst_mac, b + 1, 6);
	memcpy(s->src_mac, b + 7, 6);
	s->vlan = b[13] & 1;
	s->vid = rd16(b + 14) & (raw & 0x01 ? 0xffff : 0x0fff);
	s->pcp = b[16] & (raw & 0x02 ? 0xff : 7);
	s->family = raw & 0x80 ? (int)(int8_t)b[17] : (b[17] & 1 ? 6 : 4);
	memcpy(s->src_ip, b + 18, 16);
	memcpy(s->dst_ip, b + 34, 16);
	s->dscp = b[50] & (raw & 0x04 ? 0xff : 63);
	s->ecn = b[51] & (raw & 0x08 ? 0xff : 3);
	s->ttl = b[52];
	s->ip_id = rd16(b + 53);
	s->flow_label = rd32(b + 55) & (raw & 0x10 ? 0xffffffffu : 0xfffff);
	s->udp_sport = rd16(b + 59);
	s->dest_qpn = rd32(b + 60) & (raw & 0x20 ? 0xffffffffu : 0xffffff);
}

static void check_cnp(const uint8_t *data, size_t size)
{
	uint8_t b[SPEC_BYTES] = {0}, *buf;
	struct cnp_spec s;
	struct pkt_meta m;
	size_t cap, n, want;
	bool valid;

	memcpy(b, data, size < SPEC_BYTES ? size : SPEC_BYTES);
	spec_of(b, &s);
	/* capacity: the last input byte, folded onto 0..CNP_BUF_MAX */
	cap = size ? data[size - 1] % (CNP_BUF_MAX + 1) : CNP_BUF_MAX;
	buf = malloc(cap ? cap : 1);
	CHECK(buf != NULL);
	memset(buf, 0xa5, cap);

	want = (s.family == 6 ? ROCE_CNP_LEN_V6 : ROCE_CNP_LEN_V4) +
	       (s.vlan ? 4 : 0);
	valid = (s.family == 4 || s.family == 6) && s.vid <= 0x0fff &&
		s.pcp <= 7 && s.dscp <= 63 && s.ecn <= 3 &&
		s.flow_label <= 0xfffff && s.dest_qpn <= ROCE_QPN_MASK;
	n = roce_build_cnp(buf, cap, &s);
	if (!valid || cap < want) {
		CHECK(n == 0);
		for (size_t i = 0; i < cap; i++)
			CHECK(buf[i] == 0xa5);
		free(buf);
		return;
	}
	CHECK(n == want);
	CHECK(pkt_parse(buf, (uint32_t)n, &m) == PKT_OK);
	CHECK(m.flags & PKT_F_BTH);
	CHECK(m.bth_opcode == BTH_OPCODE_CNP);
	CHECK(m.bth_dqpn == s.dest_qpn);
	CHECK(m.bth_psn == 0);
	CHECK(m.bth_flags == PKT_BTH_BECN);
	CHECK(m.proto == IPPROTO_UDP && m.dport == ROCEV2_UDP_PORT);
	CHECK(m.sport == s.udp_sport);
	CHECK(m.dscp == s.dscp && m.ecn == s.ecn);
	CHECK(m.l3 == (s.family == 6 ? PKT_L3_IPV6 : PKT_L3_IPV4));
	CHECK(memcmp(m.src, s.src_ip, s.family == 6 ? 16 : 4) == 0);
	CHECK(memcmp(m.dst, s.dst_ip, s.family == 6 ? 16 : 4) == 0);
	CHECK(!!(m.flags & PKT_F_VLAN) == s.vlan);
	if (s.vlan)
		CHECK(m.vlan_id == s.vid && m.pcp == s.pcp && m.n_vlan == 1);
	CHECK(memcmp(buf, s.dst_mac, 6) == 0 &&
	      memcmp(buf + 6, s.src_mac, 6) == 0);
	CHECK(roce_icrc_check(buf, (uint32_t)n, &m));
	CHECK(roce_icrc_valid(buf, n));
	/* one flipped bit of the invariant part breaks the ICRC */
	buf[n - ROCE_ICRC_LEN - 1] ^= 0x01;
	CHECK(!roce_icrc_valid(buf, n));
	buf[n - ROCE_ICRC_LEN - 1] ^= 0x01;
	/* and the CNP goes through the feedback path like a received one */
	feedback_and_queue(buf, (uint32_t)n, &m, true);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65535)
		return -1;
	check_frame(data, size);
	check_cnp(data, size);
	return 0;
}
