/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ctl_proto.h - what the unit tests of the control protocol
 * (test_ctl_proto_*.c, test_ctl_cli.c) share: a fake backend with a
 * hand-made snapshot (struct fake), setup() and teardown() of a session on
 * it, and exchanges of one request line whose response must end in exactly
 * one "\n" and parse as a JSON object with a boolean "ok" (checked on each
 * exchange), with accessors of its error and result. Each test file uses
 * some of them.
 */
#ifndef XDPLANE_TEST_CTL_PROTO_H
#define XDPLANE_TEST_CTL_PROTO_H

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

static __attribute__((unused)) struct fake fake;

static inline struct stats_snapshot *fake_snapshot(void *ctx)
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

static inline void fake_snapshot_free(void *ctx, struct stats_snapshot *s)
{
	struct fake *f = ctx;

	f->freed++;
	free(s);
}

static inline json_t *fake_reload(void *ctx, struct ctl_err *err)
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

static inline json_t *fake_flows(void *ctx, struct ctl_err *err)
{
	struct fake *f = ctx;

	if (f->flows)
		return json_incref(f->flows);
	snprintf(err->code, sizeof(err->code), "unavailable");
	snprintf(err->message, sizeof(err->message), "DCQCN is off");
	return NULL;
}

static inline json_t *fake_congestion(void *ctx, const char *port,
				      const char *cls, double severity,
				      const char *prefix, struct ctl_err *err)
{
	struct fake *f = ctx;

	f->congestion_calls++;
	snprintf(f->congestion_port, sizeof(f->congestion_port), "%s", port);
	snprintf(f->congestion_class, sizeof(f->congestion_class), "%s", cls);
	f->congestion_severity = severity;
	return json_pack("{s:i}", "flows_signalled", 3);
}

static inline int fake_log_level(void *ctx, const char *level,
				 const char **previous, struct ctl_err *err)
{
	struct fake *f = ctx;

	f->level_calls++;
	*previous = "info";
	snprintf(f->level, sizeof(f->level), "%s", level);
	return 0;
}

static inline json_t *fake_config(void *ctx, struct ctl_err *err)
{
	return json_pack("{s:s,s:i,s:s}", "path", "/etc/x.yaml", "generation",
			 3, "text", "ports:\n  - interface: 'eth1'\n");
}

static __attribute__((unused)) const struct ctl_backend backend = {
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

static inline void fill_class(struct snap_class *c, const char *name,
			      uint32_t id, uint32_t level)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->id = id;
	c->level = level;
	c->quantum = 1500;
	c->limit_bytes = 1000000;
	c->limit_packets = 1000;
}

static inline int setup(void **state)
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

static inline int teardown(void **state)
{
	json_decref(fake.flows);
	fake.flows = NULL;
	assert_int_equal(fake.taken, fake.freed);
	return 0;
}

/* One exchange: the response must be exactly one line of JSON (an object
 * with a boolean "ok"); returns it parsed. */
static inline json_t *exchange_n(struct ctl_session *s, const char *line,
				 size_t len)
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

static inline json_t *exchange(struct ctl_session *s, const char *line)
{
	return exchange_n(s, line, strlen(line));
}

static inline void greet(struct ctl_session *s)
{
	json_t *r;

	ctl_session_init(s);
	r = exchange(s, "{\"hello\":\"test\",\"version\":1}");
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	assert_true(s->greeted);
}

/* r is an error with this code; returns its message (valid while r is). */
static inline const char *error_of(json_t *r, const char *code)
{
	json_t *e = json_object_get(r, "error");

	assert_true(json_is_false(json_object_get(r, "ok")));
	assert_null(json_object_get(r, "result"));
	assert_string_equal(json_string_value(json_object_get(e, "code")),
			    code);
	assert_non_null(json_string_value(json_object_get(e, "message")));
	return json_string_value(json_object_get(e, "message"));
}

static inline json_t *result_of(json_t *r)
{
	if (!json_is_true(json_object_get(r, "ok"))) {
		char *s = json_dumps(r, JSON_COMPACT);

		fail_msg("expected success, got %s", s);
	}
	return json_object_get(r, "result");
}

/* Request with a fresh session, expect an error code. */
static inline void expect_error(const char *line, const char *code)
{
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange(&s, line);
	error_of(r, code);
	assert_false(s.closing);
	json_decref(r);
}

static inline json_int_t int_at(json_t *o, const char *path)
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

#endif
