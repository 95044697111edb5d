// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ctl_jobs.c - the job table over the control protocol: the verbs
 * jobs, job-register and job-unregister (control/api/ctl_jobs.c) on the
 * daemon's own backends and table (control/daemon/daemon_jobs.c), with a
 * configuration loaded from text and hand-made snapshots:
 *   - jobs.mode off: the three verbs answer "unavailable";
 *   - two registrations listed with every field, an update in place;
 *   - refusals with their code and the table's exact reason: an
 *     overlapping registration (conflict), a full table (table_full),
 *     a class that is not configured, every bad argument;
 *   - the read-only session refuses job-register and job-unregister and
 *     lists;
 *   - job-unregister of a registered, an unknown and a passive job;
 *   - a reload: mode off drops the table, on makes an empty one, idle is
 *     applied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ctl_proto.h"
#include "daemon_jobs.h"

#define PORTS                                                                  \
	"ports:\n  - interface: eth1\n    rate: 100Gbit\n"                     \
	"  - interface: eth2\n    rate: 100Gbit\n"                             \
	"classes:\n  - name: roce\n    level: 0\n  - name: default\n"          \
	"    level: 1\n"

static struct daemon d;

static struct stats_snapshot *snap(void *ctx)
{
	struct daemon *dd = ctx;
	struct stats_snapshot *s = calloc(1, sizeof(*s));
	struct snap_port *p;

	assert_non_null(s);
	s->now_unix = 1700000000.0;
	s->now_mono_ns = 1ull << 62; /* after every job's times */
	for (int i = 0; i < GW_PORTS; i++) {
		p = &s->ports[i];
		snprintf(p->ifname, sizeof(p->ifname), "eth%d", i + 1);
		p->n_classes = 2;
		snprintf(p->cls[0].name, sizeof(p->cls[0].name), "roce");
		snprintf(p->cls[1].name, sizeof(p->cls[1].name), "default");
	}
	if (dd->jobs)
		assert_int_equal(snap_jobs_take(s, dd->jobs, "observe"), 0);
	return s;
}

static void snap_free(void *ctx, struct stats_snapshot *s)
{
	(void)ctx;
	snapshot_free(s);
}

static const struct ctl_backend be = {
	.ctx = &d,
	.snapshot = snap,
	.snapshot_free = snap_free,
	.job_register = daemon_job_register,
	.job_unregister = daemon_job_unregister,
};

static struct xdplane_config *load(const char *yaml)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg =
		config_load_string("t.yaml", yaml, false, &err);

	if (!cfg)
		fail_msg("rejected: %s", err.msg);
	return cfg;
}

static void start(const char *jobs)
{
	char yaml[1024], err[256] = "";

	memset(&d, 0, sizeof(d));
	snprintf(yaml, sizeof(yaml), "%s%s", PORTS, jobs);
	d.cfg = load(yaml);
	if (daemon_jobs_start(&d, err, sizeof(err)))
		fail_msg("start: %s", err);
}

static int teardown(void **state)
{
	(void)state;
	daemon_jobs_stop(&d);
	config_free(d.cfg);
	memset(&d, 0, sizeof(d));
	return 0;
}

static void greet(struct ctl_session *s, bool readonly)
{
	static const char hello[] = "{\"hello\":\"t\",\"version\":1}";
	char *out;

	ctl_session_init(s);
	out = ctl_session_handle(s, hello, strlen(hello), &be);
	assert_non_null(out);
	free(out);
	assert_true(s->greeted);
	s->readonly = readonly;
}

/* One request on s: its response, parsed. */
static json_t *ask(struct ctl_session *s, const char *line)
{
	char *out = ctl_session_handle(s, line, strlen(line), &be);
	json_t *j;

	assert_non_null(out);
	j = json_loads(out, 0, NULL);
	if (!j)
		fail_msg("not JSON: %s", out);
	free(out);
	return j;
}

static json_t *ok(struct ctl_session *s, const char *line)
{
	json_t *r = ask(s, line), *res;

	if (!json_is_true(json_object_get(r, "ok")))
		fail_msg("%s: %s", line, json_dumps(r, JSON_COMPACT));
	res = json_incref(json_object_get(r, "result"));
	json_decref(r);
	return res;
}

static void refused(struct ctl_session *s, const char *line, const char *code,
		    const char *msg)
{
	json_t *r = ask(s, line), *e = json_object_get(r, "error");
	const char *c = json_string_value(json_object_get(e, "code"));
	const char *m = json_string_value(json_object_get(e, "message"));

	if (!c || !m || strcmp(c, code) || strcmp(m, msg))
		fail_msg("%s:\n got: %s %s\nwant: %s %s", line, c, m, code,
			 msg);
	json_decref(r);
}

#define REG(args) "{\"command\":\"job-register\",\"args\":{" args "}}"
#define UNREG(id)                                                              \
	"{\"command\":\"job-unregister\",\"args\":{\"id\":\"" id "\"}}"
#define JOBS "{\"command\":\"jobs\"}"
#define OFF "jobs are off (jobs.mode: off)"

static void test_off(void **state)
{
	struct ctl_session s;

	(void)state;
	start("");
	assert_null(d.jobs);
	greet(&s, false);
	refused(&s, JOBS, "unavailable", OFF);
	refused(&s, REG("\"id\":\"a\",\"prefixes\":[\"10.0.0.0/8\"]"),
		"unavailable", OFF);
	refused(&s, UNREG("a"), "unavailable", OFF);
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void test_register_list(void **state)
{
	struct ctl_session s;
	json_t *r, *j;

	(void)state;
	start("jobs: {mode: observe}\n");
	assert_non_null(d.jobs);
	greet(&s, false);
	r = ok(&s, JOBS);
	assert_string_equal(str(r, "mode"), "observe");
	assert_int_equal(json_array_size(json_object_get(r, "jobs")), 0);
	assert_int_equal(
		json_integer_value(json_object_get(r, "max_registered")), 64);
	json_decref(r);
	r = ok(&s, REG("\"id\":\"slurm/4711\",\"prefixes\":[\"10.1.0.0/16\","
		       "\"fd00:1::/64\"],\"dscp\":26,\"class\":\"roce\","
		       "\"gpus\":64"));
	assert_string_equal(str(r, "job"), "slurm/4711");
	assert_true(json_is_false(json_object_get(r, "updated")));
	json_decref(r);
	json_decref(ok(&s, REG("\"id\":\"k8s:train-b\",\"prefixes\":"
			       "[\"10.2.0.0/16\"]")));
	r = ok(&s, JOBS);
	assert_int_equal(json_integer_value(json_object_get(r, "registered")),
			 2);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(r, "counters"), "registered")),
			 2);
	j = json_array_get(json_object_get(r, "jobs"), 0);
	assert_string_equal(str(j, "id"), "slurm/4711");
	assert_string_equal(str(j, "source"), "registered");
	assert_int_equal(json_array_size(json_object_get(j, "prefixes")), 2);
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(j, "prefixes"), 1)),
			    "fd00:1::/64");
	assert_int_equal(json_integer_value(json_object_get(j, "dscp")), 26);
	assert_string_equal(str(j, "class"), "roce");
	assert_int_equal(json_integer_value(json_object_get(j, "gpus")), 64);
	assert_true(json_is_null(json_object_get(j, "hosts")));
	assert_true(json_real_value(json_object_get(j, "created_unix")) <
		    1700000000.0);
	j = json_array_get(json_object_get(r, "jobs"), 1);
	assert_string_equal(str(j, "id"), "k8s:train-b");
	assert_true(json_is_null(json_object_get(j, "dscp")));
	assert_true(json_is_null(json_object_get(j, "class")));
	assert_true(json_is_null(json_object_get(j, "gpus")));
	json_decref(r);
	/* the same id again: an update in place */
	r = ok(&s, REG("\"id\":\"k8s:train-b\",\"prefixes\":[\"10.3.0.0/16\"],"
		       "\"gpus\":8"));
	assert_true(json_is_true(json_object_get(r, "updated")));
	json_decref(r);
	r = ok(&s, JOBS);
	j = json_array_get(json_object_get(r, "jobs"), 1);
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(j, "prefixes"), 0)),
			    "10.3.0.0/16");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(r, "counters"), "updated")),
			 1);
	json_decref(r);
}

static void test_refusals(void **state)
{
	struct ctl_session s;

	(void)state;
	start("jobs: {mode: observe, max_registered: 2}\n");
	greet(&s, false);
	json_decref(ok(&s, REG("\"id\":\"a\",\"prefixes\":[\"10.1.0.0/16\"]")));
	refused(&s, REG("\"id\":\"b\",\"prefixes\":[\"10.1.2.0/24\"]"),
		"conflict",
		"job-register: prefix 10.1.2.0/24 overlaps job 'a' "
		"(10.1.0.0/16); give both jobs distinct dscp values");
	refused(&s, REG("\"id\":\"b\",\"dscp\":3"), "conflict",
		"job-register: hosts overlap job 'a' (one of them matches any "
		"host); give both jobs distinct dscp values");
	json_decref(ok(&s, REG("\"id\":\"b\",\"prefixes\":[\"10.2.0.0/16\"]")));
	refused(&s, REG("\"id\":\"c\",\"prefixes\":[\"10.3.0.0/16\"]"),
		"table_full",
		"job-register: job table full: 2 registered jobs");
	refused(&s,
		REG("\"id\":\"c\",\"prefixes\":[\"10.3.0.0/16\"],"
		    "\"class\":\"gold\""),
		"bad_request",
		"job-register: no class 'gold'; the classes are: roce, "
		"default");
	refused(&s, REG("\"prefixes\":[\"10.3.0.0/16\"]"), "bad_request",
		"missing argument \"id\"");
	refused(&s, "{\"command\":\"job-register\"}", "bad_request",
		"missing argument \"id\"");
	refused(&s, REG("\"id\":\"c\",\"host\":\"x\""), "bad_request",
		"unknown argument \"host\"");
	refused(&s, REG("\"id\":\"c d\",\"dscp\":1"), "bad_request",
		"job-register: id holds byte 0x20; use letters, digits and . "
		"_ : / -");
	refused(&s, REG("\"id\":\"passive-1\",\"dscp\":1"), "bad_request",
		"job-register: id 'passive-1' is reserved for passive jobs");
	refused(&s, REG("\"id\":\"c\""), "bad_request",
		"job-register: no prefixes and no dscp: nothing would tell the "
		"job's flows");
	refused(&s, REG("\"id\":\"c\",\"prefixes\":\"10.0.0.0/8\""),
		"bad_request",
		"argument \"prefixes\" must be an array, not a string");
	refused(&s, REG("\"id\":\"c\",\"prefixes\":[\"10.0.0.1/8\"]"),
		"bad_request",
		"job-register: prefixes[0]: 10.0.0.1/8 has host bits set; did "
		"you mean 10.0.0.0/8?");
	refused(&s, REG("\"id\":\"c\",\"prefixes\":[\"10.0.0.0/8\",7]"),
		"bad_request",
		"job-register: prefixes[1] must be a string, not a number");
	refused(&s,
		REG("\"id\":\"c\",\"prefixes\":[\"1.0.0.0/8\",\"2.0.0.0/8\","
		    "\"3.0.0.0/8\",\"4.0.0.0/8\",\"5.0.0.0/8\",\"6.0.0.0/8\","
		    "\"7.0.0.0/8\",\"8.0.0.0/8\",\"9.0.0.0/8\",\"11.0.0.0/8\","
		    "\"12.0.0.0/8\",\"13.0.0.0/8\",\"14.0.0.0/8\","
		    "\"15.0.0.0/8\",\"16.0.0.0/8\",\"17.0.0.0/8\","
		    "\"18.0.0.0/8\"]"),
		"bad_request", "job-register: prefixes: 17 given, at most 16");
	refused(&s, REG("\"id\":\"c\",\"dscp\":64"), "bad_request",
		"job-register: dscp 64 is out of range (0..63)");
	refused(&s, REG("\"id\":\"c\",\"dscp\":\"af31\""), "bad_request",
		"argument \"dscp\" must be an integer, not a string");
	refused(&s, REG("\"id\":\"c\",\"dscp\":1,\"gpus\":-1"), "bad_request",
		"job-register: gpus -1 is out of range (0..1000000)");
	refused(&s,
		REG("\"id\":\"c\",\"dscp\":1,\"class\":"
		    "\"abcdefghijabcdefghijabcdefghij12\""),
		"bad_request",
		"job-register: class is longer than 31 characters");
	refused(&s,
		REG("\"id\":\"0123456789012345678901234567890123456789012345678"
		    "901234567890123\",\"dscp\":1"),
		"bad_request", "job-register: id is longer than 63 characters");
	/* nothing refused was registered; refusals by the table counted */
	assert_int_equal(job_table_count(d.jobs, JOB_REGISTERED), 2);
	assert_int_equal(d.jobs->st.refused, 2);
	assert_int_equal(d.jobs->st.full_registered, 1);
}

static void test_readonly(void **state)
{
	struct ctl_session s;
	json_t *r;

	(void)state;
	start("jobs: {mode: observe}\n");
	greet(&s, true);
	refused(&s, REG("\"id\":\"a\",\"prefixes\":[\"10.1.0.0/16\"]"),
		"read_only",
		"\"job-register\" changes the daemon; this is the read-only "
		"control socket (control.readonly_group): use the control "
		"socket (control.socket) for it");
	refused(&s, UNREG("a"), "read_only",
		"\"job-unregister\" changes the daemon; this is the read-only "
		"control socket (control.readonly_group): use the control "
		"socket (control.socket) for it");
	assert_int_equal(job_table_count(d.jobs, JOB_REGISTERED), 0);
	r = ok(&s, JOBS);
	assert_int_equal(json_array_size(json_object_get(r, "jobs")), 0);
	json_decref(r);
}

static void test_unregister(void **state)
{
	struct ctl_session s;
	struct job_addr a = {.family = 4, .addr = {10, 9, 0, 1}},
			b = {.family = 4, .addr = {10, 9, 0, 2}};
	json_t *r;

	(void)state;
	start("jobs: {mode: observe}\n");
	greet(&s, false);
	json_decref(ok(&s, REG("\"id\":\"a\",\"prefixes\":[\"10.1.0.0/16\"]")));
	r = ok(&s, UNREG("a"));
	assert_string_equal(str(r, "job"), "a");
	assert_true(json_is_true(json_object_get(r, "unregistered")));
	json_decref(r);
	refused(&s, UNREG("a"), "not_found",
		"job-unregister: no registered job 'a'");
	refused(&s, "{\"command\":\"job-unregister\"}", "bad_request",
		"missing argument \"id\"");
	/* a passive job, as the table groups flows */
	assert_int_not_equal(job_table_observe(d.jobs, &a, &b, 0, 0, 1),
			     JOB_NONE);
	r = ok(&s, JOBS);
	assert_string_equal(
		str(json_array_get(json_object_get(r, "jobs"), 0), "source"),
		"passive");
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(r, "jobs"), 0),
				 "hosts")),
			 2);
	json_decref(r);
	refused(&s, UNREG("passive-1"), "bad_request",
		"job-unregister: 'passive-1' is a passive job; it leaves when "
		"its flows stop");
}

static void test_reload(void **state)
{
	struct xdplane_config *next;
	struct ctl_session s;

	(void)state;
	start("jobs: {mode: observe}\n");
	greet(&s, false);
	json_decref(ok(&s, REG("\"id\":\"a\",\"prefixes\":[\"10.1.0.0/16\"]")));
	next = load(PORTS "jobs: {mode: observe, idle: 30s}\n");
	daemon_jobs_reload(&d, next);
	assert_int_equal(d.jobs->par.idle_ns, 30000000000ull);
	assert_int_equal(job_table_count(d.jobs, JOB_REGISTERED), 1);
	config_free(d.cfg);
	d.cfg = next;
	next = load(PORTS "jobs: {mode: off}\n");
	daemon_jobs_reload(&d, next);
	assert_null(d.jobs);
	config_free(d.cfg);
	d.cfg = next;
	refused(&s, JOBS, "unavailable", OFF);
	next = load(PORTS "jobs: {mode: observe}\n");
	daemon_jobs_reload(&d, next);
	assert_non_null(d.jobs);
	assert_int_equal(job_table_count(d.jobs, JOB_REGISTERED), 0);
	config_free(d.cfg);
	d.cfg = next;
	daemon_jobs_tick(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_off, teardown),
		cmocka_unit_test_teardown(test_register_list, teardown),
		cmocka_unit_test_teardown(test_refusals, teardown),
		cmocka_unit_test_teardown(test_readonly, teardown),
		cmocka_unit_test_teardown(test_unregister, teardown),
		cmocka_unit_test_teardown(test_reload, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
