// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ctl_proto.c - the control protocol against a fake backend: the
 * handshake (success, wrong version, anything else first), parse errors
 * with their position, non-object requests, unknown commands and keys,
 * wrong argument types and ranges, id echo, the exact counters of a
 * hand-made snapshot in stats/classes/status, congestion validation,
 * backend errors passed through with their code, log-level, too_long, an
 * embedded NUL, and snapshots with invalid text and out-of-range counts.
 * Every response must end in exactly one "\n" and parse as a JSON object
 * with a boolean "ok" (checked on each exchange).
 *
 * The xdplanectl tests run the real CLI binary (from the build tree)
 * against a one-connection server thread built on ctl_session_handle():
 * exit status 0/1/2/3, --json output, the environment variable, watch
 * rates, closed connection and timeout, the --json error objects. They
 * are skipped if the binary is not found next to this test.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "ctl_json.h"
#include "ctl_proto.h"

#define FAKE_PID 4242
#define BIG (1ull << 60)

struct fake {
	struct stats_snapshot snap;
	bool no_snapshot;
	int taken, freed;
	uint64_t advance_packets; /* added to eth1 rx_packets per snapshot */
	int reload_calls;
	bool reload_fails;
	struct ctl_err reload_err;
	int congestion_calls;
	char congestion_port[32], congestion_class[64];
	double congestion_severity;
	int level_calls;
	char level[16];
	json_t *flows; /* returned (a new reference) when not NULL */
};

static struct fake fake;

static struct stats_snapshot *fake_snapshot(void *ctx)
{
	struct fake *f = ctx;
	struct stats_snapshot *s;

	if (f->no_snapshot)
		return NULL;
	s = malloc(sizeof(*s));
	if (!s)
		return NULL;
	*s = f->snap;
	s->ports[0].s.rx_packets += f->advance_packets * (uint64_t)f->taken;
	s->now_mono_ns += 1000000000ull * (uint64_t)f->taken;
	f->taken++;
	return s;
}

static void fake_snapshot_free(void *ctx, struct stats_snapshot *s)
{
	struct fake *f = ctx;

	f->freed++;
	free(s);
}

static json_t *fake_reload(void *ctx, struct ctl_err *err)
{
	struct fake *f = ctx;

	f->reload_calls++;
	if (f->reload_fails) {
		*err = f->reload_err;
		json_incref(err->details); /* the answer takes one */
		return NULL;
	}
	return json_pack("{s:I,s:b}", "generation", (json_int_t)4, "changed",
			 1);
}

static json_t *fake_flows(void *ctx, struct ctl_err *err)
{
	struct fake *f = ctx;

	if (f->flows)
		return json_incref(f->flows);
	snprintf(err->code, sizeof(err->code), "unavailable");
	snprintf(err->message, sizeof(err->message), "DCQCN is off");
	return NULL;
}

static json_t *fake_congestion(void *ctx, const char *port, const char *cls,
			       double severity, const char *prefix,
			       struct ctl_err *err)
{
	struct fake *f = ctx;

	f->congestion_calls++;
	snprintf(f->congestion_port, sizeof(f->congestion_port), "%s", port);
	snprintf(f->congestion_class, sizeof(f->congestion_class), "%s", cls);
	f->congestion_severity = severity;
	return json_pack("{s:i}", "flows_signalled", 3);
}

static int fake_log_level(void *ctx, const char *level, const char **previous,
			  struct ctl_err *err)
{
	struct fake *f = ctx;

	f->level_calls++;
	*previous = "info";
	snprintf(f->level, sizeof(f->level), "%s", level);
	return 0;
}

static json_t *fake_config(void *ctx, struct ctl_err *err)
{
	return json_pack("{s:s,s:i,s:s}", "path", "/etc/x.yaml", "generation",
			 3, "text", "ports:\n  - interface: 'eth1'\n");
}

static const struct ctl_backend backend = {
	.ctx = &fake,
	.snapshot = fake_snapshot,
	.snapshot_free = fake_snapshot_free,
	.reload = fake_reload,
	.flows = fake_flows,
	.congestion = fake_congestion,
	.log_level = fake_log_level,
	.config = fake_config,
	.pid = FAKE_PID,
};

static void fill_class(struct snap_class *c, const char *name, uint32_t id,
		       uint32_t level)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->id = id;
	c->level = level;
	c->quantum = 1500;
	c->limit_bytes = 1000000;
	c->limit_packets = 1000;
}

static int setup(void **state)
{
	struct stats_snapshot *s = &fake.snap;
	struct snap_port *p;

	memset(&fake, 0, sizeof(fake));
	s->version = "0.1.0-test";
	snprintf(s->config_path, sizeof(s->config_path),
		 "/etc/xdplane/test.yaml");
	s->start_unix = 1700000000.0;
	s->now_unix = 1700003600.5;
	s->uptime_s = 3600.5;
	s->now_mono_ns = 5000000000ull;
	s->xdp_mode = "native";
	s->bind_mode = "copy";
	s->failure_mode = "fail-open";
	s->n_workers = 2;
	s->umem_frames = 8192;
	s->max_frame = 3498;
	s->reload.generation = 3;
	s->reload.attempts_total = 4;
	s->reload.failures_total = 1;
	s->reload.last_successful = true;
	s->reload.last_success_unix = 1700001000.0;
	s->reload.last_attempt_unix = 1700001000.0;

	p = &s->ports[0];
	snprintf(p->ifname, sizeof(p->ifname), "eth1");
	p->rate_bps = 100000000000ull;
	p->s.rx_packets = 12345;
	p->s.rx_bytes = 9876543;
	p->s.tx_packets = 111;
	p->s.drop_handoff_full = 3;
	p->s.verdicts[STEER_V_FAILOPEN] = 7;
	p->s.malformed[PKT_MALFORMED_RUNT] = 2;
	p->s.xsk.rx_dropped = 5;
	p->n_queues = 2;
	p->q[0] = (struct snap_queue){.queue = 0, .worker = 0, .cpu = 2};
	p->q[0].s.rx_packets = 12000;
	p->q[1] = (struct snap_queue){.queue = 1, .worker = 1, .cpu = -1};
	p->q[1].s.rx_packets = 345;
	p->n_classes = 2;
	fill_class(&p->cls[0], "cnp", 0, 0);
	fill_class(&p->cls[1], "roce", 1, 1);
	p->cls[1].ceil_bps = 90000000000ull;
	p->cls[1].ecn = true;
	p->cls[1].s.sent_bytes = BIG;
	p->cls[1].s.sent_packets = 77;
	p->cls[1].s.drops[SCHED_DROP_ECN_NONECT] = 4;
	p->cls[1].s.sojourn[3] = 17;

	p = &s->ports[1];
	snprintf(p->ifname, sizeof(p->ifname), "eth2");
	p->s.rx_packets = 999;
	p->n_queues = 1;
	p->q[0] = (struct snap_queue){.queue = 0, .worker = 0, .cpu = 2};
	p->n_classes = 1;
	fill_class(&p->cls[0], "default", 0, 2);
	return 0;
}

static int teardown(void **state)
{
	json_decref(fake.flows);
	fake.flows = NULL;
	assert_int_equal(fake.taken, fake.freed);
	return 0;
}

/* One exchange: the response must be exactly one line of JSON (an object
 * with a boolean "ok"); returns it parsed. */
static json_t *exchange_n(struct ctl_session *s, const char *line, size_t len)
{
	char *out = ctl_session_handle(s, line, len, &backend);
	json_error_t jerr;
	json_t *j;
	size_t n;

	assert_non_null(out);
	n = strlen(out);
	assert_true(n >= 2);
	assert_int_equal(out[n - 1], '\n');
	assert_null(memchr(out, '\n', n - 1));
	j = json_loadb(out, n - 1, 0, &jerr);
	if (!j)
		fail_msg("response is not JSON (%s): %s", jerr.text, out);
	assert_true(json_is_object(j));
	assert_true(json_is_boolean(json_object_get(j, "ok")));
	free(out);
	return j;
}

static json_t *exchange(struct ctl_session *s, const char *line)
{
	return exchange_n(s, line, strlen(line));
}

static void greet(struct ctl_session *s)
{
	json_t *r;

	ctl_session_init(s);
	r = exchange(s, "{\"hello\":\"test\",\"version\":1}");
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	assert_true(s->greeted);
}

/* r is an error with this code; returns its message (valid while r is). */
static const char *error_of(json_t *r, const char *code)
{
	json_t *e = json_object_get(r, "error");

	assert_true(json_is_false(json_object_get(r, "ok")));
	assert_null(json_object_get(r, "result"));
	assert_string_equal(json_string_value(json_object_get(e, "code")),
			    code);
	assert_non_null(json_string_value(json_object_get(e, "message")));
	return json_string_value(json_object_get(e, "message"));
}

static json_t *result_of(json_t *r)
{
	if (!json_is_true(json_object_get(r, "ok"))) {
		char *s = json_dumps(r, JSON_COMPACT);

		fail_msg("expected success, got %s", s);
	}
	return json_object_get(r, "result");
}

/* Request with a fresh session, expect an error code. */
static void expect_error(const char *line, const char *code)
{
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange(&s, line);
	error_of(r, code);
	assert_false(s.closing);
	json_decref(r);
}

static json_int_t int_at(json_t *o, const char *path)
{
	char buf[256], *save = NULL, *tok;
	json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok;
	     tok = strtok_r(NULL, ".", &save)) {
		if (json_is_array(v))
			v = json_array_get(v, strtoul(tok, NULL, 10));
		else
			v = json_object_get(v, tok);
	}
	if (!json_is_integer(v))
		fail_msg("%s is not an integer", path);
	return json_integer_value(v);
}

static void test_handshake_ok(void **state)
{
	struct ctl_session s;
	json_t *r, *cmds;

	ctl_session_init(&s);
	r = exchange(&s, "{\"hello\":\"xdplanectl\",\"version\":1}");
	assert_true(json_is_true(json_object_get(r, "ok")));
	assert_int_equal(int_at(r, "version"), 1);
	assert_string_equal(json_string_value(json_object_get(r, "server")),
			    "xdplane");
	assert_string_equal(
		json_string_value(json_object_get(r, "server_version")),
		XDPLANE_VERSION);
	cmds = json_object_get(r, "commands");
	assert_int_equal(json_array_size(cmds), 9);
	assert_string_equal(json_string_value(json_array_get(cmds, 2)),
			    "stats");
	assert_string_equal(json_string_value(json_array_get(cmds, 5)),
			    "config");
	assert_string_equal(json_string_value(json_array_get(cmds, 8)),
			    "log-level");
	assert_true(s.greeted);
	assert_false(s.closing);
	assert_string_equal(s.client, "xdplanectl");
	json_decref(r);
}

static void test_handshake_wrong_version(void **state)
{
	struct ctl_session s;
	json_t *r;

	ctl_session_init(&s);
	r = exchange(&s, "{\"hello\":\"future\",\"version\":2}");
	assert_non_null(strstr(error_of(r, "version"), "version 2"));
	assert_int_equal(int_at(r, "version"), 1);
	assert_true(s.closing);
	assert_false(s.greeted);
	json_decref(r);
	/* Nothing is accepted on a closing session, not even a good hello. */
	r = exchange(&s, "{\"hello\":\"again\",\"version\":1}");
	error_of(r, "handshake");
	assert_false(s.greeted);
	json_decref(r);
}

static void test_handshake_required_first(void **state)
{
	static const char *const firsts[] = {
		"{\"command\":\"status\"}",
		"{\"hello\":\"x\"}",
		"{\"hello\":5,\"version\":1}",
		"{\"hello\":\"x\",\"version\":\"1\"}",
		"{\"hello\":\"x\",\"version\":1,\"extra\":true}",
		"[1]",
		"not json",
		"",
	};

	for (size_t i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
		struct ctl_session s;
		json_t *r;

		ctl_session_init(&s);
		r = exchange(&s, firsts[i]);
		error_of(r, "handshake");
		assert_true(s.closing);
		assert_false(s.greeted);
		json_decref(r);
	}
	assert_int_equal(fake.taken, 0);
}

static void test_parse_error_has_position(void **state)
{
	struct ctl_session s;
	const char *msg;
	json_t *r;

	greet(&s);
	r = exchange(&s, "{\"command\": \"status\",");
	msg = error_of(r, "parse");
	assert_non_null(strstr(msg, "line 1 column"));
	assert_false(s.closing);
	json_decref(r);
	/* The session goes on. */
	r = exchange(&s, "{\"command\":\"commands\"}");
	assert_int_equal(
		json_array_size(json_object_get(result_of(r), "commands")), 9);
	json_decref(r);
	/* A duplicate key is a parse error too. */
	expect_error("{\"command\":\"status\",\"command\":\"stats\"}", "parse");
}

static void test_non_object(void **state)
{
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange(&s, "[\"status\"]");
	assert_non_null(strstr(error_of(r, "parse"), "not an array"));
	json_decref(r);
	r = exchange(&s, "42");
	assert_non_null(strstr(error_of(r, "parse"), "not a number"));
	json_decref(r);
	r = exchange(&s, "\"status\"");
	error_of(r, "parse");
	json_decref(r);
	assert_false(s.closing);
}

static void test_unknown_command(void **state)
{
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange(&s, "{\"command\":\"shutdown\",\"id\":9}");
	assert_non_null(strstr(error_of(r, "unknown_command"), "shutdown"));
	assert_int_equal(int_at(r, "id"), 9);
	json_decref(r);
}

static void test_bad_requests(void **state)
{
	expect_error("{}", "bad_request");
	expect_error("{\"command\":5}", "bad_request");
	expect_error("{\"command\":\"status\",\"args\":[]}", "bad_request");
	expect_error("{\"command\":\"status\",\"args\":{\"x\":1}}",
		     "bad_request");
	expect_error("{\"command\":\"status\",\"verbose\":true}",
		     "bad_request");
	expect_error("{\"command\":\"stats\",\"args\":{\"port\":5}}",
		     "bad_request");
	expect_error("{\"command\":\"stats\",\"args\":{\"port\":\"eth9\"}}",
		     "bad_request");
	expect_error("{\"command\":\"log-level\",\"args\":{\"level\":1}}",
		     "bad_request");
	expect_error("{\"command\":\"log-level\"}", "bad_request");
	expect_error("{\"hello\":\"again\",\"version\":1}", "bad_request");
	assert_int_equal(fake.level_calls, 0);
}

static void test_id_echoed(void **state)
{
	static const char *const ids[] = {"7", "\"abc\"", "{\"a\":[1,2.5]}",
					  "null"};
	struct ctl_session s;
	char line[128];

	greet(&s);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		json_t *want = json_loads(ids[i], JSON_DECODE_ANY, NULL);
		json_t *r;

		snprintf(line, sizeof(line),
			 "{\"command\":\"commands\",\"id\":%s}", ids[i]);
		r = exchange(&s, line);
		assert_true(json_is_true(json_object_get(r, "ok")));
		assert_true(json_equal(json_object_get(r, "id"), want));
		json_decref(r);
		/* ... and on errors. */
		snprintf(line, sizeof(line), "{\"command\":\"nope\",\"id\":%s}",
			 ids[i]);
		r = exchange(&s, line);
		error_of(r, "unknown_command");
		assert_true(json_equal(json_object_get(r, "id"), want));
		json_decref(r);
		json_decref(want);
	}
	/* No id in the request: none in the response. */
	{
		json_t *r = exchange(&s, "{\"command\":\"commands\"}");

		assert_null(json_object_get(r, "id"));
		json_decref(r);
	}
}

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

static void test_too_long(void **state)
{
	struct ctl_session s;
	char *out, *big;
	json_t *r;

	greet(&s);
	out = ctl_session_too_long(&s);
	r = json_loads(out, 0, NULL);
	error_of(r, "too_long");
	assert_false(s.closing);
	json_decref(r);
	free(out);

	/* Over the limit through handle() too, and no parse attempt. */
	big = malloc(CTL_LINE_MAX + 1);
	assert_non_null(big);
	memset(big, ' ', CTL_LINE_MAX + 1);
	r = exchange_n(&s, big, CTL_LINE_MAX + 1);
	error_of(r, "too_long");
	json_decref(r);
	/* Exactly at the limit: parsed (all blanks: a parse error). */
	r = exchange_n(&s, big, CTL_LINE_MAX);
	error_of(r, "parse");
	json_decref(r);
	free(big);

	/* Before the handshake it ends the session. */
	ctl_session_init(&s);
	out = ctl_session_too_long(&s);
	r = json_loads(out, 0, NULL);
	error_of(r, "too_long");
	assert_true(s.closing);
	json_decref(r);
	free(out);
}

static void test_embedded_nul(void **state)
{
	static const char line1[] = "{\"command\":\"status\"}\0trailing";
	static const char line2[] = "{\"command\":\"sta\0tus\"}";
	static const char line3[] = "\0";
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange_n(&s, line1, sizeof(line1) - 1);
	error_of(r, "parse");
	json_decref(r);
	r = exchange_n(&s, line2, sizeof(line2) - 1);
	error_of(r, "parse");
	json_decref(r);
	r = exchange_n(&s, line3, 1);
	error_of(r, "parse");
	json_decref(r);
	/* An escaped NUL in a string is refused by the parser as well. */
	r = exchange(&s, "{\"command\":\"sta\\u0000tus\"}");
	error_of(r, "parse");
	json_decref(r);
	/* Invalid UTF-8 in the request, echoed in the parser's message. */
	r = exchange(&s, "{\"command\":\"\xff\xfe\"}");
	error_of(r, "parse");
	json_decref(r);
	assert_false(s.closing);
	assert_int_equal(fake.taken, 0);
}

/* Text that is not UTF-8 or fills its array, counts beyond the arrays. */
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

/* ---- xdplanectl against a one-connection server ----------------------- */

enum server_mode { SERVE, CLOSE_AT_ONCE, SILENT };

struct server {
	char dir[64];
	char path[108];
	int lfd;
	enum server_mode mode;
	pthread_t thread;
};

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* One connection: lines in, ctl_session_handle, responses out. */
static void *serve_one(void *arg)
{
	struct server *sv = arg;
	struct ctl_session s;
	char buf[CTL_LINE_MAX + 2];
	size_t len = 0;
	ssize_t n;
	char *nl, *out;
	int fd = accept(sv->lfd, NULL, NULL);

	if (fd < 0)
		return NULL;
	ctl_session_init(&s);
	if (sv->mode == CLOSE_AT_ONCE) {
		/* Read the hello first, so the client is waiting. */
		n = read(fd, buf, sizeof(buf));
		(void)n;
		close(fd);
		return NULL;
	}
	while (!s.closing && (n = read(fd, buf + len, sizeof(buf) - len)) > 0) {
		len += (size_t)n;
		while (sv->mode == SERVE && (nl = memchr(buf, '\n', len))) {
			out = ctl_session_handle(&s, buf, (size_t)(nl - buf),
						 &backend);
			write_all(fd, out, strlen(out));
			free(out);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof(buf))
			len = 0;
	}
	close(fd);
	return NULL;
}

static void server_start(struct server *sv, enum server_mode mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(sv->dir, sizeof(sv->dir), "/tmp/test_ctl_proto.XXXXXX");
	assert_non_null(mkdtemp(sv->dir));
	snprintf(sv->path, sizeof(sv->path), "%s/control.sock", sv->dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sv->path);
	sv->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sv->lfd >= 0);
	assert_int_equal(bind(sv->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(sv->lfd, 4), 0);
	sv->mode = mode;
	assert_int_equal(pthread_create(&sv->thread, NULL, serve_one, sv), 0);
}

static void server_stop(struct server *sv)
{
	pthread_join(sv->thread, NULL);
	close(sv->lfd);
	unlink(sv->path);
	rmdir(sv->dir);
}

static char ctl_path[PATH_MAX];

/* The CLI binary: <build>/control/xdplanectl, this test being
 * <build>/tests/unit/test_ctl_proto. */
static bool find_cli(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	snprintf(ctl_path, sizeof(ctl_path), "%s/../../control/xdplanectl",
		 dirname(self));
	return access(ctl_path, X_OK) == 0;
}

static char *slurp(FILE *f)
{
	char *s;
	long n;

	fflush(f);
	n = ftell(f);
	s = calloc(1, (size_t)n + 1);
	assert_non_null(s);
	rewind(f);
	if (n > 0)
		assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

/* Run xdplanectl with argv (NULL-terminated, without argv[0]); env_socket
 * goes to XDPLANE_CONTROL_SOCKET (unset when NULL). Returns the exit
 * status; *out and *err get what it printed. */
static int run_cli(const char *const *args, const char *env_socket, char **out,
		   char **err)
{
	const char *argv[16] = {ctl_path};
	FILE *fo = tmpfile(), *fe = tmpfile();
	int status, i;
	pid_t pid;

	assert_non_null(fo);
	assert_non_null(fe);
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(fo), STDOUT_FILENO);
		dup2(fileno(fe), STDERR_FILENO);
		if (env_socket)
			setenv("XDPLANE_CONTROL_SOCKET", env_socket, 1);
		else
			unsetenv("XDPLANE_CONTROL_SOCKET");
		execv(ctl_path, (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*out = slurp(fo);
	*err = slurp(fe);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

#define NEED_CLI()                                                             \
	do {                                                                   \
		if (!find_cli()) {                                             \
			printf("  xdplanectl not built next to the "           \
			       "test: skipped\n");                             \
			skip();                                                \
		}                                                              \
	} while (0)

static void test_cli_usage(void **state)
{
	static const char *const bad[][5] = {
		{NULL},
		{"bogus", NULL},
		{"congestion", "eth1", NULL},
		{"congestion", "eth1", "roce", "lots", NULL},
		{"stats", "eth1", "eth2", NULL},
		{"stats", "--count", "2", NULL},
		{"--timeout", "soon", "status", NULL},
		{"watch", "eth1", NULL},
	};
	char *out, *err;

	NEED_CLI();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
			run_cli(bad[i], "/nonexistent/sock", &out, &err), 2);
		assert_true(strlen(err) > 0);
		free(out);
		free(err);
	}
}

static void test_cli_cannot_connect(void **state)
{
	static const char *const args[] = {
		"-s", "/nonexistent/xdp/control.sock", "status", NULL};
	char *out, *err;

	NEED_CLI();
	assert_int_equal(run_cli(args, NULL, &out, &err), 3);
	assert_non_null(strstr(err, "/nonexistent/xdp/control.sock"));
	assert_non_null(strstr(err, "No such file"));
	assert_string_equal(out, "");
	free(out);
	free(err);
}

static void test_cli_status_json(void **state)
{
	static const char *args[] = {"-s", NULL, "--json", "status", NULL};
	struct server sv;
	char *out, *err;
	json_t *j;

	NEED_CLI();
	server_start(&sv, SERVE);
	args[1] = sv.path;
	assert_int_equal(run_cli(args, NULL, &out, &err), 0);
	server_stop(&sv);
	assert_non_null(strchr(out, '\n'));
	assert_int_equal(strchr(out, '\n')[1], '\0'); /* one line */
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(int_at(j, "pid"), FAKE_PID);
	assert_int_equal(int_at(j, "config.generation"), 3);
	json_decref(j);
	free(out);
	free(err);
}

static void test_cli_stats_human(void **state)
{
	static const char *args[] = {"stats", "eth1", NULL};
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 0);
	server_stop(&sv);
	printf("%s", out);
	assert_non_null(strstr(out, "eth1"));
	assert_non_null(strstr(out, "12345")); /* rx_packets, exact */
	assert_non_null(strstr(out, "roce"));
	assert_non_null(strstr(out, "1.15EB")); /* 2^60 sent bytes */
	assert_null(strstr(out, "eth2"));
	assert_string_equal(err, "");
	free(out);
	free(err);
}

static void test_cli_daemon_errors(void **state)
{
	static const char *cong[] = {"congestion", "eth1", "nosuch", NULL};
	static const char *reload[] = {"reload", NULL};
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(cong, sv.path, &out, &err), 1);
	server_stop(&sv);
	assert_ptr_equal(strstr(err, "xdplanectl: bad_request: "), err);
	assert_non_null(strstr(err, "nosuch"));
	free(out);
	free(err);

	fake.reload_fails = true;
	snprintf(fake.reload_err.code, sizeof(fake.reload_err.code),
		 "restart_required");
	snprintf(fake.reload_err.message, sizeof(fake.reload_err.message),
		 "ports.0.interface changed");
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(reload, sv.path, &out, &err), 1);
	server_stop(&sv);
	assert_non_null(strstr(err, "xdplanectl: restart_required: ports.0."
				    "interface changed"));
	free(out);
	free(err);
}

/* out is one line: {"error":{"code":code,"message":...}}; the message. */
static const char *json_error_of(const char *out, const char *code,
				 json_t **keep)
{
	json_t *j = json_loads(out, 0, NULL), *e;

	assert_non_null(j);
	assert_int_equal(strchr(out, '\n')[1], '\0'); /* one line */
	assert_int_equal(json_object_size(j), 1);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "code")),
			    code);
	assert_true(json_is_string(json_object_get(e, "message")));
	*keep = j;
	return json_string_value(json_object_get(e, "message"));
}

/* --json: every failure is an error object on stdout, with the exit
 * status of its kind: the daemon's (its code as it is; for a port or
 * class it does not have, the names and the nearest added), usage
 * (before connecting, with the suggestion), no answer. */
static void test_cli_json_errors(void **state)
{
	static const char *cong[] = {"--json", "congestion", "eth1", "nosuch",
				     NULL};
	static const char *verb[] = {"--json", "stauts", NULL};
	static const char *port[] = {"--json", "stats", "eht1", NULL};
	static const char *cls[] = {"--json", "congestion", "eth1", "rcoe",
				    NULL};
	static const char *both[] = {"-i",     "rack2",	 "-s", "/x",
				     "--json", "status", NULL};
	static const char *opt[] = {"--jsno", "status", "--json", NULL};
	static const char *gone[] = {"--json", "-s", "/nonexistent/sock",
				     "status", NULL};
	static const char *slow[] = {"--json", "--timeout", "0.3", "status",
				     NULL};
	struct server sv;
	char *out, *err;
	json_t *j, *e;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(cong, sv.path, &out, &err), 1);
	server_stop(&sv);
	assert_non_null(
		strstr(json_error_of(out, "bad_request", &j), "nosuch"));
	assert_non_null(strstr(err, "xdplanectl: bad_request: "));
	json_decref(j);
	free(out);
	free(err);

	/* a port or class the daemon does not have: its names, the nearest */
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(port, sv.path, &out, &err), 1);
	server_stop(&sv);
	json_error_of(out, "bad_request", &j);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "suggestion")),
			    "eth1");
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(e, "details"), 0)),
			    "ports: eth1, eth2 (did you mean 'eth1'?)");
	assert_non_null(
		strstr(err, "ports: eth1, eth2 (did you mean 'eth1'?)"));
	json_decref(j);
	free(out);
	free(err);
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(cls, sv.path, &out, &err), 1);
	server_stop(&sv);
	json_error_of(out, "bad_request", &j);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "suggestion")),
			    "roce");
	assert_non_null(strstr(err, "classes of eth1: cnp, roce"));
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run_cli(verb, "/nonexistent/sock", &out, &err), 2);
	assert_non_null(strstr(json_error_of(out, "usage", &j),
			       "did you mean 'status'?"));
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(j, "error"), "suggestion")),
			    "status");
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run_cli(both, NULL, &out, &err), 2);
	assert_non_null(strstr(json_error_of(out, "usage", &j),
			       "both name the socket"));
	json_decref(j);
	free(out);
	free(err);

	/* --json after the bad option still applies */
	assert_int_equal(run_cli(opt, NULL, &out, &err), 2);
	assert_non_null(strstr(json_error_of(out, "usage", &j),
			       "did you mean --json?"));
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run_cli(gone, NULL, &out, &err), 3);
	assert_non_null(strstr(json_error_of(out, "unreachable", &j),
			       "/nonexistent/sock"));
	json_decref(j);
	free(out);
	free(err);

	server_start(&sv, SILENT);
	assert_int_equal(run_cli(slow, sv.path, &out, &err), 3);
	server_stop(&sv);
	assert_non_null(strstr(json_error_of(out, "timeout", &j), "no answer"));
	json_decref(j);
	free(out);
	free(err);
}

static void test_cli_log_level_env(void **state)
{
	static const char *args[] = {"log-level", "debug", NULL};
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 0);
	server_stop(&sv);
	assert_string_equal(out, "log level info -> debug\n");
	assert_string_equal(fake.level, "debug");
	free(out);
	free(err);
}

static void test_cli_closed_and_timeout(void **state)
{
	static const char *args[] = {"--timeout", "0.5", "status", NULL};
	struct timespec t0, t1;
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, CLOSE_AT_ONCE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 3);
	server_stop(&sv);
	assert_non_null(strstr(err, "closed"));
	free(out);
	free(err);

	server_start(&sv, SILENT);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 3);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	server_stop(&sv);
	assert_non_null(strstr(err, "no answer"));
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	free(out);
	free(err);
}

/* Each snapshot: eth1 rx_packets +1000 and the daemon's clock +1 s. */
static void test_cli_watch_rates(void **state)
{
	static const char *args[] = {"--json",	"watch", "--interval", "0.05",
				     "--count", "2",	 NULL};
	struct server sv;
	char *out, *err, *line, *save = NULL;
	int lines = 0;

	NEED_CLI();
	fake.advance_packets = 1000;
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 0);
	server_stop(&sv);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL), *p;

		assert_non_null(j);
		p = json_array_get(json_object_get(j, "ports"), 0);
		assert_string_equal(
			json_string_value(json_object_get(p, "name")), "eth1");
		assert_true(json_real_value(json_object_get(p, "rx_pps")) ==
			    1000.0);
		assert_true(json_real_value(json_object_get(p, "tx_pps")) ==
			    0.0);
		assert_true(json_real_value(json_object_get(j, "interval_s")) ==
			    1.0);
		json_decref(j);
		lines++;
	}
	assert_int_equal(lines, 2);
	assert_int_equal(fake.taken, 3);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handshake_ok, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_handshake_wrong_version,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_handshake_required_first,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_error_has_position,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_non_object, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unknown_command, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_id_echoed, setup,
						teardown),
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
		cmocka_unit_test_setup_teardown(test_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_embedded_nul, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostile_snapshot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_usage, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_cannot_connect, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_status_json, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_stats_human, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_daemon_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_json_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_log_level_env, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_closed_and_timeout,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_watch_rates, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
