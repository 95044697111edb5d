// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_dcqcn_params.c - DCQCN's parameters (dataplane/cc/dcqcn.c): the
 * defaults of both profiles, the check of every parameter out of range,
 * and the profile names.
 */
#include "test_dcqcn.h"

/* ======================= parameters, names ======================= */

static void test_params_defaults(void **state)
{
	struct dcqcn_params p;

	dcqcn_params_default(&p, DCQCN_PAPER, 40 * G);
	assert_true(p.profile == DCQCN_PAPER && p.line_bps == 40 * G);
	assert_true(p.min_bps == 100 * M && p.ai_bps == 40 * M &&
		    p.hai_bps == 200 * M);
	assert_true(p.g == 1.0 / 256 && p.alpha_init == 1.0);
	assert_true(p.alpha_ns == 55 * US && p.inc_ns == 55 * US &&
		    p.dec_ns == 0);
	assert_true(p.byte_counter == 10000000 && p.f == 5);
	assert_true(p.min_dec_factor == 0 && p.clamp_always &&
		    !p.clamp_after_inc && !p.alpha_before_cut);
	assert_true(p.np_interval_ns == 50 * US && p.first_cnp_bps == 0);

	dcqcn_params_default(&p, DCQCN_CONNECTX, 100 * G);
	assert_true(p.profile == DCQCN_CONNECTX && p.line_bps == 100 * G);
	assert_true(p.min_bps == 1 * M && p.ai_bps == 5 * M &&
		    p.hai_bps == 50 * M);
	assert_true(p.g == 5.0 / 1024 && p.alpha_init == 1.0);
	assert_true(p.alpha_ns == 1 * US && p.inc_ns == 300 * US &&
		    p.dec_ns == 4 * US);
	assert_true(p.byte_counter == 0 && p.f == 1);
	assert_true(p.min_dec_factor == 0.5 && !p.clamp_always &&
		    p.clamp_after_inc);
	assert_true(p.np_interval_ns == 4 * US && p.first_cnp_bps == 0);
}

/* Each case breaks one parameter of a valid default set. */
static const struct {
	enum dcqcn_profile prof;
	const char *field; /* the reason starts with it */
} bad_cases[] = {
	{DCQCN_PAPER, "profile"},
	{DCQCN_PAPER, "line_bps"},
	{DCQCN_PAPER, "line_bps"},
	{DCQCN_PAPER, "min_bps"},
	{DCQCN_PAPER, "min_bps"},
	{DCQCN_PAPER, "ai_bps"},
	{DCQCN_PAPER, "hai_bps"},
	{DCQCN_PAPER, "g"},
	{DCQCN_PAPER, "g"},
	{DCQCN_PAPER, "alpha_init"},
	{DCQCN_PAPER, "min_dec_factor"},
	{DCQCN_PAPER, "alpha_ns"},
	{DCQCN_PAPER, "inc_ns"},
	{DCQCN_PAPER, "dec_ns"},
	{DCQCN_PAPER, "first_cnp_bps"},
	{DCQCN_CONNECTX, "dec_ns"},
	{DCQCN_CONNECTX, "byte_counter"},
	{DCQCN_CONNECTX, "first_cnp_bps"},
	{DCQCN_CONNECTX, "alpha_before_cut"},
};

static void break_param(struct dcqcn_params *p, size_t i)
{
	switch (i) {
	case 0:
		p->profile = DCQCN_PROFILE_MAX;
		break;
	case 1:
		p->line_bps = 0;
		break;
	case 2:
		p->line_bps = NAN;
		break;
	case 3:
		p->min_bps = 41 * G;
		break;
	case 4:
		p->min_bps = 0;
		break;
	case 5:
		p->ai_bps = -1;
		break;
	case 6:
		p->hai_bps = INFINITY;
		break;
	case 7:
		p->g = 1.5;
		break;
	case 8:
		p->g = NAN;
		break;
	case 9:
		p->alpha_init = -0.1;
		break;
	case 10:
		p->min_dec_factor = 1.1;
		break;
	case 11:
		p->alpha_ns = 0;
		break;
	case 12:
		p->inc_ns = DCQCN_MAX_PERIOD_NS + 1;
		break;
	case 13:
		p->dec_ns = 4000;
		break;
	case 14:
		p->first_cnp_bps = G;
		break;
	case 15:
		p->dec_ns = 0;
		break;
	case 16:
		p->byte_counter = 1;
		break;
	case 17:
		p->first_cnp_bps = 1;
		break; /* below min_bps */
	case 18:
		p->alpha_before_cut = true;
		break;
	default:
		fail_msg("no case %zu", i);
	}
}

static void test_params_check(void **state)
{
	struct dcqcn_params p;
	const char *why = "x";

	for (int prof = 0; prof < DCQCN_PROFILE_MAX; prof++) {
		dcqcn_params_default(&p, prof, 40 * G);
		assert_int_equal(dcqcn_params_check(&p, &why), 0);
		assert_null(why);
		dcqcn_params_default(&p, prof, 0); /* line rate required */
		assert_int_equal(dcqcn_params_check(&p, NULL), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const char *field = bad_cases[i].field;

		dcqcn_params_default(&p, bad_cases[i].prof, 40 * G);
		break_param(&p, i);
		why = NULL;
		assert_int_equal(dcqcn_params_check(&p, &why), -EINVAL);
		assert_non_null(why);
		if (strncmp(why, field, strlen(field)))
			fail_msg("case %zu (%s): reason '%s'", i, field, why);
	}
}

static void test_names(void **state)
{
	static const char *const ev[] = {"none",  "cnp",	   "cut",
					 "alpha", "fast_recovery", "additive",
					 "hyper"};

	for (int e = 0; e < DCQCN_EV_MAX; e++)
		assert_string_equal(dcqcn_event_name(e), ev[e]);
	assert_string_equal(dcqcn_event_name(DCQCN_EV_MAX), "unknown");
	assert_string_equal(dcqcn_event_name((enum dcqcn_event) - 1),
			    "unknown");
	assert_string_equal(dcqcn_profile_name(DCQCN_PAPER), "paper");
	assert_string_equal(dcqcn_profile_name(DCQCN_CONNECTX), "connectx");
	assert_string_equal(dcqcn_profile_name(DCQCN_PROFILE_MAX), "unknown");
	assert_int_equal(dcqcn_profile_from_name("paper"), DCQCN_PAPER);
	assert_int_equal(dcqcn_profile_from_name("connectx"), DCQCN_CONNECTX);
	assert_int_equal(dcqcn_profile_from_name("Paper"), -1);
	assert_int_equal(dcqcn_profile_from_name(""), -1);
	assert_int_equal(dcqcn_profile_from_name(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_defaults),
		cmocka_unit_test(test_params_check),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
