/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_adaptive.h - what the unit tests of adaptive egress as an egress
 * task runs it (test_adaptive_*.c, run/adaptive.h) share: the simulation
 * (struct sim): the real scheduler with its port shaper, the real path
 * monitor and controller, real TCP frames, on a fake clock. A TCP sender
 * that always has data keeps the scheduler backlogged; what the scheduler
 * hands out departs (adaptive_departures) into a simulated FIFO bottleneck
 * beyond the gateway (capacity C, a deep buffer); each segment's ACK (a
 * real frame: timestamps echoed, cumulative ACK) comes back one base RTT
 * after the segment left the bottleneck, is turned into a path event by
 * pathmon_ack_of() as the RX task does, and travels on a pathmon_ring.
 * run() advances it and returns what it measured; assert_in_bounds()
 * checks that the rate never leaves [floor, ports[].rate].
 */
#ifndef XDPLANE_TEST_ADAPTIVE_H
#define XDPLANE_TEST_ADAPTIVE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <malloc.h>
#include "adaptive.h"
#include "fake_xsk.h"
#include "pkt_build.h"
#include "pkt_parse.h"
#include "rx_task.h"
#include "tc_sched.h"

#define LINE_BPS 100000000ull /* ports[].rate */
#define SEG 1448u /* payload bytes */
#define BASE_RTT 1000000ull /* ns, beyond the gateway */
#define STEP 20000ull /* ns per simulated pass */
#define NFRAMES 1024 /* frame slots (the backlog stays below) */
#define BACKLOG 64 /* packets the sender keeps queued */
#define MAX_ACKS 4096
#define BUF_BEYOND (1u << 20) /* the FIFO's buffer, bytes (tail drop) */

struct pend_ack {
	uint64_t at; /* when the gateway's RX sees it */
	uint32_t ack, tsecr;
};

struct sim {
	struct qos_policy pol;
	struct sched s;
	struct port_adaptive a;
	struct pathmon_ring ring;
	uint8_t *mem; /* NFRAMES frames of 2048 bytes */
	uint32_t next_slot;
	uint64_t now;
	uint32_t snd_nxt; /* next sequence number to queue */
	bool udp; /* send UDP instead of TCP (no samples) */
	/* paced UDP in class 1 (policy_upper: a level above the TCP's),
	 * and a delay on every ACK that is no queue beyond */
	double upper_bps; /* in the shaper's units (length + overhead) */
	uint32_t upper_payload; /* its frames' UDP payload; 0: SEG */
	uint64_t upper_next, phantom_ns, upper_drops;
	/* the bottleneck beyond: a FIFO served at cap_bps */
	double cap_bps;
	uint64_t busy_until; /* when the FIFO has sent what it holds */
	uint64_t delivered; /* bytes it sent */
	uint64_t dropped; /* packets its buffer refused */
	/* every skew_every-th event is seen skew_ns after the consumer's
	 * now (its RX task on another worker began its pass later) */
	uint64_t skew_ns, n_events;
	uint32_t skew_every;
	struct pend_ack acks[MAX_ACKS];
	uint32_t ack_head, ack_tail;
	/* ECE on every ece_every-th ACK (0: none) */
	uint32_t ece_every, acks_sent;
	/* another queue of the port: its task polls each pass, its
	 * scheduler sets peer_marks CE marks per pass */
	struct sim *peer;
	uint32_t peer_marks;
	/* what the test measures */
	double rate_lo, rate_hi; /* extremes of the shaper's rate */
};

static inline void policy(struct qos_policy *p, bool on)
{
	struct qos_class *c = &p->classes[0];

	memset(p, 0, sizeof(*p));
	snprintf(c->name, QOS_NAME_MAX, "default");
	c->quantum = 9000;
	c->limit_packets = 2048;
	c->limit_bytes = 1 << 24;
	p->n_classes = 1;
	for (int i = 0; i < 2; i++) {
		p->port[i].rate_bps = LINE_BPS;
		p->port[i].burst = 32768;
		p->port[i].adaptive.on = on;
		p->port[i].adaptive.target_ns = 500000;
		p->port[i].adaptive.floor_bps = LINE_BPS / 10;
		p->port[i].adaptive.probe_gain = 0.1;
	}
}

static inline struct sim *sim_new(bool on, double cap_bps)
{
	struct sim *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->mem = calloc(NFRAMES, 2048);
	assert_non_null(m->mem);
	policy(&m->pol, on);
	m->now = 1000000000ull;
	assert_int_equal(
		sched_init_reloadable(&m->s, &m->pol, 1, NFRAMES, m->now), 0);
	assert_int_equal(adaptive_init(&m->a, 1, m->now), 0);
	assert_int_equal(adaptive_reserve(&m->a, 1, m->now), 0);
	assert_int_equal(pathmon_ring_init(&m->ring, 1024), 0);
	assert_int_equal(adaptive_add_input(&m->a, &m->ring), 0);
	adaptive_configure(&m->a, &m->pol, &m->s, m->now);
	m->cap_bps = cap_bps;
	m->snd_nxt = 1;
	m->rate_lo = 1e18;
	return m;
}

static inline void sim_free(struct sim *m)
{
	struct frame_desc d;

	while (sched_dequeue(&m->s, &d, 1, UINT64_MAX / 2))
		;
	pathmon_ring_fini(&m->ring);
	adaptive_fini(&m->a);
	sched_fini(&m->s);
	free(m->mem);
	free(m);
}

static inline uint32_t tsval_of(uint64_t ns)
{
	return (uint32_t)(ns / 1000000); /* a 1 kHz TCP timestamp clock */
}

/* Keep BACKLOG packets queued (the sender always has data). */
static inline void top_up(struct sim *m)
{
	struct pkt_meta pm;

	while (sched_backlog_packets(&m->s) < BACKLOG) {
		uint32_t slot = m->next_slot++ % NFRAMES, len;
		uint8_t *f = m->mem + (size_t)slot * 2048;
		struct frame_desc d;

		if (m->udp) {
			len = tcp_frame(f, 1, 2, 40000, 5001, 0, 0, 0, 0, 0,
					SEG);
			f[23] = 17; /* UDP: length, no checksum */
			wr16(f + 38, len - 34);
			wr16(f + 40, 0);
		} else {
			len = tcp_frame(f, 1, 2, 40000, 5001, m->snd_nxt, 1,
					0x10, tsval_of(m->now), 7, SEG);
			m->snd_nxt += SEG;
		}
		assert_int_equal(pkt_parse(f, len, &pm), 0);
		d.addr = (uint64_t)slot * 2048;
		d.len = len;
		d.meta = frame_meta_pack(0, pm.ecn, pm.l3, pm.l3_off) |
			 frame_meta_l4_of(&pm);
		assert_int_equal(sched_enqueue(&m->s, &d, f, m->now), 0);
	}
}

/* The upper class's paced UDP, due now. */
static inline void upper(struct sim *m)
{
	struct pkt_meta pm;

	while (m->upper_bps > 0 && m->upper_next <= m->now) {
		uint32_t slot = m->next_slot++ % NFRAMES, len;
		uint8_t *f = m->mem + (size_t)slot * 2048;
		struct frame_desc d;

		len = tcp_frame(f, 1, 2, 40001, 4791, 0, 0, 0, 0, 0,
				m->upper_payload ? m->upper_payload : SEG);
		f[23] = 17;
		wr16(f + 38, len - 34);
		wr16(f + 40, 0);
		assert_int_equal(pkt_parse(f, len, &pm), 0);
		d.addr = (uint64_t)slot * 2048;
		d.len = len;
		d.meta = frame_meta_pack(1, pm.ecn, pm.l3, pm.l3_off) |
			 frame_meta_l4_of(&pm);
		if (sched_enqueue(&m->s, &d, f, m->now))
			m->upper_drops++; /* its queue is full */
		m->upper_next += (uint64_t)((len + m->pol.port[1].overhead) *
					    8e9 / m->upper_bps);
	}
}

/* Packets that left the gateway enter the FIFO beyond; their ACKs come
 * back one base RTT after they leave it. */
static inline void beyond(struct sim *m, const struct frame_desc *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *f = m->mem + d[i].addr;
		uint64_t start = MAX(m->now, m->busy_until);
		uint64_t ser = (uint64_t)(d[i].len * 8.0 * 1e9 / m->cap_bps);
		struct pend_ack *pa;
		uint32_t seq = (uint32_t)f[38] << 24 | (uint32_t)f[39] << 16 |
			       (uint32_t)f[40] << 8 | f[41];
		uint32_t ts = (uint32_t)f[58] << 24 | (uint32_t)f[59] << 16 |
			      (uint32_t)f[60] << 8 | f[61];

		if ((double)(start - m->now) * m->cap_bps / 8e9 + d[i].len >
		    BUF_BEYOND) {
			m->dropped++;
			continue;
		}
		m->busy_until = start + ser;
		m->delivered += d[i].len;
		if (m->udp || f[23] == 17)
			continue;
		assert_true(m->ack_tail - m->ack_head < MAX_ACKS);
		pa = &m->acks[m->ack_tail++ % MAX_ACKS];
		pa->at = m->busy_until + BASE_RTT + m->phantom_ns;
		pa->ack = seq + SEG;
		pa->tsecr = ts;
	}
}

/* ACKs due now: real frames, turned into events as the RX task does. */
static inline void returns(struct sim *m)
{
	uint8_t f[2048];
	struct pkt_meta pm;
	struct pathmon_ack ev;

	while (m->ack_head != m->ack_tail &&
	       m->acks[m->ack_head % MAX_ACKS].at <= m->now) {
		const struct pend_ack *pa = &m->acks[m->ack_head++ % MAX_ACKS];
		bool ece = m->ece_every && m->acks_sent++ % m->ece_every == 0;
		uint32_t len = tcp_frame(f, 2, 1, 5001, 40000, 1, pa->ack,
					 ece ? 0x50 : 0x10, 9, pa->tsecr, 0);

		assert_int_equal(pkt_parse(f, len, &pm), 0);
		assert_true(pathmon_ack_of(f, len, &pm, m->now, &ev));
		if (m->skew_every && ++m->n_events % m->skew_every == 0)
			ev.seen_ns += m->skew_ns;
		if (m->a.on) /* off: the RX tasks post nothing */
			assert_int_equal(pathmon_ring_enqueue(&m->ring, &ev, 1),
					 1);
	}
}

/* The queue beyond the gateway now, in ns. */
static inline uint64_t queue_beyond(const struct sim *m)
{
	return m->busy_until > m->now ? m->busy_until - m->now : 0;
}

struct run_stats {
	double rate_mean; /* the shaper's rate, mean over the run */
	double queue_mean_ns, util;
	uint64_t queue_max_ns;
};

/* A new policy, as a reload gives it: the scheduler, then adaptive. */
static inline void reconfigure(struct sim *m, const struct qos_policy *pol)
{
	assert_int_equal(sched_reconfigure(&m->s, pol, 1, m->now), 0);
	adaptive_configure(&m->a, pol, &m->s, m->now);
	m->pol = *pol;
}

/* Run for dur_ns; the stats over the whole run. */
static inline struct run_stats run(struct sim *m, uint64_t dur_ns)
{
	struct frame_desc d[BACKLOG];
	struct run_stats st = {0};
	uint64_t end = m->now + dur_ns, steps = 0, del0 = m->delivered;

	while (m->now < end) {
		uint32_t n;
		double r;

		returns(m);
		if (m->peer) {
			ctr_add(&m->peer->s.st[0].ecn_marks, m->peer_marks);
			adaptive_poll(&m->peer->a, &m->peer->s, m->now);
		}
		if (m->a.on)
			adaptive_poll(&m->a, &m->s, m->now);
		upper(m);
		top_up(m);
		n = sched_dequeue(&m->s, d, BACKLOG, m->now);
		if (n && m->a.on)
			adaptive_departures(&m->a, m->mem, d, NULL, n, m->now);
		beyond(m, d, n);
		r = (double)sched_port_rate(&m->s);
		m->rate_lo = MIN(m->rate_lo, r);
		m->rate_hi = MAX(m->rate_hi, r);
		st.rate_mean += r;
		st.queue_mean_ns += (double)queue_beyond(m);
		st.queue_max_ns = MAX(st.queue_max_ns, queue_beyond(m));
		if (getenv("ADAPTIVE_TRACE") && steps % 500 == 0)
			fprintf(stderr,
				"t=%.3f rate=%.1f q=%.0f st=%d cap=%.1f qd=%lu "
				"srtt=%lu base=%lu ring=%lu\n",
				m->now / 1e9, r / 1e6, queue_beyond(m) / 1e3,
				m->a.er.state, m->a.er.cap_bps / 1e6,
				(unsigned long)m->a.view.qdelay_ns,
				(unsigned long)m->a.view.srtt_ns,
				(unsigned long)m->a.view.base_rtt_ns,
				(unsigned long)ctr_read(
					&m->a.pm.st.ring_samples));
		steps++;
		m->now += STEP;
	}
	st.rate_mean /= (double)steps;
	st.queue_mean_ns /= (double)steps;
	st.util = (double)(m->delivered - del0) * 8 /
		  (m->cap_bps * (double)dur_ns / 1e9);
	return st;
}

static inline void assert_near(double v, double want, double frac)
{
	if (v < want * (1 - frac) || v > want * (1 + frac))
		fail_msg("%.0f is not within %.0f %% of %.0f", v, frac * 100,
			 want);
}

static inline void assert_in_bounds(const struct sim *m)
{
	assert_true(m->rate_lo >= (double)m->pol.port[1].adaptive.floor_bps);
	assert_true(m->rate_hi <= (double)LINE_BPS);
}

#endif
