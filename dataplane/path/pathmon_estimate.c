// SPDX-License-Identifier: BSD-2-Clause
/*
 * pathmon_estimate.c - the path monitor's estimators: the sampling
 * budget per ms, the delivery and mark intervals, the windowed minimum
 * RTT, srtt, the standing RTT across flows, and the estimate built from
 * them (pathmon.h).
 */
#include <string.h>
#include "bits.h"
#include "pathmon_int.h"

/* ---- time: budgets, intervals, expiry ---- */

void pm_budget_roll(struct pathmon *pm, uint64_t now)
{
	uint64_t ms = now / MS_NS;

	if (ms != pm->budget_ms) {
		pm->budget_ms = ms;
		pm->budget_used = 0;
		pm->learn_used = 0;
	}
}

static void ring_push(struct pathmon *pm, uint64_t bytes, uint32_t samples)
{
	pm->ring[pm->ring_pos].bytes = bytes;
	pm->ring[pm->ring_pos].samples = samples;
	pm->ring_pos = pm->ring_pos + 1 == pm->par.rate_intervals
			       ? 0
			       : pm->ring_pos + 1;
	if (pm->ring_n < pm->par.rate_intervals)
		pm->ring_n++;
}

static double bytes_bps(const struct pathmon *pm, uint64_t bytes)
{
	return (double)bytes * 8e9 / (double)pm->par.interval_ns;
}

/* Close the intervals that ended before now (idle ones as zeros). */
static void roll_intervals(struct pathmon *pm, uint64_t now)
{
	uint64_t k, empty;

	if (now < pm->int_start || now - pm->int_start < pm->par.interval_ns)
		return;
	k = (now - pm->int_start) / pm->par.interval_ns;
	ring_push(pm, pm->int_bytes, pm->int_samples);
	pm->bps_last = bytes_bps(pm, pm->int_bytes);
	if (pm->int_acks) {
		double frac = (double)pm->int_marks / (double)pm->int_acks;

		if (!pm->mark_init) {
			pm->mark_frac = frac;
			pm->mark_init = true;
		} else {
			pm->mark_frac += (frac - pm->mark_frac) /
					 (double)(1u << pm->par.mark_shift);
		}
		pm->mark_last = frac;
	}
	empty = MIN(k - 1, (uint64_t)pm->par.rate_intervals);
	for (uint64_t i = 0; i < empty; i++)
		ring_push(pm, 0, 0);
	if (k > 1)
		pm->bps_last = 0;
	pm->int_start += k * pm->par.interval_ns;
	pm->int_bytes = 0;
	pm->int_samples = pm->int_acks = pm->int_marks = 0;
}

void pm_advance(struct pathmon *pm, uint64_t now)
{
	pm_budget_roll(pm, now);
	roll_intervals(pm, now);
	if (pm->par.sweep_per_call)
		pathmon_sweep(pm, now, pm->par.sweep_per_call);
}

/* ---- RTT samples ---- */

/* The flow's standing RTT (the smaller of its last two samples), in the
 * slot it has, else in the one sampled longest ago. */
static void standing_update(struct pathmon *pm, uint32_t hash, uint64_t rtt,
			    uint64_t seen)
{
	uint32_t old = 0;

	for (uint32_t i = 0; i < PATHMON_STANDING_FLOWS; i++) {
		if (pm->standing[i].seen && pm->standing[i].hash == hash) {
			pm->standing[i].standing =
				MIN(rtt, pm->standing[i].last_rtt);
			pm->standing[i].last_rtt = rtt;
			pm->standing[i].seen = MAX(seen, pm->standing[i].seen);
			return;
		}
		if (pm->standing[i].seen < pm->standing[old].seen)
			old = i;
	}
	pm->standing[old].hash = hash;
	pm->standing[old].last_rtt = rtt;
	pm->standing[old].standing = rtt;
	pm->standing[old].seen = seen;
}

void pm_rtt_update(struct pathmon *pm, uint32_t hash, uint64_t rtt,
		   uint64_t seen, uint64_t now, bool base_ok)
{
	uint64_t epoch = now / pm->sub_ns;
	uint32_t s = (uint32_t)(epoch % PATHMON_MINRTT_SUB);

	if (!base_ok) {
	} else if (pm->sub_epoch[s] != epoch || !pm->sub_min[s]) {
		pm->sub_epoch[s] = epoch;
		pm->sub_min[s] = rtt;
	} else if (rtt < pm->sub_min[s]) {
		pm->sub_min[s] = rtt;
	}
	if (!pm->srtt_ns)
		pm->srtt_ns = rtt;
	else
		pm->srtt_ns =
			(uint64_t)((int64_t)pm->srtt_ns +
				   ((int64_t)rtt - (int64_t)pm->srtt_ns) / 8);
	if (!pm->srtt_ns)
		pm->srtt_ns = 1;
	standing_update(pm, hash, rtt, seen);
	pm->int_samples++;
	pm->n_samples++;
	if (seen > pm->last_sample_ns)
		pm->last_sample_ns = seen;
}

/* ---- the estimate ---- */

/* The mean delivery rate of the last PATHMON_MEAN_INTERVALS closed
 * intervals (fewer at the start). */
static double recent_mean_bps(const struct pathmon *pm)
{
	uint32_t n = MIN(pm->ring_n, PATHMON_MEAN_INTERVALS),
		 pos = pm->ring_pos;
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		pos = pos ? pos - 1 : pm->par.rate_intervals - 1;
		sum += pm->ring[pos].bytes;
	}
	return n ? bytes_bps(pm, sum) / n : 0;
}

/* The port's standing RTT (0: none): the minimum of the standing RTTs of
 * the flows sampled within max(2 x srtt, interval_ns) of the newest
 * sample. A flow's own queue beyond the shared bottleneck, or its
 * receiver's delayed-ACK timer, does not make it; what every flow meets
 * does, once each has had two samples of it. */
static uint64_t standing_rtt(const struct pathmon *pm)
{
	uint64_t m = 0, since, span = MAX(2 * pm->srtt_ns, pm->par.interval_ns);

	since = pm->last_sample_ns > span ? pm->last_sample_ns - span : 0;
	for (uint32_t i = 0; i < PATHMON_STANDING_FLOWS; i++) {
		if (!pm->standing[i].seen || pm->standing[i].seen < since)
			continue;
		if (!m || pm->standing[i].standing < m)
			m = pm->standing[i].standing;
	}
	return m;
}

/* A long RTT gives few samples per rate window (one per flow and RTT):
 * min_samples in all since init or reset (of every kind: pending samples
 * matched and the departure ring's exact ones), and one within the last
 * two smoothed RTTs and an interval (a sample seen after now has age 0),
 * keep the estimate valid. */
static bool long_rtt_valid(const struct pathmon *pm, uint64_t now_ns)
{
	return pm->n_samples >= pm->par.min_samples && pm->last_sample_ns &&
	       age_ns(now_ns, pm->last_sample_ns) <=
		       2 * pm->srtt_ns + pm->par.interval_ns;
}

void pathmon_estimate(struct pathmon *pm, uint64_t now_ns,
		      struct pathmon_est *out)
{
	uint64_t epoch = now_ns / pm->sub_ns, base = 0, maxb = 0;
	uint32_t samples;

	pm_budget_roll(pm, now_ns);
	roll_intervals(pm, now_ns);
	memset(out, 0, sizeof(*out));
	for (uint32_t s = 0; s < PATHMON_MINRTT_SUB; s++) {
		if (!pm->sub_min[s] || pm->sub_epoch[s] > epoch ||
		    epoch - pm->sub_epoch[s] >= PATHMON_MINRTT_SUB)
			continue;
		if (!base || pm->sub_min[s] < base)
			base = pm->sub_min[s];
	}
	samples = pm->int_samples; /* the open interval, after the roll */
	for (uint32_t i = 0; i < pm->ring_n; i++) {
		maxb = MAX(maxb, pm->ring[i].bytes);
		samples += pm->ring[i].samples;
	}
	out->base_rtt_ns = base;
	out->srtt_ns = pm->srtt_ns;
	out->standing_rtt_ns = standing_rtt(pm);
	out->qdelay_ns = base && out->standing_rtt_ns > base
				 ? out->standing_rtt_ns - base
				 : 0;
	out->delivery_bps = bytes_bps(pm, maxb);
	out->delivery_bps_last = pm->bps_last;
	out->delivery_bps_mean = recent_mean_bps(pm);
	out->mark_frac = pm->mark_frac;
	out->mark_frac_last = pm->mark_last;
	out->samples_recent = samples;
	out->last_sample_ns = pm->last_sample_ns;
	out->valid = base && (samples >= pm->par.min_samples ||
			      long_rtt_valid(pm, now_ns));
}
