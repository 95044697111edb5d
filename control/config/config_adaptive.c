// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_adaptive.c - ports[].adaptive, the adaptive egress controller of
 * each port (dataplane/run/adaptive.h, dataplane/cc/edge_rate.h), after
 * the ports' rates (parts of the loader: config_sections.h).
 *
 *   ports[].adaptive.mode        off | on; default off
 *   ports[].adaptive.target      time, 10us..1s; default 500us
 *   ports[].adaptive.floor       rate or N% of ports[].rate; default 10%
 *   ports[].adaptive.probe_gain  fraction per RTT, (0, 1] (0.1 or 10%);
 *                                default 0.1
 * The defaults are the controller's (edge_rate_params_default()).
 * mode: on needs ports[].rate (the ceiling and the rate with no samples).
 * The floor is divided among the port's queues (each queue's shaper has
 * its controller): a written floor, and the default one with mode on,
 * must give each queue at least TB_MIN_RATE, the lowest rate the shaper
 * carries (with queues: auto the count is known at start: the gateway
 * checks it then, adaptive_check()).
 * Everything here is applied live on reload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_sections.h"
#include "edge_rate.h"
#include "tbucket.h"
#include "units.h"

/* A fraction in (0, 1]: "0.1" or "10%". */
static int get_gain(const struct load_ctx *c, const struct key *k, double *g)
{
	const char *s = k->n->text;
	char *end = NULL;
	double v = strtod(s, &end);

	if (end != s && end && *end == '%' && !end[1])
		v /= 100;
	else if (end == s || !end || *end)
		return cfg_fail(c, k->n->val,
				"%s: not a fraction (got '%s'); write e.g. "
				"0.1 or 10%%",
				k->path, s);
	if (!(v > 0) || v > 1)
		return cfg_fail(c, k->n->val,
				"%s: must lie in (0, 1] (above 0, at most "
				"1 or 100%%) (got '%s')",
				k->path, s);
	*g = v;
	return 0;
}

/* The floor gives each of `queues` queues at least TB_MIN_RATE. k: the
 * floor key when written, else NULL (the default, 10% of ports[].rate,
 * reported at the mode key). */
static int check_floor(const struct load_ctx *c, const struct qos_policy *q,
		       unsigned int i, const struct key *k, uint32_t queues)
{
	uint64_t floor = q->port[i].adaptive.floor_bps;
	uint64_t need = (uint64_t)TB_MIN_RATE * queues;
	char least[32], with[48] = "";
	struct key mode;

	if (floor >= need)
		return 0;
	units_rate_text(least, sizeof(least), need);
	if (queues > 1)
		snprintf(with, sizeof(with), "with %u queues, ", queues);
	if (k)
		return cfg_fail(c, k->n->val,
				"%s: below the shaper's lowest rate, %u bit/s "
				"per queue; %suse at least %s (got '%s')",
				k->path, TB_MIN_RATE, with, least, k->n->text);
	cfg_key_at(c, &mode, "ports[%u].adaptive.mode", i);
	return cfg_fail(c, mode.n->val,
			"ports[%u].adaptive.floor: the default, 10%% of "
			"ports[%u].rate, is below the shaper's lowest rate, "
			"%u bit/s per queue; %swrite a floor of at least %s",
			i, i, TB_MIN_RATE, with, least);
}

static int load_port(const struct load_ctx *c, struct qos_policy *q,
		     unsigned int i, uint32_t queues)
{
	struct qos_port *p = &q->port[i];
	struct qos_adaptive *a = &p->adaptive;
	struct edge_rate_params def;
	uint32_t share = 0;
	struct key k;
	char rate[32], path[40];

	snprintf(path, sizeof(path), "ports[%u].adaptive.mode", i);
	a->on = cfg_enum_at(c, path, cfg_adaptive_modes, 0) == 1;
	edge_rate_params_default(&def, (double)p->rate_bps);
	a->target_ns = def.target_ns;
	a->probe_gain = def.probe_gain;
	a->floor_bps = (uint64_t)def.floor_bps;
	if (cfg_key_at(c, &k, "ports[%u].adaptive.target", i) &&
	    cfg_get_time(c, &k, 10000, 1000000000, &a->target_ns))
		return -1;
	if (cfg_key_at(c, &k, "ports[%u].adaptive.probe_gain", i) &&
	    get_gain(c, &k, &a->probe_gain))
		return -1;
	if (cfg_key_at(c, &k, "ports[%u].adaptive.floor", i)) {
		if (cfg_get_rate(c, &k, q, &a->floor_bps, &share,
				 "10% of ports[].rate"))
			return -1;
		if (share)
			a->floor_bps =
				(uint64_t)(((units_u128)p->rate_bps * share) >>
					   16);
		if (p->rate_bps && a->floor_bps > p->rate_bps) {
			units_rate_text(rate, sizeof(rate), p->rate_bps);
			return cfg_fail(c, k.n->val,
					"%s: above ports[%u].rate %s (got "
					"'%s'); the floor is the lowest rate "
					"the controller may set",
					k.path, i, rate, k.n->text);
		}
	}
	if (a->on && !p->rate_bps) {
		cfg_key_at(c, &k, "ports[%u].adaptive.mode", i);
		return cfg_fail(c, k.n->val,
				"ports[%u].adaptive.mode: on needs "
				"ports[%u].rate, the ceiling of the adaptive "
				"rate and the rate held while nothing is "
				"measured; set ports[%u].rate to the line rate",
				i, i, i);
	}
	if (cfg_key_at(c, &k, "ports[%u].adaptive.floor", i))
		return check_floor(c, q, i, &k, queues);
	return a->on ? check_floor(c, q, i, NULL, queues) : 0;
}

int cfg_load_adaptive(const struct load_ctx *c, struct xdplane_config *cfg)
{
	/* queues: auto, checked again at start with the count */
	uint32_t queues = cfg->queues == CONFIG_QUEUES_AUTO ? 1 : cfg->queues;

	for (unsigned int i = 0; i < CONFIG_PORTS; i++)
		if (load_port(c, &cfg->qos, i, queues))
			return -1;
	return 0;
}
