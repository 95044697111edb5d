// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_jobs.c - jobs, the job table's mode and bounds
 * (control/config/config_jobs.c): the defaults (off and the table's own,
 * job_table_params_default()), every key's exact value and bounds, the
 * table's slots (max_registered + max_passive 1..4096) refused at the
 * right key, every error of one file reported, an unknown key with its
 * suggestion, the dump round trip and its text, mode and idle hot on
 * reload and the bounds cold.
 */
#include "config_diff.h"
#include "job_table.h"
#include "test_config.h"

/* jobs.<key> x at line 5 column 3; its value at 3 + strlen(key) + 2
 * (mode 9, max_registered 19, max_passive 16, max_hosts 14, max_edges 14,
 * idle 9). */
#define JOBS(x) PORTS "jobs:\n  " x "\n"
#define OBSERVE(x) JOBS("mode: observe\n  " x) /* x at line 6 */

static const struct bad_case bad_cases[] = {
	{"jobs_mode_bad", JOBS("mode: interleave"), "t.yaml:5:9: ",
	 "jobs.mode: expected one of off, observe (got 'interleave')"},
	{"jobs_unknown_key", JOBS("max_host: 10"), "t.yaml:5:3: ",
	 "unknown key 'jobs.max_host' (did you mean 'jobs.max_hosts'?)"},
	{"jobs_not_a_map", PORTS "jobs: observe\n", "t.yaml:4:7: ",
	 "jobs: expected a mapping with the keys mode, max_registered, "
	 "max_passive, max_hosts, max_edges, idle (got 'observe')"},
	{"jobs_registered_big", JOBS("max_registered: 4097"), "t.yaml:5:19: ",
	 "jobs.max_registered: must be between 0 and 4096 (got 4097)"},
	{"jobs_registered_negative", JOBS("max_registered: -1"),
	 "t.yaml:5:19: ", "jobs.max_registered: expected"},
	{"jobs_passive_big", JOBS("max_passive: 5000"), "t.yaml:5:16: ",
	 "jobs.max_passive: must be between 0 and 4096 (got 5000)"},
	{"jobs_slots_sum", OBSERVE("max_registered: 4000\n  max_passive: 97"),
	 "t.yaml:7:16: ",
	 "jobs.max_passive: jobs.max_registered 4000 + jobs.max_passive 97 is "
	 "above 4096, the most jobs the table holds"},
	{"jobs_slots_sum_registered", OBSERVE("max_registered: 4033"),
	 "t.yaml:6:19: ",
	 "jobs.max_registered: jobs.max_registered 4033 + jobs.max_passive 64 "
	 "is above 4096, the most jobs the table holds"},
	{"jobs_slots_none", JOBS("max_registered: 0\n  max_passive: 0"),
	 "t.yaml:6:16: ",
	 "jobs.max_passive: with jobs.max_registered 0 and jobs.max_passive 0 "
	 "the table has no slot; give one of them at least 1"},
	{"jobs_hosts_small", JOBS("max_hosts: 1"), "t.yaml:5:14: ",
	 "jobs.max_hosts: must be between 2 and 65536 (got 1)"},
	{"jobs_hosts_big", JOBS("max_hosts: 65537"), "t.yaml:5:14: ",
	 "jobs.max_hosts: must be between 2 and 65536 (got 65537)"},
	{"jobs_edges_zero", JOBS("max_edges: 0"), "t.yaml:5:14: ",
	 "jobs.max_edges: must be between 1 and 262144 (got 0)"},
	{"jobs_edges_big", JOBS("max_edges: 262145"), "t.yaml:5:14: ",
	 "jobs.max_edges: must be between 1 and 262144 (got 262145)"},
	{"jobs_idle_short", JOBS("idle: 999ms"), "t.yaml:5:9: ",
	 "jobs.idle: must be between 1s and 3600s (got '999ms')"},
	{"jobs_idle_long", JOBS("idle: 3601s"), "t.yaml:5:9: ",
	 "jobs.idle: must be between 1s and 3600s (got '3601s')"},
	{"jobs_idle_syntax", JOBS("idle: soon"), "t.yaml:5:9: ",
	 "jobs.idle: expected a time: a number with a unit ns, us, ms or s"},
	{"jobs_idle_bare", JOBS("idle: 10"),
	 "t.yaml:5:9: ", "jobs.idle: expected a time"},
};

/* Not written, or an empty map: off, the table's defaults. */
static void test_defaults(void **state)
{
	static const char *const docs[] = {PORTS, PORTS "jobs: {}\n",
					   JOBS("mode: off")};
	struct job_table_params def;
	struct xdplane_config *cfg;

	(void)state;
	job_table_params_default(&def);
	assert_int_equal(def.max_registered, 64);
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		cfg = load_ok(docs[i]);
		assert_int_equal(cfg->jobs.mode, CONFIG_JOBS_OFF);
		assert_int_equal(cfg->jobs.max_registered, def.max_registered);
		assert_int_equal(cfg->jobs.max_passive, def.max_passive);
		assert_int_equal(cfg->jobs.max_hosts, def.max_hosts);
		assert_int_equal(cfg->jobs.max_edges, def.max_edges);
		assert_int_equal(cfg->jobs.idle_ns, def.idle_ns);
		assert_int_equal(cfg->jobs.idle_ns, 10000000000ull);
		config_free(cfg);
	}
	cfg = load_ok(JOBS("mode: observe"));
	assert_int_equal(cfg->jobs.mode, CONFIG_JOBS_OBSERVE);
	assert_int_equal(cfg->jobs.max_hosts, 1024);
	config_free(cfg);
}

/* Every key, block and flow style, and the bounds exactly. */
static void test_values(void **state)
{
	struct xdplane_config *cfg =
		load_ok(OBSERVE("max_registered: 100\n  max_passive: 28\n"
				"  max_hosts: 2\n  max_edges: 1\n  idle: 1s"));

	(void)state;
	assert_int_equal(cfg->jobs.mode, CONFIG_JOBS_OBSERVE);
	assert_int_equal(cfg->jobs.max_registered, 100);
	assert_int_equal(cfg->jobs.max_passive, 28);
	assert_int_equal(cfg->jobs.max_hosts, 2);
	assert_int_equal(cfg->jobs.max_edges, 1);
	assert_int_equal(cfg->jobs.idle_ns, 1000000000ull);
	config_free(cfg);
	cfg = load_ok(PORTS "jobs: {mode: observe, max_registered: 0, "
			    "max_passive: 4096, max_hosts: 65536, "
			    "max_edges: 262144, idle: 3600s}\n");
	assert_int_equal(cfg->jobs.max_registered, 0);
	assert_int_equal(cfg->jobs.max_passive, 4096);
	assert_int_equal(cfg->jobs.max_hosts, 65536);
	assert_int_equal(cfg->jobs.max_edges, 262144);
	assert_int_equal(cfg->jobs.idle_ns, 3600000000000ull);
	config_free(cfg);
	/* registrations only; the keys are kept with mode off */
	cfg = load_ok(JOBS("max_registered: 4096\n  max_passive: 0\n"
			   "  idle: 90s"));
	assert_int_equal(cfg->jobs.mode, CONFIG_JOBS_OFF);
	assert_int_equal(cfg->jobs.max_registered, 4096);
	assert_int_equal(cfg->jobs.max_passive, 0);
	assert_int_equal(cfg->jobs.idle_ns, 90000000000ull);
	config_free(cfg);
}

/* The loaded bounds are ones the table takes. */
static void test_table_takes_them(void **state)
{
	static const char *const docs[] = {
		JOBS("mode: observe"),
		JOBS("max_registered: 0\n  max_passive: 1\n  max_hosts: 2\n"
		     "  max_edges: 1\n  idle: 1s"),
		JOBS("max_registered: 1\n  max_passive: 0"),
	};
	struct job_table_params p;
	struct xdplane_config *cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		cfg = load_ok(docs[i]);
		job_table_params_default(&p);
		p.max_registered = cfg->jobs.max_registered;
		p.max_passive = cfg->jobs.max_passive;
		p.max_hosts = cfg->jobs.max_hosts;
		p.max_edges = cfg->jobs.max_edges;
		p.idle_ns = cfg->jobs.idle_ns;
		assert_null(job_table_params_check(&p));
		config_free(cfg);
	}
}

/* Each refused key of one file is reported, in the order of the file. */
static void test_every_error(void **state)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg =
		load(JOBS("max_registered: 5000\n  max_hosts: 1\n"
			  "  idle: 1ms"),
		     &err);

	(void)state;
	assert_null(cfg);
	assert_int_equal(err.n, 3);
	assert_string_equal(config_error_at(&err, 0),
			    "t.yaml:5:19: jobs.max_registered: must be between "
			    "0 and 4096 (got 5000)");
	assert_string_equal(config_error_at(&err, 1),
			    "t.yaml:6:14: jobs.max_hosts: must be between 2 "
			    "and 65536 (got 1)");
	assert_string_equal(
		config_error_at(&err, 2),
		"t.yaml:7:9: jobs.idle: must be between 1s and 3600s "
		"(got '1ms')");
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

/* The dump always writes the section and loads back the same. */
static void test_dump(void **state)
{
	static const char *const docs[] = {
		PORTS,
		OBSERVE("max_registered: 3\n  max_passive: 0\n  idle: 1500ms"),
		JOBS("max_hosts: 77\n  max_edges: 99\n  idle: 3600s"),
	};
	struct xdplane_config *in, *out;
	char *text;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		in = load_ok(docs[i]);
		out = dump_and_reload(in, &text);
		if (memcmp(&in->jobs, &out->jobs, sizeof(in->jobs)))
			fail_msg("round trip changed jobs:\n%s\nto:\n%s",
				 docs[i], text);
		free(text);
		config_free(in);
		config_free(out);
	}
	in = load_ok(PORTS);
	text = dump_text(in);
	if (!strstr(text, "jobs:\n  mode: off\n  max_registered: 64\n"
			  "  max_passive: 64\n  max_hosts: 1024\n"
			  "  max_edges: 4096\n  idle: 10s\n"))
		fail_msg("dump:\n%s", text);
	free(text);
	config_free(in);
	in = load_ok(OBSERVE("idle: 1500ms"));
	text = dump_text(in);
	if (!strstr(text, "jobs:\n  mode: observe\n") ||
	    !strstr(text, "  idle: 1500ms\n"))
		fail_msg("dump:\n%s", text);
	free(text);
	config_free(in);
}

/* mode and idle are applied live; the bounds need a restart. */
static void test_reload(void **state)
{
	static const struct {
		const char *doc, *keys;
		bool cold;
	} variants[] = {
		{JOBS("mode: observe"), "jobs.mode", false},
		{JOBS("idle: 30s"), "jobs.idle", false},
		{JOBS("max_registered: 65"), "jobs.max_registered", true},
		{JOBS("max_passive: 0"), "jobs.max_passive", true},
		{JOBS("max_hosts: 2048"), "jobs.max_hosts", true},
		{JOBS("max_edges: 10"), "jobs.max_edges", true},
	};
	struct xdplane_config *a = load_ok(PORTS), *b;
	struct config_diff d;
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		b = load_ok(variants[i].doc);
		config_diff(a, b, &d);
		config_diff_format(&d, false, text, sizeof(text));
		assert_string_equal(text, variants[i].keys);
		assert_int_equal(d.n_cold, variants[i].cold);
		config_free(b);
	}
	b = load_ok(JOBS("max_edges: 10"));
	config_diff(a, b, &d);
	assert_int_equal(config_reload_check(&d, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: jobs.max_edges");
	config_free(b);
	config_free(a);
}

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_table_takes_them),
		cmocka_unit_test(test_every_error),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_reload),
	};
	return run_config_tests(fixed, sizeof(fixed) / sizeof(fixed[0]),
				bad_cases, N_BAD);
}
