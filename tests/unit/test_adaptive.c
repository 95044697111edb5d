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
 *  - a backlog a class ceiling holds (40 % of the line), the path beyond
 *    faster, a delay that is no queue: the rate >= 75 % of the line (the
 *    port's sent rate measured, not taken for the shaper's: 36 %);
 *  - events seen after the consumer's now (1 in 50 by 2 us, every one
 *    by 1 us: two workers' clocks): the same bounds, never no_samples;
 *  - no samples (UDP only): the rate is ports[].rate, state no_samples;
 *    samples stop: back to ports[].rate after the hold time (counted);
 *  - the rate never leaves [floor, ports[].rate];
 *  - configuration: off costs nothing (no decision, rate = policy); a
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
#include "adaptive.h"
#include "pkt_build.h"
#include "pkt_parse.h"
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
	double upper_bps;
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
		d.meta = sched_meta_pack(0, pm.ecn, pm.l3, pm.l3_off) |
			 sched_meta_l4_of(&pm);
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

		len = tcp_frame(f, 1, 2, 40001, 4791, 0, 0, 0, 0, 0, SEG);
		f[23] = 17;
		wr16(f + 38, len - 34);
		wr16(f + 40, 0);
		assert_int_equal(pkt_parse(f, len, &pm), 0);
		d.addr = (uint64_t)slot * 2048;
		d.len = len;
		d.meta = sched_meta_pack(1, pm.ecn, pm.l3, pm.l3_off) |
			 sched_meta_l4_of(&pm);
		if (sched_enqueue(&m->s, &d, f, m->now))
			m->upper_drops++; /* its queue is full */
		m->upper_next += (uint64_t)(len * 8e9 / m->upper_bps);
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
		uint32_t len = tcp_frame(f, 2, 1, 5001, 40000, 1, pa->ack, 0x10,
					 9, pa->tsecr, 0);

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
	assert_int_equal(adaptive_check(&pol, 0, &why), 0);
	pol.port[0].rate_bps = 0;
	assert_int_not_equal(adaptive_check(&pol, 0, &why), 0);
	assert_non_null(strstr(why, "rate"));
	policy(&pol, true);
	pol.port[0].adaptive.floor_bps = 2 * LINE_BPS;
	assert_int_not_equal(adaptive_check(&pol, 0, &why), 0);
	assert_non_null(strstr(why, "floor"));
	policy(&pol, false);
	pol.port[0].rate_bps = 0;
	assert_int_equal(adaptive_check(&pol, 0, &why), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_rate_beyond),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_upper_classes_kept),
		cmocka_unit_test(test_events_after_now),
		cmocka_unit_test(test_gateway_is_bottleneck),
		cmocka_unit_test(test_backlog_below_rate_no_drop),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_off_on_fresh),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
