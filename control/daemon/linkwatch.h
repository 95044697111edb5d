/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * linkwatch.h - the gateway's ports as the kernel sees them: an rtnetlink
 * socket (RTMGRP_LINK) watched by the control thread's event loop. It
 * tells the daemon when a port's link goes down or up (administratively or
 * carrier), when its interface vanishes (RTM_DELLINK of the ifindex the
 * gateway opened) and when an interface of the same name appears again
 * (with a new ifindex).
 *
 * Owner: the control thread only (the event loop is not thread-safe).
 * Invariants: one event per change of state, in kernel order; if the
 * kernel dropped notifications (ENOBUFS, the socket's buffer overran),
 * the ports are looked up by name again and the differences reported as
 * events, so no change is missed for good.
 *
 * Parsing (linkwatch_parse) is separate from I/O so that it can be tested
 * on crafted buffers: it never reads past `len`, whatever the lengths in
 * the messages say.
 *
 * The socket's callback, run by evloop_run_once(), issues recv
 * (MSG_DONTWAIT) until the socket is empty, after an overrun
 * if_nametoindex per port (socket(AF_UNIX) + ioctl(SIOCGIFINDEX) +
 * close), re-arms the watch (evloop.h), and calls lw->cb.
 * Errors: 0 or -errno, with a one-line message in (errbuf, errlen).
 */
#ifndef XDPLANE_LINKWATCH_H
#define XDPLANE_LINKWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>
#include "evloop.h"

#define LW_PORTS 2

enum lw_event_type {
	LW_LINK_DOWN, /* the port's interface is not running */
	LW_LINK_UP, /* running again */
	LW_GONE, /* the interface the port was opened on was deleted */
	LW_BACK, /* an interface with the port's name exists again */
};

struct lw_event {
	enum lw_event_type type;
	int port; /* 0 or 1 */
	int ifindex; /* LW_BACK: the new one */
};

typedef void (*lw_cb)(void *arg, const struct lw_event *ev);

struct lw_port {
	char name[IF_NAMESIZE];
	int ifindex; /* the one opened */
	bool running; /* IFF_UP and IFF_RUNNING, last seen */
	bool gone;
};

struct linkwatch {
	int fd;
	struct ev_watch w;
	struct evloop *loop;
	struct lw_port port[LW_PORTS];
	lw_cb cb;
	void *arg;
	unsigned long long overruns; /* ENOBUFS seen */
};

/* Open the socket and arm it; 0 or -errno (errbuf says why).
 * Syscalls: socket(AF_NETLINK, NETLINK_ROUTE), bind (RTMGRP_LINK), close
 * on failure; io_uring_enter when the loop's queue is full. */
int linkwatch_open(struct linkwatch *lw, struct evloop *loop,
		   const char *const names[LW_PORTS],
		   const int ifindex[LW_PORTS], lw_cb cb, void *arg,
		   char *errbuf, size_t errlen);
/* Syscalls: close (and io_uring_enter when the loop's queue is full). */
void linkwatch_close(struct linkwatch *lw);
/* Feed a buffer of netlink messages (what recv() returned): events go to
 * lw->cb. Exposed for the unit test. Syscalls: none of its own. */
void linkwatch_parse(struct linkwatch *lw, const void *buf, size_t len);

#endif
