// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_adaptive.c - adaptive egress as an egress task runs it
 * (run/adaptive.h): the real scheduler with its port shaper, the real path
 * monitor and controller, real TCP frames, on a fake clock. A TCP sender
 * that always has data keeps the scheduler backlogged; what the scheduler
 * hands out departs (adaptive_departures) into a simulated FIFO
 * bottleneck beyond the gateway (capacity C, a deep buffer); each
 * segment's ACK (a real frame: timestamps echoed, cumulative ACK) comes
 * back one base RTT after the segment left the bottleneck, is turned into
 * a path event by pathmon_ack_of() as the RX task does, and travels on a
 * pathmon_ring. Shown, with numbers:
 *  - bottleneck beyond at 50 % of ports[].rate: the shaper's rate settles
 *    within 15 % of C (mean over the last second), the queue beyond
 *    stays short (mean below 2 x target; without the controller the
 *    buffer fills: checked in the same test), utilisation of C >= 85 %,
 *    the rate's sawtooth at most 30 % of C peak to peak;
 *  - a step of C from 100 % down to 50 % and back up to 80 %: followed,
 *    the rate within 15 % of the new C within 40 base RTTs of the step
 *    down and 80 of the step up (one flow: one RTT sample per RTT;
 *    measured 40 and 60: the cut waits 4 ms for the delay to stand,
 *    growth target / margin for each step of at most margin), then, once
 *    the step's queue drained, the same as above at the new C;
 *  - the gateway is the bottleneck (C above ports[].rate): the rate stays
 *    at ports[].rate (state line);
 *  - what the upper class sends is measured as the shaper charges it
 *    (64-byte frames, 24 bytes of overhead: within 3 %);
 *  - a backlog a class ceiling holds (40 % of the line), the path beyond
 *    faster, a delay that is no queue: the rate >= 75 % of the line (the
 *    port's sent rate measured, not taken for the shaper's: 36 %);
 *  - events seen after the consumer's now (1 in 50 by 2 us, every one
 *    by 1 us: two workers' clocks): the same bounds, never no_samples;
 *  - no samples (UDP only): the rate is ports[].rate, state no_samples;
 *    samples stop: back to ports[].rate after the hold time (counted);
 *  - the rate never leaves [floor, ports[].rate];
 *  - one of 3 queues (a per-queue max and floor that are no whole
 *    number of bit/s): at the max or the floor, decisions that keep the
 *    rate are no rate change (0 in a second);
 *  - memory: none while off; on, what the queue plan needs, linear in
 *    the queues (measured as the gateway allocates it);
 *  - configuration: a floor below the shaper's lowest rate per queue is
 *    refused; off costs nothing (no decision, rate = policy); a
 *    reload turning it off puts the policy's rate back; a reload with a
 *    new floor cuts the rate into the new bounds; the published view
 *    agrees with the scheduler; on again after off, the monitor starts
 *    empty (no ACK credits what left while it was off).
 */
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

static void policy(struct qos_policy *p, bool on)
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

static struct sim *sim_new(bool on, double cap_bps)
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

static void sim_free(struct sim *m)
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

static uint32_t tsval_of(uint64_t ns)
{
	return (uint32_t)(ns / 1000000); /* a 1 kHz TCP timestamp clock */
}

/* Keep BACKLOG packets queued (the sender always has data). */
static void top_up(struct sim *m)
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
static void upper(struct sim *m)
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
static void beyond(struct sim *m, const struct frame_desc *d, uint32_t n)
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
static void returns(struct sim *m)
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
static uint64_t queue_beyond(const struct sim *m)
{
	return m->busy_until > m->now ? m->busy_until - m->now : 0;
}

struct run_stats {
	double rate_mean; /* the shaper's rate, mean over the run */
	double queue_mean_ns, util;
	uint64_t queue_max_ns;
};

/* A new policy, as a reload gives it: the scheduler, then adaptive. */
static void reconfigure(struct sim *m, const struct qos_policy *pol)
{
	assert_int_equal(sched_reconfigure(&m->s, pol, 1, m->now), 0);
	adaptive_configure(&m->a, pol, &m->s, m->now);
	m->pol = *pol;
}

/* Run for dur_ns; the stats over the whole run. */
static struct run_stats run(struct sim *m, uint64_t dur_ns)
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

static void assert_near(double v, double want, double frac)
{
	if (v < want * (1 - frac) || v > want * (1 + frac))
		fail_msg("%.0f is not within %.0f %% of %.0f", v, frac * 100,
			 want);
}

static void assert_in_bounds(const struct sim *m)
{
	assert_true(m->rate_lo >= (double)m->pol.port[1].adaptive.floor_bps);
	assert_true(m->rate_hi <= (double)LINE_BPS);
}

/* The bottleneck beyond at half the line: the queue moves into the
 * gateway. Without the controller, the FIFO beyond fills. */
static void test_half_rate_beyond(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0), *off;
	struct run_stats warm, st, st_off;
	struct adaptive_view v;

	(void)state;
	warm = run(m, 2000000000ull);
	m->rate_lo = 1e18;
	m->rate_hi = 0;
	st = run(m, 1000000000ull);
	print_message("on:  rate %.1f Mbit/s, queue beyond mean %.0f us max "
		      "%.0f us, utilisation %.3f (warm-up util %.3f)\n",
		      st.rate_mean / 1e6, st.queue_mean_ns / 1e3,
		      st.queue_max_ns / 1e3, st.util, warm.util);
	print_message("on:  rate from %.1f to %.1f Mbit/s\n", m->rate_lo / 1e6,
		      m->rate_hi / 1e6);
	assert_near(st.rate_mean, LINE_BPS / 2.0, 0.15);
	/* the steady sawtooth: at most 30 % of C peak to peak */
	assert_true(m->rate_hi - m->rate_lo <= 0.3 * LINE_BPS / 2.0);
	assert_true(st.queue_mean_ns < 2 * 500000.0);
	assert_true(st.util >= 0.85);
	assert_in_bounds(m);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.on, 1);
	assert_int_equal(v.rate_bps, sched_port_rate(&m->s));
	assert_true(v.base_rtt_ns >= BASE_RTT && v.base_rtt_ns < 2 * BASE_RTT);
	assert_true(v.state == EDGE_PROBE || v.state == EDGE_HOLD ||
		    v.state == EDGE_DRAIN);
	assert_true(v.n_hist > 0);
	assert_true(ctr_read(&m->a.ctr.rtt_samples) > 100);
	assert_true(ctr_read(&m->a.ctr.cuts) > 0);
	sim_free(m);

	off = sim_new(false, LINE_BPS / 2.0);
	run(off, 2000000000ull);
	st_off = run(off, 1000000000ull);
	print_message("off: rate %.1f Mbit/s, queue beyond mean %.0f us\n",
		      st_off.rate_mean / 1e6, st_off.queue_mean_ns / 1e3);
	assert_true(st_off.rate_mean == (double)LINE_BPS);
	assert_true(st_off.queue_mean_ns > 10 * st.queue_mean_ns);
	assert_int_equal(ctr_read(&off->a.ctr.decisions), 0);
	sim_free(off);
}

/* The port's queues share their own marks: while queue 1's classes set
 * CE marks, the returning marks of queue 0's flows (25 % ECE, the path
 * beyond twice the line: no queue there) do not cut queue 0; once queue
 * 1 stopped marking for ADAPTIVE_OWN_MARKS_NS, they do. */
static void test_own_marks_port_wide(void **state)
{
	struct sim *m = sim_new(true, 2.0 * LINE_BPS),
		   *q1 = sim_new(true, 2.0 * LINE_BPS);
	struct adaptive_shared sh;

	(void)state;
	memset(&sh, 0, sizeof(sh));
	adaptive_share(&m->a, &sh);
	adaptive_share(&q1->a, &sh);
	m->peer = q1;
	m->peer_marks = 1;
	m->ece_every = 4;
	run(m, 500000000ull);
	print_message("queue 1 marking: queue 0's rate %.1f..%.1f Mbit/s, "
		      "%lu cuts\n",
		      m->rate_lo / 1e6, m->rate_hi / 1e6,
		      (unsigned long)ctr_read(&m->a.ctr.cuts));
	assert_int_equal(ctr_read(&m->a.ctr.cuts), 0);
	assert_true(m->rate_lo == (double)LINE_BPS);
	m->peer_marks = 0;
	run(m, 2 * ADAPTIVE_OWN_MARKS_NS);
	assert_true(ctr_read(&m->a.ctr.cuts) > 0);
	assert_true(m->rate_lo < 0.95 * LINE_BPS);
	sim_free(q1);
	sim_free(m);
}

/* A frame of m's leaves the gateway (through its scheduler's
 * departures: adaptive_departures). */
static void depart(struct sim *m, const uint8_t *frame, uint32_t len)
{
	uint32_t slot = m->next_slot++ % NFRAMES;
	uint8_t *f = m->mem + (size_t)slot * 2048;
	struct frame_desc d;
	struct pkt_meta pm;

	memcpy(f, frame, len);
	assert_int_equal(pkt_parse(f, len, &pm), 0);
	d.addr = (uint64_t)slot * 2048;
	d.len = len;
	d.meta = frame_meta_pack(0, pm.ecn, pm.l3, pm.l3_off) |
		 frame_meta_l4_of(&pm);
	adaptive_departures(&m->a, m->mem, &d, NULL, 1, m->now);
}

/* The RX task of port 1 and its UMEM (fake socket), posting path events
 * to two queues' monitors. */
struct rx_bed {
	struct umem_area umem;
	struct fake_socket sock;
	struct qos_policy pol;
	struct classifier cls;
	struct handoff_ring ho;
	struct return_ring ret;
	struct rx_task rx;
	struct path_owner owner;
};

/* One frame in through the RX task; the events each ring got. */
static void rx_frame(struct rx_bed *b, const uint8_t *f, uint32_t len,
		     struct sim *q0, struct sim *q1, uint32_t want0,
		     uint32_t want1)
{
	struct pathmon_ack ev[4];
	struct frame_desc d[4];

	assert_int_equal(fake_kernel_rx(&b->sock, &b->umem, f, len, 1), 1);
	rx_task_poll_at(&b->rx, q0->now);
	assert_int_equal(handoff_ring_dequeue(&b->ho, d, 4), 1);
	d[0].addr = umem_frame_start(&b->umem, d[0].addr);
	assert_int_equal(return_ring_enqueue(&b->ret, &d[0].addr, 1), 1);
	assert_int_equal(pathmon_ring_dequeue(&q0->ring, ev, 4), want0);
	if (want0)
		pathmon_ack(&q0->a.pm, &ev[0], q0->now);
	assert_int_equal(pathmon_ring_dequeue(&q1->ring, ev, 4), want1);
	if (want1)
		pathmon_ack(&q1->a.pm, &ev[0], q1->now);
}

/* Several queues: the port's RX task posts an event to the monitor of the
 * queue that sends its flow (the egress tasks record it as their flows
 * leave: path_owner.h), whatever queue it came in on. Queue 1 sends TCP
 * flow A, queue 0 flow B: A's ACKs (pure, or on data going the other
 * way) reach queue 1 alone, B's queue 0 alone; the data of a flow that
 * enters the port reaches no one (path_events_unowned), also when a
 * queue sends that flow's pure ACKs; RoCE between
 * two hosts reaches its one sender, both once both send to that host.
 * No monitor sees an event of a flow it does not have. */
static void test_events_to_owner(void **state)
{
	struct sim *q0 = sim_new(true, LINE_BPS), *q1 = sim_new(true, LINE_BPS);
	struct rx_bed *b = calloc(1, sizeof(*b));
	uint8_t f[2048];
	uint32_t len;

	(void)state;
	assert_non_null(b);
	assert_int_equal(umem_area_init_plain(&b->umem, 256, 2048, 1), 0);
	fake_socket_init(&b->sock, 0);
	policy(&b->pol, true);
	assert_int_equal(classifier_build(&b->cls, &b->pol), 0);
	assert_int_equal(handoff_ring_init(&b->ho, 64), 0);
	assert_int_equal(return_ring_init(&b->ret, 256), 0);
	assert_int_equal(rx_task_init(&b->rx, &b->sock.q, &b->umem, 0, &b->cls,
				      &b->ho, 32, 2048 - FAKE_HEADROOM),
			 0);
	rx_task_add_return(&b->rx, &b->ret);
	assert_int_equal(rx_task_add_path(&b->rx, &q0->ring, 1), 0);
	assert_int_equal(rx_task_add_path(&b->rx, &q1->ring, 1), 0);
	assert_int_equal(path_owner_init(&b->owner, 1024, 42), 0);
	rx_task_set_path_owner(&b->rx, &b->owner);
	adaptive_set_owner(&q0->a, &b->owner, 0);
	adaptive_set_owner(&q1->a, &b->owner, 1);
	rx_task_set_policy(&b->rx, &b->pol);
	assert_true(b->rx.path_on);
	rx_task_refill(&b->rx);

	/* flow A (10.0.0.1:40000 -> 10.0.0.2:5001) leaves by queue 1,
	 * flow B (:40002) by queue 0 */
	for (uint32_t i = 0; i < 2; i++) {
		len = tcp_frame(f, 1, 2, 40000, 5001, 1 + i * SEG, 1, 0x10, 0,
				0, SEG);
		depart(q1, f, len);
		len = tcp_frame(f, 1, 2, 40002, 5001, 1 + i * SEG, 1, 0x10, 0,
				0, SEG);
		depart(q0, f, len);
	}
	/* A's pure ACK */
	len = tcp_frame(f, 2, 1, 5001, 40000, 1, 1 + SEG, 0x10, 0, 0, 0);
	rx_frame(b, f, len, q0, q1, 0, 1);
	/* B's */
	len = tcp_frame(f, 2, 1, 5001, 40002, 1, 1 + SEG, 0x10, 0, 0, 0);
	rx_frame(b, f, len, q0, q1, 1, 0);
	/* A's ACK on a segment with data going the other way */
	len = tcp_frame(f, 2, 1, 5001, 40000, 1, 1 + 2 * SEG, 0x10, 0, 0, 500);
	rx_frame(b, f, len, q0, q1, 0, 1);
	/* the data of a flow that enters the port here: no one's */
	len = tcp_frame(f, 2, 1, 6000, 7000, 1, 1, 0x10, 0, 0, SEG);
	rx_frame(b, f, len, q0, q1, 0, 0);
	assert_int_equal(ctr_read(&b->rx.ctr.path_events_unowned), 1);
	assert_int_equal(ctr_read(&b->rx.ctr.path_events), 3);
	/* traffic both ways: queue 0 sends the pure ACKs of flow E, which
	 * enters the port here; E's data is no one's event */
	len = tcp_frame(f, 1, 2, 40004, 5001, 1, 1, 0x10, 0, 0, 0);
	depart(q0, f, len);
	len = tcp_frame(f, 2, 1, 5001, 40004, 1, 1, 0x10, 0, 0, SEG);
	rx_frame(b, f, len, q0, q1, 0, 0);
	assert_int_equal(ctr_read(&b->rx.ctr.path_events_unowned), 2);

	/* RoCE to host 3: queue 0 sends; then queue 1 to it as well */
	len = roce_frame(f, 1, 3, 0x04, 0x12, 100, true, 1000, -1);
	depart(q0, f, len);
	len = roce_frame(f, 3, 1, 0x11, 0x13, 100, false, 0, 0x1f);
	rx_frame(b, f, len, q0, q1, 1, 0);
	len = roce_frame(f, 1, 3, 0x04, 0x22, 5000, true, 1000, -1);
	depart(q1, f, len);
	len = roce_frame(f, 3, 1, 0x11, 0x13, 100, false, 0, 0x1f);
	rx_frame(b, f, len, q0, q1, 1, 1);

	/* each monitor: the TCP events it got were its own flows'; queue 1
	 * got the RoCE ACK of a QP of queue 0's (pairing tells) */
	assert_int_equal(ctr_read(&q0->a.pm.st.acks_seen), 3);
	assert_int_equal(ctr_read(&q1->a.pm.st.acks_seen), 3);
	assert_int_equal(ctr_read(&q0->a.pm.st.acks_unmatched), 0);
	assert_int_equal(ctr_read(&q1->a.pm.st.acks_unmatched), 1);

	rx_task_fini(&b->rx);
	handoff_ring_fini(&b->ho);
	return_ring_fini(&b->ret);
	path_owner_fini(&b->owner);
	umem_area_fini(&b->umem);
	free(b);
	sim_free(q1);
	sim_free(q0);
}

/* The wire / payload ratio divides what the shaper charged by the
 * payload the monitor's delivery rate can count: new data of the flows
 * it tracks. Each ms flow A sends 5 segments of new data and retransmits
 * 5, flow C (its table full: not tracked) sends 5: 15 frames for 5
 * payloads delivered, not 15. */
static void test_wire_ratio(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS);
	struct pathmon_params p;
	uint8_t f[2048];
	uint32_t len = 0, seq = 1, cseq = 1;
	double want;

	(void)state;
	pathmon_fini(&m->a.pm);
	pathmon_params_default(&p);
	p.max_flows = 2;
	assert_int_equal(pathmon_init(&m->a.pm, &p, m->now), 0);
	/* A and B fill the table */
	len = tcp_frame(f, 1, 2, 40001, 5001, 1, 1, 0x10, 0, 0, SEG);
	depart(m, f, len);
	len = tcp_frame(f, 1, 2, 40000, 5001, seq, 1, 0x10, 0, 0, SEG);
	depart(m, f, len);
	seq += SEG;
	for (uint32_t ms = 0; ms < 1000; ms++) {
		for (uint32_t i = 0; i < 5; i++, seq += SEG) {
			len = tcp_frame(f, 1, 2, 40000, 5001, seq, 1, 0x10, 0,
					0, SEG);
			depart(m, f, len);
		}
		for (uint32_t i = 0; i < 5; i++) {
			len = tcp_frame(f, 1, 2, 40000, 5001,
					seq - (5 - i) * SEG, 1, 0x10, 0, 0,
					SEG);
			depart(m, f, len);
		}
		for (uint32_t i = 0; i < 5; i++, cseq += SEG) {
			len = tcp_frame(f, 1, 2, 40002, 5001, cseq, 1, 0x10, 0,
					0, SEG);
			depart(m, f, len);
		}
		m->now += 1000000;
		adaptive_poll(&m->a, &m->s, m->now);
	}
	want = 15.0 * (len + m->a.overhead) / (5.0 * SEG);
	print_message("wire / payload %.3f (want %.3f)\n", m->a.wire_ratio,
		      want);
	assert_true(ctr_read(&m->a.pm.st.table_full) >= 5000);
	assert_near(m->a.wire_ratio, want, 0.01);
	sim_free(m);
}

/* Capacity steps 100 % -> 50 % -> 80 % of the line. */
static void test_steps(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS);
	static const double steps[] = {0.5, 0.8};
	/* base RTTs to follow each: growth is confirmed every target /
	 * margin (10 ms here), by at most 5 % */
	static const uint64_t bound[] = {40, 80};
	struct run_stats st;

	(void)state;
	run(m, 1000000000ull);
	assert_true((double)sched_port_rate(&m->s) >= 0.9 * LINE_BPS);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint64_t t0 = m->now, within = 0;
		double cap = steps[i] * LINE_BPS;

		m->cap_bps = cap;
		/* follow: bound[i] base RTTs at most */
		while (m->now - t0 < bound[i] * BASE_RTT) {
			run(m, BASE_RTT);
			double r = (double)sched_port_rate(&m->s);

			if (r >= cap * 0.85 && r <= cap * 1.15) {
				within = m->now - t0;
				break;
			}
		}
		print_message("step to %.0f %%: rate within 15 %% after %.1f "
			      "base RTTs\n",
			      steps[i] * 100, (double)within / BASE_RTT);
		assert_true(within > 0);
		run(m, 300000000ull); /* the queue of the step drains */
		st = run(m, 1000000000ull);
		print_message("  then: rate %.1f Mbit/s, queue beyond mean "
			      "%.0f us, utilisation %.3f\n",
			      st.rate_mean / 1e6, st.queue_mean_ns / 1e3,
			      st.util);
		assert_near(st.rate_mean, cap, 0.15);
		assert_true(st.util >= 0.85);
		assert_true(st.queue_mean_ns < 2 * 500000.0);
	}
	assert_in_bounds(m);
	sim_free(m);
}

/* A class above the TCP's (level 0, the TCP's class level 1) sends 88 %
 * of C: what it sends is kept by the cuts a delay that is no queue
 * beyond causes (1.5 ms more on every ACK for 300 ms: without it the
 * cuts go to 80 % of the estimate, below what that class sends). */
static void test_upper_classes_kept(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct qos_policy pol;
	uint64_t cuts;
	double kept = 0.44 * LINE_BPS * 1.05;

	(void)state;
	policy(&pol, true);
	pol.classes[0].level = 1;
	pol.classes[1] = pol.classes[0];
	snprintf(pol.classes[1].name, QOS_NAME_MAX, "upper");
	pol.classes[1].level = 0;
	pol.n_classes = 2;
	reconfigure(m, &pol);
	run(m, 2000000000ull); /* TCP alone settles at C */
	m->upper_bps = 0.44 * LINE_BPS;
	m->upper_next = m->now;
	run(m, 500000000ull);
	cuts = m->a.er.cuts;
	m->rate_lo = 1e18;
	m->upper_drops = 0;
	m->phantom_ns = 1500000;
	run(m, 300000000ull);
	m->phantom_ns = 0;
	print_message("upper class at %.1f Mbit/s: %llu cuts, %llu kept it, "
		      "rate down to %.1f Mbit/s\n",
		      m->upper_bps / 1e6,
		      (unsigned long long)(m->a.er.cuts - cuts),
		      (unsigned long long)m->a.er.kept_cuts, m->rate_lo / 1e6);
	assert_true(m->a.er.cuts > cuts);
	assert_true(m->a.er.kept_cuts > 0);
	assert_true(m->rate_lo >= 0.99 * kept);
	assert_int_equal(m->upper_drops, 0);
	assert_in_bounds(m);
	sim_free(m);
}

/* What the classes above the lowest level send is measured in the
 * shaper's units, as it charges them: each frame's length + the port's
 * overhead (24 bytes here). 64-byte frames at 20 Mbit/s charged: read
 * without the overhead, 64 / 88 of it. */
static void test_upper_sent_overhead(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct qos_policy pol;
	double want = 0.2 * LINE_BPS, lo = 1e18, hi = 0;

	(void)state;
	policy(&pol, true);
	pol.port[1].overhead = 24;
	pol.classes[0].level = 1;
	pol.classes[1] = pol.classes[0];
	snprintf(pol.classes[1].name, QOS_NAME_MAX, "upper");
	pol.classes[1].level = 0;
	pol.n_classes = 2;
	reconfigure(m, &pol);
	m->upper_bps = want;
	m->upper_payload = 10; /* 64-byte frames */
	m->upper_next = m->now;
	run(m, 1000000000ull);
	for (uint32_t i = 0; i < ADAPTIVE_PROTECT_N; i++) {
		lo = MIN(lo, m->a.prot_bps[i]);
		hi = MAX(hi, m->a.prot_bps[i]);
	}
	print_message("upper class, 64 B frames at %.1f Mbit/s charged: "
		      "measured %.2f..%.2f Mbit/s\n",
		      want / 1e6, lo / 1e6, hi / 1e6);
	assert_int_equal(m->upper_drops, 0);
	assert_true(m->a.n_prot >= ADAPTIVE_PROTECT_N);
	assert_near(lo, want, 0.03);
	assert_near(hi, want, 0.03);
	sim_free(m);
}

/* A backlog the port's shaper does not hold back (here a class ceiling
 * of 40 % of the line; on the veth bench the gateway's own DCQCN pacing
 * of the RoCE flows) leaves at less than the shaper's rate, and the path
 * delivers all of it: no capacity drop. The port's sent rate is measured,
 * not inferred from the backlog: taken for the shaper's rate, the
 * delivery rate read 60 % low, a delay that is no queue (1.5 ms on every
 * ACK, the path beyond faster than the line) was "proven" a drop, and the
 * rate went to 36 % of the line at once (measured on the veth bench:
 * 50 -> 27 Mbit/s, the bulk class's ACKs behind the RoCE class). */
static void test_backlog_below_rate_no_drop(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS * 1.25);
	struct qos_policy pol;

	(void)state;
	policy(&pol, true);
	pol.classes[0].ceil_bps = LINE_BPS * 4 / 10;
	pol.classes[0].ceil_burst = 16384;
	reconfigure(m, &pol);
	run(m, 1000000000ull);
	m->rate_lo = 1e18;
	m->phantom_ns = 1500000;
	run(m, 300000000ull);
	m->phantom_ns = 0;
	print_message("backlog held by a 40 %% ceiling, a delay that is no "
		      "queue: %llu cuts, rate down to %.1f Mbit/s\n",
		      (unsigned long long)m->a.er.cuts, m->rate_lo / 1e6);
	assert_true(m->a.er.cuts > 0);
	assert_true(m->rate_lo >= 0.75 * LINE_BPS);
	assert_in_bounds(m);
	sim_free(m);
}

/* Two workers: the RX task that posts an event and the egress task that
 * takes it read their clocks at the starts of their own passes, so an
 * event can be seen after the taker's now. The same bounds as
 * test_half_rate_beyond, and the controller never goes to no_samples
 * while samples flow. */
static void test_events_after_now(void **state)
{
	static const struct {
		uint32_t every;
		uint64_t skew_ns;
	} cases[] = {{50, 2000}, {1, 1000}};

	(void)state;
	for (uint32_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sim *m = sim_new(true, LINE_BPS / 2.0);
		struct run_stats st;

		m->skew_every = cases[i].every;
		m->skew_ns = cases[i].skew_ns;
		run(m, 2000000000ull);
		m->rate_lo = 1e18;
		m->rate_hi = 0;
		st = run(m, 1000000000ull);
		print_message(
			"1 event in %u seen %llu ns late: rate %.1f "
			"Mbit/s (%.1f-%.1f), queue beyond mean %.0f us, "
			"%llu times no_samples\n",
			cases[i].every, (unsigned long long)cases[i].skew_ns,
			st.rate_mean / 1e6, m->rate_lo / 1e6, m->rate_hi / 1e6,
			st.queue_mean_ns / 1e3,
			(unsigned long long)ctr_read(&m->a.ctr.no_samples));
		assert_int_equal(ctr_read(&m->a.ctr.no_samples), 0);
		assert_near(st.rate_mean, LINE_BPS / 2.0, 0.15);
		assert_true(m->rate_hi - m->rate_lo <= 0.3 * LINE_BPS / 2.0);
		assert_true(st.queue_mean_ns < 2 * 500000.0);
		assert_true(st.util >= 0.85);
		sim_free(m);
	}
}

/* The gateway is the bottleneck: nothing to do. */
static void test_gateway_is_bottleneck(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS * 1.25);
	struct adaptive_view v;

	(void)state;
	run(m, 2000000000ull);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	assert_true(m->rate_lo >= 0.9 * LINE_BPS);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.state, EDGE_LINE);
	sim_free(m);
}

/* No TCP or RC traffic: no samples, the rate held at ports[].rate. Then
 * samples that stop: back to it after the hold time. */
static void test_no_samples(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct adaptive_view v;

	(void)state;
	m->udp = true;
	run(m, 500000000ull);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	assert_true(m->rate_lo == (double)LINE_BPS);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.state, EDGE_NO_SAMPLES);
	assert_int_equal(ctr_read(&m->a.ctr.rtt_samples), 0);

	/* TCP: the rate comes down; then only UDP again */
	m->udp = false;
	m->busy_until = m->now;
	run(m, 1000000000ull);
	assert_true(sched_port_rate(&m->s) < 0.7 * LINE_BPS);
	m->udp = true;
	assert_int_equal(ctr_read(&m->a.ctr.no_samples), 0);
	run(m, 1500000000ull); /* past the hold time (1 s) */
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	assert_int_equal(ctr_read(&m->a.ctr.no_samples), 1);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.state, EDGE_NO_SAMPLES);
	sim_free(m);
}

/* Reloads: off puts the policy's rate back; a new floor bounds the
 * rate; on again starts at ports[].rate. */
static void test_reload(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS * 0.4);
	struct qos_policy pol;
	struct adaptive_view v;

	(void)state;
	run(m, 1500000000ull);
	assert_true(sched_port_rate(&m->s) < 0.5 * LINE_BPS);

	/* a higher floor: the rate is cut into the new bounds at once */
	policy(&pol, true);
	pol.port[1].adaptive.floor_bps = LINE_BPS / 2;
	assert_int_equal(sched_reconfigure(&m->s, &pol, 1, m->now), 0);
	adaptive_configure(&m->a, &pol, &m->s, m->now);
	assert_true(sched_port_rate(&m->s) >= LINE_BPS / 2);
	m->pol = pol;
	m->rate_lo = 1e18;
	run(m, 500000000ull);
	assert_in_bounds(m);

	/* off: the policy's rate, no decisions */
	policy(&pol, false);
	assert_int_equal(sched_reconfigure(&m->s, &pol, 1, m->now), 0);
	adaptive_configure(&m->a, &pol, &m->s, m->now);
	assert_false(m->a.on);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	adaptive_read(&m->a, &v);
	assert_int_equal(v.on, 0);
	assert_int_equal(v.rate_bps, LINE_BPS);

	/* on again: starts at ports[].rate with no samples */
	policy(&pol, true);
	assert_int_equal(sched_reconfigure(&m->s, &pol, 1, m->now), 0);
	adaptive_configure(&m->a, &pol, &m->s, m->now);
	assert_true(m->a.on);
	assert_int_equal(sched_port_rate(&m->s), LINE_BPS);
	sim_free(m);
}

/* One of 3 queues: the per-queue max (ports[].rate / 3) and floor are not
 * whole numbers of bit/s. A decision that leaves the rate where it is
 * changes nothing: it is not counted as a rate change and the shaper is
 * not set again. At the max (the gateway is the bottleneck) and at the
 * floor (the path beyond far below it). */
static void test_rate_changes_real(void **state)
{
	/* the floor half the line (16.67 Mbit/s per queue), C just below it */
	static const double caps[] = {LINE_BPS * 1.25, LINE_BPS * 0.165};

	(void)state;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct sim *m = sim_new(true, caps[i]);
		uint64_t dec, chg;

		m->pol.port[1].adaptive.floor_bps = LINE_BPS / 2;
		assert_int_equal(
			sched_set_queue_share(&m->s, 3, &m->pol, 1, m->now), 0);
		adaptive_configure(&m->a, &m->pol, &m->s, m->now);
		assert_true(m->a.par.max_bps !=
			    (double)(uint64_t)m->a.par.max_bps);
		assert_true(m->a.par.floor_bps !=
			    (double)(uint64_t)m->a.par.floor_bps);
		if (i) { /* settle above the floor first: a short queue */
			m->cap_bps = LINE_BPS * 0.3;
			run(m, 1000000000ull);
			m->cap_bps = caps[i];
		}
		run(m, 1000000000ull);
		dec = ctr_read(&m->a.ctr.decisions);
		chg = ctr_read(&m->a.ctr.rate_changes);
		m->rate_lo = 1e18;
		m->rate_hi = 0;
		run(m, 1000000000ull);
		dec = ctr_read(&m->a.ctr.decisions) - dec;
		chg = ctr_read(&m->a.ctr.rate_changes) - chg;
		print_message("1 of 3 queues, C %.1f Mbit/s: rate %.0f..%.0f "
			      "bit/s, %llu decisions, %llu rate changes\n",
			      caps[i] / 1e6, m->rate_lo, m->rate_hi,
			      (unsigned long long)dec, (unsigned long long)chg);
		assert_true(dec > 10);
		/* settled at the max or the floor: the rate stood still */
		assert_true(m->rate_lo == m->rate_hi);
		assert_true(m->rate_lo ==
			    (double)(uint64_t)(i ? m->a.par.floor_bps
						 : m->a.par.max_bps));
		assert_int_equal(chg, 0);
		sim_free(m);
	}
}

/* Bytes of the heap in use now. */
/* The sanitizers' allocators are not glibc's: mallinfo2() does not see
 * what they hand out, so the heap is measured only without them (the
 * plain build of CI's test run). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAP_MEASURED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEAP_MEASURED 0
#endif
#endif
#ifndef HEAP_MEASURED
#define HEAP_MEASURED 1
#endif

static uint64_t heap_bytes(void)
{
	return mallinfo2().uordblks;
}

/* Off, adaptive egress holds no memory: an egress task's monitor is
 * allocated when a policy first turns it on (adaptive_reserve). */
static void test_mem_off(void **state)
{
	struct qos_policy pol;
	struct port_adaptive *a = calloc(1, sizeof(*a));
	struct sched s;
	uint64_t before;

	(void)state;
	assert_non_null(a);
	policy(&pol, false);
	assert_int_equal(sched_init(&s, &pol, 1, 1), 0);
	before = heap_bytes();
	assert_int_equal(adaptive_init(a, 1, 1), 0);
	adaptive_configure(a, &pol, &s, 1);
	print_message("off: %llu bytes allocated\n",
		      (unsigned long long)(heap_bytes() - before));
	assert_true(heap_bytes() - before < 4096);
	/* a policy that turns it on before the monitor is there: off */
	policy(&pol, true);
	adaptive_configure(a, &pol, &s, 1);
	assert_false(a->on);
	assert_true(heap_bytes() - before < 4096);
	/* reserved (the gateway, before it publishes that policy): on */
	assert_int_equal(adaptive_reserve(a, 1, 1), 0);
	adaptive_configure(a, &pol, &s, 1);
	assert_true(a->on);
	adaptive_fini(a);
	sched_fini(&s);
	free(a);
}

/* On, a port's memory follows its queue plan, linearly: each queue's
 * monitor holds its part of the port's flows, each egress task's event
 * rings (one per RX task of the port) hold ADAPTIVE_TASK_EVENTS events
 * together. adaptive_plan_bytes() says what it allocates, measured here
 * as the gateway makes it (adaptive_reserve on each egress task of the
 * port, a ring of adaptive_plan_ring() slots per RX task and egress task
 * pair); at most queues x (a monitor of ADAPTIVE_MAX_FLOWS flows +
 * ADAPTIVE_TASK_EVENTS events): 1.3 MB per queue of the port. */
static void test_mem_plan(void **state)
{
	static const uint32_t qs[] = {1, 2, 3, 8, 64};
	const uint64_t per_queue =
		pathmon_mem_bytes_of(ADAPTIVE_MAX_FLOWS) +
		ADAPTIVE_TASK_EVENTS * sizeof(struct pathmon_ack);
	struct qos_policy pol;
	struct sched s;

	(void)state;
	for (uint32_t q = 1; q <= ADAPTIVE_MAX_IN; q++) {
		assert_true(adaptive_plan_bytes(q) <= q * per_queue);
		assert_true(adaptive_plan_ring(q) >= ADAPTIVE_EV_BATCH);
		assert_true(adaptive_plan_flows(q) * q >= ADAPTIVE_PORT_FLOWS);
	}
	policy(&pol, true);
	assert_int_equal(sched_init(&s, &pol, 1, 1), 0);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint32_t q = qs[i], slots = adaptive_plan_ring(q);
		struct port_adaptive *a = calloc(q, sizeof(*a));
		struct pathmon_ring *r = calloc((size_t)q * q, sizeof(*r));
		uint64_t before, used;

		assert_non_null(a);
		assert_non_null(r);
		before = heap_bytes();
		for (uint32_t j = 0; j < q; j++) {
			assert_int_equal(adaptive_init(&a[j], 1, 1), 0);
			assert_int_equal(adaptive_reserve(&a[j], q, 1), 0);
			adaptive_configure(&a[j], &pol, &s, 1);
			assert_true(a[j].on);
		}
		for (uint32_t j = 0; j < q * q; j++)
			assert_int_equal(pathmon_ring_init(&r[j], slots), 0);
		used = heap_bytes() - before;
		print_message("%2u queues: %u flows and %u events per queue, "
			      "%.2f MB allocated per port (plan %.2f MB)\n",
			      q, adaptive_plan_flows(q), q * slots, used / 1e6,
			      adaptive_plan_bytes(q) / 1e6);
		if (HEAP_MEASURED) {
			assert_true(used >= adaptive_plan_bytes(q));
			/* the allocator's own words, a few per allocation */
			assert_true(used <=
				    adaptive_plan_bytes(q) +
					    ((uint64_t)q * q + 2 * q) * 128);
			assert_true(used <= q * per_queue);
		}
		for (uint32_t j = 0; j < q * q; j++)
			pathmon_ring_fini(&r[j]);
		for (uint32_t j = 0; j < q; j++)
			adaptive_fini(&a[j]);
		free(r);
		free(a);
	}
	sched_fini(&s);
}

/* Off for half a second while the sender goes on (3 MB unseen), then on
 * again: the monitor starts empty, so no ACK credits what left while it
 * was off to one interval (the delivery rate stays below the line). */
static void test_off_on_fresh(void **state)
{
	struct sim *m = sim_new(true, LINE_BPS / 2.0);
	struct qos_policy pol;
	struct adaptive_view v;

	(void)state;
	run(m, 1000000000ull);
	policy(&pol, false);
	reconfigure(m, &pol);
	run(m, 500000000ull);
	policy(&pol, true);
	reconfigure(m, &pol);
	assert_int_equal(pathmon_flows(&m->a.pm), 0);
	run(m, 50000000ull);
	adaptive_read(&m->a, &v);
	print_message("after off and on: delivery %.1f Mbit/s (last %.1f)\n",
		      v.delivery_bps / 1e6, v.delivery_last_bps / 1e6);
	/* (this plant's ACKs skip the segments its FIFO dropped while the
	 * port sent at the line: up to twice the FIFO's rate, no more) */
	assert_true(v.delivery_bps <= 1.5 * LINE_BPS);
	assert_true(m->a.er.cap_bps <= 1.5 * LINE_BPS);
	sim_free(m);
}

/* Settings the controller cannot run with are refused by name. */
static void test_check(void **state)
{
	struct qos_policy pol;
	const char *why;

	(void)state;
	policy(&pol, true);
	assert_int_equal(adaptive_check(&pol, 0, 1, &why), 0);
	pol.port[0].rate_bps = 0;
	assert_int_not_equal(adaptive_check(&pol, 0, 1, &why), 0);
	assert_non_null(strstr(why, "rate"));
	policy(&pol, true);
	pol.port[0].adaptive.floor_bps = 2 * LINE_BPS;
	assert_int_not_equal(adaptive_check(&pol, 0, 1, &why), 0);
	assert_non_null(strstr(why, "floor"));
	policy(&pol, false);
	pol.port[0].rate_bps = 0;
	assert_int_equal(adaptive_check(&pol, 0, 1, &why), 0);
	/* the floor per queue: at least the shaper's lowest rate */
	policy(&pol, true);
	pol.port[0].adaptive.floor_bps = 1;
	assert_int_not_equal(adaptive_check(&pol, 0, 2, &why), 0);
	assert_non_null(strstr(why, "floor per queue"));
	assert_non_null(strstr(why, "15 bit/s"));
	pol.port[0].adaptive.floor_bps = 2 * TB_MIN_RATE - 1;
	assert_int_equal(adaptive_check(&pol, 0, 1, &why), 0);
	assert_int_not_equal(adaptive_check(&pol, 0, 2, &why), 0);
	pol.port[0].adaptive.floor_bps = 2 * TB_MIN_RATE;
	assert_int_equal(adaptive_check(&pol, 0, 2, &why), 0);
	assert_int_not_equal(adaptive_check(&pol, 0, 3, &why), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_rate_beyond),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_own_marks_port_wide),
		cmocka_unit_test(test_events_to_owner),
		cmocka_unit_test(test_wire_ratio),
		cmocka_unit_test(test_upper_classes_kept),
		cmocka_unit_test(test_upper_sent_overhead),
		cmocka_unit_test(test_events_after_now),
		cmocka_unit_test(test_gateway_is_bottleneck),
		cmocka_unit_test(test_backlog_below_rate_no_drop),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_rate_changes_real),
		cmocka_unit_test(test_mem_off),
		cmocka_unit_test(test_mem_plan),
		cmocka_unit_test(test_off_on_fresh),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
