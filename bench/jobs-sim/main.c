// SPDX-License-Identifier: BSD-2-Clause
/*
 * jobs-sim - periodic training jobs sharing one link in virtual time
 * (jobs_sim.h): each scenario under each arm, one Markdown row per job.
 *
 *   jobs-sim [--scenario two|three|incompatible] [--arm fair|weight|shift|
 *            both] [--seed N] [--jitter F] [--duration-s N] [--hold-ms N]
 *            [--slope F] [--tick-us N] [--clock] [--trace FILE]
 *
 * --clock: the gateway's view from the dataplane's phase clocks. Without
 * --scenario / --arm: all of them. Exit status 0; 1 when a run is
 * refused; 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobs_sim.h"

static const char *const scenarios[] = {"two", "three", "incompatible"};

static void usage(FILE *f)
{
	fputs("usage: jobs-sim [--scenario two|three|incompatible] "
	      "[--arm fair|weight|shift|both]\n"
	      "                [--seed N] [--jitter F] [--duration-s N] "
	      "[--hold-ms N] [--slope F]\n"
	      "                [--tick-us N] [--clock] [--trace FILE]\n",
	      f);
}

static int number(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || *v < 0) {
		fprintf(stderr, "jobs-sim: --%s: bad number '%s'\n", opt, s);
		return -1;
	}
	return 0;
}

struct opts {
	const char *scenario, *trace;
	int arm; /* -1: all */
	double seed, jitter, duration_s, hold_ms, slope, tick_us;
	bool clock;
	bool has_seed, has_jitter, has_duration, has_hold, has_slope, has_tick;
};

static void row(const char *sc, enum jobs_sim_arm a, uint32_t n,
		const struct jobs_sim_result *r)
{
	char settle[16];

	if (r->settle_iter == UINT32_MAX)
		snprintf(settle, sizeof(settle), "never");
	else
		snprintf(settle, sizeof(settle), "%u", r->settle_iter);
	for (uint32_t i = 0; i < n; i++)
		printf("| %s | %s | %u | %.0f | %u | %.3f | %.3f | %.2f | %.2f "
		       "| %s | %u (max %.1f ms) | %.2f | %.2f |\n",
		       sc, jobs_sim_arm_name(a), i, r->alone_ms[i], r->iters[i],
		       r->mean_rel[i], r->p90_rel[i], r->overlap_start,
		       r->overlap_after, settle, r->holds,
		       (double)r->hold_max_ns / 1e6, r->locked_time,
		       r->weight_time);
}

static int run(const struct opts *o, const char *sc, enum jobs_sim_arm a)
{
	struct jobs_sim_cfg c;
	struct jobs_sim_result r;
	char err[128];
	FILE *tr = NULL;

	if (jobs_sim_scenario(&c, sc)) {
		fprintf(stderr, "jobs-sim: unknown scenario '%s'\n", sc);
		return 2;
	}
	c.arm = a;
	c.clock = o->clock;
	if (o->has_seed)
		c.seed = (uint64_t)o->seed;
	if (o->has_jitter)
		c.jitter = o->jitter;
	if (o->has_duration)
		c.duration_ns = (uint64_t)(o->duration_s * 1e9);
	if (o->has_hold)
		c.ip.hold_budget_ns = (uint64_t)(o->hold_ms * 1e6);
	if (o->has_slope)
		c.ip.slope = o->slope;
	if (o->has_tick)
		c.tick_ns = (uint64_t)(o->tick_us * 1e3);
	if (o->trace) {
		tr = fopen(o->trace, "w");
		if (!tr) {
			fprintf(stderr, "jobs-sim: %s: %s\n", o->trace,
				strerror(errno));
			return 1;
		}
		c.trace = tr;
	}
	if (jobs_sim_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "jobs-sim: %s\n", err);
		if (tr)
			fclose(tr);
		return 1;
	}
	if (tr)
		fclose(tr);
	row(sc, a, c.n, &r);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"scenario", required_argument, NULL, 's'},
		{"arm", required_argument, NULL, 'a'},
		{"seed", required_argument, NULL, 'S'},
		{"jitter", required_argument, NULL, 'j'},
		{"duration-s", required_argument, NULL, 'd'},
		{"hold-ms", required_argument, NULL, 'H'},
		{"slope", required_argument, NULL, 'k'},
		{"tick-us", required_argument, NULL, 't'},
		{"trace", required_argument, NULL, 'T'},
		{"clock", no_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {.arm = -1};
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case 's':
			o.scenario = optarg;
			break;
		case 'a':
			for (int a = 0; a < JOBS_SIM_ARMS; a++)
				if (!strcmp(optarg, jobs_sim_arm_name(a)))
					o.arm = a;
			if (o.arm < 0) {
				fprintf(stderr, "jobs-sim: unknown arm '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'S':
			o.has_seed = !number("seed", optarg, &o.seed);
			if (!o.has_seed)
				return 2;
			break;
		case 'j':
			o.has_jitter = !number("jitter", optarg, &o.jitter);
			if (!o.has_jitter)
				return 2;
			break;
		case 'd':
			o.has_duration =
				!number("duration-s", optarg, &o.duration_s);
			if (!o.has_duration)
				return 2;
			break;
		case 'H':
			o.has_hold = !number("hold-ms", optarg, &o.hold_ms);
			if (!o.has_hold)
				return 2;
			break;
		case 'k':
			o.has_slope = !number("slope", optarg, &o.slope);
			if (!o.has_slope)
				return 2;
			break;
		case 't':
			o.has_tick = !number("tick-us", optarg, &o.tick_us);
			if (!o.has_tick)
				return 2;
			break;
		case 'T':
			o.trace = optarg;
			break;
		case 'c':
			o.clock = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	printf("| scenario | arm | job | alone ms | iterations | mean / alone "
	       "| p90 / alone | overlap it. 1-4 | overlap after 20 | settled "
	       "at | holds | all locked | weighted |\n"
	       "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int s = 0; s < 3 && !rc; s++) {
		if (o.scenario && strcmp(o.scenario, scenarios[s]))
			continue;
		for (int a = 0; a < JOBS_SIM_ARMS && !rc; a++)
			if (o.arm < 0 || o.arm == a)
				rc = run(&o, scenarios[s], a);
	}
	if (o.scenario && strcmp(o.scenario, "two") &&
	    strcmp(o.scenario, "three") && strcmp(o.scenario, "incompatible")) {
		fprintf(stderr, "jobs-sim: unknown scenario '%s'\n",
			o.scenario);
		return 2;
	}
	return rc;
}
