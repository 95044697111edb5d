/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metrics_server.h - the HTTP listener for Prometheus (/metrics) and
 * health checks (/healthz): one request per connection, answered from a
 * fresh snapshot (http_req.h, metrics.h), served by the control thread's
 * event loop (conn.h).
 *
 * Limits: a request head of at most HTTP_REQ_MAX bytes, read within 10 s
 * of the connection (idle 5 s); at most 64 connections, the oldest evicted
 * by a new one. A scrape never waits for the dataplane: counters are read
 * where they are.
 *
 * Thread: the control thread only. Its connections run in the event
 * loop's callbacks (conn.h), which render the response (http_req.h) from
 * the snapshot the daemon's take() makes.
 *
 * Errors: 0 or -errno, with a one-line message in (err, errlen).
 */
#ifndef XDPLANE_METRICS_SERVER_H
#define XDPLANE_METRICS_SERVER_H

#include <sys/socket.h>
#include "conn.h"

struct stats_snapshot;

struct metrics_server {
	struct conn_server cs;
	struct stats_snapshot *(*take)(void *ctx);
	void (*release)(void *ctx, struct stats_snapshot *s);
	void *ctx;
	bool open;
};

/* Listen on addr (numeric; port 0 picks one, see the log). 0, or -errno
 * with err filled. Syscalls: socket, setsockopt(SO_REUSEADDR), bind,
 * listen, getsockname, close on failure; logs; loop (conn.h). */
int metrics_server_open(struct metrics_server *m, struct evloop *loop,
			const struct sockaddr *addr, socklen_t addrlen,
			struct stats_snapshot *(*take)(void *ctx),
			void (*release)(void *ctx, struct stats_snapshot *s),
			void *ctx, char *err, size_t errlen);
/* Syscalls: as conn_server_stop(). */
void metrics_server_close(struct metrics_server *m);

#endif
