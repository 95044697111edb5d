// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_adaptive.c - ports[].adaptive, the adaptive egress
 * controller of each port (control/config/config_adaptive.c): the
 * defaults (off, target 500us, floor 10% of ports[].rate, probe_gain
 * 0.1), every key's exact value, the floor as a rate or a share, the gain as a
 * fraction or a percentage, the bounds of target and probe_gain, mode: on
 * without ports[].rate, a floor above it and a floor below the shaper's lowest
 * rate per queue refused with file:line:col, the dump round trip, and the key
 * hot on reload.
 */
#include "config_diff.h"
#include "test_config.h"

/* ports[0].adaptive's key x at line 5 column 7; its value at column
 * 7 + strlen(key) + 2 (mode 13, target 15, floor 14, probe_gain 19). */
#define ADAPT(x)                                                               \
	"ports:\n"                                                             \
	"  - interface: eth1\n"                                                \
	"    rate: 100Gbit\n"                                                  \
	"    adaptive:\n"                                                      \
	"      " x "\n"                                                        \
	"  - interface: eth2\n"                                                \
	"    rate: 100Gbit\n"
#define ON(x) ADAPT("mode: on\n      " x) /* x at line 6 */

static const struct bad_case bad_cases[] = {
	{"adaptive_on_needs_rate",
	 "ports:\n  - interface: eth1\n    adaptive: {mode: on}\n"
	 "  - interface: eth2\n",
	 "t.yaml:3:22: ",
	 "ports[0].adaptive.mode: on needs ports[0].rate, the ceiling of the "
	 "adaptive rate and the rate held while nothing is measured; set "
	 "ports[0].rate to the line rate"},
	{"adaptive_on_needs_rate_port1",
	 "ports:\n  - interface: eth1\n    rate: 10Gbit\n"
	 "  - interface: eth2\n    adaptive:\n      mode: on\n",
	 "t.yaml:6:13: ", "ports[1].adaptive.mode: on needs ports[1].rate"},
	{"adaptive_mode_bad", ADAPT("mode: auto"), "t.yaml:5:13: ",
	 "ports[0].adaptive.mode: expected one of off, on (got 'auto')"},
	{"adaptive_unknown_key", ADAPT("mode: on\n      gain: 0.1"),
	 "t.yaml:6:7: ",
	 "unknown key 'ports[0].adaptive.gain'; the keys under "
	 "ports[0].adaptive are: mode, target, floor, probe_gain"},
	{"adaptive_not_a_map",
	 "ports:\n  - interface: eth1\n    rate: 100Gbit\n    adaptive: on\n"
	 "  - interface: eth2\n",
	 "t.yaml:4:15: ",
	 "ports[0].adaptive: expected a mapping with the keys mode, target, "
	 "floor, probe_gain (got 'on')"},
	{"adaptive_floor_pct_needs_rate",
	 "ports:\n  - interface: eth1\n    adaptive:\n      floor: 10%\n"
	 "  - interface: eth2\n",
	 "t.yaml:4:14: ",
	 "ports[0].adaptive.floor: a percentage needs ports[].rate"},
	{"adaptive_floor_above_rate", ON("floor: 101Gbit"), "t.yaml:6:14: ",
	 "ports[0].adaptive.floor: above ports[0].rate 100Gbit (got "
	 "'101Gbit'); the floor is the lowest rate the controller may set"},
	{"adaptive_floor_syntax", ON("floor: slow"),
	 "t.yaml:6:14: ", "ports[0].adaptive.floor: expected a rate in bits/s"},
	{"adaptive_floor_pct_big", ON("floor: 120%"), "t.yaml:6:14: ",
	 "ports[0].adaptive.floor: a percentage must be above 0% and at most "
	 "100% (got '120%')"},
	{"adaptive_target_short", ON("target: 9us"), "t.yaml:6:15: ",
	 "ports[0].adaptive.target: must be between 10us and 1s (got '9us')"},
	{"adaptive_target_long", ON("target: 1001ms"), "t.yaml:6:15: ",
	 "ports[0].adaptive.target: must be between 10us and 1s (got "
	 "'1001ms')"},
	{"adaptive_target_zero", ON("target: 0"), "t.yaml:6:15: ",
	 "ports[0].adaptive.target: must be between 10us and 1s (got '0')"},
	{"adaptive_target_syntax", ON("target: soon"), "t.yaml:6:15: ",
	 "ports[0].adaptive.target: expected a time: a number with a unit ns, "
	 "us, ms or s"},
	{"adaptive_gain_zero", ON("probe_gain: 0"), "t.yaml:6:19: ",
	 "ports[0].adaptive.probe_gain: must lie in (0, 1] (above 0, at most 1 "
	 "or 100%) (got '0')"},
	{"adaptive_gain_big", ON("probe_gain: 1.5"),
	 "t.yaml:6:19: ", "ports[0].adaptive.probe_gain: must lie in (0, 1]"},
	{"adaptive_gain_pct_big", ON("probe_gain: 101%"),
	 "t.yaml:6:19: ", "ports[0].adaptive.probe_gain: must lie in (0, 1]"},
	{"adaptive_gain_negative", ON("probe_gain: -0.1"),
	 "t.yaml:6:19: ", "ports[0].adaptive.probe_gain: must lie in (0, 1]"},
	{"adaptive_gain_syntax", ON("probe_gain: fast"), "t.yaml:6:19: ",
	 "ports[0].adaptive.probe_gain: not a fraction (got 'fast'); write "
	 "e.g. 0.1 or 10%"},
	{"adaptive_gain_suffix", ON("probe_gain: 0.1x"), "t.yaml:6:19: ",
	 "ports[0].adaptive.probe_gain: not a fraction (got '0.1x')"},
	/* the floor per queue: at least the shaper's lowest rate */
	{"adaptive_floor_below_shaper", ON("floor: 14bit"), "t.yaml:6:14: ",
	 "ports[0].adaptive.floor: below the shaper's lowest rate, 15 bit/s "
	 "per queue; use at least 15bit (got '14bit')"},
	{"adaptive_floor_below_shaper_queues", "queues: 4\n" ON("floor: 40bit"),
	 "t.yaml:7:14: ",
	 "ports[0].adaptive.floor: below the shaper's lowest rate, 15 bit/s "
	 "per queue; with 4 queues, use at least 60bit (got '40bit')"},
	{"adaptive_floor_1bit_queues", "queues: 2\n" ON("floor: 1bit"),
	 "t.yaml:7:14: ",
	 "ports[0].adaptive.floor: below the shaper's lowest rate, 15 bit/s "
	 "per queue; with 2 queues, use at least 30bit (got '1bit')"},
	{"adaptive_floor_below_shaper_off", ADAPT("floor: 1bit"),
	 "t.yaml:5:14: ",
	 "ports[0].adaptive.floor: below the shaper's lowest rate, 15 bit/s "
	 "per queue; use at least 15bit (got '1bit')"},
	{"adaptive_floor_default_below_shaper",
	 "queues: 2\nports:\n  - interface: eth1\n    rate: 200bit\n"
	 "    adaptive: {mode: on}\n  - interface: eth2\n",
	 "t.yaml:5:22: ",
	 "ports[0].adaptive.floor: the default, 10% of ports[0].rate, is "
	 "below the shaper's lowest rate, 15 bit/s per queue; with 2 queues, "
	 "write a floor of at least 30bit"},
};

/* Not written: off, target 500us, floor 10% of the rate, gain 0.1. */
static void test_defaults(void **state)
{
	struct xdplane_config *cfg = load_ok(QPORTS);

	(void)state;
	for (int i = 0; i < 2; i++) {
		const struct qos_adaptive *a = &cfg->qos.port[i].adaptive;

		assert_false(a->on);
		assert_int_equal(a->target_ns, 500000);
		assert_int_equal(a->floor_bps, 10000000000ull);
		assert_true(a->probe_gain == 0.1);
	}
	config_free(cfg);
	/* unshaped: off, no floor */
	cfg = load_ok(PORTS);
	for (int i = 0; i < 2; i++) {
		assert_false(cfg->qos.port[i].adaptive.on);
		assert_int_equal(cfg->qos.port[i].adaptive.floor_bps, 0);
		assert_int_equal(cfg->qos.port[i].adaptive.target_ns, 500000);
	}
	config_free(cfg);
	/* mode alone: on, the other keys their defaults; off written */
	cfg = load_ok(ADAPT("mode: on"));
	assert_true(cfg->qos.port[0].adaptive.on);
	assert_false(cfg->qos.port[1].adaptive.on);
	assert_int_equal(cfg->qos.port[0].adaptive.target_ns, 500000);
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 10000000000ull);
	assert_true(cfg->qos.port[0].adaptive.probe_gain == 0.1);
	config_free(cfg);
	cfg = load_ok(ADAPT("mode: off"));
	assert_false(cfg->qos.port[0].adaptive.on);
	config_free(cfg);
	/* an empty map: the defaults */
	cfg = load_ok("ports:\n  - interface: eth1\n    rate: 1Gbit\n"
		      "    adaptive: {}\n  - interface: eth2\n");
	assert_false(cfg->qos.port[0].adaptive.on);
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 100000000);
	config_free(cfg);
}

/* Every key, both ports, flow and block style. */
static void test_values(void **state)
{
	struct xdplane_config *cfg =
		load_ok("ports:\n"
			"  - interface: eth1\n"
			"    rate: 100Gbit\n"
			"    adaptive:\n"
			"      mode: on\n"
			"      target: 2ms\n"
			"      floor: 5Gbit\n"
			"      probe_gain: 0.25\n"
			"  - interface: eth2\n"
			"    rate: 40Gbit\n"
			"    adaptive: {mode: on, target: 10us, floor: 40Gbit, "
			"probe_gain: 100%}\n");
	const struct qos_adaptive *a = &cfg->qos.port[0].adaptive,
				  *b = &cfg->qos.port[1].adaptive;

	(void)state;
	assert_true(a->on);
	assert_int_equal(a->target_ns, 2000000);
	assert_int_equal(a->floor_bps, 5000000000ull);
	assert_true(a->probe_gain == 0.25);
	assert_true(b->on);
	assert_int_equal(b->target_ns, 10000); /* the lower bound */
	assert_int_equal(b->floor_bps, 40000000000ull); /* = rate */
	assert_true(b->probe_gain == 1.0);
	config_free(cfg);
	/* the upper bound of target */
	cfg = load_ok(ON("target: 1s"));
	assert_int_equal(cfg->qos.port[0].adaptive.target_ns, 1000000000ull);
	config_free(cfg);
	/* keys written with mode off are kept (hot: turning it on later) */
	cfg = load_ok(ADAPT("mode: off\n      target: 1ms"));
	assert_false(cfg->qos.port[0].adaptive.on);
	assert_int_equal(cfg->qos.port[0].adaptive.target_ns, 1000000);
	config_free(cfg);
}

/* floor: a rate, or a share of ports[].rate. */
static void test_floor(void **state)
{
	struct xdplane_config *cfg = load_ok(ON("floor: 10%"));
	uint64_t f = cfg->qos.port[0].adaptive.floor_bps;

	(void)state;
	/* a share is kept in 1/65536ths of the rate: 10% within one part */
	if (f < 9999000000ull || f > 10001000000ull)
		fail_msg("floor: 10%% of 100Gbit is %llu",
			 (unsigned long long)f);
	config_free(cfg);
	cfg = load_ok(ON("floor: 12.5%")); /* exact in 1/65536ths */
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 12500000000ull);
	config_free(cfg);
	cfg = load_ok(ON("floor: 100%"));
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 100000000000ull);
	config_free(cfg);
	cfg = load_ok(ON("floor: 800Mbit"));
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 800000000ull);
	config_free(cfg);
	/* the shaper's lowest rate per queue, exactly; queues: auto is
	 * checked with one here (with the count at start) */
	cfg = load_ok(ON("floor: 15bit"));
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 15);
	config_free(cfg);
	cfg = load_ok("queues: 4\n" ON("floor: 60bit"));
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 60);
	config_free(cfg);
	cfg = load_ok("queues: auto\n" ON("floor: 15bit"));
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 15);
	config_free(cfg);
	/* the share is of its own port's rate */
	cfg = load_ok("ports:\n  - interface: eth1\n    rate: 100Gbit\n"
		      "  - interface: eth2\n    rate: 10Gbit\n"
		      "    adaptive: {mode: on, floor: 50%}\n");
	assert_int_equal(cfg->qos.port[1].adaptive.floor_bps, 5000000000ull);
	assert_int_equal(cfg->qos.port[0].adaptive.floor_bps, 10000000000ull);
	config_free(cfg);
}

/* probe_gain: 10% and 0.1 are the same fraction. */
static void test_probe_gain(void **state)
{
	struct xdplane_config *a = load_ok(ON("probe_gain: 10%"));
	struct xdplane_config *b = load_ok(ON("probe_gain: 0.1"));
	struct xdplane_config *c = load_ok(ON("probe_gain: 0.5"));
	struct xdplane_config *d = load_ok(ON("probe_gain: 1"));

	(void)state;
	assert_true(a->qos.port[0].adaptive.probe_gain == 0.1);
	assert_true(b->qos.port[0].adaptive.probe_gain == 0.1);
	assert_memory_equal(&a->qos, &b->qos, sizeof(a->qos));
	assert_true(c->qos.port[0].adaptive.probe_gain == 0.5);
	assert_true(d->qos.port[0].adaptive.probe_gain == 1.0);
	config_free(a);
	config_free(b);
	config_free(c);
	config_free(d);
}

static char *dump_text(const struct xdplane_config *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(config_dump(cfg, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The dump writes the section when on or not the defaults, and loads
 * back to the same policy. */
static void test_dump_round_trip(void **state)
{
	static const char *const docs[] = {
		ON("target: 2ms\n      floor: 5Gbit\n      probe_gain: 0.25"),
		ON("floor: 10%\n      probe_gain: 10%"),
		ON("probe_gain: 0.3333333333333333"),
		ADAPT("mode: on"),
		ADAPT("mode: off\n      target: 1ms"),
		ADAPT("mode: off\n      floor: 1Gbit"),
		QPORTS,
		PORTS,
	};
	struct xdplane_config *in, *out;
	char *text;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		in = load_ok(docs[i]);
		out = dump_and_reload(in, &text);
		if (memcmp(&in->qos, &out->qos, sizeof(in->qos)))
			fail_msg("round trip changed the policy:\n%s\nto:\n%s",
				 docs[i], text);
		free(text);
		config_free(in);
		config_free(out);
	}
	/* the text: every key, in the units written */
	in = load_ok(
		ON("target: 2ms\n      floor: 5Gbit\n      probe_gain: 0.25"));
	text = dump_text(in);
	if (!strstr(text, "    rate: 100Gbit\n"
			  "    burst: 2500KB\n"
			  "    adaptive:\n"
			  "      mode: on\n"
			  "      target: 2ms\n"
			  "      floor: 5Gbit\n"
			  "      probe_gain: 0.25\n"))
		fail_msg("dump:\n%s", text);
	free(text);
	config_free(in);
	/* off with the defaults: not written */
	in = load_ok(ADAPT("mode: off"));
	text = dump_text(in);
	if (strstr(text, "adaptive"))
		fail_msg("dump of the defaults:\n%s", text);
	free(text);
	config_free(in);
	/* off with a value of its own: written, mode off */
	in = load_ok(ADAPT("mode: off\n      target: 1ms"));
	text = dump_text(in);
	if (!strstr(text,
		    "    adaptive:\n      mode: off\n      target: 1ms\n"))
		fail_msg("dump:\n%s", text);
	free(text);
	config_free(in);
}

/* Every ports[].adaptive key is applied live: one hot key per port. */
static void test_hot(void **state)
{
	static const char *const variants[] = {
		ADAPT("mode: off"),
		ON("target: 1ms"),
		ON("floor: 1Gbit"),
		ON("probe_gain: 0.2"),
	};
	struct xdplane_config *a = load_ok(ADAPT("mode: on")), *b;
	struct config_diff d;
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		b = load_ok(variants[i]);
		config_diff(a, b, &d);
		config_diff_format(&d, false, text, sizeof(text));
		assert_string_equal(text, "ports[0].adaptive");
		assert_int_equal(d.n_cold, 0);
		assert_int_equal(config_reload_check(&d, text, sizeof(text)),
				 0);
		config_free(b);
	}
	config_free(a);
}

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_probe_gain),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_hot),
	};
	return run_config_tests(fixed, sizeof(fixed) / sizeof(fixed[0]),
				bad_cases, N_BAD);
}
