// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_units.c - the one parser of numbers with units and of IP
 * prefixes (control/config/units.c, control/config/prefix.c), shared by the
 * configuration, the DCQCN simulator and the CLI: exact values, the error
 * codes, the printers reading back what they print, the prefix messages;
 * and the configuration keys whose behaviour the shared parser decides.
 */
#include <inttypes.h>

#include "prefix.h"
#include "units.h"
#include "test_config.h"

static void test_units_whole(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(units_get("1.5Gbit", &units_rate, UINT64_MAX, &v), 0);
	assert_true(v == 1500000000ull);
	assert_int_equal(units_get("5GBIT", &units_rate, UINT64_MAX, &v), 0);
	assert_true(v == 5000000000ull);
	assert_int_equal(units_get("2Mibit", &units_rate, UINT64_MAX, &v), 0);
	assert_true(v == 2097152);
	assert_int_equal(units_get("1.5bit", &units_rate, UINT64_MAX, &v),
			 UNITS_EFRACTION);
	assert_int_equal(
		units_get("11Tbit", &units_rate, 10000000000000ull, &v),
		UNITS_ERANGE);
	assert_int_equal(units_get("4.5KiB", &units_size, UINT32_MAX, &v), 0);
	assert_true(v == 4608);
	assert_int_equal(units_get("64K", &units_size, UINT32_MAX, &v),
			 UNITS_ESYNTAX);
	/* the grammar of a number */
	assert_int_equal(units_get("05", &units_size, UINT32_MAX, &v),
			 UNITS_ESYNTAX);
	assert_int_equal(units_get(".5", &units_size, UINT32_MAX, &v),
			 UNITS_ESYNTAX);
	assert_int_equal(units_get("5.", &units_size, UINT32_MAX, &v),
			 UNITS_ESYNTAX);
	assert_int_equal(units_get("1e3", &units_size, UINT32_MAX, &v),
			 UNITS_ESYNTAX);
	assert_int_equal(units_get("+1", &units_size, UINT32_MAX, &v),
			 UNITS_ESYNTAX);
	assert_int_equal(units_get("1 KB", &units_size, UINT32_MAX, &v),
			 UNITS_ESYNTAX);
	/* 30 digits are a number (out of range), 31 are not one */
	assert_int_equal(units_get("100000000000000000000000000000",
				   &units_size, UINT64_MAX, &v),
			 UNITS_ERANGE);
	assert_int_equal(units_get("1000000000000000000000000000000",
				   &units_size, UINT64_MAX, &v),
			 UNITS_ESYNTAX);
}

static void test_units_time(void **state)
{
	uint64_t ns = 1;

	(void)state;
	assert_int_equal(units_time_get("0", UINT64_MAX, &ns), 0);
	assert_true(ns == 0);
	assert_int_equal(units_time_get("1.5ms", UINT64_MAX, &ns), 0);
	assert_true(ns == 1500000);
	assert_int_equal(units_time_get("55\xc2\xb5s", UINT64_MAX, &ns), 0);
	assert_true(ns == 55000);
	/* a unit is required, except by the simulator's table */
	assert_int_equal(units_time_get("55", UINT64_MAX, &ns), UNITS_ESYNTAX);
	assert_int_equal(units_get("55", &units_time_ns, UINT64_MAX, &ns), 0);
	assert_true(ns == 55);
	assert_int_equal(units_time_get("0.5ns", UINT64_MAX, &ns),
			 UNITS_EFRACTION);
	assert_int_equal(units_time_get("5min", UINT64_MAX, &ns),
			 UNITS_ESYNTAX);
}

static void test_units_shares(void **state)
{
	units_u128 num, den;
	uint32_t share = 0;

	(void)state;
	assert_int_equal(units_percent("10%", &share), 0);
	assert_int_equal(share, 6554);
	assert_int_equal(units_percent("0.0007%", &share), UNITS_EZERO);
	assert_int_equal(units_percent("0%", &share), UNITS_ERANGE);
	assert_int_equal(units_percent("100.5%", &share), UNITS_ERANGE);
	assert_int_equal(units_percent("0.5", &share), UNITS_ESYNTAX);
	assert_int_equal(units_prob("0.01", &share), 0);
	assert_int_equal(share, 655);
	assert_int_equal(units_prob("1.01", &share), UNITS_ERANGE);
	assert_int_equal(units_fraction("12.5%", false, &num, &den), 0);
	assert_true(num == 125 && den == 1000);
	/* every share prints as the shortest percentage that reads back */
	for (uint32_t s = 1; s <= UNITS_SHARE_ONE; s++) {
		char text[32];

		units_share_text(text, sizeof(text), s);
		if (units_percent(text, &share) || share != s)
			fail_msg("share %u printed as %s", s, text);
	}
}

static void test_units_reals(void **state)
{
	double v = -1;

	(void)state;
	assert_int_equal(units_real_fraction("12.5%", true, &v), 0);
	assert_true(v == 0.125);
	assert_int_equal(units_real_fraction("150%", true, &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(units_real_fraction("0.33%", true, &v), 0);
	assert_true(v == 0.0033);
	assert_int_equal(units_real_fraction("0.5", false, &v), UNITS_ESYNTAX);
	assert_int_equal(units_real_fraction("-5%", true, &v), UNITS_ESYNTAX);
	/* rounded once: the double nearest 1 - 10^-22 is 1 */
	assert_int_equal(
		units_real_fraction("99.99999999999999999999%", true, &v), 0);
	assert_true(v == 1.0);
	assert_int_equal(units_ratio("1/3", &v), 0);
	assert_true(v == 1.0 / 3);
	assert_int_equal(units_ratio("0.1", &v), 0);
	assert_true(v == 0.1);
	assert_int_equal(units_ratio("1/0", &v), UNITS_ERANGE);
	assert_int_equal(units_ratio("1.5/3", &v), UNITS_ESYNTAX);
	assert_int_equal(units_ratio("1/0x100", &v), UNITS_ESYNTAX);
	assert_int_equal(units_ratio("1/99999999999999999", &v), UNITS_ESYNTAX);
}

static void test_units_text(void **state)
{
	static const struct {
		uint64_t v;
		const char *rate, *size, *time;
	} cases[] = {
		{0, "0bit", "0", "0"},
		{999, "999bit", "999", "999ns"},
		{1000, "1kbit", "1KB", "1us"},
		{1500000, "1.5Mbit", "1500KB", "1500us"},
		{1048576, "1.048576Mbit", "1MiB", "1048576ns"},
		{10000000000000ull, "10Tbit", "10000GB", "10000s"},
	};
	char text[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_rate_text(text, sizeof(text), cases[i].v);
		assert_string_equal(text, cases[i].rate);
		units_size_text(text, sizeof(text), cases[i].v);
		assert_string_equal(text, cases[i].size);
		units_time_text(text, sizeof(text), cases[i].v);
		assert_string_equal(text, cases[i].time);
	}
}

static void test_units_bool(void **state)
{
	bool b = false;

	(void)state;
	assert_int_equal(units_bool("TRUE", &b), 0);
	assert_true(b);
	assert_int_equal(units_bool("False", &b), 0);
	assert_false(b);
	assert_int_equal(units_bool("yes", &b), UNITS_ESYNTAX);
	assert_int_equal(units_bool("1", &b), UNITS_ESYNTAX);
	assert_string_equal(units_strerror(UNITS_EFRACTION),
			    "not a whole number of the base unit");
	assert_string_equal(units_strerror(UNITS_ERANGE), "out of range");
}

static void test_prefix(void **state)
{
	static const uint8_t net10_1[16] = {10, 1};
	/* one grammar for the length: plain decimal, no sign, no zero
	 * before it, no space, at most the address's bits */
	static const char *const bad[] = {
		"10.0.0.0/08",	"10.0.0.0/+8",
		"10.0.0.0/ 8",	"10.0.0.0/",
		"10.0.0.0/33",	"fd00::/129",
		"10.0.0.0/0x8", "10.0.0.0/99999999999999999999",
	};
	struct qos_prefix p;
	char why[256], text[PREFIX_TEXT_MAX];
	bool host;

	(void)state;
	assert_int_equal(prefix_check("10.1.0.0/16", &p, why, sizeof(why)), 0);
	assert_int_equal(p.family, 4);
	assert_int_equal(p.len, 16);
	assert_memory_equal(p.addr, net10_1, 16);
	assert_int_equal(prefix_check("fd00::1", &p, why, sizeof(why)), 0);
	assert_int_equal(p.family, 6);
	assert_int_equal(p.len, 128);
	prefix_text(&p, text, sizeof(text));
	assert_string_equal(text, "fd00::1/128");
	assert_int_equal(prefix_check("10.1.2.3/16", &p, why, sizeof(why)), -1);
	assert_string_equal(why, "10.1.2.3/16 has host bits set; did you mean "
				 "10.1.0.0/16?");
	assert_true(prefix_parse("10.1.2.3/16", &p, &host) && host);
	assert_int_equal(prefix_check("10.1/16", &p, why, sizeof(why)), -1);
	assert_string_equal(why,
			    "expected an IPv4 or IPv6 address or prefix, e.g. "
			    "10.1.0.0/16, fd00::/8 or 10.1.2.3 (got "
			    "'10.1/16')");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (prefix_parse(bad[i], &p, &host))
			fail_msg("%s: accepted", bad[i]);
	assert_true(prefix_parse("0.0.0.0/0", &p, &host) && !host);
	assert_true(prefix_parse("::/0", &p, &host) && !host);
}

/* The unit grammar: tc's bit units for rates, any case; B for bytes,
 * exactly; every bytes-per-second and bit spelling refused. */
static void test_units_spellings(void **state)
{
	static const struct {
		const char *text;
		uint64_t v;
	} rates[] =
		{
			{"100Mbit", 100000000}, {"100mbit", 100000000},
			{"100MBIT", 100000000}, {"1kbit", 1000},
			{"1Kbit", 1000},	{"1Kibit", 1024},
			{"1gibit", 1073741824}, {"1Tibit", 1099511627776ull},
			{"1500", 1500},		{"1500bit", 1500},
		},
	  sizes[] = {
		  {"1500", 1500},   {"1500B", 1500},   {"64kB", 64000},
		  {"64KB", 64000},  {"4MB", 4000000},  {"1GB", 1000000000},
		  {"64KiB", 65536}, {"4MiB", 4194304}, {"1GiB", 1073741824},
	  };
	static const char *const bad_rates[] = {
		"100Mbps", "100MBps", "100mbps", "1Gbps", "1GBPS",  "100bps",
		"100Bps",  "100KBps", "1kibps",	 "100MB", "100KiB",
	};
	static const char *const bad_sizes[] = {
		"4Mb",	 "4mb",	   "64kb", "64Kb",  "1500b", "1gb", "4Mib",
		"64kib", "10kbit", "8bit", "1Mbit", "4mB",   "1mb", "64k",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		v = 0;
		if (units_get(rates[i].text, &units_rate, UINT64_MAX, &v) ||
		    v != rates[i].v)
			fail_msg("rate %s: %" PRIu64, rates[i].text, v);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		v = 0;
		if (units_get(sizes[i].text, &units_size, UINT64_MAX, &v) ||
		    v != sizes[i].v)
			fail_msg("size %s: %" PRIu64, sizes[i].text, v);
	}
	for (size_t i = 0; i < sizeof(bad_rates) / sizeof(bad_rates[0]); i++)
		if (units_get(bad_rates[i], &units_rate, UINT64_MAX, &v) !=
		    UNITS_ESYNTAX)
			fail_msg("rate %s: accepted", bad_rates[i]);
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++)
		if (units_get(bad_sizes[i], &units_size, UINT64_MAX, &v) !=
		    UNITS_ESYNTAX)
			fail_msg("size %s: accepted", bad_sizes[i]);
}

/* What a refused spelling is told: both readings and what to write. */
static void test_units_misread(void **state)
{
	static const struct {
		bool rate;
		const char *text, *msg;
	} cases[] = {
		{true, "100MBps",
		 "'100MBps' is bytes per second (800Mbit); rates are in "
		 "bits: write 800Mbit, or 100Mbit if bits were meant"},
		{true, "1.5GBps",
		 "'1.5GBps' is bytes per second (12Gbit); rates are in bits: "
		 "write 12Gbit, or 1.5Gbit if bits were meant"},
		{true, "100Bps",
		 "'100Bps' is bytes per second (800bit); rates are in bits: "
		 "write 800bit, or 100bit if bits were meant"},
		{true, "100Mbps",
		 "'100Mbps' is bits per second to most (100Mbit) but bytes "
		 "per second to tc (800Mbit); rates are in bits: write "
		 "100Mbit or 800Mbit"},
		{true, "25gbps",
		 "'25gbps' is bits per second to most (25Gbit) but bytes per "
		 "second to tc (200Gbit); rates are in bits: write 25Gbit or "
		 "200Gbit"},
		{true, "10kbps",
		 "'10kbps' is bits per second to most (10kbit) but bytes per "
		 "second to tc (80kbit); rates are in bits: write 10kbit or "
		 "80kbit"},
		{true, "1Kibps",
		 "'1Kibps' is bits per second to most (1Kibit) but bytes per "
		 "second to tc (8.192kbit); rates are in bits: write 1Kibit or "
		 "8.192kbit"},
		{false, "4Mb",
		 "'4Mb' is bits (500000 bytes) but bytes to tc (4MiB); sizes "
		 "are in bytes: write 500KB or 4MiB"},
		{false, "64kb",
		 "'64kb' is bits (8000 bytes) but bytes to tc (64KiB); sizes "
		 "are in bytes: write 8KB or 64KiB"},
		{false, "1500b",
		 "'1500b' is bits (187.5 bytes) but bytes to tc (1500 bytes); "
		 "sizes are in bytes: write 1500"},
		{false, "10kbit",
		 "'10kbit' is bits (1250 bytes); sizes are in bytes: write "
		 "1250"},
		{false, "4Mib",
		 "'4Mib' is bits (524288 bytes); sizes are in bytes: write "
		 "512KiB"},
		{false, "1bit",
		 "'1bit' is bits (0.125 bytes); sizes are in bytes, e.g. 64KB "
		 "or 4MiB"},
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf[0] = '\0';
		if (!(cases[i].rate ? units_rate_misread : units_size_misread)(
			    cases[i].text, buf, sizeof(buf)))
			fail_msg("%s: not explained", cases[i].text);
		assert_string_equal(buf, cases[i].msg);
	}
	/* not a misreading: left to the caller's syntax message */
	assert_false(units_rate_misread("100MB", buf, sizeof(buf)));
	assert_false(units_rate_misread("fast", buf, sizeof(buf)));
	assert_false(units_size_misread("4MB", buf, sizeof(buf)));
	assert_false(units_size_misread("64K", buf, sizeof(buf)));
}

/* The messages at the keys, with their positions; every time key reads
 * the same units, and the keys named for a unit take a bare number of
 * it. */
static const struct bad_case spelling_bad[] = {
	{"rate_bytes", PORT_RATE("100MBps"), "t.yaml:3:11: ",
	 "ports[0].rate: '100MBps' is bytes per second (800Mbit); rates are "
	 "in bits: write 800Mbit, or 100Mbit if bits were meant"},
	{"rate_bps", PORT_RATE("100Mbps"), "t.yaml:3:11: ",
	 "ports[0].rate: '100Mbps' is bits per second to most (100Mbit) but "
	 "bytes per second to tc (800Mbit); rates are in bits: write 100Mbit "
	 "or 800Mbit"},
	{"ceil_bytes", CLS("    ceil: 1GBps\n"), "t.yaml:8:11: ",
	 "classes[0].ceil: '1GBps' is bytes per second (8Gbit); rates are in "
	 "bits: write 8Gbit, or 1Gbit if bits were meant"},
	{"limit_bits", CLS("    limit_bytes: 4Mb\n"), "t.yaml:8:18: ",
	 "classes[0].limit_bytes: '4Mb' is bits (500000 bytes) but bytes to "
	 "tc (4MiB); sizes are in bytes: write 500KB or 4MiB"},
	{"burst_bits", PORT_BURST("64kbit"), "t.yaml:3:12: ",
	 "ports[0].burst: '64kbit' is bits (8000 bytes); sizes are in bytes: "
	 "write 8KB"},
	{"watchdog_fraction", PORTS "pfc: {watchdog: 0.5ms}\n", "t.yaml:4:17: ",
	 "pfc.watchdog: not a whole number of milliseconds (got '0.5ms')"},
	{"watchdog_range", PORTS "pfc: {watchdog: 11min}\n", "t.yaml:4:17: ",
	 "pfc.watchdog: expected a time: a number with a unit ns, us, ms or "
	 "s, e.g. 55us, 0.5ms or 1s, or a plain number of milliseconds (got "
	 "'11min')"},
	{"watchdog_long", PORTS "pfc: {watchdog: 601s}\n", "t.yaml:4:17: ",
	 "pfc.watchdog: must be between 0 and 600000 milliseconds, 0 to 600s "
	 "(got '601s')"},
};

static void test_config_time_keys(void **state)
{
	static const struct {
		const char *yaml;
		uint64_t watchdog_ns, restore_ns;
		uint32_t busy_us, spin_us, stats_ms;
	} cases[] = {
		/* bare numbers in the keys' units, as before */
		{PORTS "pfc: {watchdog: 200, watchdog_restore: 300}\n"
		       "poll: {busy_us: 30, shaper_spin_us: 400}\n"
		       "control: {stats_interval_ms: 250}\n",
		 200000000, 300000000, 30, 400, 250},
		/* and the one set of time units */
		{PORTS "pfc: {watchdog: 200ms, watchdog_restore: 1s}\n"
		       "poll: {busy_us: 30us, shaper_spin_us: 0.4ms}\n"
		       "control: {stats_interval_ms: 2.5s}\n",
		 200000000, 1000000000, 30, 400, 2500},
		{PORTS "pfc: {watchdog: 0, watchdog_restore: 0ms}\n"
		       "poll: {busy_us: 2000ns, shaper_spin_us: 0}\n",
		 0, 0, 2, 0, 1000},
	};
	struct xdplane_config *cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg = load_ok(cases[i].yaml);
		assert_int_equal(cfg->qos.pfc.watchdog_ns,
				 cases[i].watchdog_ns);
		assert_int_equal(cfg->qos.pfc.restore_ns, cases[i].restore_ns);
		assert_int_equal(cfg->poll.busy_us, cases[i].busy_us);
		assert_int_equal(cfg->poll.shaper_spin_us, cases[i].spin_us);
		assert_int_equal(cfg->control.stats_interval_ms,
				 cases[i].stats_ms);
		config_free(cfg);
	}
}

/* The configuration keys the shared parser decides. */
static void test_config_units_keys(void **state)
{
	struct xdplane_config *cfg;
	struct config_error err = {.msg = ""};

	(void)state;
	/* "µs" is "us" for the configuration as for the simulator */
	cfg = load_ok(DCQCN("alpha_timer: 55\xc2\xb5s"));
	assert_int_equal(cfg->qos.dcqcn.par.alpha_ns, 55000);
	config_free(cfg);
	/* a min_decrease whose double is 1 is refused, however written
	 * (it would not load back from --dump-config) */
	assert_null(
		load(DCQCN("min_decrease: 99.99999999999999999999%"), &err));
	assert_string_equal(err.msg,
			    "t.yaml:7:17: dcqcn.min_decrease: must be at "
			    "least 0% and below 100% (got "
			    "'99.99999999999999999999%'); a cut may keep at "
			    "most all but a part of the rate");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_whole),
		cmocka_unit_test(test_units_time),
		cmocka_unit_test(test_units_shares),
		cmocka_unit_test(test_units_reals),
		cmocka_unit_test(test_units_text),
		cmocka_unit_test(test_units_bool),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_units_spellings),
		cmocka_unit_test(test_units_misread),
		cmocka_unit_test(test_config_time_keys),
		cmocka_unit_test(test_config_units_keys),
	};

	return run_config_tests(tests, sizeof(tests) / sizeof(tests[0]),
				spelling_bad,
				sizeof(spelling_bad) / sizeof(spelling_bad[0]));
}
