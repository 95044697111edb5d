// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_dcqcn.c - the dcqcn mapping of the configuration
 * (control/config/config_dcqcn.c): both profiles' defaults, every key, units,
 * the rules against the line rate, the errors with file:line:col, the
 * dcqcn block of the dump.
 */
#include "test_config.h"

static const struct bad_case bad_cases[] = {
	/* DCQCN */
	{"dcqcn_scalar", QPORTS "dcqcn: true\n", "t.yaml:6:8: ",
	 "dcqcn: expected a mapping with the keys profile, line_rate, "
	 "min_rate, rate_ai, rate_hai, g, alpha_init, alpha_timer, "
	 "increase_timer, decrease_period, byte_counter, fast_recovery, "
	 "min_decrease, clamp, first_cnp_rate, alpha_before_cut, cnp_interval, "
	 "flow_key, max_flows, flow_idle, cnp, cp_loop, np (got 'true')"},
	{"dcqcn_unknown", DCQCN("alpha_timr: 55us"), "t.yaml:7:3: ",
	 "unknown key 'dcqcn.alpha_timr' (did you mean 'dcqcn.alpha_timer'?)"},
	{"dcqcn_profile_typo", DCQCN("profile: papr"), "t.yaml:7:12: ",
	 "dcqcn.profile: expected one of paper, connectx (got 'papr'); did you "
	 "mean 'paper'?"},
	{"dcqcn_time_no_unit", DCQCN("alpha_timer: 55"), "t.yaml:7:16: ",
	 "dcqcn.alpha_timer: expected a time: a number with a unit ns, us, ms "
	 "or s, e.g. 55us, 0.5ms or 1s (0 needs no unit) (got '55')"},
	{"dcqcn_time_space", DCQCN("alpha_timer: 5 us"),
	 "t.yaml:7:16: ", "dcqcn.alpha_timer: expected a time"},
	{"dcqcn_time_minutes", DCQCN("flow_idle: 5min"),
	 "t.yaml:7:14: ", "dcqcn.flow_idle: expected a time"},
	{"dcqcn_time_negative", DCQCN("cnp_interval: -5us"),
	 "t.yaml:7:17: ", "dcqcn.cnp_interval: expected a time"},
	{"dcqcn_time_list", DCQCN("increase_timer: [55us]"), "t.yaml:7:19: ",
	 "dcqcn.increase_timer: expected a time: a number with a unit"},
	{"dcqcn_time_fraction", DCQCN("alpha_timer: 1.5ns"), "t.yaml:7:16: ",
	 "dcqcn.alpha_timer: not a whole number of nanoseconds (got '1.5ns')"},
	{"dcqcn_time_small", DCQCN("alpha_timer: 999ns"), "t.yaml:7:16: ",
	 "dcqcn.alpha_timer: must be between 1us and 1s (got '999ns')"},
	{"dcqcn_time_big", DCQCN("increase_timer: 1001ms"), "t.yaml:7:19: ",
	 "dcqcn.increase_timer: must be between 1us and 1s (got '1001ms')"},
	{"dcqcn_time_overflow", DCQCN("cnp_interval: 99999999999999999999s"),
	 "t.yaml:7:17: ",
	 "dcqcn.cnp_interval: must be between 0 and 1s (got "
	 "'99999999999999999999s')"},
	{"dcqcn_flow_idle_small", DCQCN("flow_idle: 999us"), "t.yaml:7:14: ",
	 "dcqcn.flow_idle: must be between 1ms and 3600s (got '999us')"},
	{"dcqcn_decrease_paper", DCQCN("decrease_period: 4us"), "t.yaml:7:20: ",
	 "dcqcn.decrease_period: the paper profile cuts the rate on every CNP "
	 "and has no decrease period (got '4us'); leave the key out, or use "
	 "profile: connectx"},
	{"dcqcn_decrease_zero", CONNECTX("decrease_period: 0"), "t.yaml:8:20: ",
	 "dcqcn.decrease_period: must be between 1us and 1s (got '0')"},
	{"dcqcn_decrease_small", CONNECTX("decrease_period: 500ns"),
	 "t.yaml:8:20: ",
	 "dcqcn.decrease_period: must be between 1us and 1s (got '500ns')"},
	{"dcqcn_byte_counter_connectx", CONNECTX("byte_counter: 10MB"),
	 "t.yaml:8:17: ",
	 "dcqcn.byte_counter: the connectx profile has no byte counter, only "
	 "the increase timer (got '10MB'); leave the key out, or use profile: "
	 "paper"},
	{"dcqcn_byte_counter_syntax", DCQCN("byte_counter: 10M"),
	 "t.yaml:7:17: ", "dcqcn.byte_counter: expected a size in bytes"},
	{"dcqcn_g_zero", DCQCN("g: 0"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '0')"},
	{"dcqcn_g_big", DCQCN("g: 1.5"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '1.5')"},
	{"dcqcn_g_fraction_big", DCQCN("g: 3/2"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '3/2')"},
	{"dcqcn_g_over_zero", DCQCN("g: 1/0"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '1/0')"},
	{"dcqcn_g_tiny", DCQCN("g: 1/2000000"), "t.yaml:7:6: ",
	 "dcqcn.g: must be between 0.000001 and 1 (got '1/2000000')"},
	{"dcqcn_g_exponent", DCQCN("g: 1e-3"), "t.yaml:7:6: ",
	 "dcqcn.g: expected a number above 0 and at most 1: a decimal such as "
	 "0.00390625 or a fraction such as 1/256 (got '1e-3')"},
	{"dcqcn_g_hex", DCQCN("g: 1/0x100"),
	 "t.yaml:7:6: ", "dcqcn.g: expected a number above 0 and at most 1"},
	{"dcqcn_g_negative", DCQCN("g: -0.5"),
	 "t.yaml:7:6: ", "dcqcn.g: expected a number above 0 and at most 1"},
	{"dcqcn_g_huge_denominator", DCQCN("g: 1/99999999999999999"),
	 "t.yaml:7:6: ", "dcqcn.g: expected a number above 0 and at most 1"},
	{"dcqcn_alpha_init_zero", DCQCN("alpha_init: 0.0"), "t.yaml:7:15: ",
	 "dcqcn.alpha_init: must be between 0.000001 and 1 (got '0.0')"},
	{"dcqcn_min_decrease_all", DCQCN("min_decrease: 100%"), "t.yaml:7:17: ",
	 "dcqcn.min_decrease: must be at least 0% and below 100% (got "
	 "'100%'); a cut may keep at most all but a part of the rate"},
	{"dcqcn_min_decrease_one", DCQCN("min_decrease: 1"), "t.yaml:7:17: ",
	 "dcqcn.min_decrease: must be at least 0% and below 100% (got '1')"},
	{"dcqcn_min_decrease_syntax", DCQCN("min_decrease: half"),
	 "t.yaml:7:17: ",
	 "dcqcn.min_decrease: expected a percentage from 0% to below 100%, "
	 "e.g. 50%, or a decimal from 0 to below 1, e.g. 0.5 (got 'half')"},
	{"dcqcn_min_decrease_negative", DCQCN("min_decrease: -5%"),
	 "t.yaml:7:17: ", "dcqcn.min_decrease: expected a percentage"},
	{"dcqcn_fast_recovery_zero", DCQCN("fast_recovery: 0"), "t.yaml:7:18: ",
	 "dcqcn.fast_recovery: must be between 1 and 31 (got 0)"},
	{"dcqcn_fast_recovery_big", DCQCN("fast_recovery: 32"), "t.yaml:7:18: ",
	 "dcqcn.fast_recovery: must be between 1 and 31 (got 32)"},
	{"dcqcn_fast_recovery_word", DCQCN("fast_recovery: five"),
	 "t.yaml:7:18: ",
	 "dcqcn.fast_recovery: expected a plain decimal number"},
	{"dcqcn_clamp_typo", DCQCN("clamp: alway"), "t.yaml:7:10: ",
	 "dcqcn.clamp: expected one of always, after_increase, never (got "
	 "'alway'); did you mean 'always'?"},
	{"dcqcn_first_cnp_paper", DCQCN("first_cnp_rate: 10Gbit"),
	 "t.yaml:7:19: ",
	 "dcqcn.first_cnp_rate: the paper profile keeps the flow's rate on the "
	 "first CNP (got '10Gbit'); leave the key out, or use profile: "
	 "connectx"},
	{"dcqcn_first_cnp_below_min", CONNECTX("first_cnp_rate: 500kbit"),
	 "t.yaml:8:19: ",
	 "dcqcn.first_cnp_rate: 500kbit must be at least dcqcn.min_rate, "
	 "1Mbit"},
	{"dcqcn_first_cnp_above_line",
	 CONNECTX("line_rate: 10Gbit\n  first_cnp_rate: 20Gbit"),
	 "t.yaml:9:19: ",
	 "dcqcn.first_cnp_rate: 20Gbit must be at most the line rate, 10Gbit "
	 "(dcqcn.line_rate)"},
	{"dcqcn_first_cnp_zero", CONNECTX("first_cnp_rate: 0"), "t.yaml:8:19: ",
	 "dcqcn.first_cnp_rate: a rate of 0 (got '0'); leave the key out for "
	 "the flow's own rate (or write '')"},
	{"dcqcn_alpha_before_cut_connectx", CONNECTX("alpha_before_cut: true"),
	 "t.yaml:8:21: ",
	 "dcqcn.alpha_before_cut: the connectx profile updates alpha on its "
	 "own tick, never on a CNP (got 'true'); leave the key out, or use "
	 "profile: paper"},
	{"dcqcn_bool_yes", DCQCN("cp_loop: yes"),
	 "t.yaml:7:12: ", "dcqcn.cp_loop: expected true or false (got 'yes')"},
	{"dcqcn_bool_number", DCQCN("alpha_before_cut: 1"), "t.yaml:7:21: ",
	 "dcqcn.alpha_before_cut: expected true or false (got '1')"},
	{"dcqcn_class_bool", CLS("    dcqcn: on\n"), "t.yaml:8:12: ",
	 "classes[0].dcqcn: expected true or false (got 'on')"},
	{"dcqcn_class_mapping", CLS("    dcqcn: {profile: paper}\n"),
	 "t.yaml:8:12: ",
	 "classes[0].dcqcn: expected true or false (got a mapping)"},
	{"dcqcn_flow_key_typo", DCQCN("flow_key: qpn"), "t.yaml:7:13: ",
	 "dcqcn.flow_key: expected one of host, qp (got 'qpn'); did you mean "
	 "'qp'?"},
	{"dcqcn_cnp_drop", DCQCN("cnp: drop"), "t.yaml:7:8: ",
	 "dcqcn.cnp: expected one of forward, absorb (got 'drop')"},
	{"dcqcn_max_flows_zero", DCQCN("max_flows: 0"), "t.yaml:7:14: ",
	 "dcqcn.max_flows: must be between 1 and 65536 flows (got 0)"},
	{"dcqcn_max_flows_big", DCQCN("max_flows: 65537"), "t.yaml:7:14: ",
	 "dcqcn.max_flows: must be between 1 and 65536 flows (got 65537)"},
	{"dcqcn_np_dscp", DCQCN("np:\n    dscp: 64"),
	 "t.yaml:8:11: ", "dcqcn.np.dscp: must be between 0 and 63 (got 64)"},
	{"dcqcn_np_pcp", DCQCN("np: {pcp: 8}"),
	 "t.yaml:7:13: ", "dcqcn.np.pcp: must be between 0 and 7 (got 8)"},
	{"dcqcn_np_enabled", DCQCN("np: {enabled: 1}"),
	 "t.yaml:7:17: ", "dcqcn.np.enabled: expected true or false (got '1')"},
	{"dcqcn_np_host", DCQCN("np: {enabled: true}"), "t.yaml:7:17: ",
	 "dcqcn.np.enabled: a CNP goes to the sender's queue pair, so the "
	 "flows must be queue pairs; set dcqcn.flow_key: qp, or leave np off"},
	{"dcqcn_np_unknown", DCQCN("np: {dcsp: 1}"), "t.yaml:7:8: ",
	 "unknown key 'dcqcn.np.dcsp' (did you mean 'dcqcn.np.dscp'?)"},
	{"dcqcn_line_zero", DCQCN("line_rate: 0"), "t.yaml:7:14: ",
	 "dcqcn.line_rate: a rate of 0 (got '0'); leave the key out for the "
	 "egress port's rate (or write '')"},
	{"dcqcn_line_share", DCQCN("line_rate: 90%"),
	 "t.yaml:7:14: ", "dcqcn.line_rate: expected a rate in bits/s"},
	{"dcqcn_min_rate_zero", DCQCN("min_rate: 0Mbit"), "t.yaml:7:13: ",
	 "dcqcn.min_rate: a rate of 0 (got '0Mbit'); leave the key out for the "
	 "profile's default"},
	{"dcqcn_min_rate_at_line",
	 DCQCN("line_rate: 40Gbit\n  min_rate: 40Gbit"), "t.yaml:8:13: ",
	 "dcqcn.min_rate: 40Gbit must be below the line rate, 40Gbit "
	 "(dcqcn.line_rate)"},
	{"dcqcn_ai_above_line", DCQCN("line_rate: 40Gbit\n  rate_ai: 50Gbit"),
	 "t.yaml:8:12: ",
	 "dcqcn.rate_ai: 50Gbit must be at most the line rate, 40Gbit "
	 "(dcqcn.line_rate)"},
	{"dcqcn_default_min_above_line", DCQCN("line_rate: 100Mbit"),
	 "t.yaml:7:14: ",
	 "dcqcn.line_rate: the line rate 100Mbit (dcqcn.line_rate) must be "
	 "above dcqcn.min_rate, 100Mbit by default in the paper profile; set "
	 "a lower dcqcn.min_rate"},
	{"dcqcn_default_hai_above_line", DCQCN("line_rate: 150Mbit"),
	 "t.yaml:7:14: ",
	 "dcqcn.line_rate: the line rate 150Mbit (dcqcn.line_rate) must be at "
	 "least dcqcn.rate_hai, 200Mbit by default in the paper profile; set "
	 "a lower dcqcn.rate_hai"},
	{"dcqcn_class_no_port_rate",
	 PORTS "classes:\n  - name: default\n    dcqcn: true\n",
	 "t.yaml:6:12: ",
	 "classes[0].dcqcn: DCQCN needs the line rate, and ports[0].rate is "
	 "not set; set the rate of both ports, or dcqcn.line_rate"},
	{"dcqcn_class_one_port_rate",
	 PORT_RATE("10Gbit") "classes:\n  - name: a\n  - name: default\n"
			     "    dcqcn: true\n",
	 "t.yaml:8:12: ",
	 "classes[1].dcqcn: DCQCN needs the line rate, and ports[1].rate is "
	 "not set"},
	{"dcqcn_class_port_below_min",
	 "ports:\n  - interface: eth1\n    rate: 1Gbit\n"
	 "  - interface: eth2\n    rate: 50Mbit\n"
	 "classes:\n  - name: default\n    dcqcn: true\n",
	 "t.yaml:8:12: ",
	 "classes[0].dcqcn: the line rate 50Mbit (ports[1].rate) must be "
	 "above dcqcn.min_rate, 100Mbit by default in the paper profile; set a "
	 "lower dcqcn.min_rate"},
	{"dcqcn_class_ai_above_port",
	 CLS("    dcqcn: true\n") "dcqcn: {rate_ai: 101Gbit}\n",
	 "t.yaml:10:18: ",
	 "dcqcn.rate_ai: 101Gbit must be at most the line rate, 100Gbit "
	 "(ports[0].rate)"},
};

static void test_dcqcn_defaults(void **state)
{
	static const struct {
		const char *yaml;
		enum dcqcn_profile prof;
		double line;
	} cases[] = {
		{PORTS, DCQCN_PAPER, 0},
		{PORTS "dcqcn: {}\n", DCQCN_PAPER, 0},
		{PORTS "dcqcn: {profile: paper, line_rate: ''}\n", DCQCN_PAPER,
		 0},
		{PORTS "dcqcn: {profile: connectx}\n", DCQCN_CONNECTX, 0},
		{PORTS "dcqcn:\n  profile: connectx\n  line_rate: 40Gbit\n",
		 DCQCN_CONNECTX, 40e9},
		{PORTS "dcqcn:\n  line_rate: 2.5Gbit\n", DCQCN_PAPER, 2.5e9},
	};
	struct xdplane_config *cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg = load_ok(cases[i].yaml);
		assert_dcqcn_profile(&cfg->qos.dcqcn.par, cases[i].prof,
				     cases[i].line);
		assert_dcqcn_flow_defaults(&cfg->qos.dcqcn);
		assert_false(cfg->qos.classes[0].dcqcn);
		config_free(cfg);
	}
}

static void test_dcqcn_full(void **state)
{
	struct xdplane_config *cfg = load_ok(dcqcn_connectx_full);
	const struct qos_dcqcn *d = &cfg->qos.dcqcn;
	const struct dcqcn_params *p = &d->par;

	(void)state;
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_false(cfg->qos.classes[1].dcqcn);
	assert_int_equal(p->profile, DCQCN_CONNECTX);
	assert_true(p->line_bps == 40e9);
	assert_true(p->min_bps == 10e6);
	assert_true(p->ai_bps == 20e6);
	assert_true(p->hai_bps == 100e6);
	assert_true(p->g == 1.0 / 128);
	assert_true(p->alpha_init == 0.75);
	assert_int_equal(p->alpha_ns, 2000);
	assert_int_equal(p->inc_ns, 100000);
	assert_int_equal(p->dec_ns, 8000);
	assert_int_equal(p->byte_counter, 0);
	assert_int_equal(p->f, 3);
	assert_true(p->min_dec_factor == 0.25);
	assert_true(p->clamp_always);
	assert_true(p->clamp_after_inc); /* connectx's, moot */
	assert_true(p->first_cnp_bps == 20e9);
	assert_false(p->alpha_before_cut);
	assert_int_equal(p->np_interval_ns, 20000);
	assert_int_equal(d->key, QOS_FLOW_QP);
	assert_int_equal(d->max_flows, 512);
	assert_int_equal(d->flow_idle_ns, 1000000000);
	assert_int_equal(d->cnp_action, QOS_CNP_ABSORB);
	assert_false(d->cp_loop);
	assert_true(d->np);
	assert_int_equal(d->np_dscp, 46);
	assert_int_equal(d->np_pcp, 5);
	config_free(cfg);

	cfg = load_ok(dcqcn_paper_full);
	d = &cfg->qos.dcqcn;
	p = &d->par;
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_int_equal(p->profile, DCQCN_PAPER);
	assert_true(p->line_bps == 100e9);
	assert_true(p->min_bps == 1e9);
	assert_true(p->ai_bps == 100e6);
	assert_true(p->hai_bps == 1e9);
	assert_true(p->g == 0.0625);
	assert_true(p->alpha_init == 0.5);
	assert_int_equal(p->alpha_ns, 50000);
	assert_int_equal(p->inc_ns, 60000);
	assert_int_equal(p->dec_ns, 0);
	assert_int_equal(p->byte_counter, 1048576);
	assert_int_equal(p->f, 31);
	assert_true(p->min_dec_factor == 0.1);
	assert_false(p->clamp_always);
	assert_false(p->clamp_after_inc);
	assert_true(p->first_cnp_bps == 0);
	assert_true(p->alpha_before_cut);
	assert_int_equal(p->np_interval_ns, 0);
	assert_int_equal(d->key, QOS_FLOW_HOST);
	assert_int_equal(d->max_flows, 65536);
	assert_int_equal(d->flow_idle_ns, 3600000000000ull);
	assert_int_equal(d->cnp_action, QOS_CNP_FORWARD);
	assert_true(d->cp_loop);
	assert_false(d->np);
	assert_int_equal(d->np_dscp, 0);
	assert_int_equal(d->np_pcp, 7);
	config_free(cfg);

	/* clamp after_increase on paper; a dcqcn class on shaped ports */
	cfg = load_ok(
		CLS("    dcqcn: true\n") "dcqcn: {clamp: after_increase}\n");
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_false(cfg->qos.dcqcn.par.clamp_always);
	assert_true(cfg->qos.dcqcn.par.clamp_after_inc);
	assert_true(cfg->qos.dcqcn.par.line_bps == 0); /* the port's */
	config_free(cfg);
}

/* The value one written dcqcn key loads to (times as ns, the rest as
 * doubles); `extra` goes before it ("profile: connectx"). */
static double dcqcn_value(const char *extra, const char *key, const char *text)
{
	struct xdplane_config *cfg;
	const struct qos_dcqcn *d;
	char yaml[512];
	double v = -1;

	snprintf(yaml, sizeof(yaml), DCQCN("%s%s: %s"), extra, key, text);
	cfg = load_ok(yaml);
	d = &cfg->qos.dcqcn;
	if (!strcmp(key, "line_rate"))
		v = d->par.line_bps;
	else if (!strcmp(key, "min_rate"))
		v = d->par.min_bps;
	else if (!strcmp(key, "first_cnp_rate"))
		v = d->par.first_cnp_bps;
	else if (!strcmp(key, "g"))
		v = d->par.g;
	else if (!strcmp(key, "alpha_init"))
		v = d->par.alpha_init;
	else if (!strcmp(key, "min_decrease"))
		v = d->par.min_dec_factor;
	else if (!strcmp(key, "alpha_timer"))
		v = (double)d->par.alpha_ns;
	else if (!strcmp(key, "decrease_period"))
		v = (double)d->par.dec_ns;
	else if (!strcmp(key, "cnp_interval"))
		v = (double)d->par.np_interval_ns;
	else if (!strcmp(key, "flow_idle"))
		v = (double)d->flow_idle_ns;
	else if (!strcmp(key, "byte_counter"))
		v = (double)d->par.byte_counter;
	config_free(cfg);
	return v;
}

/* Units and number forms, each exact: gains and percentages are the
 * double nearest the written value. */
static void test_dcqcn_units(void **state)
{
	static const char cx[] = "profile: connectx\n  ";
	static const struct {
		const char *extra, *key, *text;
		double want;
	} cases[] = {
		{"", "alpha_timer", "55us", 55000},
		{"", "alpha_timer", "55US", 55000},
		{"", "alpha_timer", "1000ns", 1000},
		{"", "alpha_timer", "1.5us", 1500},
		{"", "alpha_timer", "0.5ms", 500000},
		{"", "alpha_timer", "0.001s", 1000000},
		{"", "alpha_timer", "1us", 1000}, /* the edges */
		{"", "alpha_timer", "1s", 1e9},
		{"", "cnp_interval", "0", 0},
		{"", "cnp_interval", "0us", 0},
		{"", "cnp_interval", "50us", 50000},
		{"", "flow_idle", "1ms", 1e6},
		{"", "flow_idle", "100ms", 1e8},
		{"", "flow_idle", "3600s", 3.6e12},
		{cx, "decrease_period", "4us", 4000},
		{cx, "decrease_period", "1us", 1000},
		{"", "decrease_period", "0ns", 0}, /* paper: 0 is its value */
		{"", "byte_counter", "10MB", 1e7},
		{"", "byte_counter", "64KiB", 65536},
		{"", "byte_counter", "0", 0},
		{cx, "byte_counter", "0", 0},
		{"", "g", "1/256", 0.00390625},
		{"", "g", "0.00390625", 0.00390625},
		{"", "g", "5/1024", 0.0048828125},
		{"", "g", "1/3", 1.0 / 3},
		{"", "g", "0.1", 0.1},
		{"", "g", "1", 1},
		{"", "g", "1/1", 1},
		{"", "g", "0.000001", 0.000001},
		{"", "g", "1/1000000", 0.000001},
		{"", "alpha_init", "0.5", 0.5},
		{"", "alpha_init", "1023/1024", 1023.0 / 1024},
		{"", "min_decrease", "50%", 0.5},
		{"", "min_decrease", "12.5%", 0.125},
		{"", "min_decrease", "0.33%", 0.0033},
		{"", "min_decrease", "33.3%", 0.333},
		{"", "min_decrease", "99.99%", 0.9999},
		{"", "min_decrease", "0%", 0},
		{"", "min_decrease", "0", 0},
		{"", "min_decrease", "0.5", 0.5},
		{"", "line_rate", "''", 0},
		{"", "line_rate", "1.5Gbit", 1.5e9},
		{"", "min_rate", "1kbit", 1000},
		{cx, "first_cnp_rate", "''", 0},
		{cx, "first_cnp_rate", "1Mbit", 1e6}, /* = min_rate */
		{cx, "first_cnp_rate", "10Tbit", 1e13},
	};
	double got;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = dcqcn_value(cases[i].extra, cases[i].key, cases[i].text);
		if (got != cases[i].want)
			fail_msg("%s: %s: got %.17g, want %.17g", cases[i].key,
				 cases[i].text, got, cases[i].want);
	}
}

/* Where DCQCN takes its line rate from, and when it needs one. */
static void test_dcqcn_line(void **state)
{
	struct xdplane_config *cfg;

	(void)state;
	/* a DCQCN class with unshaped ports: dcqcn.line_rate will do */
	cfg = load_ok(PORTS "classes:\n  - name: default\n    dcqcn: true\n"
			    "dcqcn: {line_rate: 25Gbit}\n");
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_true(cfg->qos.dcqcn.par.line_bps == 25e9);
	config_free(cfg);
	/* no DCQCN class: slow ports need not fit the DCQCN rates */
	cfg = load_ok("ports:\n  - interface: a\n    rate: 60000\n"
		      "  - interface: b\n    rate: 1Mbit\n");
	assert_int_equal(cfg->qos.port[0].rate_bps, 60000);
	assert_dcqcn_profile(&cfg->qos.dcqcn.par, DCQCN_PAPER, 0);
	config_free(cfg);
	/* a line rate just above the paper's R_min and at its R_HAI */
	cfg = load_ok(DCQCN("line_rate: 200Mbit"));
	assert_true(cfg->qos.dcqcn.par.line_bps == 200e6);
	config_free(cfg);
	cfg = load_ok("ports:\n  - interface: a\n    rate: 200Mbit\n"
		      "  - interface: b\n    rate: 1Gbit\n"
		      "classes:\n  - {name: default, dcqcn: true}\n");
	assert_true(cfg->qos.classes[0].dcqcn);
	config_free(cfg);
	/* connectx's R_min is 1Mbit: a slower class is fine with it */
	cfg = load_ok(CONNECTX("line_rate: 50Mbit\n  rate_hai: 50Mbit"));
	assert_true(cfg->qos.dcqcn.par.hai_bps == 50e6);
	config_free(cfg);
}

/* The dcqcn block as --dump-config prints it, both profiles' defaults. */
static void test_dcqcn_dump_text(void **state)
{
	static const char paper[] = "malformed: default\n"
				    "dcqcn:\n"
				    "  profile: paper\n"
				    "  line_rate: ''\n"
				    "  min_rate: 100Mbit\n"
				    "  rate_ai: 40Mbit\n"
				    "  rate_hai: 200Mbit\n"
				    "  g: 0.00390625\n"
				    "  alpha_init: 1\n"
				    "  alpha_timer: 55us\n"
				    "  increase_timer: 55us\n"
				    "  decrease_period: 0\n"
				    "  byte_counter: 10MB\n"
				    "  fast_recovery: 5\n"
				    "  min_decrease: 0%\n"
				    "  clamp: always\n"
				    "  first_cnp_rate: ''\n"
				    "  alpha_before_cut: false\n"
				    "  cnp_interval: 50us\n"
				    "  flow_key: host\n"
				    "  max_flows: 1024\n"
				    "  flow_idle: 100ms\n"
				    "  cnp: forward\n"
				    "  cp_loop: true\n"
				    "  np:\n"
				    "    enabled: false\n"
				    "    dscp: 48\n"
				    "    pcp: 6\n"
				    "control:\n";
	static const char connectx[] = "dcqcn:\n"
				       "  profile: connectx\n"
				       "  line_rate: 40Gbit\n"
				       "  min_rate: 1Mbit\n"
				       "  rate_ai: 5Mbit\n"
				       "  rate_hai: 50Mbit\n"
				       "  g: 0.0048828125\n"
				       "  alpha_init: 1\n"
				       "  alpha_timer: 1us\n"
				       "  increase_timer: 300us\n"
				       "  decrease_period: 4us\n"
				       "  byte_counter: 0\n"
				       "  fast_recovery: 1\n"
				       "  min_decrease: 50%\n"
				       "  clamp: after_increase\n"
				       "  first_cnp_rate: ''\n"
				       "  alpha_before_cut: false\n"
				       "  cnp_interval: 4us\n";
	struct xdplane_config *cfg = load_ok(PORTS);
	char *text;

	(void)state;
	config_free(dump_and_reload(cfg, &text));
	if (!strstr(text, paper))
		fail_msg("dump lacks:\n%s\nin:\n%s", paper, text);
	free(text);
	config_free(cfg);
	cfg = load_ok(PORTS "classes: [{name: default, dcqcn: true}]\n"
			    "dcqcn: {profile: connectx, line_rate: 40Gbit}\n");
	config_free(dump_and_reload(cfg, &text));
	if (!strstr(text, connectx) ||
	    !strstr(text, "    limit_packets: 2048\n    dcqcn: true\n"))
		fail_msg("dump lacks:\n%s\nin:\n%s", connectx, text);
	free(text);
	config_free(cfg);
}

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_dcqcn_defaults),
		cmocka_unit_test(test_dcqcn_full),
		cmocka_unit_test(test_dcqcn_units),
		cmocka_unit_test(test_dcqcn_line),
		cmocka_unit_test(test_dcqcn_dump_text),
	};
	return run_config_tests(fixed, sizeof(fixed) / sizeof(fixed[0]),
				bad_cases, N_BAD);
}
