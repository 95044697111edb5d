// SPDX-License-Identifier: BSD-2-Clause
/*
 * metrics.c - Prometheus text exposition of a stats_snapshot. The metric
 * set, naming rules and special values are documented in metrics.h.
 *
 * Structure: one function per group of families (process, config, port,
 * queue, class); each family is written by one loop so its samples stay
 * contiguous. Every counter of a port, queue, class and XDP verdict is a
 * row of the gateway's counter schema (gw_counters.def, as data in
 * gw_port_counters[] and gw_class_counters[]): its family, type, HELP,
 * labels and unit come from the row, so a new counter is one row there.
 * What is written by hand here is what is not a counter: the process,
 * the configuration, the *_info gauges, the class settings, and the job
 * table's families (its counters are struct job_table_stats, job_table.h;
 * rendered only when the snapshot has a table, jobs.mode not off).
 *
 * Output errors are not checked per line: the stream's error flag is
 * sticky, metrics_render() checks it once at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "gw_counters.h"
#include "metrics.h"
#include "snapshot.h"

/* Longest label set of any family (port, queue, reason / le ...). */
#define MAX_LABELS 4

struct label {
	const char *key;
	const char *value; /* NULL renders as "" */
	size_t max; /* read at most this many bytes of value */
};

/* A label value from a NUL-terminated string of unknown length. */
#define LABEL(k, v) ((struct label){.key = (k), .value = (v), .max = SIZE_MAX})
/* A label value from a fixed-size char array, maybe not NUL-terminated. */
#define LABEL_ARRAY(k, arr)                                                    \
	((struct label){.key = (k), .value = (arr), .max = sizeof(arr)})

/* Length of a valid UTF-8 sequence at s[0..n), 0 if it is not one
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_sequence_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void put_label_value(FILE *out, const char *value, size_t max)
{
	const unsigned char *s = (const unsigned char *)(value ? value : "");
	size_t n = strnlen((const char *)s, max);

	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence_len(s + i, n - i);

		if (len == 0) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			i++;
			continue;
		}
		if (s[i] == '\\')
			fputs("\\\\", out);
		else if (s[i] == '"')
			fputs("\\\"", out);
		else if (s[i] == '\n')
			fputs("\\n", out);
		else
			fwrite(s + i, 1, len, out);
		i += len;
	}
}

/* "NaN", "+Inf", "-Inf" or the shortest %g that reads back exactly. */
static void format_double(char *buf, size_t size, double v)
{
	if (isnan(v)) {
		snprintf(buf, size, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, "%s", v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void family(FILE *out, const char *name, const char *type,
		   const char *help)
{
	/* help texts are constants of this file: no \ or newline to escape */
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_name(FILE *out, const char *name, const struct label *l,
			size_t n)
{
	fputs(name, out);
	if (!n)
		return;
	fputc('{', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", l[i].key);
		put_label_value(out, l[i].value, l[i].max);
		fputc('"', out);
	}
	fputc('}', out);
}

static void sample_u64(FILE *out, const char *name, const struct label *l,
		       size_t n, uint64_t v)
{
	sample_name(out, name, l, n);
	fprintf(out, " %" PRIu64 "\n", v);
}

static void sample_double(FILE *out, const char *name, const struct label *l,
			  size_t n, double v)
{
	char buf[40];

	format_double(buf, sizeof(buf), v);
	sample_name(out, name, l, n);
	fprintf(out, " %s\n", buf);
}

/* bits/s as bytes/s, exact: "+Inf" for 0 when zero_is_unlimited. */
static void sample_rate(FILE *out, const char *name, const struct label *l,
			size_t n, uint64_t bits_per_second,
			int zero_is_unlimited)
{
	unsigned int frac = (unsigned int)(bits_per_second % 8) * 125;
	int digits = 3;

	sample_name(out, name, l, n);
	if (!bits_per_second && zero_is_unlimited) {
		fputs(" +Inf\n", out);
		return;
	}
	fprintf(out, " %" PRIu64, bits_per_second / 8);
	if (frac) {
		while (frac % 10 == 0)
			frac /= 10, digits--;
		fprintf(out, ".%0*u", digits, frac);
	}
	fputc('\n', out);
}

static uint32_t port_queues(const struct snap_port *p)
{
	return p->n_queues < GW_MAX_QUEUES ? p->n_queues : GW_MAX_QUEUES;
}

static uint32_t port_classes(const struct snap_port *p)
{
	return p->n_classes < QOS_MAX_CLASSES ? p->n_classes : QOS_MAX_CLASSES;
}

static uint64_t field_u64(const void *base, size_t offset)
{
	uint64_t v;

	memcpy(&v, (const char *)base + offset, sizeof(v));
	return v;
}

static void render_process(FILE *out, const struct stats_snapshot *s)
{
	struct utsname u;
	struct label l[2];

	if (uname(&u))
		u.release[0] = '\0';
	family(out, "xdplane_build_info", "gauge",
	       "Always 1; the daemon version and the running kernel release.");
	l[0] = LABEL("version", s->version);
	l[1] = LABEL_ARRAY("kernel", u.release);
	sample_u64(out, "xdplane_build_info", l, 2, 1);

	family(out, "xdplane_start_time_seconds", "gauge",
	       "Start time of the process, seconds since the Unix epoch.");
	sample_double(out, "xdplane_start_time_seconds", NULL, 0,
		      s->start_unix);
	family(out, "xdplane_uptime_seconds", "gauge",
	       "Seconds since the process started.");
	sample_double(out, "xdplane_uptime_seconds", NULL, 0, s->uptime_s);

	family(out, "xdplane_workers", "gauge", "Worker threads running.");
	sample_u64(out, "xdplane_workers", NULL, 0, s->n_workers);
	family(out, "xdplane_umem_frames", "gauge",
	       "Frames in the shared UMEM.");
	sample_u64(out, "xdplane_umem_frames", NULL, 0, s->umem_frames);
	family(out, "xdplane_max_frame_bytes", "gauge",
	       "Largest frame a socket can receive.");
	sample_u64(out, "xdplane_max_frame_bytes", NULL, 0, s->max_frame);
	family(out, "xdplane_multibuf", "gauge",
	       "1 when AF_XDP multi-buffer is on: frames larger than one UMEM "
	       "frame cross as chains of frames.");
	sample_u64(out, "xdplane_multibuf", NULL, 0, s->multibuf);
	family(out, "xdplane_max_frags", "gauge",
	       "UMEM frames a packet may take, at most (1: single-buffer).");
	sample_u64(out, "xdplane_max_frags", NULL, 0, s->max_frags);
}

/* Health (health.h), the workers' loops, the process's resources. */
/* The per-worker families (struct snap_worker's counters). */
struct worker_family {
	const char *name, *help;
	size_t off; /* a uint64_t of struct snap_worker */
	bool seconds; /* nanoseconds, exported in seconds */
};

static const struct worker_family worker_families[] = {
	{"xdplane_worker_busy_seconds_total",
	 "Time the worker's loop spent in passes that moved something (a "
	 "polling worker's CPU time is always 100 %: this is its load).",
	 offsetof(struct snap_worker, busy_ns), true},
	{"xdplane_worker_idle_seconds_total",
	 "Time the worker's loop spent in passes that found nothing to do, "
	 "spinning or asleep.",
	 offsetof(struct snap_worker, idle_ns), true},
	{"xdplane_worker_sleep_seconds_total",
	 "Of the idle time, the time the worker slept in ppoll (off the CPU); "
	 "the worker's CPU share is 1 - sleep / (busy + idle).",
	 offsetof(struct snap_worker, sleep_ns), true},
	{"xdplane_worker_sleeps_total",
	 "Times the worker went to sleep in ppoll.",
	 offsetof(struct snap_worker, sleeps), false},
	{"xdplane_worker_naps_total",
	 "Of the sleeps, naps after work (poll.coalesce_us): timed, not "
	 "ended by arriving frames.",
	 offsetof(struct snap_worker, naps), false},
	{"xdplane_worker_late_wakes_total",
	 "Timed sleeps whose timer a shaped frame's deadline set that ended "
	 "later than the margin the worker allowed: the shaped frame left "
	 "late.",
	 offsetof(struct snap_worker, late_wakes), false},
	{"xdplane_worker_spin_waits_total",
	 "Shaper deadlines closer than the wake-up margin, waited for by "
	 "spinning.",
	 offsetof(struct snap_worker, spin_waits), false},
	{"xdplane_worker_loops_total",
	 "Passes of the worker's loop (its heartbeat: an idle worker still "
	 "turns once a second).",
	 offsetof(struct snap_worker, loops), false},
};

static void render_health(FILE *out, const struct stats_snapshot *s)
{
	uint32_t nw = s->n_workers < SNAP_MAX_WORKERS ? s->n_workers
						      : SNAP_MAX_WORKERS;
	struct label l[1];
	char wbuf[16];

	family(out, "xdplane_up", "gauge",
	       "Always 1 while the daemon answers: it runs and forwards (see "
	       "xdplane_degraded for how well).");
	sample_u64(out, "xdplane_up", NULL, 0, 1);
	family(out, "xdplane_port_up", "gauge",
	       "1 when the port's link is up and running, 0 when it is down "
	       "or its interface vanished.");
	for (int p = 0; p < GW_PORTS; p++) {
		l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
		sample_u64(out, "xdplane_port_up", l, 1,
			   s->ports[p].link_up && !s->ports[p].gone);
	}
	family(out, "xdplane_degraded", "gauge",
	       "1 while the reason holds (then /healthz answers 503): "
	       "worker_stalled, port_down, port_gone, fail_open, "
	       "queue_without_socket, reload_failed.");
	for (int r = 0; r < HEALTH_N_REASONS; r++) {
		l[0] = LABEL("reason", health_reason_name(r));
		sample_u64(out, "xdplane_degraded", l, 1,
			   !!(s->health.degraded & (1u << r)));
	}

	for (size_t k = 0;
	     k < sizeof(worker_families) / sizeof(worker_families[0]); k++) {
		const struct worker_family *f = &worker_families[k];

		family(out, f->name, "counter", f->help);
		for (uint32_t i = 0; i < nw; i++) {
			const uint64_t *v =
				(const uint64_t *)((const char *)&s
							   ->workers[i] +
						   f->off);

			snprintf(wbuf, sizeof(wbuf), "%" PRIu32, i);
			l[0] = LABEL("worker", wbuf);
			if (f->seconds)
				sample_double(out, f->name, l, 1,
					      (double)*v * 1e-9);
			else
				sample_u64(out, f->name, l, 1, *v);
		}
	}

	family(out, "process_cpu_seconds_total", "counter",
	       "Total user and system CPU time spent in seconds.");
	sample_double(out, "process_cpu_seconds_total", NULL, 0,
		      s->cpu_seconds);
	family(out, "process_resident_memory_bytes", "gauge",
	       "Resident memory size in bytes.");
	sample_u64(out, "process_resident_memory_bytes", NULL, 0, s->rss_bytes);
}

static void render_config(FILE *out, const struct snap_reload *r)
{
	family(out, "xdplane_config_generation", "gauge",
	       "Generation of the running configuration: 1 at start, +1 per "
	       "applied reload.");
	sample_u64(out, "xdplane_config_generation", NULL, 0, r->generation);
	family(out, "xdplane_config_last_reload_successful", "gauge",
	       "1 if the last reload attempt was applied (1 at start).");
	sample_u64(out, "xdplane_config_last_reload_successful", NULL, 0,
		   r->last_successful ? 1 : 0);
	family(out, "xdplane_config_last_reload_success_timestamp_seconds",
	       "gauge",
	       "When the running configuration was applied, seconds since the "
	       "Unix epoch.");
	sample_double(out,
		      "xdplane_config_last_reload_success_timestamp_seconds",
		      NULL, 0, r->last_success_unix);
	family(out, "xdplane_config_reloads_total", "counter",
	       "Reloads asked for (SIGHUP or control API), applied or not.");
	sample_u64(out, "xdplane_config_reloads_total", NULL, 0,
		   r->attempts_total);
	family(out, "xdplane_config_reload_failures_total", "counter",
	       "Reloads refused: invalid file or a change that needs a "
	       "restart.");
	sample_u64(out, "xdplane_config_reload_failures_total", NULL, 0,
		   r->failures_total);
}

static void render_ports(FILE *out, const struct stats_snapshot *s)
{
	struct label l[4];

	family(out, "xdplane_port_info", "gauge",
	       "Always 1; how the port is attached and what happens without "
	       "the daemon.");
	for (int p = 0; p < GW_PORTS; p++) {
		l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
		l[1] = LABEL("xdp_mode", s->xdp_mode);
		l[2] = LABEL("bind_mode", s->bind_mode);
		l[3] = LABEL("failure_mode", s->failure_mode);
		sample_u64(out, "xdplane_port_info", l, 4, 1);
	}

	family(out, "xdplane_port_rate_bytes_per_second", "gauge",
	       "Egress shaper rate of the port; +Inf when unshaped.");
	for (int p = 0; p < GW_PORTS; p++) {
		l[0] = LABEL_ARRAY("port", s->ports[p].ifname);
		sample_rate(out, "xdplane_port_rate_bytes_per_second", l, 1,
			    s->ports[p].rate_bps, 1);
	}
}

static void queue_labels(struct label *l, char *qbuf, size_t qsize,
			 const struct snap_port *port, uint32_t i)
{
	snprintf(qbuf, qsize, "%" PRIu32, port->q[i].queue);
	l[0] = LABEL_ARRAY("port", port->ifname);
	l[1] = LABEL("queue", qbuf);
}

static const char *type_name(enum gw_type t)
{
	return t == GW_TYPE_GAUGE	? "gauge"
	       : t == GW_TYPE_HISTOGRAM ? "histogram"
					: "counter";
}

/* The samples of row c of stats, after the n labels l[] (room for two
 * more): one per element of its dim, with the row's own label or the
 * dim's; nanoseconds in seconds. */
static void render_row(FILE *out, const struct gw_counter *c, const void *stats,
		       struct label *l, size_t n)
{
	const struct gw_dim_info *d = gw_dim_info(c->dim);

	if (c->label.key)
		l[n++] = LABEL(c->label.key, c->label.value);
	for (uint32_t i = d->first; i < d->n; i++) {
		uint64_t v = gw_counter_get(c, stats, i);

		if (d->label)
			l[n] = LABEL(d->label, d->name(i));
		if (c->unit == GW_UNIT_NS)
			sample_double(out, c->prom, l, n + !!d->label,
				      (double)v * 1e-9);
		else
			sample_u64(out, c->prom, l, n + !!d->label, v);
	}
}

/* Rows tab[k..) of one family: how many there are. */
static size_t family_rows(const struct gw_counter *tab, size_t n, size_t k)
{
	size_t end = k + 1;

	while (end < n && !strcmp(tab[end].prom, tab[k].prom))
		end++;
	return end - k;
}

/* Every row of gw_port_counters (gw_counters.def), family by family:
 * QUEUE rows per (port, queue), the others per port. */
static void render_port_counters(FILE *out, const struct stats_snapshot *s)
{
	const struct gw_counter *tab = gw_port_counters;
	struct label l[MAX_LABELS];
	char qbuf[16];

	for (size_t k = 0, nr; k < gw_n_port_counters; k += nr) {
		nr = family_rows(tab, gw_n_port_counters, k);
		family(out, tab[k].prom, type_name(tab[k].type), tab[k].help);
		for (int p = 0; p < GW_PORTS; p++) {
			const struct snap_port *port = &s->ports[p];

			l[0] = LABEL_ARRAY("port", port->ifname);
			if (tab[k].scope != GW_SCOPE_QUEUE) {
				for (size_t r = k; r < k + nr; r++)
					render_row(out, &tab[r], &port->s, l,
						   1);
				continue;
			}
			for (uint32_t i = 0; i < port_queues(port); i++) {
				queue_labels(l, qbuf, sizeof(qbuf), port, i);
				for (size_t r = k; r < k + nr; r++)
					render_row(out, &tab[r], &port->q[i].s,
						   l, 2);
			}
		}
	}
}

static void render_queues(FILE *out, const struct stats_snapshot *s)
{
	struct label l[4];
	char qbuf[16], wbuf[16], cbuf[16];

	family(out, "xdplane_queue_info", "gauge",
	       "Always 1; the worker running the queue's RX task and its CPU "
	       "(empty: unknown / not pinned).");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t i = 0; i < port_queues(port); i++) {
			const struct snap_queue *q = &port->q[i];

			queue_labels(l, qbuf, sizeof(qbuf), port, i);
			wbuf[0] = cbuf[0] = '\0';
			if (q->worker >= 0)
				snprintf(wbuf, sizeof(wbuf), "%d", q->worker);
			if (q->cpu >= 0)
				snprintf(cbuf, sizeof(cbuf), "%d", q->cpu);
			l[2] = LABEL("worker", wbuf);
			l[3] = LABEL("cpu", cbuf);
			sample_u64(out, "xdplane_queue_info", l, 4, 1);
		}
	}
}

/* Per (egress port, class) settings; the class counters are rows of
 * gw_class_counters. */
struct class_value {
	const char *name;
	const char *help;
	size_t offset; /* into struct snap_class */
	enum { CV_U32, CV_RATE_OR_INF, CV_RATE } kind;
};

#define CV(n, h, field, k)                                                     \
	{                                                                      \
		n, h, offsetof(struct snap_class, field), k                    \
	}

static const struct class_value class_values[] = {
	CV("xdplane_class_quantum_bytes",
	   "DWRR quantum of the class inside its level.", quantum, CV_U32),
	CV("xdplane_class_limit_bytes", "Queue limit of the class in bytes.",
	   limit_bytes, CV_U32),
	CV("xdplane_class_limit_packets",
	   "Queue limit of the class in packets.", limit_packets, CV_U32),
	CV("xdplane_class_ceil_bytes_per_second",
	   "Effective ceiling of the class; +Inf when it has none.", ceil_bps,
	   CV_RATE_OR_INF),
	CV("xdplane_class_min_bytes_per_second",
	   "Effective guaranteed minimum of the class; 0 when it has none.",
	   min_bps, CV_RATE),
};

static void class_labels(struct label *l, const struct snap_port *port,
			 const struct snap_class *c)
{
	l[0] = LABEL_ARRAY("port", port->ifname);
	l[1] = LABEL_ARRAY("class", c->name);
}

static void render_class_value(FILE *out, const struct class_value *cv,
			       const struct label *l,
			       const struct snap_class *c)
{
	uint32_t v32;

	if (cv->kind == CV_U32) {
		memcpy(&v32, (const char *)c + cv->offset, sizeof(v32));
		sample_u64(out, cv->name, l, 2, v32);
	} else {
		sample_rate(out, cv->name, l, 2, field_u64(c, cv->offset),
			    cv->kind == CV_RATE_OR_INF);
	}
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Midpoint of sojourn bucket k in seconds (the open bucket: its bound). */
static double sojourn_bucket_mid_seconds(unsigned int k)
{
	if (k == 0)
		return 0.5e-6;
	if (k == SCHED_HIST_BUCKETS - 1)
		return ldexp(1.0, (int)k - 1) * 1e-6;
	return 1.5 * ldexp(1.0, (int)k - 1) * 1e-6;
}

/* A HISTOGRAM row (the scheduler's log2 sojourn buckets, metrics.h) of
 * one class: cumulative _bucket samples, _sum, _count. */
static void render_sojourn(FILE *out, const struct gw_counter *row,
			   const struct snap_port *port,
			   const struct snap_class *c)
{
	char bucket[128], sum_name[128], count[128], le[40];
	struct label l[3];
	uint64_t cumulative = 0, h;
	double sum = 0;

	snprintf(bucket, sizeof(bucket), "%s_bucket", row->prom);
	snprintf(sum_name, sizeof(sum_name), "%s_sum", row->prom);
	snprintf(count, sizeof(count), "%s_count", row->prom);
	class_labels(l, port, c);
	for (unsigned int k = 0; k < SCHED_HIST_BUCKETS; k++) {
		h = gw_counter_get(row, &c->s, k);
		cumulative = add_saturating(cumulative, h);
		sum += (double)h * sojourn_bucket_mid_seconds(k);
		if (k == SCHED_HIST_BUCKETS - 1)
			break;
		format_double(le, sizeof(le), ldexp(1.0, (int)k) * 1e-6);
		l[2] = LABEL("le", le);
		sample_u64(out, bucket, l, 3, cumulative);
	}
	l[2] = LABEL("le", "+Inf");
	sample_u64(out, bucket, l, 3, cumulative);
	sample_double(out, sum_name, l, 2, sum);
	sample_u64(out, count, l, 2, cumulative);
}

static void render_classes(FILE *out, const struct stats_snapshot *s)
{
	const struct gw_counter *tab = gw_class_counters;
	struct label l[MAX_LABELS];
	char level[16];

	family(out, "xdplane_class_info", "gauge",
	       "Always 1; the strict priority level of the class (0 first) "
	       "and whether it marks ECN.");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *port = &s->ports[p];

		for (uint32_t k = 0; k < port_classes(port); k++) {
			const struct snap_class *c = &port->cls[k];

			class_labels(l, port, c);
			snprintf(level, sizeof(level), "%" PRIu32, c->level);
			l[2] = LABEL("level", level);
			l[3] = LABEL("ecn", c->ecn ? "true" : "false");
			sample_u64(out, "xdplane_class_info", l, 4, 1);
		}
	}

	for (size_t v = 0; v < sizeof(class_values) / sizeof(*class_values);
	     v++) {
		family(out, class_values[v].name, "gauge",
		       class_values[v].help);
		for (int p = 0; p < GW_PORTS; p++) {
			const struct snap_port *port = &s->ports[p];

			for (uint32_t k = 0; k < port_classes(port); k++) {
				class_labels(l, port, &port->cls[k]);
				render_class_value(out, &class_values[v], l,
						   &port->cls[k]);
			}
		}
	}

	/* the class counters (gw_counters.def), family by family */
	for (size_t k = 0, nr; k < gw_n_class_counters; k += nr) {
		nr = family_rows(tab, gw_n_class_counters, k);
		family(out, tab[k].prom, type_name(tab[k].type), tab[k].help);
		for (int p = 0; p < GW_PORTS; p++) {
			const struct snap_port *port = &s->ports[p];

			for (uint32_t c = 0; c < port_classes(port); c++) {
				const struct snap_class *cl = &port->cls[c];

				class_labels(l, port, cl);
				for (size_t r = k; r < k + nr; r++)
					if (tab[r].type == GW_TYPE_HISTOGRAM)
						render_sojourn(out, &tab[r],
							       port, cl);
					else
						render_row(out, &tab[r], &cl->s,
							   l, 2);
			}
		}
	}
}

/* Adaptive egress (ports[].adaptive): per port whether it is on; per
 * (port, queue) the controller's state, its rate and the path it sees. */
static void render_adaptive(FILE *out, const struct stats_snapshot *s)
{
	static const struct {
		const char *name, *help;
		size_t off;
		double scale;
	} gauges[] = {
		{"xdplane_adaptive_rate_bytes_per_second",
		 "Rate the adaptive controller runs the queue's shaper at.",
		 offsetof(struct adaptive_view, rate_bps), 1 / 8.0},
		{"xdplane_adaptive_base_rtt_seconds",
		 "Base round-trip time beyond the port: the windowed minimum.",
		 offsetof(struct adaptive_view, base_rtt_ns), 1e-9},
		{"xdplane_adaptive_srtt_seconds",
		 "Smoothed round-trip time beyond the port.",
		 offsetof(struct adaptive_view, srtt_ns), 1e-9},
		{"xdplane_adaptive_queue_delay_seconds",
		 "Queueing delay beyond the port: smoothed minus base RTT.",
		 offsetof(struct adaptive_view, qdelay_ns), 1e-9},
		{"xdplane_adaptive_delivery_bytes_per_second",
		 "Delivery rate beyond the port (windowed maximum), in the "
		 "shaper's units.",
		 offsetof(struct adaptive_view, delivery_bps), 1 / 8.0},
		{"xdplane_adaptive_marked_ratio",
		 "Fraction of returning packets with congestion marks (TCP "
		 "ECE, RoCE CNPs), smoothed.",
		 offsetof(struct adaptive_view, mark_ppm), 1e-6},
		{"xdplane_adaptive_flows", "Flows the path monitor tracks.",
		 offsetof(struct adaptive_view, flows), 1},
	};
	struct label l[3];
	char qbuf[12];

	family(out, "xdplane_adaptive_enabled", "gauge",
	       "1 when ports[].adaptive.mode is on for the port.");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct snap_port *sp = &s->ports[p];

		l[0] = LABEL_ARRAY("port", sp->ifname);
		sample_u64(out, "xdplane_adaptive_enabled", l, 1,
			   port_queues(sp) ? sp->q[0].adaptive.on : 0);
	}
	family(out, "xdplane_adaptive_state", "gauge",
	       "1 for the state the adaptive controller of the queue is in "
	       "(no_samples, line, probe, hold, drain).");
	for (int p = 0; p < GW_PORTS; p++)
		for (uint32_t i = 0; i < port_queues(&s->ports[p]); i++) {
			const struct adaptive_view *v =
				&s->ports[p].q[i].adaptive;

			queue_labels(l, qbuf, sizeof(qbuf), &s->ports[p], i);
			for (int st = 0; st < EDGE_STATES; st++) {
				l[2] = LABEL("state", edge_rate_state_name(st));
				sample_u64(out, "xdplane_adaptive_state", l, 3,
					   v->on && v->state == (uint64_t)st);
			}
		}
	for (size_t g = 0; g < sizeof(gauges) / sizeof(gauges[0]); g++) {
		family(out, gauges[g].name, "gauge", gauges[g].help);
		for (int p = 0; p < GW_PORTS; p++)
			for (uint32_t i = 0; i < port_queues(&s->ports[p]);
			     i++) {
				const struct adaptive_view *v =
					&s->ports[p].q[i].adaptive;

				queue_labels(l, qbuf, sizeof(qbuf),
					     &s->ports[p], i);
				sample_double(
					out, gauges[g].name, l, 2,
					(double)field_u64(v, gauges[g].off) *
						gauges[g].scale);
			}
	}
}

/* The job table (snapshot.h, struct snap_jobs): one series per job and
 * the table's counters. */
static void render_jobs(FILE *out, const struct snap_jobs *j)
{
	static const char *const src[] = {"registered", "passive"};
	const struct job_table_stats *st = &j->st;
	const struct {
		const char *name, *help, *key, *value;
		const ctr_t *c;
	} counters[] = {
		{"xdplane_job_registrations_total",
		 "Registrations by what became of them (new, updated, refused "
		 "as invalid or overlapping).",
		 "result", "new", &st->registered},
		{NULL, NULL, "result", "updated", &st->updated},
		{NULL, NULL, "result", "refused", &st->refused},
		{"xdplane_job_unregistrations_total", "Jobs unregistered.",
		 NULL, NULL, &st->unregistered},
		{"xdplane_job_passive_total",
		 "Passive jobs by event (created, merged into another, "
		 "expired).",
		 "event", "created", &st->passive_created},
		{NULL, NULL, "event", "merged", &st->passive_merged},
		{NULL, NULL, "event", "expired", &st->passive_expired},
		{"xdplane_job_table_full_total",
		 "Registrations and flows refused by a full table, by the part "
		 "that was full.",
		 "table", "registered", &st->full_registered},
		{NULL, NULL, "table", "passive", &st->full_passive},
		{NULL, NULL, "table", "hosts", &st->full_hosts},
		{NULL, NULL, "table", "edges", &st->full_edges},
		{"xdplane_job_flows_total",
		 "Observed flows of the collective classes by the job they "
		 "were "
		 "attributed to (registered, passive, none).",
		 "job_source", "registered", &st->observed_registered},
		{NULL, NULL, "job_source", "passive", &st->observed_passive},
		{NULL, NULL, "job_source", "none", &st->unmatched},
	};
	const uint32_t live[] = {j->registered, j->passive};
	const uint32_t slots[] = {j->max_registered, j->max_passive};
	const char *name = NULL;
	struct label l[3];

	family(out, "xdplane_job_info", "gauge",
	       "1 for each job of the job table, with its source and "
	       "priority class.");
	for (uint32_t i = 0; i < j->n; i++) {
		const struct snap_job *sj = &j->job[i];

		l[0] = LABEL_ARRAY("job", sj->id);
		l[1] = LABEL("source", src[sj->kind == JOB_PASSIVE]);
		l[2] = LABEL_ARRAY("class", sj->prio_class);
		sample_u64(out, "xdplane_job_info", l, 3, 1);
	}
	family(out, "xdplane_jobs", "gauge",
	       "Jobs in the job table, by source.");
	for (int k = 0; k < 2; k++) {
		l[0] = LABEL("source", src[k]);
		sample_u64(out, "xdplane_jobs", l, 1, live[k]);
	}
	family(out, "xdplane_job_slots", "gauge",
	       "Slots of the job table, by source (jobs.max_registered, "
	       "jobs.max_passive).");
	for (int k = 0; k < 2; k++) {
		l[0] = LABEL("source", src[k]);
		sample_u64(out, "xdplane_job_slots", l, 1, slots[k]);
	}
	family(out, "xdplane_job_hosts", "gauge",
	       "Hosts of the passive host graph.");
	sample_u64(out, "xdplane_job_hosts", l, 0, j->hosts);
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		/* a row without a name: another series of the family above */
		if (counters[i].name) {
			name = counters[i].name;
			family(out, name, "counter", counters[i].help);
		}
		l[0] = LABEL(counters[i].key, counters[i].value);
		sample_u64(out, name, l, counters[i].key ? 1 : 0,
			   ctr_read(counters[i].c));
	}
}

int metrics_render(const struct stats_snapshot *s, FILE *out)
{
	if (!s || !out)
		return -EINVAL;
	render_process(out, s);
	render_health(out, s);
	render_config(out, &s->reload);
	render_ports(out, s);
	render_queues(out, s);
	render_port_counters(out, s);
	render_adaptive(out, s);
	render_classes(out, s);
	if (s->jobs)
		render_jobs(out, s->jobs);
	if (fflush(out) == EOF || ferror(out))
		return -EIO;
	return 0;
}
