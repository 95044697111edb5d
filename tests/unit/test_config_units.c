// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_units.c - the one parser of numbers with units and of IP
 * prefixes (control/units.c, control/prefix.c), shared by the
 * configuration, the DCQCN simulator and the CLI: exact values, the error
 * codes, the printers reading back what they print, the prefix messages;
 * and the configuration keys whose behaviour the shared parser decides.
 */
#include "prefix.h"
#include "units.h"
#include "test_config.h"

static void test_units_whole(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(units_get("1.5Gbit", &units_rate, UINT64_MAX, &v), 0);
	assert_true(v == 1500000000ull);
	assert_int_equal(units_get("5GBPS", &units_rate, UINT64_MAX, &v), 0);
	assert_true(v == 5000000000ull);
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
		cmocka_unit_test(test_config_units_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
