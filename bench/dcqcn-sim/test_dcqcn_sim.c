// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn_sim.c - the DCQCN simulator on the shipped scenarios
 * (bench/dcqcn-sim/scenarios, found through $XDPLANE_SOURCE), checked
 * against the bounds the simulator must show:
 *  - the scripted example: the trace rows of one CNP at t = 0 on a
 *    40 Gbit/s flow are R_C 20, 30, 35, 37.5 Gbit/s at 0, 55, 110, 165 us,
 *    alpha 1, (255/256)^1..3; NP coalescing: CNPs at 0, 50 and 120 us;
 *  - 2 flows, paper profile, 40 Gbit/s, 150 ms: Jain >= 0.99 over the last
 *    40 ms;
 *  - 8:1 and 16:1 incast at 100 Gbit/s: utilisation >= 95 % from 5 ms to
 *    the end of the 150 ms run, min/max of the flows' throughput >= 0.8
 *    from 20 ms on;
 *  - the gateway's worker stopping 5 ms at mean intervals of 100 ms in
 *    front of a port that is not the bottleneck: no mark, no CNP, no cut,
 *    each stop's backlog drained in about the time the port's headroom
 *    takes; with the port the bottleneck the CP still marks and cuts,
 *    and the stops add no cut to the same run without them;
 * plus determinism (same scenario, same bytes; another seed, other
 * bytes), pacing and the link's rate against counted packets, the bins
 * and the summary on hand-made series, the standing queue of N = 2, 4, 8
 * on the RED slope, the connectx closed loop, the units, and the scenario
 * loader's fields and errors with their file:line:col. Each shipped closed
 * loop runs once (about 2 s in all, 25 s under ASan); its summary is
 * printed, so a run of this test shows the numbers the bounds are checked
 * against.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "scenario.h"
#include "sim.h"
#include "trace.h"
#include "units.h"

static char *scenario_path(const char *name)
{
	const char *src = getenv("XDPLANE_SOURCE");
	static char path[4096];

	snprintf(path, sizeof(path), "%s/bench/dcqcn-sim/scenarios/%s",
		 src ? src : ".", name);
	return path;
}

struct run {
	struct scenario sc;
	struct sim_result res;
	char *csv;
	size_t len;
};

static void run_scenario(struct run *r, const char *name)
{
	char err[512];
	FILE *f;

	memset(r, 0, sizeof(*r));
	if (scenario_load_file(&r->sc, scenario_path(name), err, sizeof(err)))
		fail_msg("%s", err);
	f = open_memstream(&r->csv, &r->len);
	assert_non_null(f);
	if (sim_run(&r->sc, f, &r->res, err, sizeof(err)))
		fail_msg("%s: %s", name, err);
	assert_int_equal(fclose(f), 0);
	if (r->sc.closed_loop) {
		const struct sim_summary *s = &r->res.summary;
		char conv[32] = "never";

		if (s->converge_ns >= 0)
			snprintf(conv, sizeof(conv), "%.1f",
				 s->converge_ns / 1e6);

		print_message("%s: jain %.6f, util %.4f (from %.0f ms), "
			      "min/max %.4f (from %.0f ms), queue mean %.2f KB "
			      "std %.2f KB, converge %s ms\n",
			      name, s->jain, s->util, s->util_from_ns / 1e6,
			      s->minmax, s->fair_from_ns / 1e6, s->q_mean / 1e3,
			      s->q_std / 1e3, conv);
	}
}

static void run_free(struct run *r)
{
	sim_result_free(&r->res);
	scenario_free(&r->sc);
	free(r->csv);
}

/* Each shipped closed loop runs once; the tests share the result. */
#define N_CACHED 10
static struct {
	const char *name;
	struct run r;
} cache[N_CACHED];

static const struct run *cached(const char *name)
{
	size_t i;

	for (i = 0; i < N_CACHED && cache[i].name; i++)
		if (!strcmp(cache[i].name, name))
			return &cache[i].r;
	assert_true(i < N_CACHED);
	run_scenario(&cache[i].r, name);
	cache[i].name = name;
	return &cache[i].r;
}

static int free_cache(void **state)
{
	for (size_t i = 0; i < N_CACHED && cache[i].name; i++) {
		run_free(&cache[i].r);
		cache[i].name = NULL;
	}
	return 0;
}

/* Load a scenario from text and run it, the trace into memory. */
static void run_text(struct run *r, const char *yaml)
{
	char err[512];
	FILE *f;

	memset(r, 0, sizeof(*r));
	if (scenario_load_buf(&r->sc, "t", yaml, strlen(yaml), err,
			      sizeof(err)))
		fail_msg("%s", err);
	f = open_memstream(&r->csv, &r->len);
	assert_non_null(f);
	if (sim_run(&r->sc, f, &r->res, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(fclose(f), 0);
}

/* Row n (0 = the header) of the trace, without its newline. */
static const char *row(const struct run *r, size_t n, char *buf, size_t size)
{
	const char *p = r->csv, *end = r->csv + r->len, *nl;

	while (n--) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || (size_t)(nl - p) >= size)
		return NULL;
	memcpy(buf, p, (size_t)(nl - p));
	buf[nl - p] = '\0';
	return buf;
}

/* Pacing and the link, without congestion: one flow at 10 Gbit/s into a
 * 40 Gbit/s bottleneck for 1 ms sends a 1000-byte packet every 800 ns,
 * from t = 0 to t = 1 ms inclusive: 1251 packets, the last one still on
 * the link at the end (200 ns), none marked, no queue, utilisation
 * 1250 x 8000 bit / (40 Gbit/s x 1 ms) = 0.25. */
static void test_pacing(void **state)
{
	static const char yaml[] =
		"line_rate: 10Gbit\n"
		"duration: 1ms\n"
		"bottleneck: {rate: 40Gbit, kmin: 5KB, kmax: 200KB, pmax: 1%, "
		"feedback_delay: 50us}\n"
		"flows: [{start: 0us}]\n";
	struct run r;
	const struct sim_summary *sum = &r.res.summary;

	run_text(&r, yaml);
	assert_int_equal(sum->packets, 1251);
	assert_int_equal(sum->marked, 0);
	assert_int_equal(sum->cnps_sent, 0);
	assert_true(sum->q_peak == 0);
	assert_true(fabs(sum->util - 0.25) < 1e-12);
	assert_true(fabs(sum->flow_bps[0] - 10e9) < 1e-3);
	run_free(&r);
}

/* The link's rate: two flows at 40 Gbit/s into 40 Gbit/s with marking
 * off (pmax 0 up to Kmax = 4 GB): one packet leaves every 200 ns, 5000 by
 * the end of 1 ms (the 5000th at exactly 1 ms), alternately from each
 * flow: utilisation 1, 20 Gbit/s each, 10002 sent, the rest queued. */
static void test_link_rate(void **state)
{
	static const char yaml[] =
		"line_rate: 40Gbit\n"
		"duration: 1ms\n"
		"bottleneck: {rate: 40Gbit, kmin: 5KB, kmax: 4GB, pmax: 0, "
		"feedback_delay: 50us}\n"
		"flows: [{count: 2}]\n";
	struct run r;
	const struct sim_summary *sum = &r.res.summary;

	run_text(&r, yaml);
	assert_int_equal(sum->packets, 10002);
	assert_int_equal(sum->marked, 0);
	assert_true(fabs(sum->util - 1.0) < 1e-12);
	assert_true(fabs(sum->flow_bps[0] - 20e9) < 1e-3);
	assert_true(fabs(sum->flow_bps[1] - 20e9) < 1e-3);
	/* 10002 sent - 5000 out - 1 on the link at the end */
	assert_true(sum->q_peak == 5001 * 1000.0);
	assert_true(sum->jain == 1.0);
	run_free(&r);
}

/* The bins and the summary on hand-made series (2 flows, 10 ms, bins of
 * 100 us, fair share 20 Gbit/s, band 10 %, intervals of 1 ms, hold 2 ms):
 * flow 1 at 20 Gbit/s; flow 2 at 10 (0-3 ms), 20 (3-5 ms), 15 (5-6 ms),
 * 21 (6 ms on): intervals 3, 4 are in the band, 5 is not, 6-9 are, so it
 * converges at 3 ms and settles at 6 ms. Bytes: 1000 and 500 per bin. */
static void test_stats(void **state)
{
	struct scn_flow flows[2] = {{0}, {0}};
	struct scenario sc = {
		.duration_ns = 10000000,
		.closed_loop = true,
		.bottleneck = {.rate_bps = 40e9},
		.summary = {.bin_ns = 100000,
			    .window_ns = 4000000,
			    .util_after_ns = 0,
			    .fair_after_ns = 0,
			    .band = 0.1,
			    .avg_ns = 1000000,
			    .hold_ns = 2000000,
			    .util_target = 0.95},
		.n_flows = 2,
		.flows = flows,
	};
	struct stats st;
	struct sim_summary sum;

	assert_int_equal(stats_init(&st, sc.duration_ns, 100000, 2), 0);
	assert_int_equal(st.n_bins, 100);
	stats_rc(&st, 0, 0, 20e9);
	stats_rc(&st, 1, 0, 10e9);
	stats_rc(&st, 1, 3000000, 20e9);
	stats_rc(&st, 1, 5000000, 15e9);
	stats_rc(&st, 1, 6000000, 21e9);
	stats_rc(&st, 1, 6050000, 21e9); /* no change: no effect */
	for (uint64_t b = 0; b < 100; b++) {
		stats_delivered(&st, 0, b * 100000 + 10, 1000);
		stats_delivered(&st, 1, b * 100000 + 99999, 500);
	}
	stats_queue(&st, 50000, 1000); /* 1000 bytes from 50 us to 250 us */
	stats_queue(&st, 250000, 0);
	stats_finish(&st, sc.duration_ns);
	/* integrals: rate x ns */
	assert_true(st.rc_int[0 * 2 + 1] == 10e9 * 100000);
	assert_true(st.rc_int[29 * 2 + 1] == 10e9 * 100000);
	assert_true(st.rc_int[30 * 2 + 1] == 20e9 * 100000);
	assert_true(st.rc_int[60 * 2 + 1] == 21e9 * 50000 + 21e9 * 50000);
	assert_true(st.q_int[0] == 1000.0 * 50000);
	assert_true(st.q_int[1] == 1000.0 * 100000);
	assert_true(st.q_int[2] == 1000.0 * 50000);
	assert_true(st.q_int[3] == 0);
	assert_int_equal(st.q_max[1], 1000); /* held through bin 1 */
	assert_int_equal(st.q_max[3], 0);

	assert_int_equal(stats_summarise(&st, &sc, &sum), 0);
	assert_true(sum.fair_bps == 20e9);
	assert_true(sum.converge_ns == 3000000);
	assert_true(sum.settled_ns == 6000000);
	/* window 6-10 ms: 40000 and 20000 bytes */
	assert_true(sum.window_from_ns == 6000000);
	assert_true(fabs(sum.jain - 0.9) < 1e-12);
	assert_true(fabs(sum.flow_bps[0] - 40000 * 8e9 / 4e6) < 1e-3);
	assert_true(fabs(sum.minmax - 0.5) < 1e-12);
	/* 150000 bytes in 10 ms of 40 Gbit/s */
	assert_true(fabs(sum.util - 150000 * 8 / (40e9 * 0.01)) < 1e-12);
	assert_true(fabs(sum.util_least - sum.util) < 1e-12);
	assert_true(sum.util_settled_ns == -1);
	/* the queue over the window: empty; the peak: 1000 */
	assert_true(sum.q_mean == 0 && sum.q_peak == 1000);
	summary_free(&sum);
	stats_free(&st);
}

/* The step response: one CNP at t = 0 on a 40 Gbit/s flow, paper. */
static void test_step_response(void **state)
{
	static const char *const want[] = {
		"t_us,flow,event,rc_gbps,rt_gbps,alpha",
		"0.000,1,start,40,40,1",
		/* R_T = R_C = 40, R_C = 40 (1 - 1/2) = 20, alpha =
		 * (1 - g) 1 + g = 1 */
		"0.000,1,cnp,20,40,1",
		/* K = 55 us without a CNP: alpha = 255/256 = 0.99609375;
		 * fast recovery (T = 0 < F): R_C = (40 + 20) / 2 = 30 */
		"55.000,1,alpha,20,40,0.99609375",
		"55.000,1,fast_recovery,30,40,0.99609375",
		/* (255/256)^2 = 0.9922027587890625; (40 + 30) / 2 = 35 */
		"110.000,1,alpha,30,40,0.992202759",
		"110.000,1,fast_recovery,35,40,0.992202759",
		/* (255/256)^3 = 0.98832696676254272; (40 + 35) / 2 = 37.5 */
		"165.000,1,alpha,35,40,0.988326967",
		"165.000,1,fast_recovery,37.5,40,0.988326967",
	};
	struct run r;
	char buf[256];

	run_scenario(&r, "step-response.yaml");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = row(&r, i, buf, sizeof(buf));

		assert_non_null(got);
		assert_string_equal(got, want[i]);
	}
	run_free(&r);
}

/* Scripted bytes: 25 MB sent at once at 10 us after a CNP at 0 make two
 * byte-counter events (B = 10 MB), each its own row: fast recovery
 * (T, BC) = (0, 0) then (0, 1) before them: R_C = (40 + 20) / 2 = 30,
 * then (40 + 30) / 2 = 35; the 5 MB left make none. At 55 us the timer:
 * (T, BC) = (0, 2), max 2 < F = 5: fast recovery, (40 + 35) / 2 = 37.5. */
static void test_byte_counter(void **state)
{
	static const char yaml[] = "line_rate: 40Gbit\n"
				   "duration: 100us\n"
				   "flows:\n"
				   "  - cnp: [0us]\n"
				   "    sent: [{at: 10us, bytes: 25MB}]\n";
	static const char *const want[] = {
		"t_us,flow,event,rc_gbps,rt_gbps,alpha",
		"0.000,1,start,40,40,1",
		"0.000,1,cnp,20,40,1",
		"10.000,1,fast_recovery,30,40,1",
		"10.000,1,fast_recovery,35,40,1",
		"55.000,1,alpha,35,40,0.99609375",
		"55.000,1,fast_recovery,37.5,40,0.99609375",
	};
	struct run r;
	char buf[256];

	run_text(&r, yaml);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(row(&r, i, buf, sizeof(buf)), want[i]);
	assert_null(row(&r, sizeof(want) / sizeof(want[0]), buf, sizeof(buf)));
	assert_true(r.sc.params.byte_counter == 10000000);
	run_free(&r);
}

/* NP, N = 50 us: marks at 0, 10, 20, 45, 120 us. */
static void test_np_coalescing(void **state)
{
	static const char *const want[] = {
		"t_us,flow,event,rc_gbps,rt_gbps,alpha",
		"0.000,1,start,40,40,1",
		"0.000,1,cnp_sent,,,", /* the first mark: at once */
		"50.000,1,cnp_sent,,,", /* 10, 20, 45: one at the window's end */
		"120.000,1,cnp_sent,,,", /* outside every window: at once */
	};
	struct run r;
	char buf[256];

	run_scenario(&r, "np-coalescing.yaml");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(row(&r, i, buf, sizeof(buf)), want[i]);
	assert_null(row(&r, sizeof(want) / sizeof(want[0]), buf, sizeof(buf)));
	run_free(&r);
}

/* Same scenario, same bytes; another seed (another RED draw), others.
 * Two flows into 40 Gbit/s for 30 ms, flow 2 joining at 5 ms; Kmax 10 MB
 * keeps the queue on the RED slope, where marks are random draws (above
 * Kmax every packet is marked, whatever the seed). */
static void test_deterministic(void **state)
{
	static const char yaml[] =
		"line_rate: 40Gbit\n"
		"duration: 30ms\n"
		"bottleneck: {rate: 40Gbit, kmin: 5KB, kmax: 10MB, pmax: 1%, "
		"feedback_delay: 50us}\n"
		"flows: [{start: 0ms}, {start: 5ms}]\n";
	struct run a, b;
	struct sim_result res;
	char err[256], *out = NULL;
	size_t len = 0;
	FILE *f;

	run_text(&a, yaml);
	run_text(&b, yaml);
	assert_true(a.len > 10000);
	assert_true(a.res.summary.marked > 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.csv, b.csv, a.len);
	assert_true(a.res.summary.jain == b.res.summary.jain);
	assert_true(a.res.summary.q_mean == b.res.summary.q_mean);

	b.sc.seed++;
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sim_run(&b.sc, f, &res, err, sizeof(err)), 0);
	fclose(f);
	assert_true(len != a.len || memcmp(out, a.csv, len));
	sim_result_free(&res);
	free(out);
	run_free(&a);
	run_free(&b);
}

/* Bound: 2 flows, paper, 40 Gbit/s, 150 ms: Jain >= 0.99 over the last
 * 40 ms. */
static void test_paper_2flows_fair(void **state)
{
	const struct run *r = cached("paper-2flows.yaml");

	assert_int_equal(r->sc.n_flows, 2);
	assert_true(r->sc.duration_ns == 150000000);
	assert_true(r->res.summary.window_from_ns == 110000000);
	assert_true(r->res.summary.window_to_ns == 150000000);
	assert_true(r->res.summary.jain >= 0.99);
	assert_int_equal(r->res.summary.dropped, 0);
	/* every CNP the NPs sent reached an RP within the run, or was due
	 * after its end */
	assert_true(r->res.summary.cnps_received <= r->res.summary.cnps_sent);
}

/* Bound: N:1 incast at 100 Gbit/s: utilisation >= 95 % after 5 ms, no
 * flow starved (min/max >= 0.8 after 20 ms). */
static void check_incast(const char *name, uint32_t n)
{
	const struct run *r = cached(name);
	const struct sim_summary *sum = &r->res.summary;

	assert_int_equal(r->sc.n_flows, n);
	assert_true(r->sc.bottleneck.rate_bps == 100e9);
	assert_true(sum->util_from_ns == 5000000);
	assert_true(sum->fair_from_ns == 20000000);
	assert_true(sum->util >= 0.95);
	assert_true(sum->util <= 1.0 + 1e-9);
	assert_true(sum->minmax >= 0.8);
	/* ...because DCQCN holds the queue: nothing dropped (the buffer
	 * takes the first burst), and the standing queue is below Kmax */
	assert_int_equal(sum->dropped, 0);
	assert_true(sum->q_mean < r->sc.bottleneck.ecn.kmax);
	assert_true(sum->cnps_received > 0);
}

static void test_incast_8(void **state)
{
	check_incast("incast-8-100g.yaml", 8);
}

static void test_incast_16(void **state)
{
	check_incast("incast-16-100g.yaml", 16);
}

/* The standing queue of N = 2, 4, 8 flows stands on the RED slope, where
 * the fluid model's fixed points q* (20.2, 41.8, 93.8 KB) are; the
 * comparison itself is in bench/README.md. */
static void test_standing_queue(void **state)
{
	static const struct {
		const char *name;
		double q_star;
	} cases[] = {
		{"paper-2flows.yaml", 20.2e3},
		{"paper-4flows.yaml", 41.8e3},
		{"paper-8flows.yaml", 93.8e3},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct run *r = cached(cases[i].name);

		print_message("%s: q mean / q* = %.3f\n", cases[i].name,
			      r->res.summary.q_mean / cases[i].q_star);
		assert_true(r->res.summary.q_mean > 5e3);
		assert_true(r->res.summary.q_mean < 200e3);
	}
}

static void test_connectx_2flows(void **state)
{
	const struct run *r = cached("connectx-2flows.yaml");

	assert_int_equal(r->sc.params.profile, DCQCN_CONNECTX);
	assert_true(r->res.summary.jain >= 0.99);
	assert_true(r->res.summary.util >= 0.95);
	/* decrease ticks cut the rate: the trace has "cut" rows */
	assert_non_null(strstr(r->csv, ",cut,"));
}

/* The gateway scenarios: the backlog one stop of the worker builds
 * (bytes: the senders at line rate for the stop) and the time the port's
 * headroom takes to drain it. */
struct gw_expect {
	double backlog, drain_ns;
};

static struct gw_expect gw_expect(const struct scenario *sc)
{
	double nl = sc->n_flows * sc->params.line_bps;
	double g = (double)sc->gateway.gap_ns;

	return (struct gw_expect){
		.backlog = nl * g / 8e9,
		.drain_ns = g * nl / (sc->gateway.port_bps - nl),
	};
}

static void print_gw(const char *name, const struct run *r)
{
	const struct sim_summary *s = &r->res.summary;
	const struct gw_summary *g = &s->gw;

	print_message("%s: %" PRIu64 " stops, gateway marks %" PRIu64
		      ", its CNPs %" PRIu64 ", CNPs at senders %" PRIu64
		      ", least R_C %.4g Mbit/s, gateway queue max %.1f KB, "
		      "drained %" PRIu64
		      " (longest %.2f ms), undrained %" PRIu64 "\n",
		      name, g->gaps, g->marks, g->np_cnps, s->cnps_received,
		      s->rc_min / 1e6, (double)g->queue_max / 1e3, g->drained,
		      (double)g->drain_max_ns / 1e6, g->undrained);
}

/* Bound: the gateway's worker stops for 5 ms at mean intervals of 100 ms,
 * its port is not the bottleneck: no mark, no CNP, no cut (every RP at
 * line rate all along), each stop's backlog drained within three times
 * what the port's headroom takes for one stop (two stops can fall into
 * one drain). One scripted stop drains in about that time. */
static void test_gateway_gaps(void **state)
{
	const struct run *r = cached("gateway-gaps.yaml");
	const struct sim_summary *s = &r->res.summary;
	const struct gw_summary *g = &s->gw;
	struct gw_expect e = gw_expect(&r->sc);
	double line = r->sc.params.line_bps;
	struct run one;
	char yaml[1024];
	uint64_t peak = 0;

	print_gw("gateway-gaps.yaml", r);
	assert_true(g->enabled);
	assert_true(g->gaps >= 10);
	assert_int_equal(g->marks, 0);
	assert_int_equal(g->np_cnps, 0);
	assert_int_equal(g->rp_cnps, 0);
	assert_int_equal(s->marked, 0);
	assert_int_equal(s->cnps_received, 0);
	assert_true(s->rc_min == line && g->rc_min == line);
	for (uint32_t i = 0; i < s->n_flows; i++)
		assert_true(s->flow_bps[i] >= 0.99 * line);
	assert_int_equal(g->drops, 0);
	assert_int_equal(g->undrained, 0);
	assert_true(g->drained >= 10);
	assert_true((double)g->drain_max_ns <= 3 * e.drain_ns);
	assert_true((double)g->queue_max >= e.backlog);
	assert_true((double)g->queue_max <= 3 * e.backlog);
	/* the plots' series of the gateway's queue has the same peak */
	assert_non_null(r->res.stats.gq_max);
	for (uint32_t b = 0; b < r->res.stats.n_bins; b++)
		peak = r->res.stats.gq_max[b] > peak ? r->res.stats.gq_max[b]
						     : peak;
	assert_true(peak == g->queue_max);

	snprintf(yaml, sizeof(yaml),
		 "line_rate: 25Mbit\nduration: 300ms\n"
		 "params: {min_bps: 100kbit, ai_bps: 40kbit, hai_bps: 200kbit, "
		 "alpha_ns: 55ms, inc_ns: 55ms, "
		 "np_interval_ns: 50ms}\n"
		 "bottleneck: {rate: 150Mbit, kmin: 30KB, kmax: 300KB, "
		 "pmax: 1%%, feedback_delay: 1ms}\n"
		 "gateway: {port: 150Mbit, poll: 50us, kmin: 30KB, "
		 "kmax: 300KB, pmax: 1%%, gaps: {length: 5ms, at: [100ms]}}\n"
		 "flows: [{count: 4}]\n");
	run_text(&one, yaml);
	e = gw_expect(&one.sc);
	print_gw("one stop", &one);
	g = &one.res.summary.gw;
	assert_int_equal(g->gaps, 1);
	assert_int_equal(g->marks, 0);
	assert_int_equal(g->drained, 1);
	assert_true((double)g->drain_max_ns >= 0.8 * e.drain_ns);
	assert_true((double)g->drain_max_ns <= 1.1 * e.drain_ns);
	assert_true((double)g->queue_max >= e.backlog);
	assert_true((double)g->queue_max <= e.backlog + 8 * 1000);
	run_free(&one);
}

/* Bound: the same stops with the gateway's port the bottleneck (100
 * Mbit/s of senders, a 50 Mbit/s port): the CP marks, the senders are
 * cut; side by side with the same run without stops, the stops add no
 * cut and the queue's peak grows by at most two stops' backlog; nothing
 * is dropped. */
static void test_gateway_congested(void **state)
{
	const struct run *r = cached("gateway-gaps-congested.yaml");
	const struct sim_summary *s = &r->res.summary;
	const struct gw_summary *g = &s->gw;
	struct gw_expect e = gw_expect(&r->sc);
	struct run ref;
	char err[512];
	FILE *f;

	print_gw("gateway-gaps-congested.yaml", r);
	assert_true(g->gaps >= 10);
	assert_true(g->marks > 0);
	assert_true(g->np_cnps > 0);
	assert_true(s->cnps_received > 0);
	assert_true(s->rc_min <= r->sc.params.line_bps / 2);
	assert_int_equal(g->drops, 0);
	assert_int_equal(g->undrained, 0);

	memset(&ref, 0, sizeof(ref));
	if (scenario_load_file(&ref.sc,
			       scenario_path("gateway-gaps-congested.yaml"),
			       err, sizeof(err)))
		fail_msg("%s", err);
	ref.sc.gateway.gap_ns = 0; /* no stops */
	f = open_memstream(&ref.csv, &ref.len);
	assert_non_null(f);
	if (sim_run(&ref.sc, f, &ref.res, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(fclose(f), 0);
	print_gw("without stops", &ref);
	assert_int_equal(ref.res.summary.gw.gaps, 0);
	assert_true(ref.res.summary.gw.marks > 0);
	assert_true(s->cnps_received <= ref.res.summary.cnps_received);
	assert_true((double)g->queue_max <=
		    (double)ref.res.summary.gw.queue_max + 2 * e.backlog);
	run_free(&ref);
}

static void test_units(void **state)
{
	double d;
	uint64_t u;
	uint32_t share;
	bool b;

	assert_int_equal(unit_rate("40Gbit", &d), 0);
	assert_true(d == 40e9);
	assert_int_equal(unit_rate("2.5gbit", &d), 0);
	assert_true(d == 2.5e9);
	assert_int_equal(unit_rate("100Mbit", &d), 0);
	assert_true(d == 100e6);
	assert_int_equal(unit_rate("0Gbit", &d), UNIT_ERANGE);
	assert_int_equal(unit_rate("11Tbit", &d), UNIT_ERANGE);
	assert_int_equal(unit_rate("40 Gbit", &d), UNIT_ESYNTAX);
	assert_int_equal(unit_rate("4e10", &d), UNIT_ESYNTAX);
	assert_int_equal(unit_rate("-1Gbit", &d), UNIT_ESYNTAX);
	assert_int_equal(unit_time("1.5ms", &u), 0);
	assert_true(u == 1500000);
	assert_int_equal(unit_time("55us", &u), 0);
	assert_true(u == 55000);
	assert_int_equal(unit_time("55\xc2\xb5s", &u), 0);
	assert_true(u == 55000);
	assert_int_equal(unit_time("300", &u), 0);
	assert_true(u == 300);
	assert_int_equal(unit_time("0.5ns", &u), UNIT_EFRACTION);
	assert_int_equal(unit_time("1001s", &u), UNIT_ERANGE);
	assert_int_equal(unit_time("05us", &u), UNIT_ESYNTAX);
	assert_int_equal(unit_time("1..5us", &u), UNIT_ESYNTAX);
	assert_int_equal(unit_time("1234567890123456789", &u), UNIT_ESYNTAX);
	assert_int_equal(unit_size("10MB", &u), 0);
	assert_true(u == 10000000);
	assert_int_equal(unit_size("64KiB", &u), 0);
	assert_true(u == 65536);
	assert_int_equal(unit_size("1.5B", &u), UNIT_EFRACTION);
	assert_int_equal(unit_prob("1%", &d, &share), 0);
	assert_true(d == 0.01);
	assert_int_equal(share, 655); /* 655.36 */
	assert_int_equal(unit_prob("0.5", &d, &share), 0);
	assert_int_equal(share, 32768);
	assert_int_equal(unit_prob("101%", &d, NULL), UNIT_ERANGE);
	assert_int_equal(unit_prob("1.5", &d, NULL), UNIT_ERANGE);
	assert_int_equal(unit_real("1/256", 1, &d), 0);
	assert_true(d == 0.00390625);
	assert_int_equal(unit_real("5/1024", 1, &d), 0);
	assert_true(d == 5.0 / 1024);
	assert_int_equal(unit_real("1/0", 1, &d), UNIT_ERANGE);
	assert_int_equal(unit_real("3/2", 1, &d), UNIT_ERANGE);
	assert_int_equal(unit_real("1/", 1, &d), UNIT_ESYNTAX);
	assert_int_equal(unit_count("1000", 1000, &u), 0);
	assert_int_equal(unit_count("1001", 1000, &u), UNIT_ERANGE);
	assert_int_equal(unit_count("1.0", 1000, &u), UNIT_ESYNTAX);
	assert_int_equal(unit_bool("Yes", &b), 0);
	assert_true(b);
	assert_int_equal(unit_bool("off", &b), 0);
	assert_false(b);
	assert_int_equal(unit_bool("maybe", &b), UNIT_ESYNTAX);
}

#define HEAD "line_rate: 40Gbit\nduration: 1ms\n"
#define LOOP                                                                   \
	"bottleneck: {rate: 40Gbit, kmin: 5KB, kmax: 200KB, pmax: 1%, "        \
	"feedback_delay: 50us}\n"
#define GW "gateway: {port: 50Gbit, kmin: 5KB, kmax: 200KB, pmax: 1%"

/* Every refusal: the message starts with "t:LINE:COL: " and names what. */
static void test_scenario_errors(void **state)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{"", "t:1:1: empty scenario"},
		{"- 1\n", "t:1:1: expected a mapping of scenario keys"},
		{HEAD "flows: [{cnp: [0us]}]\nbogus: 1\n",
		 "t:4:1: bogus: unknown key; one of: profile, line_rate, "},
		{"line_rate: 40Gbi\nduration: 1ms\nflows: [{}]\n",
		 "t:1:12: line_rate: expected a rate such as 40Gbit"},
		{"line_rate: 5GBps\nduration: 1ms\nflows: [{}]\n",
		 "t:1:12: line_rate: '5GBps' is bytes per second (40Gbit); "
		 "rates are in bits: write 40Gbit, or 5Gbit if bits were "
		 "meant"},
		{HEAD
		 "bottleneck: {rate: 40Gbit, kmin: 5Kb, kmax: 200KB, pmax: "
		 "1%, feedback_delay: 50us}\nflows: [{}]\n",
		 "t:3:34: bottleneck.kmin: '5Kb' is bits (625 bytes) but bytes "
		 "to tc (5KiB); sizes are in bytes: write 625 or 5KiB"},
		{"duration: 1ms\nflows: [{}]\n", "t:1:1: line_rate missing"},
		{"line_rate: 40Gbit\nflows: [{}]\n", "t:1:1: duration missing"},
		{HEAD "flows: [{cnp: [0us]}]\nprofile: dcqcn\n",
		 "t:4:10: profile: expected paper or connectx (got 'dcqcn')"},
		{"line_rate: 40Gbit\nduration: 1.5ns\nflows: [{}]\n",
		 "t:2:11: duration: expected a time such as 55us, 1.5ms or "
		 "300ns: not a whole number of the base unit (got '1.5ns')"},
		{HEAD "flows: [{count: 2}]\n",
		 "t:3:10: flows[0].count: only in a closed loop"},
		{HEAD LOOP "flows: [{cnp: [0us]}]\n",
		 "t:4:10: flows[0].cnp: only in a scripted scenario"},
		{HEAD "params: {foo: 1}\nflows: [{}]\n",
		 "t:3:10: params.foo: unknown key; one of: min_bps, ai_bps"},
		{HEAD "params: {line_bps: 1Gbit}\nflows: [{}]\n",
		 "t:3:10: params.line_bps: set by the top-level key line_rate"},
		{HEAD "params: {g: 2}\nflows: [{}]\n",
		 "t:3:13: params.g: expected a number from 0 to 1, such as 0.5 "
		 "or 1/256: out of range (got '2')"},
		{HEAD "params: {f: [1]}\nflows: [{}]\n",
		 "t:3:13: params.f: expected a whole number up to 1000 (got a "
		 "list)"},
		{"profile: connectx\n" HEAD "params: {byte_counter: 10MB}\n"
		 "flows: [{}]\n",
		 "t:4:9: params: DCQCN parameters refused: "},
		{HEAD "params: {inc_ns: 50ns}\nflows: [{}]\n",
		 "t:3:9: params: alpha_ns, inc_ns and dec_ns (unless 0) must "
		 "be "
		 "100 ns or more"},
		{HEAD
		 "bottleneck: {rate: 40Gbit, kmin: 5KB, kmax: 1KB, pmax: 1%, "
		 "feedback_delay: 50us}\nflows: [{}]\n",
		 "t:3:45: bottleneck.kmax: expected a size not below kmin"},
		{HEAD "bottleneck: {rate: 40Gbit}\nflows: [{}]\n",
		 "t:3:13: bottleneck: bottleneck.kmin missing"},
		{HEAD "flows: [{sent: [{at: 1us}]}]\n",
		 "t:3:17: flows[0].sent[0]: bytes missing"},
		{HEAD "flows: [{cnp: [2ms]}]\n",
		 "t:3:16: flows[0].cnp[0]: after the end of the run"},
		{HEAD "flows: [{start: 10us, marked: [5us]}]\n",
		 "t:3:32: flows[0].marked[0]: before the flow's start"},
		{HEAD "flows: []\n", "t:3:8: flows: no flows"},
		{HEAD "flows: [{}]\nduration: 2ms\n", "t:4:1: duration: "
						      "duplicate key (first "
						      "written at 2:1)"},
		{HEAD "flows: [{]\n", "t:3:10: flows[0]: YAML syntax error"},
		{HEAD "x: &a 1\nflows: [{cnp: [*a]}]\n",
		 "t:3:1: x: unknown key"},
		{HEAD "flows: [{cnp: [*a]}]\n",
		 "t:3:16: flows[0].cnp[0]: expected a time such as 55us, 1.5ms "
		 "or 300ns (got an alias (not supported))"},
		{HEAD "flows: [{}]\nflows[3]: {start: 1us}\n",
		 "t:4:1: key 'flows[3]' contains '.', '[' or ']'"},
		{"line_rate: 40Gbit\nduration: 1000s\n" LOOP
		 "flows: [{count: 1000}]\nsummary: {bin: 1s}\n",
		 "t:2:11: duration: the run would take about "},
		{"line_rate: 40Gbit\nduration: 150us\nflows: [{}]\n",
		 "t:2:11: duration: duration (150000 ns) is not a multiple of "
		 "summary.bin (100000 ns)"},
		{HEAD "flows: [{}]\nsummary: {window: 2ms}\n",
		 "t:4:19: summary.window: expected a time within the duration"},
		{HEAD "flows: [{}]\nsummary: {avg: 500us, hold: 700us}\n",
		 "t:4:29: summary.hold: must be a multiple of summary.avg "
		 "(500000 ns)"},
		{HEAD "flows: [{}]\nsummary: {avg: 0}\n",
		 "t:4:16: summary.avg: expected a time above 0"},
		{HEAD "packet: 10\n" LOOP "flows: [{}]\n",
		 "t:3:9: packet: expected a packet size from 64 to 65535 "
		 "bytes"},
		{HEAD "flows: [{cnp: [0us\xc3\xa9]}]\n",
		 "t:3:16: flows[0].cnp[0]: expected a time such as 55us, 1.5ms "
		 "or 300ns (got '0us?"
		 "?')"},
		{HEAD "gateway: {port: 1Gbit}\nflows: [{cnp: [0us]}]\n",
		 "t:3:1: gateway: only in a closed loop"},
		{HEAD LOOP "gateway: {kmin: 1KB, kmax: 2KB, pmax: 1%}\n"
			   "flows: [{}]\n",
		 "t:4:10: gateway: gateway.port missing"},
		{HEAD LOOP GW ", foo: 1}\nflows: [{}]\n",
		 "t:4:59: gateway.foo: unknown key; one of: port, poll, kmin, "
		 "kmax, pmax, buffer, gaps"},
		{HEAD LOOP GW ", poll: 10ns}\nflows: [{}]\n",
		 "t:4:65: gateway.poll: expected a time from 100ns to the "
		 "duration (got '10ns')"},
		{HEAD LOOP GW ", gaps: {mean_interval: 1ms}}\nflows: [{}]\n",
		 "t:4:65: gateway.gaps: gateway.gaps.length missing"},
		{HEAD LOOP GW ", gaps: {length: 5us, mean_interval: 1ms, at: "
			      "[0us]}}\nflows: [{}]\n",
		 "t:4:65: gateway.gaps: one of mean_interval"},
		{HEAD LOOP GW ", gaps: {length: 5us, at: [100us, 50us]}}\n"
			      "flows: [{}]\n",
		 "t:4:91: gateway.gaps.at[1]: expected a time after the one "
		 "before (got '50us')"},
		{HEAD LOOP GW ", gaps: {length: 5us, at: [100us, 102us]}}\n"
			      "flows: [{}]\n",
		 "t:4:91: gateway.gaps.at[1]: expected a time after the stop "
		 "before ends (got '102us')"},
		{HEAD LOOP "gateway: {port: 50Gbit, kmin: 5KB, kmax: 2KB, "
			   "pmax: 1%}\nflows: [{}]\n",
		 "t:4:42: gateway.kmax: expected a size not below kmin"},
		{HEAD LOOP GW ", gaps: {length: 0us, at: [100us]}}\n"
			      "flows: [{}]\n",
		 "t:4:74: gateway.gaps.length: expected a time above 0"},
		{HEAD LOOP GW ", gaps: {length: 1us, mean_interval: 1ns}}\n"
			      "flows: [{}]\n",
		 "t:4:65: gateway.gaps: more than 100000 gaps expected"},
		{HEAD LOOP GW ", gaps: {length: 1us, at: 5us}}\nflows: [{}]\n",
		 "t:4:83: gateway.gaps.at: expected a list of the times"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scenario sc;
		char err[512];
		int rc = scenario_load_buf(&sc, "t", cases[i].yaml,
					   strlen(cases[i].yaml), err,
					   sizeof(err));

		if (rc != -1)
			fail_msg("case %zu accepted:\n%s", i, cases[i].yaml);
		if (strncmp(err, cases[i].want, strlen(cases[i].want)))
			fail_msg("case %zu:\n got  %s\n want %s...", i, err,
				 cases[i].want);
		assert_null(sc.flows);
		assert_null(sc.inputs);
	}
}

/* A full scenario is read into the right fields, inputs by time. */
static void test_scenario_fields(void **state)
{
	static const char yaml[] =
		"profile: connectx\n"
		"line_rate: 25Gbit\n"
		"duration: 2ms\n"
		"seed: 7\n"
		"params: {min_bps: 10Mbit, ai_bps: 8Mbit, hai_bps: 80Mbit, "
		"g: 1/256, alpha_init: 0.5, alpha_ns: 2us, inc_ns: 100us, "
		"dec_ns: 8us, f: 2, min_dec_factor: 25%, clamp_always: true, "
		"clamp_after_inc: false, np_interval_ns: 10us, "
		"first_cnp_bps: 0, alpha_before_cut: false}\n"
		"flows:\n"
		"  - start: 100us\n"
		"    marked: [300us, 200us]\n"
		"    cnp: [200us]\n"
		"  - sent: [{at: 1ms, bytes: 1MB}]\n"
		"summary: {bin: 10us, window: 1ms, avg: 100us, hold: 500us, "
		"band: 5%, util_target: 90%}\n";
	const struct dcqcn_params *p;
	struct scenario sc;
	char err[512];

	if (scenario_load_buf(&sc, "t", yaml, strlen(yaml), err, sizeof(err)))
		fail_msg("%s", err);
	p = &sc.params;
	assert_int_equal(p->profile, DCQCN_CONNECTX);
	assert_true(p->line_bps == 25e9 && p->min_bps == 10e6);
	assert_true(p->ai_bps == 8e6 && p->hai_bps == 80e6);
	assert_true(p->g == 1.0 / 256 && p->alpha_init == 0.5);
	assert_true(p->alpha_ns == 2000 && p->inc_ns == 100000);
	assert_true(p->dec_ns == 8000 && p->f == 2);
	assert_true(p->min_dec_factor == 0.25);
	assert_true(p->clamp_always && !p->clamp_after_inc);
	assert_true(p->np_interval_ns == 10000);
	assert_true(sc.seed == 7 && sc.duration_ns == 2000000);
	assert_false(sc.closed_loop);
	assert_int_equal(sc.n_flows, 2);
	assert_true(sc.flows[0].start_ns == 100000 &&
		    sc.flows[1].start_ns == 0);
	assert_int_equal(sc.n_inputs, 4);
	/* by time; the CNP and the mark at 200 us in the written order */
	assert_true(sc.inputs[0].at_ns == 200000);
	assert_int_equal(sc.inputs[0].kind, SCN_IN_MARKED);
	assert_true(sc.inputs[1].at_ns == 200000);
	assert_int_equal(sc.inputs[1].kind, SCN_IN_CNP);
	assert_true(sc.inputs[2].at_ns == 300000);
	assert_true(sc.inputs[3].at_ns == 1000000);
	assert_int_equal(sc.inputs[3].kind, SCN_IN_SENT);
	assert_int_equal(sc.inputs[3].flow, 1);
	assert_true(sc.inputs[3].bytes == 1000000);
	assert_true(sc.summary.bin_ns == 10000 && sc.summary.avg_ns == 100000);
	assert_true(sc.summary.hold_ns == 500000 && sc.summary.band == 0.05);
	assert_true(sc.summary.util_target == 0.9);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_scenario_errors),
		cmocka_unit_test(test_scenario_fields),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_pacing),
		cmocka_unit_test(test_link_rate),
		cmocka_unit_test(test_step_response),
		cmocka_unit_test(test_np_coalescing),
		cmocka_unit_test(test_byte_counter),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_paper_2flows_fair),
		cmocka_unit_test(test_incast_8),
		cmocka_unit_test(test_incast_16),
		cmocka_unit_test(test_standing_queue),
		cmocka_unit_test(test_connectx_2flows),
		cmocka_unit_test(test_gateway_gaps),
		cmocka_unit_test(test_gateway_congested),
	};

	return cmocka_run_group_tests(tests, NULL, free_cache);
}
