// SPDX-License-Identifier: BSD-2-Clause
/*
 * scenario.c - see scenario.h. yaml_loc parses the text and lists every
 * node with its key path and position; one pass in document order matches
 * each node's path with its list indices stripped ("flows[].sent[].at")
 * against the key table below and stores the value; then defaults,
 * required keys, cross-key rules and the work estimate are checked. Only
 * the keys that the others depend on (profile, line_rate, whether there is
 * a bottleneck) are read before that pass.
 *
 * Every index taken from a path is bounds-checked against what the first
 * count found: a mapping key may itself look like "flows[7]".
 */
#include "scenario.h"
#include "units.h"
#include "yaml_loc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH 192
#define MAX_IDX 3
#define MAX_RING (1u << 22) /* bottleneck buffer / packet */
#define DEF_PACKET 1000
#define DEF_BUFFER (64ull << 20)
#define DEF_BIN_NS 100000ull
#define DEF_WINDOW_NS 40000000ull
#define DEF_BAND 0.1
#define DEF_AVG_NS 1000000ull
#define DEF_HOLD_NS 5000000ull
#define DEF_UTIL_TARGET 0.95
#define MAX_F 1000

enum key_id {
	K_ROOT,
	K_PROFILE,
	K_LINE_RATE,
	K_DURATION,
	K_SEED,
	K_PACKET,
	K_PARAMS,
	K_BOTTLENECK,
	K_BN_RATE,
	K_BN_KMIN,
	K_BN_KMAX,
	K_BN_PMAX,
	K_BN_DELAY,
	K_BN_BUFFER,
	K_BN_MARK,
	K_FLOWS,
	K_FLOW,
	K_FLOW_START,
	K_FLOW_COUNT,
	K_CNP,
	K_CNP_AT,
	K_MARKED,
	K_MARKED_AT,
	K_SENT,
	K_SENT_ENTRY,
	K_SENT_AT,
	K_SENT_BYTES,
	K_SUMMARY,
	K_SUM_WINDOW,
	K_SUM_BIN,
	K_SUM_BAND,
	K_SUM_UTIL,
	K_SUM_FAIR,
	K_SUM_AVG,
	K_SUM_HOLD,
	K_SUM_TARGET,
	K_PARAM, /* params.<field>: matched by prefix */
};

enum key_mode { M_ANY, M_CLOSED, M_SCRIPTED };

#define E_TIME "a time such as 55us, 1.5ms or 300ns"
#define E_RATE "a rate such as 40Gbit, 2.5Gbit or 100Mbit"
#define E_SIZE "a size such as 5KB, 10MB, 64KiB or 1000 (bytes)"
#define E_PROB "a probability such as 1% or 0.01"

struct key {
	const char *pattern;
	enum yaml_loc_kind kind;
	enum key_id id;
	enum key_mode mode;
	const char *expect;
};

static const struct key keys[] = {
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
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* The dcqcn_params fields a scenario may set under params:, by name. */
enum param_kind {
	P_RATE,
	P_RATE0, /* a rate or 0 */
	P_TIME,
	P_SIZE,
	P_REAL,
	P_FACTOR,
	P_COUNT,
	P_BOOL,
};

struct param_field {
	const char *name;
	enum param_kind kind;
	size_t off;
};

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

/* A flow entry as written (closed loop: count flows each). */
struct entry {
	uint64_t start_ns;
	uint64_t count;
	const struct yaml_loc_node *node;
};

/* Where each input came from, for messages and the sent[] children. */
struct input_src {
	const struct yaml_loc_node *node;
	uint32_t idx[2]; /* flows[i], sent[j] */
	unsigned int have; /* sent: 1 = at, 2 = bytes */
};

struct ctx {
	const char *name;
	char *err;
	size_t errlen;
	struct scenario *sc;
	struct yaml_loc loc;
	size_t n_entries;
	struct entry *entries;
	size_t n_inputs;
	struct input_src *srcs;
	const struct yaml_loc_node *window, *util_after, *fair_after, *bin;
	const struct yaml_loc_node *avg, *hold;
	const struct yaml_loc_node *kmin, *kmax;
};

static const char *const kind_names[] = {
	[YAML_LOC_SCALAR] = "a value",
	[YAML_LOC_SEQUENCE] = "a list",
	[YAML_LOC_MAPPING] = "a mapping",
	[YAML_LOC_ALIAS] = "an alias (not supported)",
};

/* 'text' (first 40 characters, non-printable ones as '?') or the kind. */
static void got_text(const struct yaml_loc_node *n, char *buf, size_t size)
{
	char t[48];
	size_t i;

	if (n->kind != YAML_LOC_SCALAR) {
		snprintf(buf, size, "%s", kind_names[n->kind]);
		return;
	}
	if (!n->text[0]) {
		snprintf(buf, size, "nothing");
		return;
	}
	for (i = 0; i < 40 && n->text[i]; i++) {
		unsigned char ch = (unsigned char)n->text[i];

		t[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	t[i] = '\0';
	snprintf(buf, size, "'%s%s'", t, n->text[i] ? "..." : "");
}

/* "FILE:LINE:COL: PATH: message", at the node's key or value (n may be
 * NULL: the top of the file). Returns -1. */
__attribute__((format(printf, 4, 5))) static int
fail(struct ctx *c, const struct yaml_loc_node *n, bool at_key, const char *fmt,
     ...)
{
	struct yaml_loc_pos pos = {1, 1};
	const char *path = "";
	size_t len;
	va_list ap;

	if (n) {
		pos = at_key ? n->key : n->val;
		path = n->path;
	}
	snprintf(c->err, c->errlen, "%s:%u:%u: %.*s%s", c->name, pos.line,
		 pos.col, 100, *path ? path : "", *path ? ": " : "");
	len = strlen(c->err);
	if (len < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + len, c->errlen - len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* "expected WHAT[: detail] (got ...)" at the value. */
static int bad_value(struct ctx *c, const struct yaml_loc_node *n,
		     const char *what, const char *detail)
{
	char got[64];

	got_text(n, got, sizeof(got));
	return fail(c, n, false, "expected %s%s%s (got %s)", what,
		    detail ? ": " : "", detail ? detail : "", got);
}

static int unit_fail(struct ctx *c, const struct yaml_loc_node *n,
		     const char *what, int rc)
{
	char why[256];

	/* a rate in bytes per second or a size in bits: say what it reads
	 * as (the two spellings never overlap) */
	if (rc == UNIT_ESYNTAX &&
	    (units_rate_misread(n->text, why, sizeof(why)) ||
	     units_size_misread(n->text, why, sizeof(why))))
		return fail(c, n, false, "%s", why);
	return bad_value(c, n, what,
			 rc == UNIT_ESYNTAX ? NULL : unit_strerror(rc));
}

/* The path with every "[digits]" replaced by "[]", the indices in idx.
 * Returns the number of indices, or -1 (too long, too many indices, or an
 * index that does not fit: no key of the table). */
static int normalise(const char *path, char *out, size_t size, uint32_t *idx)
{
	size_t o = 0;
	int n = 0;

	for (const char *p = path; *p;) {
		if (*p == '[') {
			const char *q = p + 1;
			uint64_t v = 0;

			while (*q >= '0' && *q <= '9' && q - p < 10)
				v = v * 10 + (uint64_t)(*q++ - '0');
			if (*q != ']' || q == p + 1 || n == MAX_IDX ||
			    v > UINT32_MAX)
				return -1;
			idx[n++] = (uint32_t)v;
			if (o + 3 > size)
				return -1;
			out[o++] = '[';
			out[o++] = ']';
			p = q + 1;
			continue;
		}
		if (o + 2 > size)
			return -1;
		out[o++] = *p++;
	}
	out[o] = '\0';
	return n;
}

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

static int get_rate(struct ctx *c, const struct yaml_loc_node *n, double *bps)
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
	case K_PARAM:
		return 0; /* read before the pass, or only a container */
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
static int visit(struct ctx *c, const struct yaml_loc_node *n)
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
static int read_first(struct ctx *c)
{
	const struct yaml_loc_node *root = yaml_loc_find(&c->loc, "");
	const struct yaml_loc_node *n;
	enum dcqcn_profile prof = DCQCN_PAPER;
	double line;

	if (!root)
		return fail(c, NULL, false,
			    "empty scenario; it needs at least line_rate, "
			    "duration and flows");
	if (root->kind != YAML_LOC_MAPPING)
		return bad_value(c, root, keys[0].expect, NULL);
	n = yaml_loc_find(&c->loc, "profile");
	if (n) {
		int pr = n->kind == YAML_LOC_SCALAR
				 ? dcqcn_profile_from_name(n->text)
				 : -1;

		if (pr < 0)
			return bad_value(c, n, "paper or connectx", NULL);
		prof = (enum dcqcn_profile)pr;
	}
	n = yaml_loc_find(&c->loc, "line_rate");
	if (!n)
		return fail(c, root, false,
			    "line_rate missing (the flows' line rate, such as "
			    "line_rate: 40Gbit)");
	if (n->kind != YAML_LOC_SCALAR)
		return bad_value(c, n, E_RATE, NULL);
	if (get_rate(c, n, &line))
		return -1;
	dcqcn_params_default(&c->sc->params, prof, line);
	c->sc->closed_loop = yaml_loc_find(&c->loc, "bottleneck") != NULL;
	return 0;
}

/* Count flow entries and inputs, and allocate for them. */
static int count_nodes(struct ctx *c)
{
	char pattern[MAX_PATH];
	uint32_t idx[MAX_IDX];

	for (size_t i = 0; i < c->loc.n; i++) {
		if (normalise(c->loc.nodes[i].path, pattern, sizeof(pattern),
			      idx) < 0)
			continue;
		if (!strcmp(pattern, "flows[]"))
			c->n_entries++;
		else if (!strcmp(pattern, "flows[].cnp[]") ||
			 !strcmp(pattern, "flows[].marked[]") ||
			 !strcmp(pattern, "flows[].sent[]"))
			c->n_inputs++;
	}
	if (c->n_entries > SCN_MAX_FLOWS)
		return fail(c, yaml_loc_find(&c->loc, "flows"), false,
			    "more than %d flows", SCN_MAX_FLOWS);
	if (c->n_inputs > SCN_MAX_INPUTS)
		return fail(c, yaml_loc_find(&c->loc, "flows"), false,
			    "more than %d scripted inputs", SCN_MAX_INPUTS);
	c->entries = calloc(c->n_entries + 1, sizeof(*c->entries));
	c->srcs = calloc(c->n_inputs + 1, sizeof(*c->srcs));
	c->sc->inputs = calloc(c->n_inputs + 1, sizeof(*c->sc->inputs));
	if (!c->entries || !c->srcs || !c->sc->inputs)
		return fail(c, NULL, false, "out of memory");
	for (size_t i = 0; i < c->n_entries; i++)
		c->entries[i].count = 1;
	return 0;
}

static int need(struct ctx *c, const char *path, const char *what)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);

	if (n)
		return 0;
	n = yaml_loc_find(&c->loc, c->sc->closed_loop && strchr(path, '.')
					   ? "bottleneck"
					   : "");
	return fail(c, n, false, "%s missing (%s)", path, what);
}

static int check_params(struct ctx *c)
{
	const struct dcqcn_params *p = &c->sc->params;
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, "params");
	const char *why = NULL;

	if (!n)
		n = yaml_loc_find(&c->loc, "");
	if (dcqcn_params_check(p, &why))
		return fail(c, n, false, "DCQCN parameters refused: %s",
			    why ? why : "invalid");
	if (p->alpha_ns < SCN_MIN_TIMER_NS || p->inc_ns < SCN_MIN_TIMER_NS ||
	    (p->dec_ns && p->dec_ns < SCN_MIN_TIMER_NS))
		return fail(c, n, false,
			    "alpha_ns, inc_ns and dec_ns (unless 0) must be "
			    "%d ns or more in the simulator",
			    SCN_MIN_TIMER_NS);
	return 0;
}

/* A written summary time: within the run, a multiple of unit. */
static int check_time(struct ctx *c, const struct yaml_loc_node *n, uint64_t v,
		      uint64_t unit, const char *unit_name)
{
	if (!n)
		return 0;
	if (v > c->sc->duration_ns)
		return bad_value(c, n, "a time within the duration", NULL);
	if (v % unit)
		return fail(c, n, false, "must be a multiple of %s (%llu ns)",
			    unit_name, (unsigned long long)unit);
	return 0;
}

static int check_summary(struct ctx *c)
{
	struct scenario *sc = c->sc;
	struct scn_summary *s = &sc->summary;

	if (sc->duration_ns % s->bin_ns)
		return fail(
			c, c->bin ? c->bin : yaml_loc_find(&c->loc, "duration"),
			false,
			"duration (%llu ns) is not a multiple of summary.bin "
			"(%llu ns)",
			(unsigned long long)sc->duration_ns,
			(unsigned long long)s->bin_ns);
	if (c->avg && !s->avg_ns)
		return bad_value(c, c->avg, "a time above 0", NULL);
	if (c->hold && !s->hold_ns)
		return bad_value(c, c->hold, "a time above 0", NULL);
	/* defaults that do not fit the run shrink */
	if (!c->window && s->window_ns > sc->duration_ns)
		s->window_ns = sc->duration_ns;
	if (!c->avg && (s->avg_ns > sc->duration_ns || s->avg_ns % s->bin_ns))
		s->avg_ns = s->bin_ns;
	if (!c->hold &&
	    (s->hold_ns > sc->duration_ns || s->hold_ns % s->avg_ns))
		s->hold_ns = s->avg_ns;
	if (check_time(c, c->window, s->window_ns, s->bin_ns, "summary.bin") ||
	    check_time(c, c->util_after, s->util_after_ns, s->bin_ns,
		       "summary.bin") ||
	    check_time(c, c->fair_after, s->fair_after_ns, s->bin_ns,
		       "summary.bin") ||
	    check_time(c, c->avg, s->avg_ns, s->bin_ns, "summary.bin") ||
	    check_time(c, c->hold, s->hold_ns, s->avg_ns, "summary.avg"))
		return -1;
	if ((double)(sc->duration_ns / s->bin_ns) * (sc->n_flows + 1) >
	    SCN_MAX_BINS)
		return fail(c, c->bin ? c->bin : yaml_loc_find(&c->loc, ""),
			    false,
			    "duration / summary.bin x (flows + 1) is more than "
			    "%d; use a larger bin",
			    SCN_MAX_BINS);
	return 0;
}

static int check_bottleneck(struct ctx *c)
{
	struct scenario *sc = c->sc;
	struct scn_bottleneck *bn = &sc->bottleneck;
	static const char *const req[][2] = {
		{"bottleneck.rate", "its capacity, such as rate: 40Gbit"},
		{"bottleneck.kmin", "RED: no marking up to kmin, such as 5KB"},
		{"bottleneck.kmax", "RED: pmax at kmax, such as 200KB"},
		{"bottleneck.pmax", "RED: the probability at kmax, such as 1%"},
		{"bottleneck.feedback_delay",
		 "marked packet leaves -> CNP at the sender, such as 50us"},
	};

	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		if (need(c, req[i][0], req[i][1]))
			return -1;
	if (bn->ecn.kmin > bn->ecn.kmax)
		return bad_value(c, c->kmax, "a size not below kmin", NULL);
	if (bn->buffer_bytes < sc->packet_bytes ||
	    bn->buffer_bytes / sc->packet_bytes > MAX_RING)
		return fail(c, yaml_loc_find(&c->loc, "bottleneck"), false,
			    "buffer must hold from 1 to %u packets", MAX_RING);
	return 0;
}

/* Closed loop: count flows per entry. Scripted: one flow per entry. */
static int make_flows(struct ctx *c)
{
	struct scenario *sc = c->sc;
	uint64_t total = 0;

	for (size_t i = 0; i < c->n_entries; i++) {
		total += c->entries[i].count;
		if (total > SCN_MAX_FLOWS)
			return fail(c, c->entries[i].node, false,
				    "more than %d flows in all", SCN_MAX_FLOWS);
		if (c->entries[i].start_ns > sc->duration_ns)
			return fail(c, c->entries[i].node, false,
				    "starts after the end of the run");
	}
	if (!total)
		return fail(c, yaml_loc_find(&c->loc, "flows"), false,
			    "no flows; write at least one");
	sc->flows = calloc(total, sizeof(*sc->flows));
	if (!sc->flows)
		return fail(c, NULL, false, "out of memory");
	for (size_t i = 0; i < c->n_entries; i++)
		for (uint64_t k = 0; k < c->entries[i].count; k++)
			sc->flows[sc->n_flows++].start_ns =
				c->entries[i].start_ns;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct scn_input *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int check_inputs(struct ctx *c)
{
	struct scenario *sc = c->sc;

	for (size_t i = 0; i < sc->n_inputs; i++) {
		const struct scn_input *in = &sc->inputs[i];
		const struct input_src *s = &c->srcs[i];

		if (in->kind == SCN_IN_SENT && s->have != 3)
			return fail(c, s->node, false,
				    "%s missing (a sent entry is {at: TIME, "
				    "bytes: SIZE})",
				    s->have & 1 ? "bytes" : "at");
		if (in->at_ns > sc->duration_ns)
			return fail(c, s->node, false,
				    "after the end of the run (duration)");
		if (in->at_ns < sc->flows[in->flow].start_ns)
			return fail(c, s->node, false,
				    "before the flow's start");
	}
	qsort(sc->inputs, sc->n_inputs, sizeof(*sc->inputs), by_time);
	return 0;
}

double scenario_work(const struct scenario *sc)
{
	const struct dcqcn_params *p = &sc->params;
	double d = (double)sc->duration_ns, w, bits;

	w = sc->n_flows * d *
	    (1.0 / (double)p->alpha_ns + 1.0 / (double)p->inc_ns +
	     (p->dec_ns ? 1.0 / (double)p->dec_ns : 0));
	if (sc->closed_loop) {
		bits = sc->n_flows * p->line_bps * d * 1e-9;
		w += 3 * bits / (8.0 * sc->packet_bytes);
		if (p->byte_counter)
			w += bits / 8.0 / (double)p->byte_counter;
	} else {
		w += (double)sc->n_inputs;
		for (size_t i = 0; i < sc->n_inputs && p->byte_counter; i++)
			w += (double)sc->inputs[i].bytes /
			     (double)p->byte_counter;
	}
	return w;
}

static int check_work(struct ctx *c)
{
	double w = scenario_work(c->sc);

	if (w > SCN_MAX_WORK)
		return fail(c, yaml_loc_find(&c->loc, "duration"), false,
			    "the run would take about %.2g events (more than "
			    "%.0g): shorten it, or use fewer flows or longer "
			    "timer periods",
			    w, SCN_MAX_WORK);
	return 0;
}

static void set_defaults(struct scenario *sc)
{
	sc->seed = 1;
	sc->packet_bytes = DEF_PACKET;
	sc->bottleneck.buffer_bytes = DEF_BUFFER;
	sc->bottleneck.mark_at = SCN_MARK_ENQUEUE;
	sc->summary.bin_ns = DEF_BIN_NS;
	sc->summary.window_ns = DEF_WINDOW_NS;
	sc->summary.band = DEF_BAND;
	sc->summary.avg_ns = DEF_AVG_NS;
	sc->summary.hold_ns = DEF_HOLD_NS;
	sc->summary.util_target = DEF_UTIL_TARGET;
}

int scenario_load_buf(struct scenario *sc, const char *name, const char *buf,
		      size_t len, char *err, size_t errlen)
{
	struct ctx c = {.name = name, .err = err, .errlen = errlen, .sc = sc};
	struct yaml_loc_error yerr;
	int rc = -1;

	memset(sc, 0, sizeof(*sc));
	set_defaults(sc);
	if (len > SCN_MAX_FILE) {
		fail(&c, NULL, false, "larger than %u bytes", SCN_MAX_FILE);
		return -1;
	}
	if (yaml_loc_parse(&c.loc, buf, len, &yerr)) {
		snprintf(err, errlen, "%s:%u:%u: %s%s%s", name, yerr.pos.line,
			 yerr.pos.col, yerr.path, yerr.path[0] ? ": " : "",
			 yerr.what);
		goto out;
	}
	if (read_first(&c) || count_nodes(&c))
		goto out;
	for (size_t i = 0; i < c.loc.n; i++)
		if (visit(&c, &c.loc.nodes[i]))
			goto out;
	if (need(&c, "duration", "the simulated time, such as 150ms") ||
	    need(&c, "flows", "a list of flows") || check_params(&c) ||
	    (sc->closed_loop && check_bottleneck(&c)) || make_flows(&c) ||
	    check_summary(&c) || check_inputs(&c) || check_work(&c))
		goto out;
	rc = 0;
out:
	free(c.entries);
	free(c.srcs);
	yaml_loc_free(&c.loc);
	if (rc)
		scenario_free(sc);
	return rc;
}

int scenario_load_file(struct scenario *sc, const char *path, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t len;
	int rc;

	memset(sc, 0, sizeof(*sc));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(SCN_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	len = fread(buf, 1, SCN_MAX_FILE + 1, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	} else {
		rc = scenario_load_buf(sc, path, buf, len, err, errlen);
	}
	fclose(f);
	free(buf);
	return rc;
}

void scenario_free(struct scenario *sc)
{
	free(sc->flows);
	free(sc->inputs);
	sc->flows = NULL;
	sc->inputs = NULL;
	sc->n_flows = 0;
	sc->n_inputs = 0;
}
