// SPDX-License-Identifier: BSD-2-Clause
/*
 * ctl_proto.c - the control protocol's sessions: handshake, request
 * validation, dispatch to the verbs, responses. See ctl_proto.h for the
 * protocol.
 *
 * A line is parsed once into a jansson value; the verb handlers validate
 * their arguments completely before calling the backend, and return a
 * result object or NULL with a struct ctl_err. Responses are built as
 * jansson values and serialized compact, so a response is one line: JSON
 * escapes every control character inside strings. Text that did not come
 * from jansson (backend errors, parser messages quoting the input) goes
 * through ctl_json_text() so it is valid UTF-8.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctl_json.h"
#include "ctl_proto.h"
#include "ctl_proto_int.h"

#ifndef XDPLANE_VERSION
#define XDPLANE_VERSION "unknown"
#endif

#define HELLO_USAGE                                                            \
	"the first message must be {\"hello\":\"<client>\",\"version\":1}"

static json_t *verb_commands(const struct ctl_backend *be, json_t *args,
			     struct ctl_err *err);
static json_t *verb_status(const struct ctl_backend *be, json_t *args,
			   struct ctl_err *err);
static json_t *verb_stats(const struct ctl_backend *be, json_t *args,
			  struct ctl_err *err);
static json_t *verb_classes(const struct ctl_backend *be, json_t *args,
			    struct ctl_err *err);
static json_t *verb_flows(const struct ctl_backend *be, json_t *args,
			  struct ctl_err *err);
static json_t *verb_reload(const struct ctl_backend *be, json_t *args,
			   struct ctl_err *err);
static json_t *verb_congestion(const struct ctl_backend *be, json_t *args,
			       struct ctl_err *err);
static json_t *verb_log_level(const struct ctl_backend *be, json_t *args,
			      struct ctl_err *err);
static json_t *verb_config(const struct ctl_backend *be, json_t *args,
			   struct ctl_err *err);

/* writes: changes the daemon, refused on a read-only session */
static const struct verb {
	const char *name;
	verb_fn run;
	bool writes;
} verbs[] = {
	{"commands", verb_commands, false},
	{"status", verb_status, false},
	{"stats", verb_stats, false},
	{"classes", verb_classes, false},
	{"flows", verb_flows, false},
	{"config", verb_config, false},
	{"reload", verb_reload, true},
	{"congestion", verb_congestion, true},
	{"log-level", verb_log_level, true},
	{"jobs", ctl_verb_jobs, false},
	{"job-register", ctl_verb_job_register, true},
	{"job-unregister", ctl_verb_job_unregister, true},
};

#define N_VERBS (sizeof(verbs) / sizeof(verbs[0]))

static const char *const log_levels[] = {"err", "warn", "notice", "info",
					 "debug"};

void ctl_err_release(struct ctl_err *err)
{
	json_decref(err->details);
	err->details = NULL;
}

void ctl_err_set(struct ctl_err *err, const char *code, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->code, sizeof(err->code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

/* A backend error as sent: terminated, never an empty code. */
static void normalize_backend_err(struct ctl_err *err)
{
	err->code[sizeof(err->code) - 1] = '\0';
	err->message[sizeof(err->message) - 1] = '\0';
	if (!err->code[0])
		snprintf(err->code, sizeof(err->code), "internal");
	if (!err->message[0])
		snprintf(err->message, sizeof(err->message),
			 "the daemon failed without saying why");
}

const char *ctl_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

static json_t *commands_array(void)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < N_VERBS; i++) {
		if (json_array_append_new(a, json_string(verbs[i].name))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int ctl_only_keys(json_t *obj, const char *const *allowed, size_t n,
		  const char *code, const char *what, struct ctl_err *err)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		size_t i = 0;

		while (i < n && strcmp(key, allowed[i]))
			i++;
		if (i == n) {
			ctl_err_set(err, code, "unknown %s \"%.64s\"", what,
				    key);
			return -1;
		}
	}
	return 0;
}

int ctl_string_arg(json_t *args, const char *key, bool required,
		   const char **out, struct ctl_err *err)
{
	json_t *v = args ? json_object_get(args, key) : NULL;

	*out = NULL;
	if (!v) {
		if (!required)
			return 0;
		ctl_err_set(err, "bad_request", "missing argument \"%s\"", key);
		return -1;
	}
	if (!json_is_string(v)) {
		ctl_err_set(err, "bad_request",
			    "argument \"%s\" must be a string, not %s", key,
			    ctl_type_name(v));
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

static int no_args(json_t *args, struct ctl_err *err)
{
	return args ? ctl_only_keys(args, NULL, 0, "bad_request", "argument",
				    err)
		    : 0;
}

struct stats_snapshot *ctl_take_snapshot(const struct ctl_backend *be,
					 struct ctl_err *err)
{
	struct stats_snapshot *s = be->snapshot ? be->snapshot(be->ctx) : NULL;

	if (!s)
		ctl_err_set(err, "unavailable",
			    "no statistics snapshot could be taken");
	return s;
}

void ctl_drop_snapshot(const struct ctl_backend *be, struct stats_snapshot *s)
{
	if (be->snapshot_free)
		be->snapshot_free(be->ctx, s);
}

void ctl_out_of_memory(struct ctl_err *err)
{
	ctl_err_set(err, "internal", "out of memory");
}

const struct snap_port *ctl_find_port(const struct stats_snapshot *s,
				      const char *name)
{
	for (int i = 0; i < GW_PORTS; i++) {
		const struct snap_port *p = &s->ports[i];
		size_t n = strnlen(p->ifname, sizeof(p->ifname));

		if (strlen(name) == n && !memcmp(p->ifname, name, n))
			return p;
	}
	return NULL;
}

bool ctl_port_has_class(const struct snap_port *p, const char *name)
{
	uint32_t n =
		p->n_classes < QOS_MAX_CLASSES ? p->n_classes : QOS_MAX_CLASSES;

	for (uint32_t k = 0; k < n; k++) {
		const struct snap_class *c = &p->cls[k];
		size_t len = strnlen(c->name, sizeof(c->name));

		if (strlen(name) == len && !memcmp(c->name, name, len))
			return true;
	}
	return false;
}

static json_t *verb_commands(const struct ctl_backend *be, json_t *args,
			     struct ctl_err *err)
{
	json_t *a;

	if (no_args(args, err))
		return NULL;
	a = commands_array();
	if (!a) {
		ctl_out_of_memory(err);
		return NULL;
	}
	return json_pack("{s:o}", "commands", a);
}

/* {"state","line","reasons":[{"reason","message"}]} of the snapshot. */
static json_t *health_json(const struct health_result *h)
{
	json_t *reasons = json_array();

	for (int r = 0; reasons && r < HEALTH_N_REASONS; r++)
		if (h->degraded & (1u << r))
			json_array_append_new(
				reasons,
				json_pack("{s:s,s:o}", "reason",
					  health_reason_name(r), "message",
					  ctl_json_text(h->msg[r],
							sizeof(h->msg[r]))));
	return json_pack("{s:s,s:o,s:o}", "state",
			 health_ok(h) ? "ok" : "degraded", "line",
			 ctl_json_text(h->line, sizeof(h->line)), "reasons",
			 reasons);
}

/* Per worker: its CPU, the seconds its loop spent busy and idle. */
static json_t *workers_json(const struct stats_snapshot *s)
{
	json_t *a = json_array();
	uint32_t n = s->n_workers < SNAP_MAX_WORKERS ? s->n_workers
						     : SNAP_MAX_WORKERS;

	for (uint32_t i = 0; a && i < n; i++) {
		const struct snap_worker *w = &s->workers[i];

		json_array_append_new(
			a,
			json_pack("{s:i,s:o,s:f,s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:"
				  "f,s:I}",
				  "worker", (int)i, "cpu",
				  w->cpu >= 0 ? json_integer(w->cpu)
					      : json_null(),
				  "busy_s", (double)w->busy_ns / 1e9, "idle_s",
				  (double)w->idle_ns / 1e9, "sleep_s",
				  (double)w->sleep_ns / 1e9, "sleeps",
				  (json_int_t)w->sleeps, "timed_wakes",
				  (json_int_t)w->timed_wakes, "late_wakes",
				  (json_int_t)w->late_wakes, "spin_waits",
				  (json_int_t)w->spin_waits, "naps",
				  (json_int_t)w->naps, "wake_late_us",
				  (double)w->wake_late_ns / 1e3, "loops",
				  (json_int_t)w->loops));
	}
	return a;
}

static json_t *verb_status(const struct ctl_backend *be, json_t *args,
			   struct ctl_err *err)
{
	struct stats_snapshot *s;
	json_t *r;

	if (no_args(args, err) || !(s = ctl_take_snapshot(be, err)))
		return NULL;
	r = ctl_json_status(s, be->pid);
	if (r && (json_object_set_new(r, "health", health_json(&s->health)) ||
		  json_object_set_new(r, "workers_load", workers_json(s)))) {
		json_decref(r);
		r = NULL;
	}
	ctl_drop_snapshot(be, s);
	if (!r)
		ctl_out_of_memory(err);
	return r;
}

static json_t *verb_stats(const struct ctl_backend *be, json_t *args,
			  struct ctl_err *err)
{
	static const char *const allowed[] = {"port"};
	struct stats_snapshot *s;
	const char *port;
	json_t *r;

	if (args &&
	    ctl_only_keys(args, allowed, 1, "bad_request", "argument", err))
		return NULL;
	if (ctl_string_arg(args, "port", false, &port, err))
		return NULL;
	if (!(s = ctl_take_snapshot(be, err)))
		return NULL;
	if (port && !ctl_find_port(s, port)) {
		ctl_err_set(err, "bad_request", "no port \"%.32s\"", port);
		ctl_drop_snapshot(be, s);
		return NULL;
	}
	r = ctl_json_stats(s, port);
	ctl_drop_snapshot(be, s);
	if (!r)
		ctl_out_of_memory(err);
	return r;
}

static json_t *verb_classes(const struct ctl_backend *be, json_t *args,
			    struct ctl_err *err)
{
	struct stats_snapshot *s;
	json_t *r;

	if (no_args(args, err) || !(s = ctl_take_snapshot(be, err)))
		return NULL;
	r = ctl_json_classes(s);
	ctl_drop_snapshot(be, s);
	if (!r)
		ctl_out_of_memory(err);
	return r;
}

static json_t *verb_flows(const struct ctl_backend *be, json_t *args,
			  struct ctl_err *err)
{
	json_t *flows;

	if (no_args(args, err))
		return NULL;
	if (!be->flows) {
		ctl_err_set(err, "unavailable", "flow state is not available");
		return NULL;
	}
	flows = be->flows(be->ctx, err);
	if (!flows) {
		normalize_backend_err(err);
		return NULL;
	}
	if (!json_is_array(flows)) {
		json_decref(flows);
		ctl_err_set(err, "internal", "the flow table is not an array");
		return NULL;
	}
	return json_pack("{s:o}", "flows", flows);
}

json_t *ctl_backend_object(json_t *r, struct ctl_err *err)
{
	if (!r) {
		normalize_backend_err(err);
		return NULL;
	}
	if (!json_is_object(r)) {
		json_decref(r);
		ctl_err_set(err, "internal",
			    "the daemon's result is not an object");
		return NULL;
	}
	return r;
}

static json_t *verb_reload(const struct ctl_backend *be, json_t *args,
			   struct ctl_err *err)
{
	if (no_args(args, err))
		return NULL;
	if (!be->reload) {
		ctl_err_set(err, "unavailable", "reload is not available");
		return NULL;
	}
	return ctl_backend_object(be->reload(be->ctx, err), err);
}

static json_t *verb_congestion(const struct ctl_backend *be, json_t *args,
			       struct ctl_err *err)
{
	static const char *const allowed[] = {"port", "class", "severity",
					      "prefix"};
	const struct snap_port *p;
	struct stats_snapshot *s;
	const char *port, *cls, *prefix = NULL;
	double severity = 1.0;
	json_t *v;

	if (args &&
	    ctl_only_keys(args, allowed, 4, "bad_request", "argument", err))
		return NULL;
	if (ctl_string_arg(args, "port", true, &port, err) ||
	    ctl_string_arg(args, "class", true, &cls, err) ||
	    ctl_string_arg(args, "prefix", false, &prefix, err))
		return NULL;
	v = json_object_get(args, "severity");
	if (v) {
		if (!json_is_number(v)) {
			ctl_err_set(
				err, "bad_request",
				"argument \"severity\" must be a number, not "
				"%s",
				ctl_type_name(v));
			return NULL;
		}
		severity = json_number_value(v);
		if (!(severity >= 0.0 && severity <= 1.0)) {
			ctl_err_set(err, "bad_request",
				    "severity %g is out of range: 0 to 1",
				    severity);
			return NULL;
		}
	}
	if (!be->congestion) {
		ctl_err_set(err, "unavailable", "congestion is not available");
		return NULL;
	}
	if (!(s = ctl_take_snapshot(be, err)))
		return NULL;
	p = ctl_find_port(s, port);
	if (!p)
		ctl_err_set(err, "bad_request", "no port \"%.32s\"", port);
	else if (!ctl_port_has_class(p, cls))
		ctl_err_set(err, "bad_request",
			    "port \"%.32s\" has no class \"%.64s\"", port, cls);
	ctl_drop_snapshot(be, s);
	if (err->code[0])
		return NULL;
	return ctl_backend_object(
		be->congestion(be->ctx, port, cls, severity, prefix, err), err);
}

static json_t *verb_log_level(const struct ctl_backend *be, json_t *args,
			      struct ctl_err *err)
{
	static const char *const allowed[] = {"level"};
	const char *level, *previous = NULL;
	size_t i, n = sizeof(log_levels) / sizeof(log_levels[0]);

	if (args &&
	    ctl_only_keys(args, allowed, 1, "bad_request", "argument", err))
		return NULL;
	if (ctl_string_arg(args, "level", true, &level, err))
		return NULL;
	for (i = 0; i < n && strcmp(level, log_levels[i]); i++)
		;
	if (i == n) {
		ctl_err_set(err, "bad_request",
			    "level \"%.32s\" is not one of err, warn, notice, "
			    "info, "
			    "debug",
			    level);
		return NULL;
	}
	if (!be->log_level) {
		ctl_err_set(err, "unavailable",
			    "the log level cannot be changed");
		return NULL;
	}
	if (be->log_level(be->ctx, log_levels[i], &previous, err)) {
		normalize_backend_err(err);
		return NULL;
	}
	return json_pack("{s:o,s:s}", "previous", ctl_json_text(previous, 16),
			 "level", log_levels[i]);
}

static json_t *verb_config(const struct ctl_backend *be, json_t *args,
			   struct ctl_err *err)
{
	if (no_args(args, err))
		return NULL;
	if (!be->config) {
		ctl_err_set(err, "unavailable",
			    "the running configuration is not available");
		return NULL;
	}
	return ctl_backend_object(be->config(be->ctx, err), err);
}

/* An object {"ok":ok[,"id":id]}, or NULL. */
static json_t *response(bool ok, json_t *id)
{
	json_t *r = json_object();

	if (!r || json_object_set_new(r, "ok", json_boolean(ok)) ||
	    (id && json_object_set(r, "id", id))) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* {"ok":true,["id":id,]"result":result}; takes result's reference. */
static json_t *ok_response(json_t *id, json_t *result)
{
	json_t *r = response(true, id);

	if (!r) {
		json_decref(result);
		return NULL;
	}
	if (json_object_set_new(r, "result", result)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* {"ok":false,["id":id,]"error":{"code","message"[,"details"]}}; takes
 * err->details. */
static json_t *error_response(json_t *id, struct ctl_err *err)
{
	json_t *r = response(false, id), *e;

	e = json_pack("{s:o,s:o}", "code",
		      ctl_json_text(err->code, sizeof(err->code)), "message",
		      ctl_json_text(err->message, sizeof(err->message)));
	if (err->details && !e)
		json_decref(err->details);
	else if (err->details &&
		 json_object_set_new(e, "details", err->details)) {
		json_decref(e);
		e = NULL;
	}
	err->details = NULL;
	if (!r || !e) {
		json_decref(r);
		json_decref(e);
		return NULL;
	}
	if (json_object_set_new(r, "error", e)) {
		json_decref(r);
		return NULL;
	}
	return r;
}

/* The response as one line ending in "\n"; r is released. */
static char *serialize(json_t *r)
{
	static const char oom[] = "{\"ok\":false,\"error\":{\"code\":"
				  "\"internal\",\"message\":\"out of "
				  "memory\"}}\n";
	char *text = r ? json_dumps(r, JSON_COMPACT) : NULL, *line;
	size_t n;

	json_decref(r);
	if (!text)
		return strdup(oom);
	n = strlen(text);
	line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return strdup(oom);
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	return line;
}

/* Before the handshake: req is NULL (with err set to the parse error) or
 * any JSON value. */
static json_t *hello(struct ctl_session *s, json_t *req, json_t *id,
		     struct ctl_err *err)
{
	static const char *const allowed[] = {"hello", "version", "id"};
	json_t *name, *version, *r;

	if (!req) {
		char why[sizeof(err->message)];

		snprintf(why, sizeof(why), "%.300s", err->message);
		ctl_err_set(err, "handshake", HELLO_USAGE "; got %s", why);
		goto refuse;
	}
	if (!json_is_object(req)) {
		ctl_err_set(err, "handshake", HELLO_USAGE "; got %s",
			    ctl_type_name(req));
		goto refuse;
	}
	if (ctl_only_keys(req, allowed, 3, "handshake", "key", err))
		goto refuse;
	name = json_object_get(req, "hello");
	version = json_object_get(req, "version");
	if (!json_is_string(name) || !json_is_integer(version)) {
		ctl_err_set(err, "handshake", HELLO_USAGE);
		goto refuse;
	}
	if (json_integer_value(version) != CTL_PROTO_VERSION) {
		ctl_err_set(err, "version",
			    "protocol version %" JSON_INTEGER_FORMAT
			    " is not supported; this server speaks version %d",
			    json_integer_value(version), CTL_PROTO_VERSION);
		s->closing = true;
		r = error_response(id, err);
		if (r && json_object_set_new(r, "version",
					     json_integer(CTL_PROTO_VERSION))) {
			json_decref(r);
			r = NULL;
		}
		return r;
	}
	snprintf(s->client, sizeof(s->client), "%s", json_string_value(name));
	s->greeted = true;
	r = json_pack("{s:b,s:i,s:s,s:s,s:o}", "ok", 1, "version",
		      CTL_PROTO_VERSION, "server", "xdplane", "server_version",
		      XDPLANE_VERSION, "commands", commands_array());
	if (r && id && json_object_set(r, "id", id)) {
		json_decref(r);
		r = NULL;
	}
	return r;
refuse:
	s->closing = true;
	return error_response(id, err);
}

static json_t *request(const struct ctl_session *s, json_t *req, json_t *id,
		       const struct ctl_backend *be, struct ctl_err *err)
{
	static const char *const allowed[] = {"command", "args", "id"};
	json_t *cmd, *args, *result;
	const char *name;

	if (json_object_get(req, "hello")) {
		ctl_err_set(err, "bad_request",
			    "the handshake is already done");
		return NULL;
	}
	if (ctl_only_keys(req, allowed, 3, "bad_request", "key", err))
		return NULL;
	cmd = json_object_get(req, "command");
	if (!json_is_string(cmd)) {
		ctl_err_set(err, "bad_request",
			    cmd ? "\"command\" must be a string"
				: "missing \"command\"");
		return NULL;
	}
	args = json_object_get(req, "args");
	if (args && !json_is_object(args)) {
		ctl_err_set(err, "bad_request",
			    "\"args\" must be an object, not %s",
			    ctl_type_name(args));
		return NULL;
	}
	name = json_string_value(cmd);
	for (size_t i = 0; i < N_VERBS; i++) {
		if (strcmp(name, verbs[i].name))
			continue;
		if (s->readonly && verbs[i].writes) {
			ctl_err_set(err, "read_only",
				    "\"%s\" changes the daemon; this is the "
				    "read-only control socket "
				    "(control.readonly_group): use the control "
				    "socket (control.socket) for it",
				    verbs[i].name);
			return NULL;
		}
		result = verbs[i].run(be, args, err);
		return result ? ok_response(id, result) : NULL;
	}
	ctl_err_set(err, "unknown_command",
		    "unknown command \"%.64s\"; \"commands\" lists them", name);
	return NULL;
}

void ctl_session_init(struct ctl_session *s)
{
	memset(s, 0, sizeof(*s));
}

char *ctl_session_handle(struct ctl_session *s, const char *line, size_t len,
			 const struct ctl_backend *be)
{
	struct ctl_err err = {0};
	json_error_t jerr;
	json_t *req, *id = NULL, *r;

	if (len > CTL_LINE_MAX)
		return ctl_session_too_long(s);
	s->requests++;
	req = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
			 &jerr);
	if (!req)
		ctl_err_set(&err, "parse",
			    "invalid JSON at line %d column %d: %s", jerr.line,
			    jerr.column, jerr.text);
	else if (json_is_object(req))
		id = json_object_get(req, "id");

	if (s->closing) {
		ctl_err_set(&err, "handshake", "the session is closing");
		r = error_response(id, &err);
	} else if (!s->greeted) {
		r = hello(s, req, id, &err);
	} else if (!req) {
		r = error_response(NULL, &err);
	} else if (!json_is_object(req)) {
		ctl_err_set(&err, "parse",
			    "a request must be a JSON object, not %s",
			    ctl_type_name(req));
		r = error_response(NULL, &err);
	} else {
		r = request(s, req, id, be, &err);
		if (!r) {
			if (!err.code[0])
				ctl_out_of_memory(&err);
			r = error_response(id, &err);
		}
	}
	json_decref(req);
	ctl_err_release(&err);
	return serialize(r);
}

char *ctl_session_too_long(struct ctl_session *s)
{
	struct ctl_err err = {0};

	s->requests++;
	ctl_err_set(&err, "too_long",
		    "request line longer than %d bytes; discarded",
		    CTL_LINE_MAX);
	if (!s->greeted)
		s->closing = true;
	return serialize(error_response(NULL, &err));
}
