/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * health.h - is the gateway doing its job? A pure decision: what the
 * daemon sees (struct health_input: the workers' heartbeats, the ports'
 * links, the XDP program's failure-path counters, the last reload) and the
 * time go in; the state (ok or degraded) and the list of reasons come out.
 * /healthz (503 and the reasons on one line), xdplanectl status and the
 * xdplane_degraded{reason} gauges all show the same result.
 *
 * The reasons are a table (health.c, one row each: name, help, check): a
 * new one is a row there and a value of enum health_reason here. Today:
 *   worker_stalled        a worker's loop has not turned for more than
 *                         stall_ns (an idle worker still turns once a
 *                         second)
 *   port_down             a port's link is not running (down or no carrier)
 *   port_gone             a port's interface was deleted
 *   fail_open             frames took the XDP program's failure path (no
 *                         socket: forwarded by the kernel, unclassified and
 *                         unshaped, or dropped with failure_mode closed)
 *                         within the last hold_ns
 *   queue_without_socket  frames arrived on an RX queue that has no socket
 *                         within the last hold_ns (the XDP program's
 *                         rx_no_socket counter: queues beyond the
 *                         configured ones, a NIC with more channels than
 *                         queues), or the port has queues without a socket
 *                         now (the gauge queues_without_socket)
 *   reload_failed         the last reload was refused; cleared by the next
 *                         applied one
 *   rx_starved            an AF_XDP socket of the port is starved by its
 *                         driver now (the gauge rx_starved, xsk_starve.h:
 *                         nothing received and its fill ring untaken for
 *                         2 s or more, while the driver asks to be woken or
 *                         frames are dropped); cleared when it receives
 *                         again
 *
 * State between evaluations (struct health): when each heartbeat and each
 * counter last moved. The first evaluation only records: a counter that
 * grew before it (the start-up window) is not held against the gateway.
 *
 * Threads: one owner (the daemon's control thread). Syscalls: none; the
 * clock is the caller's (now_ns, any monotonic time base), so the unit
 * tests run it on a fake clock.
 */
#ifndef XDPLANE_HEALTH_H
#define XDPLANE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEALTH_PORTS 2
#define HEALTH_MAX_WORKERS 128 /* GW_PORTS * GW_MAX_QUEUES */
#define HEALTH_MSG_MAX 200

enum health_reason {
	HEALTH_WORKER_STALLED,
	HEALTH_PORT_DOWN,
	HEALTH_PORT_GONE,
	HEALTH_FAIL_OPEN,
	HEALTH_QUEUE_WITHOUT_SOCKET,
	HEALTH_RELOAD_FAILED,
	HEALTH_RX_STARVED,
	HEALTH_N_REASONS,
};

struct health_params {
	uint64_t stall_ns; /* no heartbeat for longer: stalled */
	uint64_t hold_ns; /* a counter that moved stays a reason this long */
};

struct health_port_input {
	char name[16];
	bool link_up; /* IFF_UP and IFF_RUNNING, as last reported */
	bool gone; /* the interface was deleted */
	bool fail_closed; /* failure_mode closed: the failure path drops */
	uint64_t failure_path; /* frames that found no socket (verdicts) */
	uint64_t no_socket; /* frames on a queue without a socket */
	uint64_t queues_without_socket; /* the port's gauge, now */
	uint64_t starved; /* its starved sockets now (gauge rx_starved) */
	uint64_t starve_kicks; /* wake-ups issued for them, so far */
};

struct health_input {
	uint64_t now_ns;
	uint32_t n_workers; /* at most HEALTH_MAX_WORKERS are looked at */
	uint64_t heartbeat[HEALTH_MAX_WORKERS];
	struct health_port_input port[HEALTH_PORTS];
	bool reload_ok; /* the last reload attempt was applied */
	const char *reload_error; /* its reason when not; may be NULL */
};

/* What moved when, per worker and per port counter. */
struct health_mark {
	uint64_t seen; /* last value */
	uint64_t at; /* when it last changed (the first look: then) */
	uint64_t episode; /* counters: how much since it started moving */
	bool active; /* counters: moved within hold_ns */
};

struct health {
	struct health_params par;
	bool primed; /* evaluated at least once */
	struct health_mark beat[HEALTH_MAX_WORKERS];
	struct health_mark failure[HEALTH_PORTS], nosock[HEALTH_PORTS];
};

struct health_result {
	uint32_t degraded; /* bit (1 << enum health_reason) per reason */
	/* "ok", or the reasons: "name: message; name: message" */
	char line[1024];
	char msg[HEALTH_N_REASONS][HEALTH_MSG_MAX]; /* "" unless degraded */
};

struct stats_snapshot;

/* The input as a snapshot (snapshot.h) shows it: its monotonic time,
 * the workers' loops, the ports' links and the XDP verdicts (failure
 * path: fail-open, fail-open refused, fail-closed, queue out of range),
 * the no-socket counter and gauge (rx_no_socket, queues_without_socket),
 * the starved sockets (rx_starved, rx_starve_kicks), the last reload. */
void health_input_from_snapshot(const struct stats_snapshot *s,
				struct health_input *in);

void health_init(struct health *h, const struct health_params *par);
/* Update the state with what is seen now, and decide. */
void health_eval(struct health *h, const struct health_input *in,
		 struct health_result *out);
static inline bool health_ok(const struct health_result *r)
{
	return !r->degraded;
}
/* "worker_stalled", ...: the label value of xdplane_degraded{reason}. */
const char *health_reason_name(enum health_reason r);
/* One sentence: when the reason is raised. */
const char *health_reason_help(enum health_reason r);

#endif
