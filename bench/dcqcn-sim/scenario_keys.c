// SPDX-License-Identifier: BSD-2-Clause
/*
 * scenario_keys.c - the scenario's key table: each node's path with its
 * list indices stripped ("flows[].sent[].at") is matched against it, the
 * value parsed with its unit and stored; the dcqcn_params fields a scenario
 * may set under params:, by name. Every index taken from a path is
 * bounds-checked against what the first count found.
 */
#include "scenario_load.h"

const struct key keys[] = {
	{"", YAML_LOC_MAPPING, K_ROOT, M_ANY, "a mapping of scenario keys"},
	{"profile", YAML_LOC_SCALAR, K_PROFILE, M_ANY, "paper or connectx"},
	{"line_rate", YAML_LOC_SCALAR, K_LINE_RATE, M_ANY, E_RATE},
	{"duration", YAML_LOC_SCALAR, K_DURATION, M_ANY, E_TIME},
	{"seed", YAML_LOC_SCALAR, K_SEED, M_ANY, "an unsigned integer"},
	{"packet", YAML_LOC_SCALAR, K_PACKET, M_ANY,
	 "a packet size from 64 to 65535 bytes, such as 1000 or 1KB"},
	{"params", YAML_LOC_MAPPING, K_PARAMS, M_ANY,
	 "a mapping of dcqcn_params fields"},
	{"bottleneck", YAML_LOC_MAPPING, K_BOTTLENECK, M_ANY,
	 "a mapping: rate, kmin, kmax, pmax, feedback_delay, buffer, mark"},
	{"bottleneck.rate", YAML_LOC_SCALAR, K_BN_RATE, M_ANY, E_RATE},
	{"bottleneck.kmin", YAML_LOC_SCALAR, K_BN_KMIN, M_ANY, E_SIZE},
	{"bottleneck.kmax", YAML_LOC_SCALAR, K_BN_KMAX, M_ANY, E_SIZE},
	{"bottleneck.pmax", YAML_LOC_SCALAR, K_BN_PMAX, M_ANY, E_PROB},
	{"bottleneck.feedback_delay", YAML_LOC_SCALAR, K_BN_DELAY, M_ANY,
	 E_TIME},
	{"bottleneck.buffer", YAML_LOC_SCALAR, K_BN_BUFFER, M_ANY, E_SIZE},
	{"bottleneck.mark", YAML_LOC_SCALAR, K_BN_MARK, M_ANY,
	 "enqueue or dequeue"},
	{"flows", YAML_LOC_SEQUENCE, K_FLOWS, M_ANY, "a list of flows"},
	{"flows[]", YAML_LOC_MAPPING, K_FLOW, M_ANY,
	 "a mapping such as {start: 0ms} (closed loop) or "
	 "{cnp: [0us]} (scripted)"},
	{"flows[].start", YAML_LOC_SCALAR, K_FLOW_START, M_ANY, E_TIME},
	{"flows[].count", YAML_LOC_SCALAR, K_FLOW_COUNT, M_CLOSED,
	 "a number of flows, 1 or more"},
	{"flows[].cnp", YAML_LOC_SEQUENCE, K_CNP, M_SCRIPTED,
	 "a list of CNP arrival times, such as [0us, 60us]"},
	{"flows[].cnp[]", YAML_LOC_SCALAR, K_CNP_AT, M_SCRIPTED, E_TIME},
	{"flows[].marked", YAML_LOC_SEQUENCE, K_MARKED, M_SCRIPTED,
	 "a list of CE-marked arrival times, such as [0us, 10us]"},
	{"flows[].marked[]", YAML_LOC_SCALAR, K_MARKED_AT, M_SCRIPTED, E_TIME},
	{"flows[].sent", YAML_LOC_SEQUENCE, K_SENT, M_SCRIPTED,
	 "a list such as [{at: 10us, bytes: 10MB}]"},
	{"flows[].sent[]", YAML_LOC_MAPPING, K_SENT_ENTRY, M_SCRIPTED,
	 "a mapping such as {at: 10us, bytes: 10MB}"},
	{"flows[].sent[].at", YAML_LOC_SCALAR, K_SENT_AT, M_SCRIPTED, E_TIME},
	{"flows[].sent[].bytes", YAML_LOC_SCALAR, K_SENT_BYTES, M_SCRIPTED,
	 E_SIZE},
	{"summary", YAML_LOC_MAPPING, K_SUMMARY, M_ANY,
	 "a mapping: window, bin, avg, band, hold, util_after, util_target, "
	 "fair_after"},
	{"summary.window", YAML_LOC_SCALAR, K_SUM_WINDOW, M_ANY, E_TIME},
	{"summary.bin", YAML_LOC_SCALAR, K_SUM_BIN, M_ANY, E_TIME},
	{"summary.band", YAML_LOC_SCALAR, K_SUM_BAND, M_ANY,
	 "a fraction of the fair share such as 10% or 0.1"},
	{"summary.util_after", YAML_LOC_SCALAR, K_SUM_UTIL, M_ANY, E_TIME},
	{"summary.fair_after", YAML_LOC_SCALAR, K_SUM_FAIR, M_ANY, E_TIME},
	{"summary.avg", YAML_LOC_SCALAR, K_SUM_AVG, M_ANY, E_TIME},
	{"summary.hold", YAML_LOC_SCALAR, K_SUM_HOLD, M_ANY, E_TIME},
	{"summary.util_target", YAML_LOC_SCALAR, K_SUM_TARGET, M_ANY,
	 "a fraction of the bottleneck rate such as 95% or 0.95"},
	{"gateway", YAML_LOC_MAPPING, K_GATEWAY, M_CLOSED,
	 "a mapping: port, poll, kmin, kmax, pmax, buffer, gaps"},
	{"gateway.port", YAML_LOC_SCALAR, K_GW_PORT, M_CLOSED, E_RATE},
	{"gateway.poll", YAML_LOC_SCALAR, K_GW_POLL, M_CLOSED, E_TIME},
	{"gateway.kmin", YAML_LOC_SCALAR, K_GW_KMIN, M_CLOSED, E_SIZE},
	{"gateway.kmax", YAML_LOC_SCALAR, K_GW_KMAX, M_CLOSED, E_SIZE},
	{"gateway.pmax", YAML_LOC_SCALAR, K_GW_PMAX, M_CLOSED, E_PROB},
	{"gateway.buffer", YAML_LOC_SCALAR, K_GW_BUFFER, M_CLOSED, E_SIZE},
	{"gateway.gaps", YAML_LOC_MAPPING, K_GW_GAPS, M_CLOSED,
	 "a mapping such as {length: 5ms, mean_interval: 100ms} or "
	 "{length: 5ms, at: [100ms, 300ms]}"},
	{"gateway.gaps.length", YAML_LOC_SCALAR, K_GW_GAP_LEN, M_CLOSED,
	 E_TIME},
	{"gateway.gaps.mean_interval", YAML_LOC_SCALAR, K_GW_GAP_MEAN, M_CLOSED,
	 E_TIME},
	{"gateway.gaps.at", YAML_LOC_SEQUENCE, K_GW_GAP_AT, M_CLOSED,
	 "a list of the times the worker stops, such as [100ms, 300ms]"},
	{"gateway.gaps.at[]", YAML_LOC_SCALAR, K_GW_GAP_AT_ENTRY, M_CLOSED,
	 E_TIME},
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

#define PF(name, kind)                                                         \
	{                                                                      \
#name, kind, offsetof(struct dcqcn_params, name)               \
	}
static const struct param_field param_fields[] = {
	PF(min_bps, P_RATE),	      PF(ai_bps, P_RATE),
	PF(hai_bps, P_RATE),	      PF(g, P_REAL),
	PF(alpha_init, P_REAL),	      PF(alpha_ns, P_TIME),
	PF(inc_ns, P_TIME),	      PF(dec_ns, P_TIME),
	PF(byte_counter, P_SIZE),     PF(f, P_COUNT),
	PF(min_dec_factor, P_FACTOR), PF(clamp_always, P_BOOL),
	PF(clamp_after_inc, P_BOOL),  PF(np_interval_ns, P_TIME),
	PF(first_cnp_bps, P_RATE0),   PF(alpha_before_cut, P_BOOL),
};
#undef PF

#define N_PARAMS (sizeof(param_fields) / sizeof(param_fields[0]))

static const char *const param_expect[] = {
	[P_RATE] = E_RATE,
	[P_RATE0] = E_RATE " (or 0)",
	[P_TIME] = E_TIME,
	[P_SIZE] = E_SIZE " (0: off)",
	[P_REAL] = "a number from 0 to 1, such as 0.5 or 1/256",
	[P_FACTOR] = "a fraction such as 50% or 0.5",
	[P_COUNT] = "a whole number up to 1000",
	[P_BOOL] = "true or false",
};

static const struct key *find_key(const char *pattern)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (!strcmp(keys[i].pattern, pattern))
			return &keys[i];
	return NULL;
}

static const struct param_field *find_param(const char *name)
{
	for (size_t i = 0; i < N_PARAMS; i++)
		if (!strcmp(param_fields[i].name, name))
			return &param_fields[i];
	return NULL;
}

const char *scenario_param_name(size_t i)
{
	return i < N_PARAMS ? param_fields[i].name : NULL;
}

/* "unknown key; one of: a, b, c" with the keys valid next to pattern. */
static int unknown_key(struct ctx *c, const struct yaml_loc_node *n,
		       const char *pattern)
{
	const char *dot = strrchr(pattern, '.');
	size_t plen = dot ? (size_t)(dot - pattern) : 0, o = 0;
	char list[512];

	list[0] = '\0';
	if (plen == 6 && !strncmp(pattern, "params", 6)) {
		for (size_t i = 0; i < N_PARAMS && o < sizeof(list); i++)
			o += (size_t)snprintf(list + o, sizeof(list) - o,
					      "%s%s", o ? ", " : "",
					      param_fields[i].name);
	} else {
		for (size_t i = 1; i < N_KEYS && o < sizeof(list); i++) {
			const char *k = keys[i].pattern, *kd = strrchr(k, '.');
			size_t klen = kd ? (size_t)(kd - k) : 0;

			if (klen != plen || strncmp(k, pattern, plen) ||
			    strchr(kd ? kd + 1 : k, '['))
				continue; /* another level, or a list entry */
			o += (size_t)snprintf(list + o, sizeof(list) - o,
					      "%s%s", o ? ", " : "",
					      kd ? kd + 1 : k);
		}
	}
	return fail(c, n, true, "unknown key%s%s", list[0] ? "; one of: " : "",
		    list);
}

static int get_time(struct ctx *c, const struct yaml_loc_node *n, uint64_t *ns)
{
	int rc = unit_time(n->text, ns);

	return rc ? unit_fail(c, n, E_TIME, rc) : 0;
}

int get_rate(struct ctx *c, const struct yaml_loc_node *n, double *bps)
{
	int rc = unit_rate(n->text, bps);

	return rc ? unit_fail(c, n, E_RATE, rc) : 0;
}

static int get_size(struct ctx *c, const struct yaml_loc_node *n,
		    uint64_t *bytes)
{
	int rc = unit_size(n->text, bytes);

	return rc ? unit_fail(c, n, E_SIZE, rc) : 0;
}

static int set_param(struct ctx *c, const struct yaml_loc_node *n,
		     const char *name)
{
	const struct param_field *f = find_param(name);
	char *field = (char *)&c->sc->params;
	const char *what;
	uint64_t u;
	double d;
	int rc = 0;

	if (!strcmp(name, "profile") || !strcmp(name, "line_bps"))
		return fail(c, n, true,
			    "set by the top-level key %s, whose value the "
			    "defaults depend on",
			    name[0] == 'p' ? "profile" : "line_rate");
	if (!f)
		return unknown_key(c, n, "params.x");
	what = param_expect[f->kind];
	if (n->kind != YAML_LOC_SCALAR)
		return bad_value(c, n, what, NULL);
	field += f->off;
	switch (f->kind) {
	case P_RATE0:
		if (!strcmp(n->text, "0")) {
			d = 0;
			memcpy(field, &d, sizeof(d));
			break;
		}
		/* fall through */
	case P_RATE:
		if (!(rc = unit_rate(n->text, &d)))
			memcpy(field, &d, sizeof(d));
		break;
	case P_TIME:
		if (!(rc = unit_time(n->text, &u)))
			memcpy(field, &u, sizeof(u));
		break;
	case P_SIZE:
		if (!(rc = unit_size(n->text, &u)))
			memcpy(field, &u, sizeof(u));
		break;
	case P_REAL:
		if (!(rc = unit_real(n->text, 1.0, &d)))
			memcpy(field, &d, sizeof(d));
		break;
	case P_FACTOR:
		if (!(rc = unit_prob(n->text, &d, NULL)))
			memcpy(field, &d, sizeof(d));
		break;
	case P_COUNT:
		if (!(rc = unit_count(n->text, MAX_F, &u))) {
			uint32_t v = (uint32_t)u;

			memcpy(field, &v, sizeof(v));
		}
		break;
	case P_BOOL: {
		bool b;

		if (!(rc = unit_bool(n->text, &b)))
			memcpy(field, &b, sizeof(b));
		break;
	}
	}
	return rc ? unit_fail(c, n, what, rc) : 0;
}

/* A new input from node n of flows[idx[0]]. */
static struct input_src *add_input(struct ctx *c, const struct yaml_loc_node *n,
				   const uint32_t *idx, enum scn_input_kind k)
{
	struct scenario *sc = c->sc;
	struct input_src *s = &c->srcs[sc->n_inputs];

	sc->inputs[sc->n_inputs] = (struct scn_input){
		.flow = idx[0], .kind = k, .seq = (uint32_t)sc->n_inputs};
	s->node = n;
	s->idx[0] = idx[0];
	s->idx[1] = idx[1];
	sc->n_inputs++;
	return s;
}

/* The sent[] entry that a sent[].at or sent[].bytes node belongs to: the
 * last one, if it has the same indices. */
static struct input_src *sent_entry(struct ctx *c, const uint32_t *idx)
{
	struct input_src *s;

	if (!c->sc->n_inputs)
		return NULL;
	s = &c->srcs[c->sc->n_inputs - 1];
	if (c->sc->inputs[c->sc->n_inputs - 1].kind != SCN_IN_SENT ||
	    s->idx[0] != idx[0] || s->idx[1] != idx[1])
		return NULL;
	return s;
}

/* The gateway: section's keys (closed loop only, visit() checks). */
static int apply_gateway(struct ctx *c, const struct key *k,
			 const struct yaml_loc_node *n, const uint32_t *idx)
{
	struct scn_gateway *gw = &c->sc->gateway;
	uint64_t u;
	int rc;

	switch (k->id) {
	case K_GATEWAY:
		gw->enabled = true;
		return 0;
	case K_GW_PORT:
		return get_rate(c, n, &gw->port_bps);
	case K_GW_POLL:
		c->gw_poll = n;
		return get_time(c, n, &gw->poll_ns);
	case K_GW_KMIN:
	case K_GW_KMAX:
		if (get_size(c, n, &u))
			return -1;
		if (u > UINT32_MAX)
			return bad_value(c, n, "a size up to 4GB",
					 "out of range");
		if (k->id == K_GW_KMIN) {
			gw->ecn.kmin = (uint32_t)u;
		} else {
			gw->ecn.kmax = (uint32_t)u;
			c->gw_kmax = n;
		}
		return 0;
	case K_GW_PMAX:
		rc = unit_prob(n->text, &gw->pmax, &gw->ecn.pmax);
		return rc ? unit_fail(c, n, k->expect, rc) : 0;
	case K_GW_BUFFER:
		return get_size(c, n, &gw->buffer_bytes);
	case K_GW_GAPS:
		c->gw_gaps = n;
		return 0;
	case K_GW_GAP_LEN:
		if (get_time(c, n, &gw->gap_ns))
			return -1;
		if (!gw->gap_ns)
			return bad_value(c, n, "a time above 0", NULL);
		return 0;
	case K_GW_GAP_MEAN:
		if (get_time(c, n, &gw->gap_mean_ns))
			return -1;
		if (!gw->gap_mean_ns)
			return bad_value(c, n, "a time above 0", NULL);
		return 0;
	case K_GW_GAP_AT_ENTRY:
		if (idx[0] >= SCN_MAX_GAPS)
			return fail(c, n, false, "more than %d gaps",
				    SCN_MAX_GAPS);
		if (get_time(c, n, &u))
			return -1;
		if (idx[0] &&
		    (idx[0] != gw->n_gaps || u <= gw->gap_at[idx[0] - 1]))
			return bad_value(c, n, "a time after the one before",
					 NULL);
		gw->gap_at[idx[0]] = u;
		c->gw_at[idx[0]] = n;
		gw->n_gaps = idx[0] + 1;
		return 0;
	default:
		return 0;
	}
}

static int apply(struct ctx *c, const struct key *k,
		 const struct yaml_loc_node *n, const uint32_t *idx)
{
	struct scenario *sc = c->sc;
	struct scn_bottleneck *bn = &sc->bottleneck;
	struct input_src *s;
	uint64_t u;
	int rc;

	switch (k->id) {
	case K_ROOT:
	case K_PROFILE:
	case K_LINE_RATE:
	case K_PARAMS:
	case K_BOTTLENECK:
	case K_FLOWS:
	case K_CNP:
	case K_MARKED:
	case K_SENT:
	case K_SUMMARY:
	case K_GW_GAP_AT:
	case K_PARAM:
		return 0; /* read before the pass, or only a container */
	case K_GATEWAY:
	case K_GW_PORT:
	case K_GW_POLL:
	case K_GW_KMIN:
	case K_GW_KMAX:
	case K_GW_PMAX:
	case K_GW_BUFFER:
	case K_GW_GAPS:
	case K_GW_GAP_LEN:
	case K_GW_GAP_MEAN:
	case K_GW_GAP_AT_ENTRY:
		return apply_gateway(c, k, n, idx);
	case K_DURATION:
		if (get_time(c, n, &sc->duration_ns))
			return -1;
		if (!sc->duration_ns)
			return bad_value(c, n, "a duration above 0", NULL);
		return 0;
	case K_SEED:
		rc = unit_count(n->text, UINT64_MAX, &sc->seed);
		return rc ? unit_fail(c, n, k->expect, rc) : 0;
	case K_PACKET:
		if (get_size(c, n, &u))
			return -1;
		if (u < 64 || u > 65535)
			return bad_value(c, n, k->expect, "out of range");
		sc->packet_bytes = (uint32_t)u;
		return 0;
	case K_BN_RATE:
		return get_rate(c, n, &bn->rate_bps);
	case K_BN_KMIN:
	case K_BN_KMAX:
		if (get_size(c, n, &u))
			return -1;
		if (u > UINT32_MAX)
			return bad_value(c, n, "a size up to 4GB",
					 "out of range");
		if (k->id == K_BN_KMIN) {
			bn->ecn.kmin = (uint32_t)u;
			c->kmin = n;
		} else {
			bn->ecn.kmax = (uint32_t)u;
			c->kmax = n;
		}
		return 0;
	case K_BN_PMAX:
		rc = unit_prob(n->text, &bn->pmax, &bn->ecn.pmax);
		return rc ? unit_fail(c, n, k->expect, rc) : 0;
	case K_BN_DELAY:
		return get_time(c, n, &bn->delay_ns);
	case K_BN_BUFFER:
		return get_size(c, n, &bn->buffer_bytes);
	case K_BN_MARK:
		if (!strcmp(n->text, "enqueue"))
			bn->mark_at = SCN_MARK_ENQUEUE;
		else if (!strcmp(n->text, "dequeue"))
			bn->mark_at = SCN_MARK_DEQUEUE;
		else
			return bad_value(c, n, k->expect, NULL);
		return 0;
	case K_FLOW:
		if (idx[0] >= c->n_entries)
			return unknown_key(c, n, k->pattern);
		c->entries[idx[0]].node = n;
		return 0;
	case K_FLOW_START:
		if (idx[0] >= c->n_entries)
			return unknown_key(c, n, k->pattern);
		return get_time(c, n, &c->entries[idx[0]].start_ns);
	case K_FLOW_COUNT:
		if (idx[0] >= c->n_entries)
			return unknown_key(c, n, k->pattern);
		rc = unit_count(n->text, SCN_MAX_FLOWS, &u);
		if (!rc && !u)
			rc = UNIT_ERANGE;
		if (rc)
			return unit_fail(c, n, k->expect, rc);
		c->entries[idx[0]].count = u;
		return 0;
	case K_CNP_AT:
	case K_MARKED_AT:
		if (idx[0] >= c->n_entries || sc->n_inputs >= c->n_inputs)
			return unknown_key(c, n, k->pattern);
		if (get_time(c, n, &u))
			return -1;
		add_input(c, n, idx,
			  k->id == K_CNP_AT ? SCN_IN_CNP : SCN_IN_MARKED);
		sc->inputs[sc->n_inputs - 1].at_ns = u;
		return 0;
	case K_SENT_ENTRY:
		if (idx[0] >= c->n_entries || sc->n_inputs >= c->n_inputs)
			return unknown_key(c, n, k->pattern);
		add_input(c, n, idx, SCN_IN_SENT);
		return 0;
	case K_SENT_AT:
	case K_SENT_BYTES:
		s = sent_entry(c, idx);
		if (!s)
			return unknown_key(c, n, k->pattern);
		if (k->id == K_SENT_AT) {
			s->have |= 1;
			return get_time(c, n,
					&sc->inputs[sc->n_inputs - 1].at_ns);
		}
		s->have |= 2;
		if (get_size(c, n, &sc->inputs[sc->n_inputs - 1].bytes))
			return -1;
		if (!sc->inputs[sc->n_inputs - 1].bytes)
			return bad_value(c, n, "a size above 0", NULL);
		return 0;
	case K_SUM_WINDOW:
		c->window = n;
		return get_time(c, n, &sc->summary.window_ns);
	case K_SUM_BIN:
		c->bin = n;
		if (get_time(c, n, &sc->summary.bin_ns))
			return -1;
		if (sc->summary.bin_ns < 1000)
			return bad_value(c, n, "a time of 1us or more", NULL);
		return 0;
	case K_SUM_BAND:
		rc = unit_prob(n->text, &sc->summary.band, NULL);
		if (!rc && !(sc->summary.band > 0))
			rc = UNIT_ERANGE;
		return rc ? unit_fail(c, n, k->expect, rc) : 0;
	case K_SUM_UTIL:
		c->util_after = n;
		return get_time(c, n, &sc->summary.util_after_ns);
	case K_SUM_FAIR:
		c->fair_after = n;
		return get_time(c, n, &sc->summary.fair_after_ns);
	case K_SUM_AVG:
		c->avg = n;
		return get_time(c, n, &sc->summary.avg_ns);
	case K_SUM_HOLD:
		c->hold = n;
		return get_time(c, n, &sc->summary.hold_ns);
	case K_SUM_TARGET:
		rc = unit_prob(n->text, &sc->summary.util_target, NULL);
		return rc ? unit_fail(c, n, k->expect, rc) : 0;
	}
	return 0;
}

/* One node: find its key, check kind and mode, store its value. */
int visit(struct ctx *c, const struct yaml_loc_node *n)
{
	char pattern[MAX_PATH];
	uint32_t idx[MAX_IDX] = {0};
	const struct key *k;
	int ni = normalise(n->path, pattern, sizeof(pattern), idx);

	if (ni < 0)
		return unknown_key(c, n, n->path);
	if (!strncmp(pattern, "params.", 7) && !strchr(pattern + 7, '.') &&
	    !strchr(pattern + 7, '['))
		return set_param(c, n, pattern + 7);
	k = find_key(pattern);
	if (!k)
		return unknown_key(c, n, pattern);
	if (n->kind != k->kind)
		return bad_value(c, n, k->expect, NULL);
	if (k->mode == M_CLOSED && !c->sc->closed_loop)
		return fail(c, n, true,
			    "only in a closed loop (a scenario with a "
			    "bottleneck)");
	if (k->mode == M_SCRIPTED && c->sc->closed_loop)
		return fail(c, n, true,
			    "only in a scripted scenario (one without a "
			    "bottleneck)");
	return apply(c, k, n, idx);
}

/* profile, line_rate and the mode, which the defaults depend on. */
