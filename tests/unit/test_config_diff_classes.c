// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_diff_classes.c - config_diff on whole configs: identical,
 * classes reordered, added, removed, renamed, rules appended and inserted.
 * DCQCN: every dcqcn key hot but max_flows; a class switching dcqcn, and a
 * DCQCN class added, removed or renamed, cold (named by the class).
 */
#include "test_config_diff.h"

static void test_identical(void **state)
{
	struct xdplane_config *a = load_ok(base_yaml);
	struct xdplane_config *b = load_ok(base_yaml);
	struct config_diff d;
	char text[16] = "x";

	(void)state;
	config_diff(a, b, &d);
	assert_diff(&d, NULL, 0);
	config_diff(a, a, &d);
	assert_diff(&d, NULL, 0);
	assert_int_equal(config_diff_format(&d, false, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	config_free(a);
	config_free(b);
}

/* Class order is hot and reported by name: the fewest classes that moved.
 * Rules and default_class name their classes, so their changed ids are no
 * change. */
static void test_class_order(void **state)
{
	static const struct {
		const char *yaml;
		struct want w[3];
		size_t n;
	} cases[] = {
		{WITH_CLASSES(Y_BULK Y_CNP Y_ROCE Y_DEFAULT),
		 {{"classes.bulk (moved)", false}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_BULK Y_DEFAULT),
		 {{"classes.bulk (moved)", false}},
		 1},
		{WITH_CLASSES(Y_ROCE Y_CNP Y_DEFAULT Y_BULK),
		 {{"classes.cnp (moved)", false}},
		 1},
		{WITH_CLASSES(Y_BULK Y_DEFAULT Y_ROCE Y_CNP),
		 {{"classes.bulk (moved)", false},
		  {"classes.default (moved)", false},
		  {"classes.roce (moved)", false}},
		 3},
	};
	struct xdplane_config *a = load_ok(base_yaml), *b;
	struct config_diff d;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		b = load_ok(cases[i].yaml);
		config_diff(a, b, &d);
		assert_diff(&d, cases[i].w, cases[i].n);
		config_free(b);
	}
	/* the ids did change, and no rule or default_class was reported */
	b = load_ok(cases[0].yaml);
	assert_int_equal(a->qos.rules[0].class_id, 0);
	assert_int_equal(b->qos.rules[0].class_id, 1); /* cnp */
	assert_int_equal(a->qos.default_class, 2);
	assert_int_equal(b->qos.default_class, 3);
	config_free(b);
	config_free(a);
}

static void test_classes_added_removed(void **state)
{
	static const struct {
		const char *yaml;
		struct want w[2];
		size_t n;
	} cases[] = {
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK "  - name: gold\n"),
		 {{"classes.gold (added)", false}},
		 1},
		{WITH_CLASSES(Y_CNP "  - name: gold\n" Y_ROCE Y_DEFAULT Y_BULK),
		 {{"classes.gold (added)", false}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT),
		 {{"classes.bulk (removed)", false}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT
			      "  - name: bulk2\n    level: 3\n"),
		 {{"classes.bulk (removed)", false},
		  {"classes.bulk2 (added)", false}},
		 2},
	};
	/* roce has dcqcn on: renaming it is cold */
	static const struct want renamed[] = {
		{"classes.roce (removed)", true},
		{"classes.rdma (added)", true},
		{"rules[1]", false},
	};
	struct xdplane_config *a = load_ok(base_yaml), *b;
	char yaml[sizeof(base_yaml)], *at;
	struct config_diff d;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		b = load_ok(cases[i].yaml);
		config_diff(a, b, &d);
		assert_diff(&d, cases[i].w, cases[i].n);
		/* and back */
		config_diff(b, a, &d);
		assert_int_equal(d.n, cases[i].n);
		config_free(b);
	}
	/* renamed everywhere: the rule now names another class */
	memcpy(yaml, base_yaml, sizeof(yaml));
	for (at = yaml; (at = strstr(at, "roce"));)
		memcpy(at, "rdma", 4);
	b = load_ok(yaml);
	config_diff(a, b, &d);
	assert_diff(&d, renamed, N(renamed));
	config_free(b);
	config_free(a);
}

#define Y_BULK_DCQCN "  - name: bulk\n    level: 3\n    dcqcn: true\n"
#define Y_GOLD_DCQCN "  - name: gold\n    level: 4\n    dcqcn: true\n"

/* A class's DCQCN flow tables exist from the start: switching dcqcn, and
 * adding or removing a class that has it, are cold, named by the class;
 * moving a DCQCN class, and adding or removing others, stay hot. */
static void test_dcqcn_classes(void **state)
{
	static const struct {
		const char *from, *to;
		struct want w[3];
		size_t n;
	} cases[] = {
		{base_yaml,
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK Y_GOLD_DCQCN),
		 {{"classes.gold (added)", true}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT),
		 {{"classes.bulk (removed)", true}},
		 1},
		{base_yaml,
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 {{"classes.bulk.dcqcn", true}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 base_yaml,
		 {{"classes.bulk.dcqcn", true}},
		 1},
		{base_yaml,
		 WITH_CLASSES(Y_CNP Y_DEFAULT Y_BULK Y_ROCE),
		 {{"classes.roce (moved)", false}},
		 1},
		/* cold first, then hot; removed before added */
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT
			      "  - name: silver\n" Y_GOLD_DCQCN),
		 {{"classes.bulk (removed)", true},
		  {"classes.gold (added)", true},
		  {"classes.silver (added)", false}},
		 3},
	};
	struct xdplane_config *a, *b;
	struct config_diff d;
	char text[256];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		a = load_ok(cases[i].from);
		b = load_ok(cases[i].to);
		config_diff(a, b, &d);
		assert_diff(&d, cases[i].w, cases[i].n);
		config_free(a);
		config_free(b);
	}
	/* switched off: refused, and said so */
	a = load_ok(base_yaml);
	b = load_variant("    dcqcn: true\n", "    dcqcn: false\n");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: classes.roce.dcqcn");
	config_free(b);
	/* left out is off too */
	b = load_variant("    dcqcn: true\n", "");
	config_diff(a, b, &d);
	assert_diff(&d, (const struct want[]){{"classes.roce.dcqcn", true}}, 1);
	config_free(b);
	config_free(a);
}

/* The dcqcn mapping: hot but for max_flows. */
static void test_dcqcn_keys(void **state)
{
	static const struct want g[] = {{"dcqcn.g", false}};
	static const struct want max_flows[] = {{"dcqcn.max_flows", true}};
	static const struct want np[] = {{"dcqcn.np.enabled", false},
					 {"dcqcn.np.pcp", false}};
	static const struct want line[] = {{"dcqcn.line_rate", false}};
	/* every parameter the two profiles' defaults set differently */
	static const struct want profile[] = {
		{"dcqcn.profile", false},
		{"dcqcn.min_rate", false},
		{"dcqcn.rate_ai", false},
		{"dcqcn.rate_hai", false},
		{"dcqcn.g", false},
		{"dcqcn.alpha_timer", false},
		{"dcqcn.increase_timer", false},
		{"dcqcn.decrease_period", false},
		{"dcqcn.byte_counter", false},
		{"dcqcn.fast_recovery", false},
		{"dcqcn.min_decrease", false},
		{"dcqcn.clamp", false},
		{"dcqcn.cnp_interval", false},
	};
	struct xdplane_config *a, *b;
	struct config_diff d;
	char text[128];

	(void)state;
	assert_variant("g: 1/128", "g: 0.0078125", NULL, 0); /* same value */
	assert_variant("g: 1/128", "g: 1/64", g, N(g));
	assert_variant("max_flows: 512", "max_flows: 2048", max_flows,
		       N(max_flows));
	assert_variant("np: {enabled: true, dscp: 46, pcp: 5}",
		       "np: {enabled: false, dscp: 46, pcp: 4}", np, N(np));
	/* marking: a new value, or the key gone (no rewrite), is hot */
	assert_variant("set_dscp: 26", "set_dscp: 46",
		       (const struct want[]){{"classes.roce.set_dscp", false}},
		       1);
	assert_variant("    set_dscp: 26\n", "",
		       (const struct want[]){{"classes.roce.set_dscp", false}},
		       1);
	assert_variant("set_pcp: 3", "set_pcp: 0",
		       (const struct want[]){{"classes.roce.set_pcp", false}},
		       1);
	a = load_ok(base_yaml);
	b = load_variant("set_pcp: 3", "set_pcp: 5");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	config_free(b);
	config_free(a);
	/* '' follows the port rate, whatever it is: a change of key */
	assert_variant("line_rate: 40Gbit", "line_rate: ''", line, N(line));
	a = load_ok(base_yaml);
	b = load_variant("max_flows: 512", "max_flows: 2048");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: dcqcn.max_flows");
	config_free(b);
	b = load_variant("cp_loop: false", "cp_loop: true");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	config_diff(a, b, &d);
	assert_diff(&d, (const struct want[]){{"dcqcn.cp_loop", false}}, 1);
	config_free(b);
	config_free(a);

	a = load_ok("ports: [{interface: a}, {interface: b}]\n"
		    "dcqcn: {profile: paper}\n");
	b = load_ok("ports: [{interface: a}, {interface: b}]\n"
		    "dcqcn: {profile: connectx}\n");
	config_diff(a, b, &d);
	assert_diff(&d, profile, N(profile));
	config_free(a);
	config_free(b);
}

static void test_rules(void **state)
{
	static const struct want appended[] = {{"rules[3] (added)", false}};
	static const struct want removed[] = {{"rules[2] (removed)", false}};
	static const struct want changed[] = {{"rules[1]", false}};
	static const struct want inserted[] = {{"rules[0]", false},
					       {"rules[1]", false},
					       {"rules[2]", false},
					       {"rules[3] (added)", false}};

	(void)state;
	assert_variant("    match: {dscp: 10}\n",
		       "    match: {dscp: 10}\n  - class: bulk\n", appended,
		       N(appended));
	assert_variant("  - class: default\n    match: {dscp: 10}\n", "",
		       removed, N(removed));
	assert_variant("dport: 4791}", "dport: 4792}", changed, N(changed));
	assert_variant("rules:\n", "rules:\n  - class: bulk\n", inserted,
		       N(inserted));
	/* same match, other class */
	assert_variant("  - class: roce\n", "  - class: bulk\n", changed,
		       N(changed));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_class_order),
		cmocka_unit_test(test_classes_added_removed),
		cmocka_unit_test(test_dcqcn_classes),
		cmocka_unit_test(test_dcqcn_keys),
		cmocka_unit_test(test_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
