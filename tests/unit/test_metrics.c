// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_metrics.c - the Prometheus exposition of a hand-made snapshot
 * (2 ports, 2 queues each, 3 classes each, counters above 2^53, names
 * that need escaping): exact sample lines, cumulative histogram buckets,
 * the _sum estimate, HELP/TYPE for every family and contiguous families,
 * hostile snapshots (unterminated names, invalid UTF-8, counts beyond the
 * arrays), the job table's families (a registered and a passive job,
 * the table's counters), and `promtool check metrics` (exit 0, no lint
 * output). promtool
 * comes with the Debian package `prometheus`; without it the test fails.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "gw_counters.h"
#include "metrics.h"
#include "snapshot.h"

#define TWO_POW_53_PLUS_1 9007199254740993ull

static void set_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

static void fill_class(struct snap_class *c, const char *name, uint32_t id,
		       uint64_t base)
{
	set_name(c->name, sizeof(c->name), name);
	c->id = id;
	c->level = id;
	c->quantum = 1500 + id;
	c->limit_bytes = 1000000;
	c->limit_packets = 4096;
	c->ecn = id == 1;
	c->s.enq_packets = base + 1;
	c->s.enq_bytes = base + 2;
	c->s.sent_packets = base + 3;
	c->s.sent_bytes = base + 4;
	c->s.drops[SCHED_DROP_QUEUE_BYTES] = base + 5;
	c->s.drops[SCHED_DROP_QUEUE_PACKETS] = base + 6;
	c->s.drops[SCHED_DROP_ECN_NONECT] = base + 7;
	c->s.drops[SCHED_DROP_INVALID] = base + 8;
	c->s.ecn_marks = base + 9;
	c->s.depth_packets = 10;
	c->s.depth_bytes = 15000;
}

/* The job table of make_snapshot(): static, as the snapshot is freed
 * with free() here. */
static _Alignas(
	struct snap_jobs) unsigned char jobs_buf[sizeof(struct snap_jobs) +
						 2 * sizeof(struct snap_job)];

static struct snap_jobs *make_jobs(void)
{
	struct snap_jobs *j = (struct snap_jobs *)jobs_buf;

	memset(jobs_buf, 0, sizeof(jobs_buf));
	j->mode = "observe";
	j->max_registered = 64;
	j->max_passive = 32;
	j->registered = j->passive = 1;
	j->hosts = 8;
	j->edges = 8;
	j->st.registered = 3;
	j->st.updated = 1;
	j->st.refused = 2;
	j->st.unregistered = 1;
	j->st.passive_created = 4;
	j->st.passive_merged = 1;
	j->st.passive_expired = 2;
	j->st.full_registered = 5;
	j->st.full_hosts = 6;
	j->st.observed_registered = TWO_POW_53_PLUS_1;
	j->st.observed_passive = 7;
	j->st.unmatched = 9;
	j->n = 2;
	set_name(j->job[0].id, sizeof(j->job[0].id), "slurm/4711");
	j->job[0].kind = JOB_REGISTERED;
	set_name(j->job[0].prio_class, sizeof(j->job[0].prio_class), "roce");
	set_name(j->job[1].id, sizeof(j->job[1].id), "passive-3");
	j->job[1].kind = JOB_PASSIVE;
	return j;
}

static struct stats_snapshot *make_snapshot(void)
{
	struct stats_snapshot *s = calloc(1, sizeof(*s));
	struct snap_port *p;

	assert_non_null(s);
	s->version = "0.1.0";
	s->start_unix = 1700000000.5;
	s->now_unix = 1700000012.75;
	s->uptime_s = 12.25;
	s->xdp_mode = "native";
	s->bind_mode = "copy";
	s->failure_mode = "fail-open";
	s->n_workers = 2;
	s->umem_frames = 8192;
	s->max_frame = 3498;
	s->reload.generation = 3;
	s->reload.attempts_total = 4;
	s->reload.failures_total = 1;
	s->reload.last_successful = false;
	s->reload.last_success_unix = 1700000100.25;
	s->workers[0].busy_ns = 1500000000;
	s->workers[0].idle_ns = 250000000;
	s->workers[0].sleep_ns = 200000000;
	s->workers[0].sleeps = 4321;
	s->workers[0].late_wakes = 12;
	s->workers[1].naps = 99;
	s->workers[1].loops = 77;
	s->cpu_seconds = 2.5;
	s->rss_bytes = 123456789;
	s->health.degraded = 1u << HEALTH_FAIL_OPEN;

	p = &s->ports[0];
	p->link_up = true;
	set_name(p->ifname, sizeof(p->ifname), "eth1");
	p->rate_bps = 100000000000ull;
	p->n_queues = 2;
	for (uint32_t q = 0; q < 2; q++) {
		p->q[q].queue = q;
		p->q[q].worker = (int)q;
		p->q[q].cpu = q ? -1 : 3;
	}
	p->q[0].s.rx_packets = UINT64_MAX;
	p->q[0].s.rx_bytes = 123456789012345ull;
	p->q[1].s.rx_packets = TWO_POW_53_PLUS_1;
	p->q[0].s.tx_packets = 7;
	p->q[0].s.drop_handoff_full = 11;
	p->q[1].s.drop_malformed = 12;
	p->q[1].s.malformed[PKT_MALFORMED_RUNT] = 13;
	p->q[0].s.xsk.rx_invalid_descs = 21;
	p->q[0].s.xsk.tx_invalid_descs = 22;
	p->q[1].s.xsk.rx_fill_ring_empty_descs = 23;
	p->s.verdicts[STEER_V_XSK] = 18446744073709551000ull;
	p->s.verdicts[STEER_V_FAILOPEN] = 5;
	p->n_classes = 3;
	fill_class(&p->cls[0], "cnp", 0, 100);
	fill_class(&p->cls[1], "ro\"ce\\x", 1, TWO_POW_53_PLUS_1);
	fill_class(&p->cls[2], "default", 2, 300);
	p->cls[0].ceil_bps = 5000000001ull; /* bits: 625000000.125 bytes */
	p->cls[1].min_bps = 8000;
	p->cls[0].s.sojourn[0] = 1;
	p->cls[0].s.sojourn[1] = 2;
	p->cls[0].s.sojourn[10] = 3;
	p->cls[0].s.sojourn[SCHED_HIST_BUCKETS - 1] = 4;
	p->cls[2].s.sojourn[5] = UINT64_MAX; /* cumulative saturates */
	p->cls[2].s.sojourn[6] = 9;
	/* adaptive egress on: queue 0 cutting, queue 1 without samples */
	for (uint32_t q = 0; q < 2; q++) {
		struct adaptive_view *v = &p->q[q].adaptive;

		v->on = 1;
		v->max_bps = 100000000000ull;
		v->floor_bps = 10000000000ull;
		v->target_ns = 500000;
		v->rate_bps = 100000000000ull;
		v->state = EDGE_NO_SAMPLES;
	}
	p->q[0].adaptive.state = EDGE_DRAIN;
	p->q[0].adaptive.rate_bps = 40000000000ull; /* 5e9 bytes/s */
	p->q[0].adaptive.base_rtt_ns = 20000;
	p->q[0].adaptive.srtt_ns = 120000;
	p->q[0].adaptive.qdelay_ns = 100000;
	p->q[0].adaptive.delivery_bps = 38000000000ull;
	p->q[0].adaptive.mark_ppm = 12500;
	p->q[0].adaptive.flows = 17;

	p = &s->ports[1];
	set_name(p->ifname, sizeof(p->ifname), "e\"t\\h\n2");
	p->rate_bps = 0; /* unshaped */
	p->n_queues = 2;
	for (uint32_t q = 0; q < 2; q++) {
		p->q[q].queue = q;
		p->q[q].worker = -1;
		p->q[q].cpu = -1;
	}
	p->q[1].s.tx_bytes = UINT64_MAX - 1;
	p->n_classes = 3;
	fill_class(&p->cls[0], "cnp", 0, 1000);
	fill_class(&p->cls[1], "roce", 1, 2000);
	fill_class(&p->cls[2], "default", 2, 3000);
	s->jobs = make_jobs();
	return s;
}

/* metrics_render() into a malloc'd NUL-terminated string. */
static char *render(const struct stats_snapshot *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(metrics_render(s, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	}
	return false;
}

#define assert_line(text, line)                                                \
	do {                                                                   \
		if (!has_line(text, line))                                     \
			fail_msg("missing line: %s", line);                    \
	} while (0)

static void test_exact_lines(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	char *t = render(s);
	struct utsname u;
	char line[256];

	assert_int_equal(uname(&u), 0);
	snprintf(line, sizeof(line),
		 "xdplane_build_info{version=\"0.1.0\",kernel=\"%s\"} 1",
		 u.release);
	assert_line(t, line);
	assert_line(t, "xdplane_start_time_seconds 1700000000.5");
	assert_line(t, "xdplane_uptime_seconds 12.25");
	assert_line(t, "xdplane_config_generation 3");
	assert_line(t, "xdplane_config_last_reload_successful 0");
	assert_line(t, "xdplane_config_last_reload_success_timestamp_seconds "
		       "1700000100.25");
	assert_line(t, "xdplane_config_reloads_total 4");
	assert_line(t, "xdplane_config_reload_failures_total 1");
	assert_line(t, "xdplane_port_info{port=\"eth1\",xdp_mode=\"native\","
		       "bind_mode=\"copy\",failure_mode=\"fail-open\"} 1");
	/* bits/s to bytes/s, exact; unshaped is +Inf */
	assert_line(t, "xdplane_port_rate_bytes_per_second{port=\"eth1\"} "
		       "12500000000");
	assert_line(t, "xdplane_port_rate_bytes_per_second{port=\"e\\\"t\\\\h"
		       "\\n2\"} +Inf");
	assert_line(t, "xdplane_xdp_verdicts_total{port=\"eth1\","
		       "verdict=\"xsk\"} 18446744073709551000");
	assert_line(t, "xdplane_xdp_verdicts_total{port=\"eth1\","
		       "verdict=\"failopen_redirect\"} 5");
	assert_line(t, "xdplane_queue_info{port=\"eth1\",queue=\"0\","
		       "worker=\"0\",cpu=\"3\"} 1");
	assert_line(t, "xdplane_queue_info{port=\"eth1\",queue=\"1\","
		       "worker=\"1\",cpu=\"\"} 1");
	/* u64 counters are exact, not %g */
	assert_line(t, "xdplane_rx_packets_total{port=\"eth1\",queue=\"0\"} "
		       "18446744073709551615");
	assert_line(t, "xdplane_rx_packets_total{port=\"eth1\",queue=\"1\"} "
		       "9007199254740993");
	assert_line(t, "xdplane_rx_bytes_total{port=\"eth1\",queue=\"0\"} "
		       "123456789012345");
	assert_line(t, "xdplane_tx_bytes_total{port=\"e\\\"t\\\\h\\n2\","
		       "queue=\"1\"} 18446744073709551614");
	assert_line(t, "xdplane_drops_total{port=\"eth1\",queue=\"0\","
		       "reason=\"handoff_full\"} 11");
	assert_line(t, "xdplane_drops_total{port=\"eth1\",queue=\"1\","
		       "reason=\"malformed\"} 12");
	assert_line(t, "xdplane_malformed_packets_total{port=\"eth1\","
		       "queue=\"1\",reason=\"runt\"} 13");
	assert_line(t, "xdplane_xsk_invalid_descs_total{port=\"eth1\","
		       "queue=\"0\",direction=\"rx\"} 21");
	assert_line(t, "xdplane_xsk_invalid_descs_total{port=\"eth1\","
		       "queue=\"0\",direction=\"tx\"} 22");
	assert_line(t, "xdplane_xsk_fill_ring_empty_total{port=\"eth1\","
		       "queue=\"1\"} 23");
	/* classes, with an escaped class name */
	assert_line(t, "xdplane_class_info{port=\"eth1\",class=\"ro\\\"ce"
		       "\\\\x\",level=\"1\",ecn=\"true\"} 1");
	assert_line(t, "xdplane_class_enqueued_packets_total{port=\"eth1\","
		       "class=\"ro\\\"ce\\\\x\"} 9007199254740994");
	assert_line(t, "xdplane_class_sent_bytes_total{port=\"eth1\","
		       "class=\"cnp\"} 104");
	assert_line(t, "xdplane_class_drops_total{port=\"eth1\","
		       "class=\"cnp\",reason=\"queue_bytes\"} 105");
	assert_line(t, "xdplane_class_drops_total{port=\"eth1\","
		       "class=\"cnp\",reason=\"invalid\"} 108");
	assert_line(t, "xdplane_class_ecn_marked_total{port=\"e\\\"t\\\\h"
		       "\\n2\",class=\"roce\"} 2009");
	assert_line(t, "xdplane_class_queue_bytes{port=\"eth1\","
		       "class=\"cnp\"} 15000");
	assert_line(t, "xdplane_class_ceil_bytes_per_second{port=\"eth1\","
		       "class=\"cnp\"} 625000000.125");
	assert_line(t, "xdplane_class_ceil_bytes_per_second{port=\"eth1\","
		       "class=\"default\"} +Inf");
	assert_line(t, "xdplane_class_min_bytes_per_second{port=\"eth1\","
		       "class=\"ro\\\"ce\\\\x\"} 1000");
	assert_line(t, "xdplane_class_min_bytes_per_second{port=\"eth1\","
		       "class=\"cnp\"} 0");
	/* health, the workers' loops, the process */
	assert_line(t, "xdplane_up 1");
	assert_line(t, "xdplane_port_up{port=\"eth1\"} 1");
	assert_line(t, "xdplane_port_up{port=\"e\\\"t\\\\h\\n2\"} 0");
	assert_line(t, "xdplane_degraded{reason=\"fail_open\"} 1");
	assert_line(t, "xdplane_degraded{reason=\"worker_stalled\"} 0");
	assert_line(t, "xdplane_degraded{reason=\"reload_failed\"} 0");
	assert_line(t, "xdplane_worker_busy_seconds_total{worker=\"0\"} 1.5");
	assert_line(t, "xdplane_worker_idle_seconds_total{worker=\"0\"} 0.25");
	assert_line(t, "xdplane_worker_loops_total{worker=\"1\"} 77");
	assert_line(t, "xdplane_worker_sleep_seconds_total{worker=\"0\"} 0.2");
	assert_line(t, "xdplane_worker_sleeps_total{worker=\"0\"} 4321");
	assert_line(t, "xdplane_worker_late_wakes_total{worker=\"0\"} 12");
	assert_line(t, "xdplane_worker_spin_waits_total{worker=\"1\"} 0");
	assert_line(t, "xdplane_worker_naps_total{worker=\"1\"} 99");
	assert_line(t, "process_cpu_seconds_total 2.5");
	assert_line(t, "process_resident_memory_bytes 123456789");
	/* no raw newline or unescaped quote leaked from the names */
	assert_null(strstr(t, "h\n2"));
	free(t);
	free(s);
}

/* The value of the sample line that starts with `key` (name and
 * labels); fails when there is none. */
static double sample_value(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	fail_msg("no sample %s", key);
	return 0;
}

#define assert_near(text, key, want)                                           \
	do {                                                                   \
		double got_ = sample_value(text, key);                         \
		if (!(got_ >= (want) * (1 - 1e-12) &&                          \
		      got_ <= (want) * (1 + 1e-12)))                           \
			fail_msg("%s is %.17g, not %.17g", key, got_,          \
				 (double)(want));                              \
	} while (0)

/* Adaptive egress (render_adaptive): on for eth1, whose queue 0 cuts
 * (drain) and whose queue 1 has no samples (at ports[].rate); off for the
 * other port, whose state samples are all 0. */
static void test_adaptive(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	char *t = render(s);
	char line[256];

#define Q0 "{port=\"eth1\",queue=\"0\"}"
#define P2 "port=\"e\\\"t\\\\h\\n2\""
	assert_line(t, "xdplane_adaptive_enabled{port=\"eth1\"} 1");
	assert_line(t, "xdplane_adaptive_enabled{" P2 "} 0");
	for (int st = 0; st < EDGE_STATES; st++) {
		snprintf(line, sizeof(line),
			 "xdplane_adaptive_state{port=\"eth1\",queue=\"0\","
			 "state=\"%s\"} %d",
			 edge_rate_state_name(st), st == EDGE_DRAIN);
		assert_line(t, line);
		snprintf(line, sizeof(line),
			 "xdplane_adaptive_state{port=\"eth1\",queue=\"1\","
			 "state=\"%s\"} %d",
			 edge_rate_state_name(st), st == EDGE_NO_SAMPLES);
		assert_line(t, line);
		snprintf(line, sizeof(line),
			 "xdplane_adaptive_state{" P2 ",queue=\"0\","
			 "state=\"%s\"} 0",
			 edge_rate_state_name(st));
		assert_line(t, line);
	}
	assert_line(t, "xdplane_adaptive_state{port=\"eth1\",queue=\"0\","
		       "state=\"drain\"} 1");
	/* bits/s as bytes/s, ns as seconds, ppm as a ratio */
	assert_line(t,
		    "xdplane_adaptive_rate_bytes_per_second" Q0 " 5000000000");
	assert_line(t, "xdplane_adaptive_rate_bytes_per_second{port=\"eth1\","
		       "queue=\"1\"} 12500000000");
	assert_line(t, "xdplane_adaptive_delivery_bytes_per_second" Q0
		       " 4750000000");
	assert_near(t, "xdplane_adaptive_base_rtt_seconds" Q0, 20e-6);
	assert_near(t, "xdplane_adaptive_srtt_seconds" Q0, 120e-6);
	assert_near(t, "xdplane_adaptive_queue_delay_seconds" Q0, 100e-6);
	assert_near(t, "xdplane_adaptive_marked_ratio" Q0, 0.0125);
	assert_line(t, "xdplane_adaptive_flows" Q0 " 17");
	/* off: the gauges are there, at 0 */
	assert_line(t, "xdplane_adaptive_rate_bytes_per_second{" P2
		       ",queue=\"1\"} 0");
#undef Q0
#undef P2
	free(t);
	free(s);
}

static void test_histogram(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	char *t = render(s);
	const char *sum_line;
	double sum, want;

#define B(le, v)                                                               \
	"xdplane_class_sojourn_seconds_bucket{port=\"eth1\",class=\"cnp\","    \
	"le=\"" le "\"} " v
	assert_line(t, B("1e-06", "1"));
	assert_line(t, B("2e-06", "3"));
	assert_line(t, B("4e-06", "3"));
	assert_line(t, B("0.000512", "3"));
	assert_line(t, B("0.001024", "6"));
	assert_line(t, B("536.870912", "6"));
	assert_line(t, B("1073.741824", "6"));
	assert_line(t, B("+Inf", "10"));
#undef B
	assert_line(t, "xdplane_class_sojourn_seconds_count{port=\"eth1\","
		       "class=\"cnp\"} 10");
	/* saturating cumulative counts stay monotonic */
	assert_line(t, "xdplane_class_sojourn_seconds_bucket{port=\"eth1\","
		       "class=\"default\",le=\"1.6e-05\"} 0");
	assert_line(t,
		    "xdplane_class_sojourn_seconds_bucket{port=\"eth1\","
		    "class=\"default\",le=\"3.2e-05\"} 18446744073709551615");
	assert_line(t,
		    "xdplane_class_sojourn_seconds_bucket{port=\"eth1\","
		    "class=\"default\",le=\"6.4e-05\"} 18446744073709551615");
	/* sum estimate: midpoints 0.5, 1.5, 768 us and 2^30 us (open) */
	sum_line = strstr(t, "xdplane_class_sojourn_seconds_sum{port=\"eth1\","
			     "class=\"cnp\"} ");
	assert_non_null(sum_line);
	sum = strtod(strchr(sum_line, '}') + 2, NULL);
	want = 1 * 0.5e-6 + 2 * 1.5e-6 + 3 * 768e-6 + 4 * 1073.741824;
	assert_true(sum > want * (1 - 1e-12) && sum < want * (1 + 1e-12));
	/* 31 finite bounds + +Inf per class, 6 classes */
	{
		size_t n = 0;

		for (const char *p = t;
		     (p = strstr(p, "\nxdplane_class_sojourn_seconds_bucket{"));
		     p++)
			n++;
		assert_int_equal(n, 6 * SCHED_HIST_BUCKETS);
	}
	free(t);
	free(s);
}

/* Name of the family a sample line belongs to, given the TYPE of the
 * current family (histogram samples carry suffixes). */
static void family_of(const char *line, const char *cur, const char *type,
		      char *out, size_t size)
{
	size_t n = strcspn(line, "{ ");
	size_t cl = strlen(cur);

	snprintf(out, size, "%.*s", (int)n, line);
	if (strcmp(type, "histogram") == 0 && n > cl &&
	    strncmp(line, cur, cl) == 0 &&
	    (strcmp(out + cl, "_bucket") == 0 ||
	     strcmp(out + cl, "_sum") == 0 || strcmp(out + cl, "_count") == 0))
		out[cl] = '\0';
}

/* Families of the counter schema: distinct names over its rows. */
static size_t schema_families(void)
{
	const struct gw_counter *t[2] = {gw_port_counters, gw_class_counters};
	const size_t n[2] = {gw_n_port_counters, gw_n_class_counters};
	size_t families = 0;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < n[k]; i++)
			families += i == 0 ||
				    strcmp(t[k][i].prom, t[k][i - 1].prom) != 0;
	return families;
}

/* Samples of the counter schema for that many queues, ports and classes
 * in all. */
static size_t schema_samples(size_t queues, size_t ports, size_t classes)
{
	size_t samples = 0;

	for (size_t i = 0; i < gw_n_port_counters; i++) {
		const struct gw_counter *c = &gw_port_counters[i];
		const struct gw_dim_info *d = gw_dim_info(c->dim);

		samples += (d->n - d->first) *
			   (c->scope == GW_SCOPE_QUEUE ? queues : ports);
	}
	for (size_t i = 0; i < gw_n_class_counters; i++) {
		const struct gw_counter *c = &gw_class_counters[i];
		const struct gw_dim_info *d = gw_dim_info(c->dim);

		samples += classes * (c->type == GW_TYPE_HISTOGRAM
					      ? SCHED_HIST_BUCKETS + 2
					      : d->n - d->first);
	}
	return samples;
}

/* Every family: HELP then TYPE, then its samples, contiguous, never seen
 * again; every line ends in \n. */
static void test_families_well_formed(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	char *t = render(s), *save = NULL, *line;
	char cur[128] = "", type[16] = "", fam[128], seen[8192] = " ";
	size_t families = 0, samples = 0;

	assert_int_equal(t[strlen(t) - 1], '\n');
	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (sscanf(line, "# HELP %127s", name) == 1) {
			char key[132];

			snprintf(key, sizeof(key), " %s ", name);
			if (strstr(seen, key))
				fail_msg("family %s appears twice", name);
			assert_true(strlen(seen) + strlen(key) < sizeof(seen));
			strcat(seen, key + 1);
			snprintf(cur, sizeof(cur), "%s", name);
			type[0] = '\0';
			families++;
			continue;
		}
		if (sscanf(line, "# TYPE %127s %15s", name, type) == 2) {
			assert_string_equal(name, cur);
			continue;
		}
		assert_int_not_equal(line[0], '#');
		assert_true(type[0] != '\0'); /* TYPE before samples */
		family_of(line, cur, type, fam, sizeof(fam));
		if (strcmp(fam, cur) != 0)
			fail_msg("sample of %s inside family %s", fam, cur);
		samples++;
	}
	/* Not counters: 13 process/config (multibuf, max_frags) + port
	 * info and rate + queue info + class info and 5 class settings =
	 * 22 families; then one per family of the counter schema
	 * (gw_counters.def: 61 today -- 19 queue, 20 DCQCN, 13 PFC, the XDP
	 * verdicts, 8 class -- so 83 in all). */
	/* and 8 of health (health.h), the workers' loops and the
	 * process: xdplane_up, _port_up, _degraded, _worker_busy/idle/
	 * loops, process_cpu_seconds_total, process_resident_memory_bytes;
	 * and 5 of the workers' sleeps (_sleep_seconds, _sleeps, _naps,
	 * _late_wakes, _spin_waits) */
	/* and 9 of adaptive egress (render_adaptive): _enabled per port,
	 * _state per queue and state, 7 gauges per queue */
	/* and 9 of the job table (render_jobs): _job_info, _jobs,
	 * _job_slots, _job_hosts and 5 counter families */
	assert_int_equal(families, 22 + 8 + 5 + 9 + 9 + schema_families());
	/* 13 + ports (2 info, 2 rate) + 4 queues * 1 info + 6 classes * (1
	 * info + 5 settings), then the schema's: per element of each row,
	 * per queue (4) or per port (2) or per class (6); a histogram has
	 * SCHED_HIST_BUCKETS buckets (+Inf the last), _sum and _count. */
	assert_int_equal(samples, 13 + 4 + 4 + 6 * 6 + schema_samples(4, 2, 6) +
					  1 + 2 + HEALTH_N_REASONS + 8 * 2 + 2 +
					  2 + 4 * EDGE_STATES + 7 * 4 +
					  /* jobs: 2 jobs, 2 + 2 + 1 counts,
					   * 14 counters */
					  2 + 5 + 14);
	/* and never fewer than today: a counter leaves no output silently
	 * (adding one is a row of the schema, and nothing here) */
	assert_true(families >= 83);
	assert_true(samples >= 13 + 4 + 2 * STEER_V_MAX + 2 * (5 + 8 * 8) +
				       4 * (1 + 15 + 20 + 9 + 2 +
					    (PKT_MALFORMED_MAX - 1)) +
				       6 * (1 + 12 + (SCHED_DROP_REASONS - 1) +
					    SCHED_HIST_BUCKETS + 2));
	free(t);
	free(s);
}

/* Unterminated names, invalid UTF-8, NULL strings, counts beyond the
 * arrays: rendered without reading past anything. */
static void test_hostile_snapshot(void **state)
{
	struct stats_snapshot *s = calloc(1, sizeof(*s));
	char *t, *text = NULL, line[256];
	struct utsname u;
	size_t len;
	FILE *f;

	assert_non_null(s);
	memset(s->ports[0].ifname, 'a', sizeof(s->ports[0].ifname));
	memcpy(s->ports[1].ifname, "x\xff\xc3\xa9\xed\xa0\x80y", 9);
	s->ports[0].n_queues = 1000;
	s->ports[0].n_classes = 1000;
	memset(s->ports[0].cls[0].name, 'c', sizeof(s->ports[0].cls[0].name));
	t = render(s);
	/* 16 a's and nothing after; \xff and the surrogate become U+FFFD */
	assert_line(t, "xdplane_port_rate_bytes_per_second{port="
		       "\"aaaaaaaaaaaaaaaa\"} +Inf");
	assert_line(t, "xdplane_port_rate_bytes_per_second{port=\"x\xef\xbf"
		       "\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdy\"} "
		       "+Inf");
	/* NULL strings render as "" */
	assert_int_equal(uname(&u), 0);
	snprintf(line, sizeof(line),
		 "xdplane_build_info{version=\"\",kernel=\"%s\"} 1", u.release);
	assert_line(t, line);
	assert_line(t, "xdplane_port_info{port=\"aaaaaaaaaaaaaaaa\","
		       "xdp_mode=\"\",bind_mode=\"\",failure_mode=\"\"} 1");
	assert_line(t, "xdplane_rx_packets_total{port=\"aaaaaaaaaaaaaaaa\","
		       "queue=\"0\"} 0");
	{
		size_t n = 0;

		for (const char *p = t;
		     (p = strstr(p, "\nxdplane_rx_packets_total{")); p++)
			n++;
		assert_int_equal(n, GW_MAX_QUEUES);
		n = 0;
		for (const char *p = t;
		     (p = strstr(p, "\nxdplane_class_queue_bytes{")); p++)
			n++;
		assert_int_equal(n, QOS_MAX_CLASSES);
	}
	free(t);

	assert_int_equal(metrics_render(NULL, stdout), -EINVAL);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(metrics_render(s, NULL), -EINVAL);
	fclose(f);
	free(text);
	free(s);
}

/* A write error is reported, not ignored. */
static void test_write_error(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		fail_msg("cannot open /dev/full: %s", strerror(errno));
	assert_int_equal(metrics_render(s, f), -EIO);
	fclose(f);
	free(s);
}

static void test_promtool(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	char path[] = "/tmp/test_metrics.XXXXXX", cmd[256], out[4096];
	char *t = render(s);
	size_t got = 0, n;
	int fd, status;
	FILE *p;

	if (system("command -v promtool >/dev/null 2>&1") != 0)
		fail_msg("promtool not found: .ci/deps fetches it (from the "
			 "Debian package prometheus, not installed)");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, t, strlen(t)), (ssize_t)strlen(t));
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(out + got, 1, sizeof(out) - 1 - got, p)) > 0)
		got += n;
	out[got] = '\0';
	status = pclose(p);
	unlink(path);
	if (status != 0 || got != 0)
		fail_msg("promtool check metrics: status %d, output:\n%s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
	free(t);
	free(s);
}

/* The job table: a series per job, its counts and counters, exactly; no
 * job family without a table (jobs.mode off). */
static void test_jobs(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	char *t = render(s);

	(void)state;
	assert_line(t, "# TYPE xdplane_job_info gauge");
	assert_line(t,
		    "xdplane_job_info{job=\"slurm/4711\",source=\"registered\","
		    "class=\"roce\"} 1");
	assert_line(t, "xdplane_job_info{job=\"passive-3\",source=\"passive\","
		       "class=\"\"} 1");
	assert_line(t, "xdplane_jobs{source=\"registered\"} 1");
	assert_line(t, "xdplane_jobs{source=\"passive\"} 1");
	assert_line(t, "xdplane_job_slots{source=\"passive\"} 32");
	assert_line(t, "xdplane_job_hosts 8");
	assert_line(t, "# TYPE xdplane_job_registrations_total counter");
	assert_line(t, "xdplane_job_registrations_total{result=\"new\"} 3");
	assert_line(t, "xdplane_job_registrations_total{result=\"updated\"} 1");
	assert_line(t, "xdplane_job_registrations_total{result=\"refused\"} 2");
	assert_line(t, "xdplane_job_unregistrations_total 1");
	assert_line(t, "xdplane_job_passive_total{event=\"created\"} 4");
	assert_line(t, "xdplane_job_passive_total{event=\"merged\"} 1");
	assert_line(t, "xdplane_job_passive_total{event=\"expired\"} 2");
	assert_line(t, "xdplane_job_table_full_total{table=\"registered\"} 5");
	assert_line(t, "xdplane_job_table_full_total{table=\"passive\"} 0");
	assert_line(t, "xdplane_job_table_full_total{table=\"hosts\"} 6");
	assert_line(t, "xdplane_job_flows_total{job_source=\"registered\"} "
		       "9007199254740993");
	assert_line(t, "xdplane_job_flows_total{job_source=\"none\"} 9");
	free(t);
	s->jobs = NULL;
	t = render(s);
	if (strstr(t, "xdplane_job"))
		fail_msg("a job family without a job table");
	free(t);
	free(s);
}

/* --render: the exposition of the test's snapshot on stdout, for the
 * check that the alerting rules and the dashboard name only metrics the
 * daemon exports (tests/tools/check_monitoring.py). */
int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--render")) {
		struct stats_snapshot *s = make_snapshot();
		char *t = render(s);

		fputs(t, stdout);
		free(t);
		free(s);
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_lines),
		cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_families_well_formed),
		cmocka_unit_test(test_hostile_snapshot),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_promtool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
