// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ctl_proto_backend.c - the control protocol against a fake backend,
 * on what the backend answers: the exact counters of a hand-made snapshot
 * in stats/classes/status, congestion validation, backend errors passed
 * through with their code, missing callbacks, log-level, read-only
 * sessions, and snapshots with invalid text and out-of-range counts.
 */
#include "test_ctl_proto.h"

static void test_stats_exact(void **state)
{
	struct ctl_session s;
	json_t *r, *res, *roce, *q1;

	greet(&s);
	r = exchange(&s, "{\"command\":\"stats\"}");
	res = result_of(r);
	assert_int_equal(json_array_size(json_object_get(res, "ports")), 2);
	assert_int_equal(int_at(res, "now_mono_ns"), 5000000000ll);
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(res, "ports"), 0),
			"name")),
		"eth1");
	assert_int_equal(int_at(res, "ports.0.rx_packets"), 12345);
	assert_int_equal(int_at(res, "ports.0.rx_bytes"), 9876543);
	assert_int_equal(int_at(res, "ports.0.tx_packets"), 111);
	assert_int_equal(int_at(res, "ports.0.rate_bps"), 100000000000ll);
	assert_int_equal(int_at(res, "ports.0.drops.handoff_full"), 3);
	assert_int_equal(int_at(res, "ports.0.xdp.failopen_redirect"), 7);
	assert_int_equal(int_at(res, "ports.0.malformed.runt"), 2);
	assert_int_equal(int_at(res, "ports.0.xsk.rx_dropped"), 5);
	assert_int_equal(int_at(res, "ports.0.queues.0.rx_packets"), 12000);
	assert_int_equal(int_at(res, "ports.0.queues.1.queue"), 1);
	q1 = json_array_get(
		json_object_get(
			json_array_get(json_object_get(res, "ports"), 0),
			"queues"),
		1);
	assert_int_equal(int_at(q1, "worker"), 1);
	assert_true(json_is_null(json_object_get(q1, "cpu")));
	assert_null(json_object_get(q1, "xdp"));
	roce = json_array_get(
		json_object_get(
			json_array_get(json_object_get(res, "ports"), 0),
			"classes"),
		1);
	assert_string_equal(json_string_value(json_object_get(roce, "name")),
			    "roce");
	assert_int_equal(int_at(roce, "sent_bytes"), (json_int_t)BIG);
	assert_int_equal(int_at(roce, "sent_packets"), 77);
	assert_int_equal(int_at(roce, "drops.ecn_nonect"), 4);
	assert_int_equal(int_at(roce, "drops.queue_bytes"), 0);
	assert_int_equal(int_at(roce, "level"), 1);
	assert_int_equal(int_at(roce, "ceil_bps"), 90000000000ll);
	assert_true(json_is_true(json_object_get(roce, "ecn")));
	assert_int_equal(
		json_array_size(json_object_get(roce, "sojourn_log2_us")),
		SCHED_HIST_BUCKETS);
	assert_int_equal(int_at(roce, "sojourn_log2_us.3"), 17);
	assert_int_equal(int_at(res, "ports.1.rx_packets"), 999);
	json_decref(r);

	/* One port only. */
	r = exchange(&s,
		     "{\"command\":\"stats\",\"args\":{\"port\":\"eth2\"}}");
	res = result_of(r);
	assert_int_equal(json_array_size(json_object_get(res, "ports")), 1);
	assert_int_equal(int_at(res, "ports.0.rx_packets"), 999);
	json_decref(r);
	assert_int_equal(fake.taken, 2);
}

static void test_classes_and_status(void **state)
{
	struct ctl_session s;
	json_t *r, *res, *p;

	greet(&s);
	r = exchange(&s, "{\"command\":\"classes\"}");
	res = result_of(r);
	assert_int_equal(int_at(res, "ports.0.classes.1.sent_bytes"),
			 (json_int_t)BIG);
	assert_int_equal(int_at(res, "ports.0.classes.1.quantum"), 1500);
	assert_int_equal(int_at(res, "ports.1.classes.0.level"), 2);
	assert_null(json_object_get(
		json_array_get(json_object_get(res, "ports"), 0), "queues"));
	json_decref(r);

	r = exchange(&s, "{\"command\":\"status\"}");
	res = result_of(r);
	assert_int_equal(int_at(res, "pid"), FAKE_PID);
	assert_string_equal(json_string_value(json_object_get(res, "version")),
			    "0.1.0-test");
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(res, "config"), "path")),
			    "/etc/xdplane/test.yaml");
	assert_int_equal(int_at(res, "config.generation"), 3);
	assert_int_equal(int_at(res, "config.reload.failures_total"), 1);
	assert_true(json_is_null(json_object_get(
		json_object_get(json_object_get(res, "config"), "reload"),
		"last_error")));
	assert_string_equal(
		json_string_value(json_object_get(res, "bind_mode")), "copy");
	assert_int_equal(int_at(res, "workers"), 2);
	assert_int_equal(int_at(res, "umem_frames"), 8192);
	assert_int_equal(int_at(res, "max_frame"), 3498);
	/* eth1 q0, eth1 q1, eth2 q0 */
	assert_int_equal(json_array_size(json_object_get(res, "placement")), 3);
	p = json_array_get(json_object_get(res, "placement"), 1);
	assert_string_equal(json_string_value(json_object_get(p, "port")),
			    "eth1");
	assert_int_equal(int_at(p, "worker"), 1);
	assert_true(json_is_null(json_object_get(p, "cpu")));
	assert_int_equal(int_at(res, "placement.0.cpu"), 2);
	json_decref(r);
}

static void test_congestion(void **state)
{
	struct ctl_session s;
	json_t *r;

	expect_error("{\"command\":\"congestion\",\"args\":{\"port\":\"eth9\","
		     "\"class\":\"roce\"}}",
		     "bad_request");
	/* roce exists on eth1 only */
	expect_error("{\"command\":\"congestion\",\"args\":{\"port\":\"eth2\","
		     "\"class\":\"roce\"}}",
		     "bad_request");
	expect_error("{\"command\":\"congestion\",\"args\":{\"port\":\"eth1\","
		     "\"class\":\"roce\",\"severity\":1.5}}",
		     "bad_request");
	expect_error("{\"command\":\"congestion\",\"args\":{\"port\":\"eth1\","
		     "\"class\":\"roce\",\"severity\":-0.1}}",
		     "bad_request");
	expect_error("{\"command\":\"congestion\",\"args\":{\"port\":\"eth1\","
		     "\"class\":\"roce\",\"severity\":\"high\"}}",
		     "bad_request");
	expect_error(
		"{\"command\":\"congestion\",\"args\":{\"port\":\"eth1\"}}",
		"bad_request");
	expect_error("{\"command\":\"congestion\",\"args\":{\"port\":\"eth1\","
		     "\"class\":\"roce\",\"rate\":1}}",
		     "bad_request");
	assert_int_equal(fake.congestion_calls, 0);

	greet(&s);
	r = exchange(&s, "{\"command\":\"congestion\",\"args\":{\"port\":"
			 "\"eth1\",\"class\":\"roce\"}}");
	assert_int_equal(int_at(result_of(r), "flows_signalled"), 3);
	json_decref(r);
	assert_int_equal(fake.congestion_calls, 1);
	assert_string_equal(fake.congestion_port, "eth1");
	assert_string_equal(fake.congestion_class, "roce");
	assert_true(fake.congestion_severity == 1.0);
	r = exchange(&s, "{\"command\":\"congestion\",\"args\":{\"port\":"
			 "\"eth1\",\"class\":\"cnp\",\"severity\":0.25}}");
	result_of(r);
	json_decref(r);
	assert_true(fake.congestion_severity == 0.25);
	assert_string_equal(fake.congestion_class, "cnp");
	r = exchange(&s, "{\"command\":\"congestion\",\"args\":{\"port\":"
			 "\"eth1\",\"class\":\"cnp\",\"severity\":0}}");
	result_of(r);
	json_decref(r);
	assert_true(fake.congestion_severity == 0.0);
}

static void test_backend_errors(void **state)
{
	struct ctl_session s;
	json_t *r, *details;

	greet(&s);
	fake.reload_fails = true;
	snprintf(fake.reload_err.code, sizeof(fake.reload_err.code),
		 "invalid_config");
	snprintf(fake.reload_err.message, sizeof(fake.reload_err.message),
		 "/etc/xdplane/test.yaml:3:7: unknown key \"clases\"");
	r = exchange(&s, "{\"command\":\"reload\",\"id\":\"r1\"}");
	assert_string_equal(error_of(r, "invalid_config"),
			    "/etc/xdplane/test.yaml:3:7: unknown key "
			    "\"clases\"");
	assert_string_equal(json_string_value(json_object_get(r, "id")), "r1");
	assert_null(json_object_get(json_object_get(r, "error"), "details"));
	json_decref(r);

	/* The further errors of a file: the error's details, in order. */
	fake.reload_err.details =
		json_pack("[s,s]", "t.yaml:5:1: b", "t.yaml:7:3: c");
	r = exchange(&s, "{\"command\":\"reload\"}");
	details = json_object_get(json_object_get(r, "error"), "details");
	assert_int_equal(json_array_size(details), 2);
	assert_string_equal(json_string_value(json_array_get(details, 1)),
			    "t.yaml:7:3: c");
	json_decref(r);
	json_decref(fake.reload_err.details);
	fake.reload_err.details = NULL;

	/* No code from the backend: internal; invalid UTF-8: still JSON. */
	memset(&fake.reload_err, 0, sizeof(fake.reload_err));
	snprintf(fake.reload_err.message, sizeof(fake.reload_err.message),
		 "bad \xff\xfe byte");
	r = exchange(&s, "{\"command\":\"reload\"}");
	assert_string_equal(error_of(r, "internal"), "bad ?? byte");
	json_decref(r);
	assert_int_equal(fake.reload_calls, 3);
	assert_false(s.closing);

	fake.reload_fails = false;
	r = exchange(&s, "{\"command\":\"reload\"}");
	assert_int_equal(int_at(result_of(r), "generation"), 4);
	json_decref(r);
	expect_error("{\"command\":\"reload\",\"args\":{\"dry_run\":true}}",
		     "bad_request");

	r = exchange(&s, "{\"command\":\"flows\"}");
	assert_string_equal(error_of(r, "unavailable"), "DCQCN is off");
	json_decref(r);
	fake.flows = json_array();
	r = exchange(&s, "{\"command\":\"flows\"}");
	assert_true(json_is_array(json_object_get(result_of(r), "flows")));
	assert_int_equal(
		json_array_size(json_object_get(result_of(r), "flows")), 0);
	json_decref(r);

	fake.no_snapshot = true;
	r = exchange(&s, "{\"command\":\"stats\"}");
	error_of(r, "unavailable");
	json_decref(r);
	r = exchange(&s, "{\"command\":\"congestion\",\"args\":{\"port\":"
			 "\"eth1\",\"class\":\"roce\"}}");
	error_of(r, "unavailable");
	json_decref(r);
	assert_int_equal(fake.congestion_calls, 0);
}

static void test_missing_backend_callbacks(void **state)
{
	const struct ctl_backend none = {.pid = 1};
	struct ctl_session s;
	char *out;

	greet(&s);
	static const char flows[] = "{\"command\":\"flows\"}";
	static const char status[] = "{\"command\":\"status\"}";

	out = ctl_session_handle(&s, flows, strlen(flows), &none);
	assert_non_null(strstr(out, "\"unavailable\""));
	free(out);
	out = ctl_session_handle(&s, status, strlen(status), &none);
	assert_non_null(strstr(out, "\"unavailable\""));
	free(out);
}

static void test_log_level(void **state)
{
	struct ctl_session s;
	json_t *r, *res;

	greet(&s);
	r = exchange(&s, "{\"command\":\"log-level\",\"args\":{\"level\":"
			 "\"debug\"}}");
	res = result_of(r);
	assert_string_equal(json_string_value(json_object_get(res, "previous")),
			    "info");
	assert_string_equal(json_string_value(json_object_get(res, "level")),
			    "debug");
	json_decref(r);
	assert_int_equal(fake.level_calls, 1);
	assert_string_equal(fake.level, "debug");

	r = exchange(&s, "{\"command\":\"log-level\",\"args\":{\"level\":"
			 "\"verbose\"}}");
	assert_non_null(strstr(error_of(r, "bad_request"), "verbose"));
	json_decref(r);
	assert_int_equal(fake.level_calls, 1);
}

/* A read-only session: the verbs that change the daemon are refused with
 * "read_only" and never reach the backend; the others answer; status
 * carries the health and the workers' load; config the backend's text. */
static void test_readonly(void **state)
{
	static const char *const refused[] = {
		"{\"command\":\"reload\"}",
		"{\"command\":\"log-level\",\"args\":{\"level\":\"debug\"}}",
		("{\"command\":\"congestion\",\"args\":{\"port\":\"eth1\","
		 "\"class\":\"roce\"}}"),
	};
	static const char *const allowed[] = {
		"{\"command\":\"status\"}",  "{\"command\":\"stats\"}",
		"{\"command\":\"classes\"}", "{\"command\":\"flows\"}",
		"{\"command\":\"config\"}",  "{\"command\":\"commands\"}",
	};
	struct ctl_session s;
	json_t *r, *h;

	fake.flows = json_array();
	greet(&s);
	s.readonly = true;
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		r = exchange(&s, refused[i]);
		assert_non_null(strstr(error_of(r, "read_only"),
				       "read-only control socket"));
		json_decref(r);
	}
	assert_int_equal(fake.reload_calls, 0);
	assert_int_equal(fake.level_calls, 0);
	assert_int_equal(fake.congestion_calls, 0);
	for (size_t i = 0; i < sizeof(allowed) / sizeof(*allowed); i++) {
		r = exchange(&s, allowed[i]);
		result_of(r);
		json_decref(r);
	}
	assert_false(s.closing);

	fake.snap.health.degraded = 1u << HEALTH_PORT_DOWN;
	snprintf(fake.snap.health.msg[HEALTH_PORT_DOWN],
		 sizeof(fake.snap.health.msg[0]), "link down: eth2");
	snprintf(fake.snap.health.line, sizeof(fake.snap.health.line),
		 "port_down: link down: eth2");
	r = exchange(&s, "{\"command\":\"status\"}");
	h = json_object_get(result_of(r), "health");
	assert_string_equal(json_string_value(json_object_get(h, "state")),
			    "degraded");
	assert_string_equal(json_string_value(json_object_get(h, "line")),
			    "port_down: link down: eth2");
	assert_int_equal(json_array_size(json_object_get(h, "reasons")), 1);
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(h, "reasons"), 0),
			"reason")),
		"port_down");
	assert_true(
		json_is_array(json_object_get(result_of(r), "workers_load")));
	json_decref(r);

	r = exchange(&s, "{\"command\":\"config\"}");
	assert_string_equal(
		json_string_value(json_object_get(result_of(r), "text")),
		"ports:\n  - interface: 'eth1'\n");
	json_decref(r);

	/* the same verbs on a full session reach the backend */
	s.readonly = false;
	r = exchange(&s, refused[0]);
	result_of(r);
	json_decref(r);
	assert_int_equal(fake.reload_calls, 1);
}

static void test_hostile_snapshot(void **state)
{
	struct stats_snapshot *s = &fake.snap;
	struct ctl_session ss;
	json_t *r, *res;

	memset(s->ports[0].ifname, 'x', sizeof(s->ports[0].ifname));
	s->ports[1].ifname[0] = (char)0xc3; /* a lone lead byte */
	s->ports[1].ifname[1] = '\0';
	memset(s->ports[0].cls[0].name, 'c', sizeof(s->ports[0].cls[0].name));
	s->ports[0].n_queues = 100000;
	s->ports[0].n_classes = 1000;
	s->ports[0].s.tx_bytes = UINT64_MAX;
	s->version = NULL;
	s->uptime_s = INFINITY;
	memset(s->config_path, 0xff, sizeof(s->config_path));

	greet(&ss);
	r = exchange(&ss, "{\"command\":\"stats\"}");
	res = result_of(r);
	assert_int_equal(
		strlen(json_string_value(json_object_get(
			json_array_get(json_object_get(res, "ports"), 0),
			"name"))),
		sizeof(s->ports[0].ifname));
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(res, "ports"), 1),
			"name")),
		"?");
	assert_int_equal(int_at(res, "ports.0.tx_bytes"), INT64_MAX);
	assert_int_equal(
		json_array_size(json_object_get(
			json_array_get(json_object_get(res, "ports"), 0),
			"queues")),
		GW_MAX_QUEUES);
	assert_int_equal(
		json_array_size(json_object_get(
			json_array_get(json_object_get(res, "ports"), 0),
			"classes")),
		QOS_MAX_CLASSES);
	assert_true(json_is_null(json_object_get(res, "uptime_s")));
	json_decref(r);
	r = exchange(&ss, "{\"command\":\"status\"}");
	res = result_of(r);
	assert_true(json_is_null(json_object_get(res, "version")));
	json_decref(r);
	r = exchange(&ss, "{\"command\":\"classes\"}");
	result_of(r);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stats_exact, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_classes_and_status, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_congestion, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_backend_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_missing_backend_callbacks,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_level, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_snapshot, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
