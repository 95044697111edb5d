/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conn.h - stream connections served by the control thread's event loop:
 * a listening socket, and per client an input buffer, an output queue, a
 * deadline and an idle timer. The control socket (ctl_server.c) and the
 * metrics listener (metrics_server.c) are protocol adapters on top.
 *
 * Robustness against malformed, slow and half-open clients:
 *  - input is bounded (in_max); what a protocol does with a full buffer is
 *    its business (answer "too long", 431...), but the buffer never grows;
 *  - output is queued without bound per response, but a connection with
 *    more than out_max bytes unsent is not read from (backpressure);
 *  - a connection that makes no progress (no byte in or out) for idle_ns,
 *    or passes the deadline its adapter set, is closed at the next tick;
 *  - at most max_conns connections: the next accepted one evicts the
 *    oldest, so a flood of idle connections can delay a real client by one
 *    accept, never lock it out;
 *  - SIGPIPE is never raised (MSG_NOSIGNAL), a reset peer is just closed.
 * Counters say how many were accepted, evicted, timed out and refused.
 *
 * Lifetime: a connection is freed only when its watch is not armed in the
 * loop (evloop.h): conn_close() cancels the watch, and the last callback
 * closes the fd and frees. Thread: the control thread only.
 *
 * Contracts (per function below): "Syscalls" lists every system call a
 * function may issue ("loop": none, or io_uring_enter when the loop's
 * submission queue is full, evloop.h; "allocates": malloc/free, which may
 * add brk, mmap, munmap; "logs": ioctl(2, TCGETS) and write(2) of
 * log.h). The connections' callbacks, run by evloop_run_once(), issue
 * accept4, getsockopt(SO_PEERCRED), recv and send (MSG_DONTWAIT,
 * MSG_NOSIGNAL), close, allocate, log a failed accept, and issue what the
 * adapter's ops do. Errors: 0 or -errno.
 */
#ifndef XDPLANE_CONN_H
#define XDPLANE_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "evloop.h"

struct conn_server;

struct conn {
	struct conn_server *srv;
	int fd;
	struct ev_watch w;
	char *in; /* in_max bytes */
	size_t in_len;
	char *out; /* queued output, out_off already sent */
	size_t out_len, out_off;
	uint64_t last_progress_ns;
	uint64_t deadline_ns; /* 0: none; set by the adapter */
	bool eof; /* the peer will send nothing more */
	bool closing; /* close once the output is sent */
	bool dead; /* closed: freed when the watch comes back */
	bool busy; /* in its callback: freed when that returns */
	struct ucred peer; /* Unix sockets: SO_PEERCRED at accept */
	void *proto; /* the adapter's state */
	struct conn *prev, *next; /* oldest first */
};

struct conn_ops {
	/* A new connection; 0 to keep it, or -errno (refused, out of
	 * memory) to close it once what it queued (conn_write) is sent. */
	int (*on_accept)(struct conn *c);
	/* New input in c->in[0..in_len) (or c->eof): consume with
	 * conn_consume(), answer with conn_write(), set c->closing. */
	void (*on_input)(struct conn *c);
	/* About to be freed: release c->proto. */
	void (*on_close)(struct conn *c);
};

struct conn_stats {
	uint64_t accepted, evicted, timed_out, refused, open;
};

struct conn_server {
	const char *name; /* for logs */
	struct evloop *loop;
	int lfd;
	struct ev_watch lw;
	const struct conn_ops *ops;
	void *ctx; /* the adapter's server state */
	size_t in_max, out_max;
	uint32_t max_conns;
	uint64_t idle_ns;
	struct conn *oldest, *newest;
	struct conn_stats st;
};

/* Start serving the listening socket lfd (non-blocking, owned from now
 * on). 0 or -errno (evloop_arm()'s). Syscalls: loop. */
int conn_server_start(struct conn_server *s, struct evloop *loop, int lfd);
/* Close every connection and the listener (the loop must run until
 * conn_server_idle() for the memory to be freed). Syscalls: loop, close;
 * allocates (free). */
void conn_server_stop(struct conn_server *s);
/* Syscalls: none. */
bool conn_server_idle(const struct conn_server *s);
/* Close connections past their deadline or idle too long.
 * Syscalls: as conn_close(). */
void conn_server_tick(struct conn_server *s, uint64_t now_ns);

/* Queue output; 0 or -ENOMEM. Syscalls: allocates. */
int conn_write(struct conn *c, const char *data, size_t len);
/* Syscalls: none. */
void conn_consume(struct conn *c, size_t n);
/* Syscalls: loop (the watch is cancelled), or close and allocates (free)
 * when it is not armed. */
void conn_close(struct conn *c);
/* CLOCK_MONOTONIC in ns. Syscalls: none (vDSO). */
uint64_t conn_now_ns(void);

#endif
