// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_dcqcn.c - the dcqcn mapping (parts of the loader: config_sections.h):
 * the profile's defaults (dcqcn_params_default(), dataplane/cc/dcqcn.c),
 * then each written key overrides one parameter, then the rules between
 * them and the line rate (dcqcn.line_rate, or the rate of each port a
 * DCQCN class leaves by), and last the DCQCN module's own check.
 *
 * Times need a unit ("55us"); gains are decimals or ratios ("0.00390625",
 * "1/256") and min_decrease a percentage or a decimal, converted so that
 * they are rounded once (control/config/units.h).
 */
#include "config_sections.h"

#include <stdio.h>
#include <string.h>

#define QOS_MAX_RATE 10000000000000ull /* 10 Tbit/s */
#define DCQCN_DEF_MAX_FLOWS 1024
#define DCQCN_MAX_FLOWS 65536
#define DCQCN_DEF_FLOW_IDLE_NS 100000000ull /* 100ms */
#define DCQCN_DEF_NP_DSCP 48
#define DCQCN_DEF_NP_PCP 6
#define DCQCN_MAX_F 31 /* fast recovery stages, ConnectX's 5-bit field */
#define DCQCN_MIN_GAIN 0.000001 /* g and alpha_init: at least this... */
#define DCQCN_MIN_GAIN_TEXT "0.000001" /* ...written so */
#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

/* g or alpha_init: "0.00390625" or "1/256", in [DCQCN_MIN_GAIN, 1]. */
int cfg_parse_gain(const char *s, double *out)
{
	double v;
	int rc = units_ratio(s, &v);

	if (rc)
		return rc;
	*out = v;
	return v >= DCQCN_MIN_GAIN && v <= 1 ? UNITS_OK : UNITS_ERANGE;
}

/* min_decrease: "50%" or "0.5", in [0, 1). */
int cfg_parse_decrease(const char *s, double *out)
{
	double v;

	if (units_real_fraction(s, true, &v))
		return UNITS_ESYNTAX;
	*out = v;
	return v < 1 ? UNITS_OK : UNITS_ERANGE;
}

static int get_gain(const struct load_ctx *c, const struct key *k, double *out)
{
	switch (cfg_parse_gain(k->n->text, out)) {
	case UNITS_OK:
		return 0;
	case UNITS_ERANGE:
		return cfg_fail(c, k->n->val,
				"%s: must be between " DCQCN_MIN_GAIN_TEXT
				" and 1 (got '%s')",
				k->path, k->n->text);
	default:
		return cfg_bad_value(c, k, SYN_GAIN);
	}
}

static int get_decrease(const struct load_ctx *c, const struct key *k,
			double *out)
{
	switch (cfg_parse_decrease(k->n->text, out)) {
	case UNITS_OK:
		return 0;
	case UNITS_ERANGE:
		return cfg_fail(c, k->n->val,
				"%s: must be at least 0%% and below 100%% (got "
				"'%s'); a cut may keep at most all but a part "
				"of the rate",
				k->path, k->n->text);
	default:
		return cfg_bad_value(c, k, SYN_DECREASE);
	}
}

/* A rate of the dcqcn mapping into *bps, if written (else *bps keeps the
 * profile's default). */
static int get_dcqcn_rate(const struct load_ctx *c, const char *name,
			  const struct qos_policy *q, double *bps)
{
	uint64_t v;
	struct key k;

	if (!cfg_key_at(c, &k, "dcqcn.%s", name))
		return 0;
	if (cfg_get_rate(c, &k, q, &v, NULL, "the profile's default"))
		return -1;
	*bps = (double)v; /* <= 10^13 < 2^53: exact */
	return 0;
}

static uint64_t rate_of(double bps)
{
	return bps >= 0 && bps <= (double)QOS_MAX_RATE ? (uint64_t)bps : 0;
}

/* The rates against one line rate (`line_key` names where it comes
 * from). A rate that was written is reported at its key; one left at the
 * profile's default at `at`, the key that brought the line rate in. */
static int check_vs_line(const struct load_ctx *c, const struct key *at,
			 const struct dcqcn_params *p, uint64_t line,
			 const char *line_key)
{
	const struct {
		const char *name;
		double bps;
		bool below; /* strictly below, else at most */
	} rates[] = {
		{"min_rate", p->min_bps, true},
		{"rate_ai", p->ai_bps, false},
		{"rate_hai", p->hai_bps, false},
		{"first_cnp_rate", p->first_cnp_bps, false}, /* 0: none */
	};
	const char *profile = cfg_name(cfg_dcqcn_profiles, p->profile);
	char got[32], line_text[32];
	struct key k;

	units_rate_text(line_text, sizeof(line_text), line);
	for (size_t i = 0; i < CFG_ARRAY_LEN(rates); i++) {
		if (rates[i].below ? rates[i].bps < (double)line
				   : rates[i].bps <= (double)line)
			continue;
		/* first_cnp_rate: only written values get here */
		units_rate_text(got, sizeof(got), rate_of(rates[i].bps));
		if (cfg_key_at(c, &k, "dcqcn.%s", rates[i].name))
			return cfg_fail(c, k.n->val,
					"%s: %s must be %s the line rate, %s "
					"(%s)",
					k.path, got,
					rates[i].below ? "below" : "at most",
					line_text, line_key);
		return cfg_fail(c, at->n->val,
				"%s: the line rate %s (%s) must be %s "
				"dcqcn.%s, %s by default in the %s profile; "
				"set a lower dcqcn.%s",
				at->path, line_text, line_key,
				rates[i].below ? "above" : "at least",
				rates[i].name, got, profile, rates[i].name);
	}
	return 0;
}

/* What the dataplane will run, checked by the DCQCN module itself for one
 * line rate. The rules above catch everything it refuses, with better
 * messages: this is the last line of defence, should they drift apart. */
static int check_dcqcn_module(const struct load_ctx *c,
			      const struct dcqcn_params *p, uint64_t line)
{
	struct dcqcn_params run = *p;
	const char *why = NULL;

	run.line_bps = (double)line;
	if (!dcqcn_params_check(&run, &why))
		return 0;
	return cfg_fail(c, cfg_val_pos(c, "dcqcn"),
			"dcqcn: the DCQCN module refuses these parameters: %s",
			why ? why : "no reason given");
}

/* The line rate DCQCN works from: dcqcn.line_rate, or else the rate of
 * each port, which every DCQCN class then needs. */
static int check_dcqcn_line(const struct load_ctx *c,
			    const struct xdplane_config *cfg)
{
	const struct qos_policy *q = &cfg->qos;
	const struct dcqcn_params *p = &q->dcqcn.par;
	uint64_t line;
	char name[32];
	struct key at;
	uint32_t i;

	if (p->line_bps > 0) {
		cfg_key_at(c, &at, "dcqcn.line_rate");
		line = rate_of(p->line_bps);
		return check_vs_line(c, &at, p, line, "dcqcn.line_rate") ||
				       check_dcqcn_module(c, p, line)
			       ? -1
			       : 0;
	}
	for (i = 0; i < q->n_classes && !q->classes[i].dcqcn; i++)
		;
	if (i == q->n_classes) /* no class uses it: any line will do */
		return check_dcqcn_module(c, p, QOS_MAX_RATE);
	cfg_key_at(c, &at, "classes[%u].dcqcn", i);
	for (unsigned int port = 0; port < CONFIG_PORTS; port++) {
		line = q->port[port].rate_bps;
		if (!line)
			return cfg_fail(c, at.n->val,
					"%s: DCQCN needs the line rate, and "
					"ports[%u].rate is not set; set the "
					"rate of both ports, or "
					"dcqcn.line_rate",
					at.path, port);
		snprintf(name, sizeof(name), "ports[%u].rate", port);
		if (check_vs_line(c, &at, p, line, name) ||
		    check_dcqcn_module(c, p, line))
			return -1;
	}
	return 0;
}

/* A key the profile has no use for: an error if written with another
 * value than the profile's own (0, false). */
static int check_unused(const struct load_ctx *c, enum dcqcn_profile prof,
			const char *name, bool differs, const char *why)
{
	bool paper = prof == DCQCN_PAPER;
	struct key k;

	if (!differs || !cfg_key_at(c, &k, "dcqcn.%s", name))
		return 0;
	return cfg_fail(c, k.n->val,
			"%s: the %s profile %s (got '%s'); leave the key out, "
			"or use profile: %s",
			k.path, paper ? "paper" : "connectx", why, k.n->text,
			paper ? "connectx" : "paper");
}

/* The timers and counters: periods, byte counter, stages. */
static int load_dcqcn_timers(const struct load_ctx *c, struct dcqcn_params *p)
{
	bool connectx = p->profile == DCQCN_CONNECTX;
	uint32_t bytes;
	struct key k;

	if ((cfg_key_at(c, &k, "dcqcn.alpha_timer") &&
	     cfg_get_time(c, &k, NS_PER_US, NS_PER_S, &p->alpha_ns)) ||
	    (cfg_key_at(c, &k, "dcqcn.increase_timer") &&
	     cfg_get_time(c, &k, NS_PER_US, NS_PER_S, &p->inc_ns)))
		return -1;
	if (cfg_key_at(c, &k, "dcqcn.decrease_period") &&
	    (cfg_get_time(c, &k, connectx ? NS_PER_US : 0, NS_PER_S,
			  &p->dec_ns) ||
	     check_unused(c, p->profile, "decrease_period",
			  !connectx && p->dec_ns,
			  "cuts the rate on every CNP and has no decrease "
			  "period")))
		return -1;
	if (cfg_key_at(c, &k, "dcqcn.byte_counter")) {
		if (cfg_get_size(c, &k, 0, "", &bytes))
			return -1;
		p->byte_counter = bytes;
		if (check_unused(c, p->profile, "byte_counter",
				 connectx && bytes,
				 "has no byte counter, only the increase "
				 "timer"))
			return -1;
	}
	if (cfg_key_at(c, &k, "dcqcn.fast_recovery") &&
	    cfg_get_uint(c, &k, 1, DCQCN_MAX_F, "", &p->f))
		return -1;
	if (cfg_key_at(c, &k, "dcqcn.cnp_interval") &&
	    cfg_get_time(c, &k, 0, NS_PER_S, &p->np_interval_ns))
		return -1;
	return 0;
}

/* The cut: its floor, clamping, the first CNP, alpha's order. */
static int load_dcqcn_cut(const struct load_ctx *c, const struct qos_policy *q,
			  struct dcqcn_params *p)
{
	bool connectx = p->profile == DCQCN_CONNECTX;
	int clamp = cfg_enum_at(c, "dcqcn.clamp", cfg_clamp_modes, 0);
	char want[32], got[32];
	uint64_t v;
	struct key k;

	if (cfg_key_at(c, &k, "dcqcn.min_decrease") &&
	    get_decrease(c, &k, &p->min_dec_factor))
		return -1;
	if (clamp == CFG_CLAMP_ALWAYS) {
		p->clamp_always = true; /* clamp_after_inc is moot */
	} else if (clamp) {
		p->clamp_always = false;
		p->clamp_after_inc = clamp == CFG_CLAMP_AFTER_INC;
	}
	if (cfg_key_at(c, &k, "dcqcn.first_cnp_rate") && k.n->text[0]) {
		if (cfg_get_rate(c, &k, q, &v, NULL,
				 "the flow's own rate (or write '')") ||
		    check_unused(c, p->profile, "first_cnp_rate", !connectx,
				 "keeps the flow's rate on the first CNP"))
			return -1;
		p->first_cnp_bps = (double)v;
		if (p->first_cnp_bps < p->min_bps) {
			units_rate_text(want, sizeof(want),
					rate_of(p->min_bps));
			units_rate_text(got, sizeof(got), v);
			return cfg_fail(c, k.n->val,
					"%s: %s must be at least "
					"dcqcn.min_rate, %s",
					k.path, got, want);
		}
	}
	if (cfg_key_at(c, &k, "dcqcn.alpha_before_cut") &&
	    (cfg_get_bool(c, &k, &p->alpha_before_cut) ||
	     check_unused(c, p->profile, "alpha_before_cut",
			  connectx && p->alpha_before_cut,
			  "updates alpha on its own tick, never on a CNP")))
		return -1;
	return 0;
}

static int load_dcqcn_params(const struct load_ctx *c,
			     const struct qos_policy *q, struct dcqcn_params *p)
{
	enum dcqcn_profile profile =
		cfg_enum_at(c, "dcqcn.profile", cfg_dcqcn_profiles, 0);
	uint64_t line = 0;
	struct key k;

	if (cfg_key_at(c, &k, "dcqcn.line_rate") && k.n->text[0] &&
	    cfg_get_rate(c, &k, q, &line, NULL,
			 "the egress port's rate (or write '')"))
		return -1;
	memset(p, 0, sizeof(*p)); /* the padding too: configs compare whole */
	dcqcn_params_default(p, profile, (double)line);
	p->line_bps = (double)line;
	if (get_dcqcn_rate(c, "min_rate", q, &p->min_bps) ||
	    get_dcqcn_rate(c, "rate_ai", q, &p->ai_bps) ||
	    get_dcqcn_rate(c, "rate_hai", q, &p->hai_bps))
		return -1;
	if ((cfg_key_at(c, &k, "dcqcn.g") && get_gain(c, &k, &p->g)) ||
	    (cfg_key_at(c, &k, "dcqcn.alpha_init") &&
	     get_gain(c, &k, &p->alpha_init)))
		return -1;
	return load_dcqcn_timers(c, p) || load_dcqcn_cut(c, q, p) ? -1 : 0;
}

/* The np mapping: the notification point's switch and marks. */
static int load_dcqcn_np(const struct load_ctx *c, struct qos_dcqcn *d)
{
	struct key k;
	uint32_t v;

	if (cfg_key_at(c, &k, "dcqcn.np.enabled") &&
	    cfg_get_bool(c, &k, &d->np))
		return -1;
	if (d->np && d->key != QOS_FLOW_QP)
		return cfg_fail(c, k.n->val,
				"%s: a CNP goes to the sender's queue pair, so "
				"the flows must be queue pairs; set "
				"dcqcn.flow_key: qp, or leave np off",
				k.path);
	d->np_dscp = DCQCN_DEF_NP_DSCP;
	if (cfg_key_at(c, &k, "dcqcn.np.dscp")) {
		if (cfg_get_uint(c, &k, 0, 63, "", &v))
			return -1;
		d->np_dscp = (uint8_t)v;
	}
	d->np_pcp = DCQCN_DEF_NP_PCP;
	if (cfg_key_at(c, &k, "dcqcn.np.pcp")) {
		if (cfg_get_uint(c, &k, 0, 7, "", &v))
			return -1;
		d->np_pcp = (uint8_t)v;
	}
	return 0;
}

int cfg_load_dcqcn(const struct load_ctx *c, struct xdplane_config *cfg)
{
	struct qos_dcqcn *d = &cfg->qos.dcqcn;
	struct key k;

	if (load_dcqcn_params(c, &cfg->qos, &d->par))
		return -1;
	d->key = cfg_enum_at(c, "dcqcn.flow_key", cfg_flow_keys, QOS_FLOW_HOST);
	d->cnp_action =
		cfg_enum_at(c, "dcqcn.cnp", cfg_cnp_actions, QOS_CNP_FORWARD);
	d->max_flows = DCQCN_DEF_MAX_FLOWS;
	if (cfg_key_at(c, &k, "dcqcn.max_flows") &&
	    cfg_get_uint(c, &k, 1, DCQCN_MAX_FLOWS, " flows", &d->max_flows))
		return -1;
	d->flow_idle_ns = DCQCN_DEF_FLOW_IDLE_NS;
	if (cfg_key_at(c, &k, "dcqcn.flow_idle") &&
	    cfg_get_time(c, &k, NS_PER_MS, 3600 * NS_PER_S, &d->flow_idle_ns))
		return -1;
	d->cp_loop = true;
	if (cfg_key_at(c, &k, "dcqcn.cp_loop") &&
	    cfg_get_bool(c, &k, &d->cp_loop))
		return -1;
	return load_dcqcn_np(c, d) || check_dcqcn_line(c, cfg) ? -1 : 0;
}
