// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_pkt_tcp.c - libFuzzer target: the bounded TCP reader
 * (dataplane/pkt/pkt_tcp.c) and the passive path measurement that uses it
 * (dataplane/path/pathmon_*.c).
 *
 * Every input is used twice:
 *   1. as a frame, copied to a heap buffer of exactly its size (a read at
 *      or past frame + len is an ASan heap-buffer-overflow): pkt_parse(),
 *      then pkt_tcp_read(), which must succeed on every well-formed TCP
 *      frame that is not a fragment and keep its header and payload
 *      inside the frame; then again with only a head of it readable (a
 *      multi-buffer packet: pkt_parse_head(), a buffer of exactly head
 *      bytes), which must read the same fields or refuse; then the
 *      helpers pathmon_dep_of() / pathmon_ack_of() and a departure and an
 *      event into a small table;
 *   2. as a script of departures, ACKs, NAKs, CNPs, sweeps and estimates
 *      (4 bytes per step) for a table of 8 flows over 16 TCP and 8 RoCE
 *      keys, with small windows and budgets so that refusals, pairing,
 *      expiry and the index's deletion all happen; the DP_ASSERT
 *      invariants (XDPLANE_ASSERTS builds) and the checks here must hold.
 *
 * Single-threaded; the tables are created and freed per input, so that no
 * state carries over between inputs (reproducers replay alone).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bits.h"
#include "pathmon.h"
#include "pkt_parse.h"
#include "pkt_tcp.h"
#include "fuzz_check.h"

#define US 1000ull
#define MS 1000000ull

static void small_params(struct pathmon_params *p)
{
	pathmon_params_default(p);
	p->max_flows = 8;
	p->max_samples_per_ms = 4;
	p->max_learn_per_ms = 2;
	p->psn_window = 64;
	p->sweep_per_call = 1;
	p->rate_intervals = 4;
	p->min_samples = 2;
	p->interval_ns = 1 * MS;
	p->sample_min_age_ns = 1 * MS;
	p->sample_max_age_ns = 3 * MS;
	p->flow_idle_ns = 5 * MS;
	p->minrtt_window_ns = 50 * MS;
}

static uint32_t index_used(const struct pathmon *pm)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i <= pm->index_mask; i++)
		n += pm->index[i].ref != UINT32_MAX;
	return n;
}

static void check_est(struct pathmon *pm, uint64_t now)
{
	struct pathmon_est e;

	pathmon_estimate(pm, now, &e);
	CHECK(!e.valid || e.base_rtt_ns > 0);
	CHECK(e.delivery_bps >= e.delivery_bps_last);
	CHECK(e.mark_frac >= 0 && e.mark_frac <= 1);
	CHECK(e.mark_frac_last >= 0 && e.mark_frac_last <= 1);
	CHECK(e.delivery_bps >= e.delivery_bps_mean);
	/* the queueing delay is the standing RTT's, over the base */
	CHECK(!e.qdelay_ns || e.qdelay_ns + e.base_rtt_ns == e.standing_rtt_ns);
	CHECK(pathmon_flows(pm) <= pm->par.max_flows);
	CHECK(index_used(pm) <= 2 * pathmon_flows(pm));
	CHECK(index_used(pm) >= pathmon_flows(pm));
}

static void check_tcp(const uint8_t *frame, uint32_t len, uint32_t head)
{
	struct pkt_meta m, mh;
	struct pkt_tcp t, th;
	int r, rh;
	uint8_t *h;

	if (pkt_parse(frame, len, &m) != PKT_OK)
		return;
	r = pkt_tcp_read(frame, len, &m, &t);
	if (m.proto == 6 && (m.flags & PKT_F_PORTS) && !(m.flags & PKT_F_FRAG))
		CHECK(r == PKT_TCP_OK); /* the parser vouched for it */
	if (r == PKT_TCP_OK) {
		CHECK(t.hdr_len >= TCP_HLEN_MIN && t.hdr_len <= TCP_HLEN_MAX);
		CHECK(!(t.hdr_len & 3));
		CHECK((uint32_t)m.l4_off + t.hdr_len + t.payload_len <= len);
		CHECK(!(t.opts & PKT_TCP_O_TS) || !(t.opts & PKT_TCP_O_BAD));
		if (!(t.opts & PKT_TCP_O_TS))
			CHECK(!t.tsval && !t.tsecr);
	} else {
		CHECK(r > 0 && r < PKT_TCP_ERR_MAX);
		CHECK(!t.seq && !t.ack && !t.hdr_len);
	}
	/* a pkt_meta that does not describe the frame (a caller's bug) must
	 * not make the reader leave it either */
	if (len >= 4) {
		struct pkt_meta bad = m;
		struct pkt_tcp tb;

		bad.l3_off =
			(uint16_t)(frame[len - 2] | (frame[len - 4] & 1) << 8);
		bad.l4_off = (uint16_t)(bad.l3_off + frame[len - 3]);
		bad.l3 = frame[len - 4] & 2 ? PKT_L3_IPV6 : PKT_L3_IPV4;
		bad.proto = 6;
		bad.flags = (uint8_t)((bad.flags | PKT_F_PORTS) & ~PKT_F_FRAG);
		if (pkt_tcp_read(frame, len, &bad, &tb) == PKT_TCP_OK)
			CHECK((uint32_t)bad.l4_off + tb.hdr_len <= len);
	}
	/* only the first head bytes readable */
	if (!head)
		return;
	h = malloc(head);
	CHECK(h != NULL);
	memcpy(h, frame, head);
	if (pkt_parse_head(h, head, len, &mh) == PKT_OK) {
		rh = pkt_tcp_read(h, head, &mh, &th);
		if (rh == PKT_TCP_OK) {
			CHECK((uint32_t)mh.l4_off + th.hdr_len <= head);
			CHECK(r == PKT_TCP_OK);
			CHECK(!memcmp(&t, &th, sizeof(t)));
		} else if (r == PKT_TCP_OK) {
			CHECK(rh == PKT_TCP_TRUNCATED);
		}
	}
	free(h);
}

static void check_helpers(const uint8_t *frame, uint32_t len)
{
	struct pathmon_params p;
	struct pathmon pm;
	struct pathmon_key k;
	struct pathmon_dep d;
	struct pathmon_ack ev;
	struct pkt_meta m;
	bool dep, ack;

	if (pkt_parse(frame, len, &m) != PKT_OK)
		return;
	small_params(&p);
	CHECK(pathmon_init(&pm, &p, 0) == 0);
	dep = pathmon_dep_of(frame, len, &m, &k, &d);
	ack = pathmon_ack_of(frame, len, &m, 2 * MS, &ev);
	if (dep) {
		CHECK(k.proto == PATHMON_P_TCP || k.proto == PATHMON_P_ROCE);
		CHECK(k.family == 4 || k.family == 6);
		CHECK(k.proto != PATHMON_P_ROCE ||
		      (k.qpn <= 0xffffff && d.seq <= PATHMON_PSN_MASK));
		CHECK(!pathmon_depart(&pm, &k, &d, 1 * MS)); /* creates */
		d.seq += 1;
		d.end += 1;
		d.tsval += 1;
		(void)pathmon_depart(&pm, &k, &d, 1 * MS + 1);
	}
	if (ack) {
		CHECK(ev.type >= PATHMON_EV_TCP && ev.type <= PATHMON_EV_CNP);
		CHECK(pathmon_ack(&pm, &ev, 2 * MS) <= 2 * MS);
		/* its reverse direction as a departure, then the event again */
		if (dep)
			ev.key = k;
		(void)pathmon_ack(&pm, &ev, 3 * MS);
	}
	check_est(&pm, 4 * MS);
	pathmon_fini(&pm);
}

static struct pathmon_key script_key(unsigned int id, bool roce, bool ackside)
{
	struct pathmon_key k;

	memset(&k, 0, sizeof(k));
	k.family = id & 8 ? 6 : 4;
	memcpy(k.src, "\x0a\x00\x00\x01", 4);
	memcpy(k.dst, "\x0a\x00\x00\x00", 4);
	if (roce) {
		k.proto = PATHMON_P_ROCE;
		k.dst[3] = (uint8_t)((id & 7) >> 1); /* 2 QPs per host pair */
		k.qpn = (ackside ? 0x800 : 0x100) + (id & 7);
	} else {
		k.proto = PATHMON_P_TCP;
		k.dst[3] = (uint8_t)(id & 7);
		k.sport = (uint16_t)(1000 + id);
		k.dport = 80;
	}
	return k;
}

static void run_script(const uint8_t *data, size_t size)
{
	struct pathmon_params p;
	struct pathmon pm;
	uint32_t seq[16] = {0}, ts[16] = {0}, psn[8];
	uint64_t t = 0;

	small_params(&p);
	CHECK(pathmon_init(&pm, &p, 0) == 0);
	/* apart in PSN space (two QPs per host pair), the last near the wrap */
	for (uint32_t r = 0; r < 8; r++)
		psn[r] = (r * 0x200000u + (r == 7 ? 0x1fffc0u : 0)) & 0xffffff;
	for (size_t i = 0; i + 4 <= size; i += 4) {
		const uint8_t *b = data + i;
		unsigned int op = b[0] >> 4, id = b[1] & 15, r = id & 7;
		struct pathmon_key k;
		struct pathmon_dep d;
		struct pathmon_ack ev;
		uint64_t rtt;

		t += (uint64_t)(b[0] & 15) * 37 * US + b[3];
		memset(&d, 0, sizeof(d));
		memset(&ev, 0, sizeof(ev));
		ev.seen_ns = t;
		if (op <= 4) { /* TCP segment; b2 bit 7: a retransmission */
			k = script_key(id, false, false);
			d.seq = seq[id] -
				(b[2] & 0x80 ? (b[2] & 0x7f) * 100u : 0);
			d.bytes = (b[2] & 0x0f) * 100u;
			d.end = d.seq + d.bytes;
			if (!(b[2] & 0x80))
				seq[id] = d.end;
			if (b[1] & 0x10) {
				ts[id] += b[3] & 3;
				d.flags |= PATHMON_DF_TS;
				d.tsval = ts[id];
			}
			if ((b[1] & 0xe0) == 0xe0)
				d.flags |= PATHMON_DF_SYN;
			(void)pathmon_depart(&pm, &k, &d, t);
		} else if (op <= 8) { /* its ACK */
			k = script_key(id, false, false);
			ev.key = k;
			ev.type = PATHMON_EV_TCP;
			ev.ack = seq[id] - (b[2] & 0x3f) * 100u;
			if (b[1] & 0x10) {
				ev.flags |= PATHMON_AF_TS;
				ev.tsecr = ts[id] - (b[2] >> 6);
			}
			if (b[1] & 0x20)
				ev.flags |= PATHMON_AF_ECE;
			rtt = pathmon_ack(&pm, &ev, t);
			CHECK(rtt <= t);
		} else if (op <= 10) { /* RoCE request; b2 bit 7: go back */
			k = script_key(r, true, false);
			if (b[2] & 0x80)
				d.seq = (psn[r] - (b[2] & 0x7f)) & 0xffffff;
			else
				d.seq = psn[r] =
					(psn[r] + 1 + (b[2] & 7)) & 0xffffff;
			d.end = d.seq;
			d.bytes = 1024;
			if (b[1] & 0x10)
				d.flags |= PATHMON_DF_ACKREQ;
			if ((b[1] & 0xe0) == 0xe0)
				d.flags |= PATHMON_DF_NOSAMPLE;
			(void)pathmon_depart(&pm, &k, &d, t);
		} else if (op <= 12) { /* RoCE ACK / NAK, CNP */
			ev.key = script_key(r, true, true);
			ev.type = (b[1] & 0xf0) == 0xf0 ? PATHMON_EV_CNP
							: PATHMON_EV_ROCE_ACK;
			ev.ack = (psn[r] - (b[2] & 0x7f)) & 0xffffff;
			ev.syndrome = b[2] & 0x80 ? 0x60 : 0x1f;
			rtt = pathmon_ack(&pm, &ev, t);
			CHECK(rtt <= t);
		} else if (op == 13) {
			(void)pathmon_sweep(&pm, t, b[2]);
		} else {
			check_est(&pm, t);
		}
	}
	check_est(&pm, t);
	CHECK(ctr_read(&pm.st.samples_matched[PATHMON_TCP_TS]) <=
	      ctr_read(&pm.st.samples_started[PATHMON_TCP_TS]));
	CHECK(ctr_read(&pm.st.samples_matched[PATHMON_TCP_SEQ]) <=
	      ctr_read(&pm.st.samples_started[PATHMON_TCP_SEQ]));
	CHECK(ctr_read(&pm.st.samples_matched[PATHMON_ROCE_PSN]) <=
	      ctr_read(&pm.st.samples_started[PATHMON_ROCE_PSN]));
	pathmon_fini(&pm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len = (uint32_t)size, head;
	uint8_t *frame;

	if (size > 65535)
		return -1;
	frame = malloc(size ? size : 1);
	CHECK(frame != NULL);
	memcpy(frame, data, size);
	/* a head length taken from the last byte: 0..63 bytes short */
	head = len ? len - MIN(len, (uint32_t)(data[len - 1] & 63)) : 0;
	check_tcp(frame, len, head);
	check_helpers(frame, len);
	free(frame);
	run_script(data, size);
	return 0;
}
