// SPDX-License-Identifier: BSD-2-Clause
/*
 * edge-sim - adaptive egress in virtual time (edge_sim.h): one scenario
 * from the command line, a summary on stdout, the trace as CSV.
 *
 *   edge-sim [--line-mbit N] [--cap-mbit N] [--rtt-us N] [--buffer-kb N]
 *            [--pkt N] [--duration-s N] [--warmup-s N]
 *            [--steps T_S:SHARE,...] [--target-us N] [--floor-mbit N]
 *            [--gain G] [--flows N] [--off] [--trace FILE]
 *
 * Exit status 0; 1 when the scenario is refused; 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edge_sim.h"

static void usage(FILE *f)
{
	fputs("usage: edge-sim [--line-mbit N] [--cap-mbit N] [--rtt-us N] "
	      "[--buffer-kb N] [--pkt N]\n"
	      "                [--duration-s N] [--warmup-s N] "
	      "[--steps T_S:SHARE,...] [--target-us N]\n"
	      "                [--floor-mbit N] [--gain G] [--flows N] [--off] "
	      "[--trace FILE]\n",
	      f);
}

/* A number, all of the argument, > 0 (or >= 0 with zero_ok). */
static int number(const char *opt, const char *s, double *v, int zero_ok)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || *v < 0 || (!zero_ok && *v == 0)) {
		fprintf(stderr, "edge-sim: --%s: bad number '%s'\n", opt, s);
		return -1;
	}
	return 0;
}

/* "0:1,2:0.5,4:0.8": from T seconds on, SHARE of the capacity. */
static int parse_steps(const char *s, struct edge_sim_cfg *c)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	c->n_steps = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		double t, share;

		if (!colon || c->n_steps == EDGE_SIM_MAX_STEPS)
			return -1;
		*colon = '\0';
		if (number("steps", tok, &t, 1) ||
		    number("steps", colon + 1, &share, 0))
			return -1;
		c->steps[c->n_steps].t_ns = (uint64_t)(t * 1e9);
		c->steps[c->n_steps++].share = share;
	}
	return c->n_steps ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"line-mbit", 1, NULL, 'l'}, {"cap-mbit", 1, NULL, 'c'},
		{"rtt-us", 1, NULL, 'r'},    {"buffer-kb", 1, NULL, 'b'},
		{"pkt", 1, NULL, 'p'},	     {"duration-s", 1, NULL, 'd'},
		{"warmup-s", 1, NULL, 'w'},  {"steps", 1, NULL, 's'},
		{"target-us", 1, NULL, 'T'}, {"floor-mbit", 1, NULL, 'f'},
		{"gain", 1, NULL, 'g'},	     {"off", 0, NULL, 'o'},
		{"flows", 1, NULL, 'F'},     {"trace", 1, NULL, 't'},
		{"help", 0, NULL, 'h'},	     {NULL, 0, NULL, 0},
	};
	struct edge_sim_cfg c;
	struct edge_sim_result r;
	double v, floor_mbit = -1, target_us = -1, gain = -1;
	char err[256];
	int o;

	edge_sim_cfg_default(&c);
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		const char *name = o == '?' ? "" : opts[0].name;

		for (const struct option *p = opts; p->name; p++)
			if (p->val == o)
				name = p->name;
		switch (o) {
		case 'l':
		case 'c':
		case 'r':
		case 'b':
		case 'p':
		case 'd':
		case 'w':
		case 'T':
		case 'f':
		case 'g':
		case 'F':
			if (number(name, optarg, &v, o == 'w' || o == 'f'))
				return 2;
			if (o == 'l')
				c.line_bps = v * 1e6;
			else if (o == 'c')
				c.cap_bps = v * 1e6;
			else if (o == 'r')
				c.base_rtt_ns = (uint64_t)(v * 1e3);
			else if (o == 'b')
				c.buffer_bytes = (uint64_t)(v * 1e3);
			else if (o == 'p')
				c.pkt_bytes = (uint32_t)v;
			else if (o == 'd')
				c.duration_ns = (uint64_t)(v * 1e9);
			else if (o == 'w')
				c.warmup_ns = (uint64_t)(v * 1e9);
			else if (o == 'T')
				target_us = v;
			else if (o == 'f')
				floor_mbit = v;
			else if (o == 'F')
				c.flows = (uint32_t)v;
			else
				gain = v;
			break;
		case 's':
			if (parse_steps(optarg, &c)) {
				fprintf(stderr,
					"edge-sim: --steps: expected "
					"T_S:SHARE,... e.g. 0:1,2:0.5\n");
				return 2;
			}
			break;
		case 'o':
			c.adaptive = false;
			break;
		case 't':
			c.trace = fopen(optarg, "w");
			if (!c.trace) {
				fprintf(stderr, "edge-sim: %s: %s\n", optarg,
					strerror(errno));
				return 1;
			}
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
	edge_rate_params_default(&c.ctl, c.line_bps);
	if (target_us >= 0)
		c.ctl.target_ns = (uint64_t)(target_us * 1e3);
	if (floor_mbit >= 0)
		c.ctl.floor_bps = floor_mbit * 1e6;
	if (gain >= 0)
		c.ctl.probe_gain = gain;
	if (edge_sim_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "edge-sim: %s\n", err);
		return 1;
	}
	if (c.trace && fclose(c.trace)) {
		fprintf(stderr, "edge-sim: trace: %s\n", strerror(errno));
		return 1;
	}
	printf("adaptive: %s\nline_mbit: %.1f\ncap_mbit: %.1f\nbase_rtt_us: "
	       "%.0f\ntarget_us: %.0f\n",
	       c.adaptive ? "on" : "off", c.line_bps / 1e6, c.cap_bps / 1e6,
	       (double)c.base_rtt_ns / 1e3, (double)c.ctl.target_ns / 1e3);
	printf("queue_mean_us: %.0f\nqueue_p99_us: %.0f\nqueue_max_us: %.0f\n"
	       "utilisation: %.3f\nrate_mean_mbit: %.1f\npackets: %llu\n"
	       "drops: %llu\nrtt_samples: %llu\n",
	       r.queue_mean_us, r.queue_p99_us, r.queue_max_us, r.utilisation,
	       r.rate_mean_mbit, (unsigned long long)r.packets,
	       (unsigned long long)r.drops, (unsigned long long)r.rtt_samples);
	for (uint32_t k = 0; k < r.n_follow; k++) {
		char q[48] = "never", rt[48] = "never";
		const struct edge_sim_follow *f = &r.follow[k];

		if (f->queue_ns != UINT64_MAX)
			snprintf(q, sizeof(q), "%.1f ms (%.0f RTT)",
				 (double)f->queue_ns / 1e6,
				 (double)f->queue_ns / (double)c.base_rtt_ns);
		if (f->rate_ns != UINT64_MAX)
			snprintf(rt, sizeof(rt), "%.1f ms (%.0f RTT)",
				 (double)f->rate_ns / 1e6,
				 (double)f->rate_ns / (double)c.base_rtt_ns);
		printf("step %.1fs share %.2f: queue back below target after "
		       "%s, rate within 15%% after %s\n",
		       (double)f->t_ns / 1e9, f->share, q, rt);
	}
	return 0;
}
