// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_cli_args.c - xdplanectl before it connects: the shared "did you
 * mean" (suggest.c: distances, swaps of neighbours, ties to the first
 * candidate), verbs with suggestions, each verb's argument checks (port
 * and class names, severity range, prefix, log level), option values
 * (seconds with units, count range), unknown and ambiguous options,
 * instance names to socket paths, job-register's options and ids checked
 * as the daemon's job table checks them, and the --json error object's
 * shape
 * (code, message, details, suggestion) as printed on stdout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cli_args.h"
#include "ctl_client.h"
#include "suggest.h"

static int reset(void **state)
{
	(void)state;
	cli_error_reset();
	cli_job_options_reset();
	return 0;
}

/* The recorded error's key, "" when absent. */
static const char *err_str(const char *key)
{
	const char *s =
		json_string_value(json_object_get(cli_error_get(), key));

	return s ? s : "";
}

static void assert_usage(const char *has, const char *suggestion)
{
	assert_non_null(cli_error_get());
	assert_string_equal(err_str("code"), "usage");
	if (!strstr(err_str("message"), has))
		fail_msg("message '%s' lacks '%s'", err_str("message"), has);
	assert_string_equal(err_str("suggestion"),
			    suggestion ? suggestion : "");
	cli_error_reset();
}

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("status", "status"), 0);
	assert_int_equal(suggest_distance("stauts", "status"), 1); /* swap */
	assert_int_equal(suggest_distance("ab", "ba"), 1);
	assert_int_equal(suggest_distance("stauts", "stats"), 1);
	assert_int_equal(suggest_distance("qeues", "queues"), 1);
	assert_int_equal(suggest_distance("", "ab"), 2);
	assert_int_equal(suggest_distance("", "abc"), SUGGEST_FAR);
	assert_int_equal(suggest_distance("frobnicate", "status"), SUGGEST_FAR);
	assert_int_equal(suggest_distance("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
					  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
			 SUGGEST_FAR); /* longer than SUGGEST_LEN_MAX */
}

static void test_suggest_ties(void **state)
{
	struct suggest s;

	(void)state;
	/* one edit from both: the first offered wins */
	suggest_init(&s, "stauts");
	suggest_offer(&s, "status");
	suggest_offer(&s, "stats");
	assert_string_equal(suggest_best(&s), "status");
	/* a nearer one later replaces it */
	suggest_init(&s, "stat");
	suggest_offer(&s, "status");
	suggest_offer(&s, "stats");
	assert_string_equal(suggest_best(&s), "stats");
	suggest_init(&s, "xyzzy");
	suggest_offer(&s, "status");
	assert_null(suggest_best(&s));
}

static void test_verbs(void **state)
{
	(void)state;
	assert_non_null(cli_verb_find("status"));
	assert_non_null(cli_verb_find("log-level"));
	assert_null(cli_error_get());
	assert_null(cli_verb_find("stauts"));
	assert_usage("unknown verb 'stauts' (did you mean 'status'?)",
		     "status");
	assert_null(cli_verb_find("log_level"));
	assert_usage("did you mean 'log-level'?", "log-level");
	assert_null(cli_verb_find("congestoin"));
	assert_usage("did you mean 'congestion'?", "congestion");
	assert_null(cli_verb_find("frobnicate"));
	assert_usage("unknown verb 'frobnicate'; verbs: status, stats", NULL);
}

/* cli_request(verb, args...) as JSON text; NULL when refused. */
static char *request(const char *verb, ...)
{
	char *argv[8];
	int argc = 0;
	va_list ap;
	json_t *r;
	char *s;

	va_start(ap, verb);
	while (argc < 8 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	r = cli_request(cli_verb_find(verb), argc, argv);
	if (!r)
		return NULL;
	s = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(r);
	return s;
}

static void assert_request(char *got, const char *want)
{
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_null(cli_error_get());
	free(got);
}

static void test_arguments(void **state)
{
	(void)state;
	assert_request(request("status", NULL),
		       "{\"args\":{},\"command\":\"status\"}");
	assert_request(request("stats", "eth1", NULL),
		       "{\"args\":{\"port\":\"eth1\"},\"command\":\"stats\"}");
	assert_request(request("congestion", "eth1", "roce", "50%",
			       "10.1.0.0/16", NULL),
		       "{\"args\":{\"class\":\"roce\",\"port\":\"eth1\","
		       "\"prefix\":\"10.1.0.0/16\",\"severity\":0.5},"
		       "\"command\":\"congestion\"}");
	assert_request(request("congestion", "eth1", "roce", "0", NULL),
		       "{\"args\":{\"class\":\"roce\",\"port\":\"eth1\","
		       "\"severity\":0.0},\"command\":\"congestion\"}");
	assert_request(request("log-level", "debug", NULL),
		       "{\"args\":{\"level\":\"debug\"},"
		       "\"command\":\"log-level\"}");
	/* watch: no request, no error */
	assert_null(request("watch", NULL));
	assert_null(cli_error_get());

	assert_null(request("status", "eth1", NULL));
	assert_usage("status takes no arguments (got 'eth1')", NULL);
	assert_null(request("stats", "eth1", "eth2", NULL));
	assert_usage("stats takes at most 1 argument, got 2 (extra: 'eth2')",
		     NULL);
	assert_null(request("congestion", "eth1", NULL));
	assert_usage("congestion needs at least 2 arguments, got 1: "
		     "xdplanectl congestion PORT CLASS [SEVERITY [PREFIX]]",
		     NULL);
	assert_null(request("log-level", NULL));
	assert_usage("log-level needs 1 argument, got 0", NULL);
	assert_null(request("stats", "a/b", NULL));
	assert_usage("PORT 'a/b' is not an interface name", NULL);
	assert_null(request("stats", "sixteen_chars_xx", NULL));
	assert_usage("is not an interface name (1 to 15", NULL);
	assert_null(request("congestion", "eth1", "ro ce", NULL));
	assert_usage("CLASS 'ro ce' is not a class name", NULL);
	assert_null(request("congestion", "eth1",
			    "a_class_name_of_32_characters_xy", NULL));
	assert_usage("is not a class name (1 to 31", NULL);
	assert_null(request("congestion", "eth1", "roce", "1.5", NULL));
	assert_usage("SEVERITY '1.5' is not a number from 0 to 1", NULL);
	assert_null(request("congestion", "eth1", "roce", "150%", NULL));
	assert_usage("SEVERITY '150%' is not", NULL);
	assert_null(request("congestion", "eth1", "roce", "-0.1", NULL));
	assert_usage("SEVERITY '-0.1' is not", NULL);
	assert_null(request("congestion", "eth1", "roce", "lots", NULL));
	assert_usage("SEVERITY 'lots' is not", NULL);
	assert_null(request("congestion", "eth1", "roce", "1", "10.1.0.1/16",
			    NULL));
	assert_usage("PREFIX: 10.1.0.1/16 has host bits set; did you mean "
		     "10.1.0.0/16?",
		     NULL);
	assert_null(request("log-level", "dbug", NULL));
	assert_usage("unknown level 'dbug' (did you mean 'debug'?); levels: "
		     "err, warn, notice, info, debug",
		     "debug");
	assert_null(request("log-level", "warning", NULL));
	assert_usage("did you mean 'warn'?", "warn");
	assert_null(request("log-level", "loud", NULL));
	assert_usage("unknown level 'loud'; levels: err", NULL);
	assert_null(request("watch", "eth1", NULL));
	assert_usage("watch takes no arguments", NULL);
}

static void test_option_values(void **state)
{
	unsigned long n;
	double v;

	(void)state;
	assert_int_equal(cli_seconds("--timeout", "1.5", 0, 86400, &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(cli_seconds("--timeout", "500ms", 0, 86400, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(cli_seconds("--timeout", "0", 0, 86400, &v), 0);
	assert_true(v == 0);
	assert_int_equal(cli_seconds("--interval", "10ms", 0.01, 86400, &v), 0);
	assert_true(v == 0.01);
	assert_null(cli_error_get());
	assert_int_equal(cli_seconds("--interval", "5ms", 0.01, 86400, &v), -1);
	assert_usage("--interval wants seconds from 0.01 to 86400", NULL);
	assert_int_equal(cli_seconds("--interval", "0", 0.01, 86400, &v), -1);
	assert_usage("not '0'", NULL);
	assert_int_equal(cli_seconds("--timeout", "soon", 0, 86400, &v), -1);
	assert_usage("--timeout wants seconds", NULL);
	assert_int_equal(cli_seconds("--timeout", "-1", 0, 86400, &v), -1);
	assert_usage("not '-1'", NULL);
	assert_int_equal(cli_seconds("--timeout", "2d", 0, 86400, &v), -1);
	assert_usage("not '2d'", NULL);
	assert_int_equal(cli_seconds("--timeout", "86401", 0, 86400, &v), -1);
	assert_usage("from 0 to 86400", NULL);

	assert_int_equal(cli_count("--count", "0", UINT32_MAX, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(cli_count("--count", "4294967295", UINT32_MAX, &n), 0);
	assert_int_equal(n, UINT32_MAX);
	assert_null(cli_error_get());
	assert_int_equal(cli_count("--count", "4294967296", UINT32_MAX, &n),
			 -1);
	assert_usage("--count wants a whole number from 0 to 4294967295", NULL);
	assert_int_equal(cli_count("--count", "-1", UINT32_MAX, &n), -1);
	assert_usage("not '-1'", NULL);
	assert_int_equal(cli_count("--count", "+3", UINT32_MAX, &n), -1);
	assert_usage("not '+3'", NULL);
	assert_int_equal(cli_count("--count", "3x", UINT32_MAX, &n), -1);
	assert_usage("not '3x'", NULL);
}

static void test_options(void **state)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"instance", required_argument, NULL, 'i'},
		{"json", no_argument, NULL, 'j'},
		{"interval", required_argument, NULL, 'I'},
		{"count", required_argument, NULL, 'N'},
		{0},
	};

	(void)state;
	cli_bad_option(opts, ":s:i:j", "--jsno", 0, false);
	assert_usage("unknown option --jsno (did you mean --json?)", "--json");
	cli_bad_option(opts, ":s:i:j", "--intervall=1", 0, false);
	assert_usage("unknown option --intervall (did you mean --interval?)",
		     "--interval");
	cli_bad_option(opts, ":s:i:j", "--i", 0, false);
	assert_usage("option --i is ambiguous: --instance or --interval", NULL);
	cli_bad_option(opts, ":s:i:j", "--frobnicate", 0, false);
	assert_usage("unknown option --frobnicate; options: --socket, "
		     "--instance, --json",
		     NULL);
	cli_bad_option(opts, ":s:i:j", "-x", 'x', false);
	assert_usage("unknown option -x; short options: -s, -i, -j", NULL);
	cli_bad_option(opts, ":s:i:j", "--json=1", 'j', false);
	assert_usage("--json takes no value (got '--json=1')", NULL);
	cli_bad_option(opts, ":s:i:j", "--count", 'N', true);
	assert_usage("--count wants a value", NULL);
}

static void test_instance(void **state)
{
	char path[108], name[100];

	(void)state;
	assert_int_equal(cli_instance_socket("rack2", path, sizeof(path)), 0);
	assert_string_equal(path, "/run/xdplane-rack2/control.sock");
	assert_int_equal(cli_instance_socket("xdplane@rack2.service", path,
					     sizeof(path)),
			 0);
	assert_string_equal(path, "/run/xdplane-rack2/control.sock");
	assert_int_equal(
		cli_instance_socket("xdplane@a\\x2db", path, sizeof(path)), 0);
	assert_string_equal(path, "/run/xdplane-a\\x2db/control.sock");
	/* the longest: the read-only socket still fits sun_path */
	memset(name, 'n', 78);
	name[78] = '\0';
	assert_int_equal(cli_instance_socket(name, path, sizeof(path)), 0);
	assert_int_equal(strlen(path) + strlen(".ro"), 107);
	assert_null(cli_error_get());
	name[78] = 'n';
	name[79] = '\0';
	assert_int_equal(cli_instance_socket(name, path, sizeof(path)), -1);
	assert_usage("1 to 78 letters", NULL);
	assert_int_equal(cli_instance_socket("", path, sizeof(path)), -1);
	assert_usage("instance '' is not an instance name", NULL);
	assert_int_equal(cli_instance_socket("../x", path, sizeof(path)), -1);
	assert_usage("instance '../x' is not", NULL);
	assert_int_equal(cli_instance_socket("a b", path, sizeof(path)), -1);
	assert_usage("instance 'a b' is not", NULL);
}

/* cli_error_json(status)'s line on stdout. */
static json_t *json_error_line(int status)
{
	char buf[4096];
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);
	size_t n;
	json_t *j;

	assert_non_null(f);
	fflush(stdout);
	dup2(fileno(f), STDOUT_FILENO);
	cli_error_json(status);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_true(n > 0 && buf[n - 1] == '\n' && !strchr(buf, '\n')[1]);
	j = json_loads(buf, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), 1);
	return j;
}

static void test_json_error(void **state)
{
	json_t *j, *e;

	(void)state;
	assert_null(cli_verb_find("stauts"));
	j = json_error_line(EXIT_USAGE);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "code")),
			    "usage");
	assert_non_null(strstr(json_string_value(json_object_get(e, "message")),
			       "unknown verb 'stauts'"));
	assert_string_equal(json_string_value(json_object_get(e, "suggestion")),
			    "status");
	json_decref(j);
	cli_error_reset();

	/* a message without a code takes the exit status's; the lines
	 * after the first are its details */
	cli_error("first");
	cli_error("a hint");
	j = json_error_line(EXIT_NO_ANSWER);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "code")),
			    "no_answer");
	assert_string_equal(json_string_value(json_object_get(e, "message")),
			    "first");
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(e, "details"), 0)),
			    "a hint");
	json_decref(j);
	cli_error_reset();

	/* a daemon's error object passes through as it is */
	j = json_pack("{s:b,s:{s:s,s:s,s:s}}", "ok", 0, "error", "code",
		      "invalid_config", "message", "bad file", "reason",
		      "t.yaml:1:1: x");
	assert_int_equal(ctl_client_report_error(j, "reload"),
			 EXIT_DAEMON_ERROR);
	json_decref(j);
	j = json_error_line(EXIT_DAEMON_ERROR);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "code")),
			    "invalid_config");
	assert_string_equal(json_string_value(json_object_get(e, "message")),
			    "bad file");
	assert_string_equal(json_string_value(json_object_get(e, "reason")),
			    "t.yaml:1:1: x");
	json_decref(j);
}

static json_t *job_request(const char *verb, const char *arg)
{
	char *argv[] = {(char *)arg, NULL};

	return cli_request(cli_verb_find(verb), arg ? 1 : 0, argv);
}

/* job-register ID --prefix P... --dscp N --class NAME --gpus N and
 * job-unregister ID: the request, and every refusal before connecting. */
static void test_jobs(void **state)
{
	json_t *r, *a;

	(void)state;
	assert_int_equal(cli_job_option("--prefix", "10.1.0.0/16"), 0);
	assert_int_equal(cli_job_option("--prefix", "fd00::/64"), 0);
	assert_int_equal(cli_job_option("--dscp", "26"), 0);
	assert_int_equal(cli_job_option("--class", "roce"), 0);
	assert_int_equal(cli_job_option("--gpus", "64"), 0);
	r = job_request("job-register", "slurm/4711");
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "command")),
			    "job-register");
	a = json_object_get(r, "args");
	assert_string_equal(json_string_value(json_object_get(a, "id")),
			    "slurm/4711");
	assert_int_equal(json_array_size(json_object_get(a, "prefixes")), 2);
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(a, "prefixes"), 1)),
			    "fd00::/64");
	assert_int_equal(json_integer_value(json_object_get(a, "dscp")), 26);
	assert_string_equal(json_string_value(json_object_get(a, "class")),
			    "roce");
	assert_int_equal(json_integer_value(json_object_get(a, "gpus")), 64);
	json_decref(r);
	r = job_request("job-unregister", "slurm/4711");
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(r, "args"), "id")),
			    "slurm/4711");
	json_decref(r);
	r = job_request("jobs", NULL);
	assert_non_null(r);
	json_decref(r);

	assert_int_equal(cli_job_option("--prefix", "10.0.0.1/8"), -1);
	assert_usage("--prefix: 10.0.0.1/8 has host bits set; did you mean "
		     "10.0.0.0/8?",
		     NULL);
	assert_int_equal(cli_job_option("--dscp", "64"), -1);
	assert_usage("--dscp wants a whole number from 0 to 63, not '64'",
		     NULL);
	assert_int_equal(cli_job_option("--gpus", "-1"), -1);
	assert_usage("--gpus wants a whole number from 0 to 1000000", NULL);
	assert_int_equal(cli_job_option("--class", "gold!"), -1);
	assert_usage("--class: 'gold!' is not a class name", NULL);
	cli_job_options_reset();
	for (int i = 0; i < 16; i++)
		assert_int_equal(cli_job_option("--prefix", "10.0.0.0/8"), 0);
	assert_int_equal(cli_job_option("--prefix", "10.0.0.0/8"), -1);
	assert_usage("--prefix: at most 16 prefixes per job", NULL);
	cli_job_options_reset();
	assert_null(job_request("job-register", "a"));
	assert_usage("job-register: give the job's hosts (--prefix P) or its "
		     "DSCP (--dscp N)",
		     NULL);
	assert_int_equal(cli_job_option("--dscp", "0"), 0);
	assert_null(job_request("job-register", "a b"));
	assert_usage("job-register: ID 'a b' is not a job id", NULL);
	assert_null(job_request("job-register", "passive-2"));
	assert_usage("ids starting passive- are the daemon's own", NULL);
	assert_null(
		job_request("job-unregister",
			    "0123456789012345678901234567890123456789012345678"
			    "9012345678901234"));
	assert_usage("job-unregister: ID '0123", NULL);
	assert_null(job_request("job-register", NULL));
	assert_usage("job-register needs 1 argument, got 0", NULL);
	assert_null(cli_verb_find("job-regster"));
	assert_usage("unknown verb 'job-regster'", "job-register");
	assert_null(cli_verb_find("job"));
	assert_usage("unknown verb 'job'", "jobs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_distance, reset),
		cmocka_unit_test_setup(test_suggest_ties, reset),
		cmocka_unit_test_setup(test_verbs, reset),
		cmocka_unit_test_setup(test_arguments, reset),
		cmocka_unit_test_setup(test_option_values, reset),
		cmocka_unit_test_setup(test_options, reset),
		cmocka_unit_test_setup(test_instance, reset),
		cmocka_unit_test_setup(test_json_error, reset),
		cmocka_unit_test_setup(test_jobs, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
