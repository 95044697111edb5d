// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_ctl_proto.c - libFuzzer target: the input is split on '\n' into
 * lines fed, in order, to one control-protocol session over a fake
 * backend, as the socket server would (a line over CTL_LINE_MAX gets
 * ctl_session_too_long(); after a response that closes the session, the
 * next line starts a new session, like a new connection).
 *
 * The backend serves a fixed snapshot (two ports with queues and classes,
 * one class name that is not UTF-8) rendered by the real ctl_json views,
 * and alternates success and failure: every third snapshot fails, reload
 * and flows fail every other call, congestion and log-level fail on odd
 * calls, one failure with an empty error code. The job verbs run on a
 * real job table (dataplane/jobs/job_table.h, small bounds, made anew
 * for every input) copied into every snapshot but every fifth (jobs off
 * there).
 *
 * Checks on every response, besides memory errors: it is not NULL, ends
 * in exactly one "\n" with no other, parses as a JSON object with a
 * boolean "ok", and an error carries a string code and message; a session
 * is greeted only after an "ok" response; every snapshot taken is freed.
 *
 * Linked from control/api/ctl_proto.c, ctl_jobs.c, control/api/ctl_json.c,
 * control/state/snap_jobs.c, the job table,
 * dataplane/pkt/pkt_parse.c (malformed-reason names) and
 * dataplane/xsk/steer_names.c (XDP verdict names).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl_proto.h"
#include "steer_prog.h"
#include "fuzz_check.h"

struct fake {
	unsigned int snapshots, reloads, flows, congestions, levels;
	int outstanding; /* snapshots taken and not freed */
};

static struct stats_snapshot base;
static struct job_table jobs;

static void fail(struct ctl_err *err, const char *code, const char *msg)
{
	snprintf(err->code, sizeof(err->code), "%s", code);
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

static struct stats_snapshot *fake_snapshot(void *ctx)
{
	struct fake *f = ctx;
	struct stats_snapshot *s;

	if (++f->snapshots % 3 == 0)
		return NULL;
	s = malloc(sizeof(*s));
	CHECK(s);
	*s = base;
	s->ports[0].s.rx_packets += f->snapshots;
	s->jobs = NULL;
	if (f->snapshots % 5)
		CHECK(!snap_jobs_take(s, &jobs, "observe"));
	f->outstanding++;
	return s;
}

static void fake_snapshot_free(void *ctx, struct stats_snapshot *s)
{
	struct fake *f = ctx;

	CHECK(s);
	f->outstanding--;
	free(s->jobs);
	free(s);
}

static json_t *fake_job_register(void *ctx, const struct job_reg *r,
				 struct ctl_err *err)
{
	struct fake *f = ctx;
	char why[256];

	CHECK(!job_reg_check(r, NULL, 0));
	if (job_table_register(&jobs, r, ++f->snapshots, why, sizeof(why)) ==
	    JOB_NONE) {
		fail(err, "conflict", why);
		return NULL;
	}
	CHECK(!job_table_check(&jobs));
	return json_pack("{s:s}", "job", r->id);
}

static json_t *fake_job_unregister(void *ctx, const char *id,
				   struct ctl_err *err)
{
	(void)ctx;
	CHECK(id);
	if (job_table_unregister(&jobs, id)) {
		fail(err, "not_found", "no such job");
		return NULL;
	}
	return json_pack("{s:s}", "job", id);
}

static json_t *fake_reload(void *ctx, struct ctl_err *err)
{
	struct fake *f = ctx;

	if (++f->reloads % 2 == 0) {
		fail(err, "invalid_config", "x.yaml:1:1: \xff not valid");
		return NULL;
	}
	return json_pack("{s:i}", "generation", (int)f->reloads);
}

static json_t *fake_flows(void *ctx, struct ctl_err *err)
{
	struct fake *f = ctx;

	if (++f->flows % 2 == 0) {
		fail(err, "", ""); /* sent as "internal" */
		return NULL;
	}
	return json_pack("[{s:s,s:f}]", "flow", "10.0.0.1:4791", "rate", 0.5);
}

static json_t *fake_congestion(void *ctx, const char *port, const char *cls,
			       double severity, const char *prefix,
			       struct ctl_err *err)
{
	struct fake *f = ctx;

	CHECK(severity >= 0.0 && severity <= 1.0);
	CHECK(port && cls);
	if (++f->congestions % 2) {
		fail(err, "unavailable", "DCQCN is off");
		return NULL;
	}
	return json_pack("{s:s,s:s,s:f}", "port", port, "class", cls,
			 "severity", severity);
}

static int fake_log_level(void *ctx, const char *level, const char **previous,
			  struct ctl_err *err)
{
	struct fake *f = ctx;

	CHECK(level);
	if (++f->levels % 2) {
		fail(err, "internal", "cannot");
		return -1;
	}
	*previous = "info";
	return 0;
}

static void set_class(struct snap_class *c, const char *name, uint32_t level)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->level = level;
	c->quantum = 1500;
	c->s.sent_bytes = 1ull << 62;
	c->s.sojourn[5] = 9;
}

static void setup(void)
{
	static const char *const names[] = {"eth1", "eth2"};

	base.version = "fuzz";
	snprintf(base.config_path, sizeof(base.config_path), "/etc/x.yaml");
	base.xdp_mode = "native";
	base.bind_mode = NULL;
	base.failure_mode = "fail-open";
	base.uptime_s = 12.5;
	for (int p = 0; p < GW_PORTS; p++) {
		struct snap_port *sp = &base.ports[p];

		snprintf(sp->ifname, sizeof(sp->ifname), "%s", names[p]);
		sp->s.tx_bytes = UINT64_MAX;
		sp->n_queues = 3;
		for (uint32_t q = 0; q < sp->n_queues; q++) {
			sp->q[q].queue = q;
			sp->q[q].worker = (int)q - 1;
			sp->q[q].cpu = (int)q;
		}
		sp->n_classes = 3;
		set_class(&sp->cls[0], "cnp", 0);
		set_class(&sp->cls[1], "roce", 1);
		set_class(&sp->cls[2], "\xff\xfe", 2);
	}
}

/* One response: a single line of JSON, an object with "ok". */
static void check_response(struct ctl_session *s, char *out, bool was_greeted)
{
	json_error_t jerr;
	json_t *r, *e;
	size_t n;

	CHECK(out);
	n = strlen(out);
	CHECK(n >= 2 && out[n - 1] == '\n');
	CHECK(!memchr(out, '\n', n - 1));
	r = json_loadb(out, n - 1, 0, &jerr);
	CHECK(r && json_is_object(r));
	CHECK(json_is_boolean(json_object_get(r, "ok")));
	if (json_is_false(json_object_get(r, "ok"))) {
		e = json_object_get(r, "error");
		CHECK(json_is_string(json_object_get(e, "code")));
		CHECK(json_string_length(json_object_get(e, "code")) > 0);
		CHECK(json_is_string(json_object_get(e, "message")));
		CHECK(!s->greeted || was_greeted); /* an error greets nobody */
	} else {
		CHECK(s->greeted && !s->closing);
	}
	json_decref(r);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct fake f = {0};
	const struct ctl_backend be = {
		.ctx = &f,
		.snapshot = fake_snapshot,
		.snapshot_free = fake_snapshot_free,
		.reload = fake_reload,
		.flows = fake_flows,
		.congestion = fake_congestion,
		.log_level = fake_log_level,
		.job_register = fake_job_register,
		.job_unregister = fake_job_unregister,
		.pid = 1234,
	};
	const char *p = (const char *)data, *end = p + size, *nl;
	struct ctl_session s;
	bool was_greeted;
	char *out, *line;
	size_t len;

	if (!ready) {
		setup();
		ready = true;
	}
	CHECK(!job_table_init(&jobs,
			      &(struct job_table_params){.max_registered = 4,
							 .max_passive = 4,
							 .max_hosts = 16,
							 .max_edges = 16,
							 .idle_ns = 1000},
			      NULL, 0));
	ctl_session_init(&s);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		was_greeted = s.greeted;
		if (len > CTL_LINE_MAX) {
			out = ctl_session_too_long(&s);
		} else {
			/* An exact-size copy, so an over-read is caught. */
			line = malloc(len ? len : 1);
			CHECK(line);
			memcpy(line, p, len);
			out = ctl_session_handle(&s, line, len, &be);
			free(line);
		}
		check_response(&s, out, was_greeted);
		CHECK(f.outstanding == 0);
		if (s.closing)
			ctl_session_init(&s); /* the next connection */
		p += len + 1;
	}
	job_table_fini(&jobs);
	return 0;
}
