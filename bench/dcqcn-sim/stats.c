// SPDX-License-Identifier: BSD-2-Clause
/*
 * stats.c - see stats.h. A piecewise-constant value v from t0 to t1 adds
 * v x overlap to every bin the interval touches.
 */
#include "stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int stats_init(struct stats *s, uint64_t duration_ns, uint64_t bin_ns,
	       uint32_t n_flows)
{
	size_t nb, cells;

	memset(s, 0, sizeof(*s));
	if (!bin_ns || !n_flows || duration_ns % bin_ns ||
	    duration_ns / bin_ns > UINT32_MAX)
		return -EINVAL;
	nb = duration_ns / bin_ns;
	cells = nb * n_flows;
	s->bin_ns = bin_ns;
	s->n_bins = (uint32_t)nb;
	s->n_flows = n_flows;
	s->rc_int = calloc(cells, sizeof(*s->rc_int));
	s->bytes = calloc(cells, sizeof(*s->bytes));
	s->q_int = calloc(nb, sizeof(*s->q_int));
	s->q2_int = calloc(nb, sizeof(*s->q2_int));
	s->q_max = calloc(nb, sizeof(*s->q_max));
	s->rc_now = calloc(n_flows, sizeof(*s->rc_now));
	s->rc_since = calloc(n_flows, sizeof(*s->rc_since));
	if (!s->rc_int || !s->bytes || !s->q_int || !s->q2_int || !s->q_max ||
	    !s->rc_now || !s->rc_since) {
		stats_free(s);
		return -ENOMEM;
	}
	return 0;
}

void stats_free(struct stats *s)
{
	free(s->rc_int);
	free(s->bytes);
	free(s->q_int);
	free(s->q2_int);
	free(s->q_max);
	free(s->rc_now);
	free(s->rc_since);
	free(s->gq_max);
	memset(s, 0, sizeof(*s));
}

int stats_gw_init(struct stats *s)
{
	s->gq_max = calloc(s->n_bins, sizeof(*s->gq_max));
	return s->gq_max ? 0 : -ENOMEM;
}

/* Add v x (overlap of [t0, t1) with each bin) to arr[bin * stride]. */
static void integrate(const struct stats *s, double *arr, size_t stride,
		      uint64_t t0, uint64_t t1, double v)
{
	uint64_t end = (uint64_t)s->n_bins * s->bin_ns;

	if (t1 > end)
		t1 = end;
	while (t0 < t1) {
		uint64_t b = t0 / s->bin_ns, b_end = (b + 1) * s->bin_ns;
		uint64_t stop = b_end < t1 ? b_end : t1;

		arr[b * stride] += v * (double)(stop - t0);
		t0 = stop;
	}
}

static uint32_t bin_of(const struct stats *s, uint64_t t_ns)
{
	uint64_t b = t_ns / s->bin_ns;

	return b < s->n_bins ? (uint32_t)b : s->n_bins - 1;
}

void stats_rc(struct stats *s, uint32_t flow, uint64_t t_ns, double bps)
{
	if (t_ns > s->rc_since[flow]) {
		integrate(s, s->rc_int + flow, s->n_flows, s->rc_since[flow],
			  t_ns, s->rc_now[flow]);
		s->rc_since[flow] = t_ns;
	}
	s->rc_now[flow] = bps;
}

void stats_queue(struct stats *s, uint64_t t_ns, uint64_t bytes)
{
	uint32_t b = bin_of(s, t_ns);

	if (t_ns > s->q_since) {
		double q = (double)s->q_now;

		integrate(s, s->q_int, 1, s->q_since, t_ns, q);
		integrate(s, s->q2_int, 1, s->q_since, t_ns, q * q);
		/* the value held through bins without a change */
		for (uint32_t i = bin_of(s, s->q_since);
		     i <= bin_of(s, t_ns - 1); i++)
			if (s->q_now > s->q_max[i])
				s->q_max[i] = s->q_now;
		s->q_since = t_ns;
	}
	s->q_now = bytes;
	if (bytes > s->q_max[b])
		s->q_max[b] = bytes;
}

void stats_gw_queue(struct stats *s, uint64_t t_ns, uint64_t bytes)
{
	if (!s->gq_max)
		return;
	/* the value held through bins without a change */
	for (uint32_t i = bin_of(s, s->gq_since);
	     t_ns > s->gq_since && i <= bin_of(s, t_ns - 1); i++)
		if (s->gq_now > s->gq_max[i])
			s->gq_max[i] = s->gq_now;
	if (t_ns > s->gq_since)
		s->gq_since = t_ns;
	s->gq_now = bytes;
	if (bytes > s->gq_max[bin_of(s, t_ns)])
		s->gq_max[bin_of(s, t_ns)] = bytes;
}

void stats_delivered(struct stats *s, uint32_t flow, uint64_t t_ns,
		     uint32_t bytes)
{
	s->bytes[(size_t)bin_of(s, t_ns) * s->n_flows + flow] += bytes;
}

void stats_finish(struct stats *s, uint64_t end_ns)
{
	for (uint32_t f = 0; f < s->n_flows; f++)
		stats_rc(s, f, end_ns, s->rc_now[f]);
	stats_queue(s, end_ns, s->q_now);
	stats_gw_queue(s, end_ns, s->gq_now);
}

/* Bytes of each flow through the bottleneck in bins [b0, n_bins). */
static void flow_bytes(const struct stats *s, uint32_t b0, double *out)
{
	for (uint32_t f = 0; f < s->n_flows; f++)
		out[f] = 0;
	for (uint32_t b = b0; b < s->n_bins; b++)
		for (uint32_t f = 0; f < s->n_flows; f++)
			out[f] += (double)s->bytes[(size_t)b * s->n_flows + f];
}

/* Mean R_C of flow f over bins [b, b + n). */
static double mean_rc(const struct stats *s, uint64_t b, uint64_t n, uint32_t f)
{
	double sum = 0;

	for (uint64_t i = b; i < b + n; i++)
		sum += s->rc_int[i * s->n_flows + f];
	return sum / (double)(n * s->bin_ns);
}

/* Intervals of avg_ns from the first bin after the last start; an
 * interval is in the band when every flow's mean R_C is. converge: the
 * start of the first run of hold_ns in the band; settled: the start of the
 * run that lasts to the end. Both from last_start, -1 if none. */
static void convergence(const struct stats *s, const struct scn_summary *cfg,
			uint64_t last_start, double fair, int64_t *converge,
			int64_t *settled)
{
	uint64_t per = cfg->avg_ns / s->bin_ns,
		 hold = cfg->hold_ns / cfg->avg_ns;
	uint64_t b0 = (last_start + s->bin_ns - 1) / s->bin_ns;
	uint64_t n = b0 < s->n_bins ? (s->n_bins - b0) / per : 0, run = 0;
	uint64_t run_start = 0;

	*converge = *settled = -1;
	for (uint64_t k = 0; k < n; k++) {
		bool ok = true;

		for (uint32_t f = 0; f < s->n_flows && ok; f++)
			ok = fabs(mean_rc(s, b0 + k * per, per, f) - fair) <=
			     cfg->band * fair;
		if (!ok) {
			run = 0;
			continue;
		}
		if (!run++)
			run_start = k;
		if (run >= hold && *converge < 0)
			*converge =
				(int64_t)((b0 + run_start * per) * s->bin_ns -
					  last_start);
	}
	if (run)
		*settled = (int64_t)((b0 + run_start * per) * s->bin_ns -
				     last_start);
}

/* Bytes through the bottleneck in bins [b, b + n), as a share of rate. */
static double busy(const struct stats *s, uint64_t b, uint64_t n, double rate)
{
	double bytes = 0;

	for (uint64_t i = b * s->n_flows; i < (b + n) * s->n_flows; i++)
		bytes += (double)s->bytes[i];
	return bytes * 8e9 / (rate * (double)(n * s->bin_ns));
}

/* The least busy interval of avg_ns from util_after on; the start of the
 * last run of intervals (from 0) each at least util_target busy. */
static void utilisation(const struct stats *s, const struct scn_summary *cfg,
			double rate, double *least, int64_t *settled)
{
	uint64_t per = cfg->avg_ns / s->bin_ns, n = s->n_bins / per;
	uint64_t k0 = cfg->util_after_ns / cfg->avg_ns;
	bool run = false;

	*least = -1;
	*settled = -1;
	for (uint64_t k = 0; k < n; k++) {
		double u = busy(s, k * per, per, rate);

		if (k >= k0 && (*least < 0 || u < *least))
			*least = u;
		if (u + 1e-12 < cfg->util_target) {
			run = false;
		} else if (!run) {
			run = true;
			*settled = (int64_t)(k * cfg->avg_ns);
		}
	}
	if (!run)
		*settled = -1;
}

int stats_summarise(const struct stats *s, const struct scenario *sc,
		    struct sim_summary *out)
{
	const struct scn_summary *cfg = &sc->summary;
	uint64_t end = (uint64_t)s->n_bins * s->bin_ns;
	uint32_t wb = (uint32_t)((end - cfg->window_ns) / s->bin_ns);
	double *x, sum = 0, sum2 = 0, qi = 0, q2i = 0, w, lo, hi, total;
	double rate = sc->bottleneck.rate_bps;

	memset(out, 0, sizeof(*out));
	x = calloc(s->n_flows, sizeof(*x));
	out->flow_bps = calloc(s->n_flows, sizeof(*out->flow_bps));
	if (!x || !out->flow_bps) {
		free(x);
		summary_free(out);
		return -ENOMEM;
	}
	out->n_flows = s->n_flows;
	out->fair_bps = rate / s->n_flows;
	for (uint32_t f = 0; f < sc->n_flows; f++)
		if (sc->flows[f].start_ns > out->last_start_ns)
			out->last_start_ns = sc->flows[f].start_ns;

	/* the window: Jain, per-flow throughput, queue */
	out->window_from_ns = (uint64_t)wb * s->bin_ns;
	out->window_to_ns = end;
	w = (double)(end - out->window_from_ns);
	flow_bytes(s, wb, x);
	for (uint32_t f = 0; f < s->n_flows; f++) {
		sum += x[f];
		sum2 += x[f] * x[f];
		out->flow_bps[f] = w > 0 ? x[f] * 8e9 / w : 0;
	}
	out->jain = sum2 > 0 ? sum * sum / (s->n_flows * sum2) : 0;
	for (uint32_t b = wb; b < s->n_bins; b++) {
		qi += s->q_int[b];
		q2i += s->q2_int[b];
		if ((double)s->q_max[b] > out->q_max_window)
			out->q_max_window = (double)s->q_max[b];
	}
	for (uint32_t b = 0; b < s->n_bins; b++)
		if ((double)s->q_max[b] > out->q_peak)
			out->q_peak = (double)s->q_max[b];
	if (w > 0) {
		out->q_mean = qi / w;
		out->q_std = sqrt(fmax(0, q2i / w - out->q_mean * out->q_mean));
	}

	convergence(s, cfg, out->last_start_ns, out->fair_bps,
		    &out->converge_ns, &out->settled_ns);
	utilisation(s, cfg, rate, &out->util_least, &out->util_settled_ns);

	out->util_from_ns = cfg->util_after_ns;
	flow_bytes(s, (uint32_t)(cfg->util_after_ns / s->bin_ns), x);
	total = 0;
	for (uint32_t f = 0; f < s->n_flows; f++)
		total += x[f];
	w = (double)(end - cfg->util_after_ns);
	out->util = w > 0 && rate > 0 ? total * 8e9 / (rate * w) : 0;

	out->fair_from_ns = cfg->fair_after_ns;
	flow_bytes(s, (uint32_t)(cfg->fair_after_ns / s->bin_ns), x);
	lo = hi = x[0];
	for (uint32_t f = 1; f < s->n_flows; f++) {
		lo = fmin(lo, x[f]);
		hi = fmax(hi, x[f]);
	}
	out->minmax = hi > 0 ? lo / hi : 0;
	free(x);
	return 0;
}

void summary_free(struct sim_summary *sum)
{
	free(sum->flow_bps);
	sum->flow_bps = NULL;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* "key: N" in ms, or "key: never" for -1. */
static void print_ms(FILE *f, const char *key, int64_t ns)
{
	if (ns >= 0)
		fprintf(f, "%s: %.6g\n", key, ms((uint64_t)ns));
	else
		fprintf(f, "%s: never\n", key);
}

/* The gateway's lines (gateway: in the scenario). */
static void gw_print(FILE *f, const struct scenario *sc,
		     const struct sim_summary *sum)
{
	const struct gw_summary *g = &sum->gw;

	fprintf(f, "rc_min_gbps: %.6g\n", sum->rc_min / 1e9);
	fprintf(f, "gw_port_gbps: %.6g\n", sc->gateway.port_bps / 1e9);
	fprintf(f, "gw_poll_us: %.6g\n", (double)sc->gateway.poll_ns / 1e3);
	fprintf(f, "gw_gaps: %" PRIu64 "\n", g->gaps);
	fprintf(f, "gw_gap_ms: %.6g\n", ms(g->gap_ns));
	fprintf(f, "gw_marks: %" PRIu64 "\n", g->marks);
	fprintf(f, "gw_marks_ce: %" PRIu64 "\n", g->ce);
	fprintf(f, "gw_cnps_sent: %" PRIu64 "\n", g->np_cnps);
	fprintf(f, "gw_rp_cnps: %" PRIu64 "\n", g->rp_cnps);
	fprintf(f, "gw_rc_min_gbps: %.6g\n", g->rc_min / 1e9);
	fprintf(f, "gw_drops: %" PRIu64 "\n", g->drops);
	fprintf(f, "gw_queue_max_kb: %.3f\n", (double)g->queue_max / 1e3);
	fprintf(f, "gw_drained: %" PRIu64 "\n", g->drained);
	fprintf(f, "gw_undrained: %" PRIu64 "\n", g->undrained);
	fprintf(f, "gw_drain_max_ms: %.6g\n", ms(g->drain_max_ns));
	fprintf(f, "gw_drain_mean_ms: %.6g\n",
		g->drained ? ms(g->drain_sum_ns) / (double)g->drained : 0.0);
}

void summary_print(FILE *f, const struct scenario *sc,
		   const struct sim_summary *sum)
{
	fprintf(f, "flows: %u\n", sum->n_flows);
	fprintf(f, "fair_share_gbps: %.6g\n", sum->fair_bps / 1e9);
	fprintf(f, "last_start_ms: %.6g\n", ms(sum->last_start_ns));
	fprintf(f, "window_ms: [%.6g, %.6g]\n", ms(sum->window_from_ns),
		ms(sum->window_to_ns));
	fprintf(f, "jain: %.6f\n", sum->jain);
	print_ms(f, "converge_ms", sum->converge_ns);
	print_ms(f, "settled_ms", sum->settled_ns);
	fprintf(f, "converge_band: %.6g\n", sc->summary.band);
	fprintf(f, "converge_hold_ms: %.6g\n", ms(sc->summary.hold_ns));
	fprintf(f, "queue_mean_kb: %.3f\n", sum->q_mean / 1e3);
	fprintf(f, "queue_std_kb: %.3f\n", sum->q_std / 1e3);
	fprintf(f, "queue_max_kb: %.3f\n", sum->q_max_window / 1e3);
	fprintf(f, "queue_peak_kb: %.3f\n", sum->q_peak / 1e3);
	fprintf(f, "util_from_ms: %.6g\n", ms(sum->util_from_ns));
	fprintf(f, "utilisation: %.6f\n", sum->util);
	fprintf(f, "avg_ms: %.6g\n", ms(sc->summary.avg_ns));
	fprintf(f, "util_least_avg: %.6f\n", sum->util_least);
	fprintf(f, "util_target: %.6g\n", sc->summary.util_target);
	print_ms(f, "util_settled_ms", sum->util_settled_ns);
	fprintf(f, "minmax_from_ms: %.6g\n", ms(sum->fair_from_ns));
	fprintf(f, "minmax: %.6f\n", sum->minmax);
	fprintf(f, "flow_gbps: [");
	for (uint32_t i = 0; i < sum->n_flows; i++)
		fprintf(f, "%s%.4f", i ? ", " : "", sum->flow_bps[i] / 1e9);
	fprintf(f, "]\n");
	fprintf(f, "packets: %" PRIu64 "\n", sum->packets);
	fprintf(f, "marked: %" PRIu64 "\n", sum->marked);
	fprintf(f, "dropped: %" PRIu64 "\n", sum->dropped);
	fprintf(f, "cnps_sent: %" PRIu64 "\n", sum->cnps_sent);
	fprintf(f, "cnps_received: %" PRIu64 "\n", sum->cnps_received);
	if (sum->gw.enabled)
		gw_print(f, sc, sum);
}

void stats_write_samples(FILE *f, const struct stats *s)
{
	double bin = (double)s->bin_ns;

	fputs("t_ms,queue_kb,queue_max_kb", f);
	for (uint32_t i = 0; i < s->n_flows; i++)
		fprintf(f, ",rc%u_gbps", i + 1);
	if (s->gq_max)
		fputs(",gw_queue_max_kb", f);
	fputc('\n', f);
	for (uint32_t b = 0; b < s->n_bins; b++) {
		fprintf(f, "%.6f,%.4f,%.4f", (double)b * bin / 1e6,
			s->q_int[b] / bin / 1e3, (double)s->q_max[b] / 1e3);
		for (uint32_t i = 0; i < s->n_flows; i++)
			fprintf(f, ",%.6f",
				s->rc_int[(size_t)b * s->n_flows + i] / bin /
					1e9);
		if (s->gq_max)
			fprintf(f, ",%.4f", (double)s->gq_max[b] / 1e3);
		fputc('\n', f);
	}
}
