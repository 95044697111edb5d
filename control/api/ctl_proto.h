/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctl_proto.h - the control protocol, server side, without I/O: one session
 * per connection turns each request line into one response line. The
 * socket server (ctl_server.c) splits the byte stream into lines, calls
 * ctl_session_handle() per line and writes back what it returns; the data
 * comes from the daemon through struct ctl_backend. Pure: no sockets, no
 * globals, so it is unit-tested and fuzzed without a daemon.
 *
 * Protocol v1. Newline-delimited JSON over a Unix stream socket: every
 * request and every response is one JSON object (UTF-8) on one line ended
 * by "\n". A request line is at most CTL_LINE_MAX bytes without the "\n";
 * a response line has no length limit (stats of 2 x 64 queues is ~200 KB).
 *
 * 1. Handshake, the client's first line:
 *      {"hello":"<client name>","version":1}
 *    -> {"ok":true,"version":1,"server":"xdplane",
 *        "server_version":"<XDPLANE_VERSION>","commands":[...]}
 *    A version the server does not speak (any integer but 1):
 *    -> {"ok":false,"error":{"code":"version","message":"..."},"version":1}
 *    and the server closes the connection. Anything else before the
 *    handshake (not JSON, no "hello", wrong types, an unknown key, a line
 *    too long) gets code "handshake" ("too_long" for a long line) and the
 *    server closes.
 *
 * 2. Requests, any number, one at a time, answered in order:
 *      {"command":"<verb>","args":{...},"id":<any JSON>}
 *    "args" and "id" are optional; no other key is allowed. The "id" is
 *    echoed unchanged in the response when the request carried one (also
 *    on errors, as long as the line was a JSON object).
 *    -> {"ok":true,"id":...,"result":{...}}
 *    -> {"ok":false,"id":...,"error":{"code":"<code>","message":"<text>"}}
 *    Codes: "parse" (not JSON or not an object; the message carries
 *    jansson's "line L column C" text), "bad_request" (a missing,
 *    wrong-typed or unknown field or argument, a value out of range, a port
 *    or class that does not exist), "unknown_command", "handshake",
 *    "version", "too_long", "unavailable" (the daemon cannot answer that
 *    now, e.g. no snapshot), "internal", and whatever the backend returns
 *    ("invalid_config", "restart_required", ...). An error may carry
 *    "details", an array of strings (a refused file's further errors:
 *    struct ctl_err.details). An error never closes the session, except
 *    handshake and version failures.
 *
 * 3. Verbs and their "result":
 *    commands                 {"commands":["commands","status",...]}
 *    status                   ctl_json_status(): version, pid, uptime,
 *                             config path, generation, last reload, modes,
 *                             workers, UMEM, placement of every queue;
 *                             plus "health" {"state":"ok"|"degraded",
 *                             "line","reasons":[{"reason","message"}]}
 *                             and "workers_load" [{"worker","cpu",
 *                             "busy_s","idle_s","sleep_s","sleeps",
 *                             "timed_wakes","late_wakes","spin_waits",
 *                             "naps","wake_late_us","loops"}]
 *    config                   the backend's {"path","generation","text"}:
 *                             the running configuration as
 *                             `xdplane --dump-config` prints it
 *    stats [port]             ctl_json_stats(): {"now_unix","now_mono_ns",
 *                             "uptime_s","ports":[...]}, one port only with
 *                             args {"port":"<ifname>"}
 *    classes                  ctl_json_classes(): class config + counters
 *                             per egress port, no queue detail
 *    flows                    {"flows":[...]} from the backend (DCQCN)
 *    reload                   the backend's result object
 *    congestion               args {"port":"<ifname>","class":"<name>",
 *                             "severity":0..1 (default 1),
 *                             "prefix":"<addr>/<len>" (default: every
 *                             destination)}; the port and the class must
 *                             exist in a fresh snapshot; the backend
 *                             checks the prefix; its result object
 *    log-level                args {"level":"err|warn|notice|info|debug"}
 *                             -> {"previous":"<level>","level":"<level>"}
 *    jobs                     ctl_json_jobs() of the snapshot's job
 *                             table: {"mode","max_registered",
 *                             "max_passive","registered","passive",
 *                             "hosts","edges","counters":{...},
 *                             "jobs":[{"id","source","prefixes","dscp",
 *                             "class","gpus","hosts","created_unix",
 *                             "last_seen_unix","flows_seen"}]}
 *    job-register             args {"id":"<id>","prefixes":["<prefix>",
 *                             ...] (at most 16),"dscp":0..63,
 *                             "class":"<a configured class>",
 *                             "gpus":0..1000000}; id required, the rest
 *                             optional (a job needs prefixes or a dscp);
 *                             checked as job_reg_check() does, the class
 *                             against a fresh snapshot; the backend's
 *                             result {"job","updated"}
 *    job-unregister           args {"id":"<id>"} -> {"job","unregistered"}
 *    With jobs.mode off the three answer "unavailable" ("jobs are off
 *    (jobs.mode: off)"); a refused registration answers "bad_request"
 *    (a bad field), "conflict" (it overlaps a registered job) or
 *    "table_full", an unknown id "not_found", each with the job table's
 *    reason after "job-register: " / "job-unregister: ".
 *
 *    A read-only session (the socket of control.readonly_group) answers
 *    the verbs that change the daemon (reload, congestion, log-level,
 *    job-register, job-unregister) with code "read_only"; the others as
 *    above.
 *
 * Threads: everything here runs on the control thread, as do the backend
 * callbacks. A session is owned by its connection.
 * Memory: a request is parsed from at most CTL_LINE_MAX bytes (jansson
 * bounds the nesting depth); nothing is kept between requests but the
 * session flags, so memory per client is bounded by one request plus one
 * response.
 */
#ifndef XDPLANE_CTL_PROTO_H
#define XDPLANE_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>
#include "job_table.h"
#include "snapshot.h"

#define CTL_PROTO_VERSION 1
#define CTL_JOB_GPUS_MAX 1000000
#define CTL_LINE_MAX 65536

/* An error as the backend reports it; both strings NUL-terminated. A code
 * left empty is sent as "internal". */
struct ctl_err {
	char code[32];
	char message[480];
	/* NULL, or an array of strings sent as the error's "details" (the
	 * further errors of a refused file); owned by the ctl_err until an
	 * error response takes it, freed by whoever made the ctl_err
	 * otherwise (ctl_err_release()). */
	json_t *details;
};

/* Free err->details, if any. */
void ctl_err_release(struct ctl_err *err);

/* Fill an error: code, then a printf-style message (truncated). */
void ctl_err_set(struct ctl_err *err, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Implemented by the daemon; every callback is called on the control
 * thread. A NULL callback answers "unavailable". */
struct ctl_backend {
	void *ctx;
	/* A fresh snapshot, NULL on failure. */
	struct stats_snapshot *(*snapshot)(void *ctx);
	void (*snapshot_free)(void *ctx, struct stats_snapshot *s);
	/* Result object (the session takes the reference), or NULL + err. */
	json_t *(*reload)(void *ctx, struct ctl_err *err);
	/* Array of flow objects, possibly empty, or NULL + err. */
	json_t *(*flows)(void *ctx, struct ctl_err *err);
	/* Called with a port and class that exist, severity in [0, 1],
	 * prefix NULL (all destinations) or the client's text. */
	json_t *(*congestion)(void *ctx, const char *port, const char *cls,
			      double severity, const char *prefix,
			      struct ctl_err *err);
	/* level is one of err|warn|notice|info|debug; *previous gets the
	 * level before (a static string). 0, or -1 + err. */
	int (*log_level)(void *ctx, const char *level, const char **previous,
			 struct ctl_err *err);
	/* The running configuration: {"path","generation","text"}, or
	 * NULL + err. */
	json_t *(*config)(void *ctx, struct ctl_err *err);
	/* Register r (job_reg_check() passed, its class configured):
	 * {"job","updated"}, or NULL + err (the job table's reason). */
	json_t *(*job_register)(void *ctx, const struct job_reg *r,
				struct ctl_err *err);
	/* Unregister the registered job id: {"job","unregistered"}, or
	 * NULL + err. */
	json_t *(*job_unregister)(void *ctx, const char *id,
				  struct ctl_err *err);
	pid_t pid;
};

struct ctl_session {
	bool greeted; /* the handshake succeeded */
	bool closing; /* close after writing the last response */
	bool readonly; /* the verbs that change the daemon are refused */
	char client[64]; /* the client's "hello" name, for logs */
	unsigned long long requests; /* lines handled, handshake included */
};

void ctl_session_init(struct ctl_session *s);

/*
 * Handle one line (without the "\n"; may hold any bytes, NUL included).
 * Returns the malloc'd response line, which ends with exactly one "\n" and
 * holds no other; sets s->closing when the server must close after writing
 * it. Returns NULL only when out of memory: the server should close.
 */
char *ctl_session_handle(struct ctl_session *s, const char *line, size_t len,
			 const struct ctl_backend *be);

/* Response to a line longer than CTL_LINE_MAX, which the server discards:
 * code "too_long"; closing if the handshake has not happened. */
char *ctl_session_too_long(struct ctl_session *s);

#endif
