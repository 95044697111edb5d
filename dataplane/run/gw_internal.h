/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gw_internal.h - struct gateway, shared by the gateway's files and by
 * nobody else (gateway.c life cycle, gw_ports.c ports and sockets,
 * gw_units.c tasks, rings and workers, gw_stats.c statistics).
 *
 * Ownership: the control thread owns struct gateway and everything it
 * points to outside the tasks, rings and workers; from gateway_start()
 * to gateway_stop() each RX and egress task belongs to its worker
 * (gateway.h), and the control thread only reads their single-writer
 * counters, writes eg[u].port_down and posts to the hint rings.
 *
 * Units: the gateway has GW_PORTS * queues units. Unit u is the RX task
 * of (port u / queues, queue u % queues) and the egress task that takes
 * its frames: it transmits on queue u % queues of the OTHER port. So the
 * egress task transmitting on (port, q) is the one of unit
 * gw_unit(gw, 1 - port, q) (gw_unit_tx), and the egress task of unit
 * gw_unit(gw, port, q) sends the NP's CNPs and the PFC frames that leave
 * by `port` (through the other port's egress task of the same queue,
 * gw_unit_peer). The helpers below are the only place that arithmetic is
 * written.
 *
 * Calls go one way: gateway.c calls gw_ports.c, gw_units.c and
 * gw_stats.c, which call nothing in gateway.c (what they share is here).
 */
#ifndef XDPLANE_GW_INTERNAL_H
#define XDPLANE_GW_INTERNAL_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bits.h"
#include "egress.h"
#include "gateway.h"
#include "nic_channels.h"
#include "placement.h"
#include "policy.h"
#include "rx_task.h"
#include "steer_prog.h"
#include "umem.h"
#include "worker.h"
#include "xsk_queue.h"
#include "xsk_starve.h"

/* The kernel keeps XDP_PACKET_HEADROOM bytes in front of every received
 * frame. (What L2 adds to an MTU-sized frame: FRAME_L2_MAX,
 * frame_chain.h.) */
#define GW_XDP_HEADROOM 256

struct gw_port {
	char name[IF_NAMESIZE];
	int ifindex;
	int mtu;
	uint32_t frames; /* UMEM frames an MTU-sized packet takes */
	int lock_fd;
	struct steer_prog prog;
	struct xsk_queue q[GW_MAX_QUEUES];
	/* RX queues without a socket (gateway_watch_queues(), control
	 * thread): the channel count at the last look (0: unknown), the
	 * nosock counters then, the gauge, the warning's rate limit */
	uint32_t channels_now;
	uint64_t nosock_seen[STEER_NOSOCK_SLOTS];
	uint32_t queues_without_socket;
	uint64_t nosock_warned; /* frames counted by the last warning */
	uint64_t warn_ns; /* when it was logged; 0: never */
	/* What start-up changed on the interface, put back when the start
	 * is refused (gateway_close() before gateway_start() succeeded;
	 * after it, left as set, like the running gateway's ports): the
	 * MTU it had (0: not changed), the channels it had (channels_set:
	 * a channel change was attempted) */
	int mtu_was;
	bool channels_set;
	struct nic_channels channels_was;
	/* Promiscuous mode (IFF_PROMISC) set by start-up: a bump in the
	 * wire receives frames addressed to the hosts beyond it, which a
	 * NIC's unicast filter drops. Cleared by gateway_close(), whether
	 * the start was refused or the gateway ran; left on when it was on
	 * before (promisc_set false) */
	bool promisc_set;
	/* VLAN tag stripping on receive turned off by start-up (bit i:
	 * gw_strip_features[i]), on again at gateway_close() */
	uint8_t strip_off;
	/* The starvation detector of each queue's socket
	 * (gateway_watch_starve(), control thread only) */
	struct xsk_starve starve[GW_MAX_QUEUES];
};

struct gateway {
	struct gw_params p;
	struct gw_port port[GW_PORTS];
	struct policy_gen *live; /* RCU: published policy generation */
	uint64_t last_gen; /* the highest generation number given out */
	struct policy_gen **retired; /* not yet freeable (a worker lagged) */
	uint64_t *beat_seen,
		*beat_at; /* per worker: heartbeat, when it moved */
	uint32_t n_retired;
	struct umem_area umem;
	struct xsk_umem_reg reg;
	bool zerocopy;
	bool started; /* gateway_start() succeeded: ports left as set */
	uint32_t max_frame; /* data bytes one UMEM frame holds */
	bool multibuf; /* some port's MTU needs chains (XDP_USE_SG) */
	uint32_t max_frags; /* frames per packet, at most (1: single) */
	uint32_t n_units; /* GW_PORTS * queues */
	struct rx_task *rx; /* unit u: RX of port u / queues, queue u % q */
	struct egress_task *eg; /* unit u: egress of the other port */
	struct handoff_ring *ho; /* unit u: rx[u] -> eg[u] */
	struct return_ring *ret; /* unit u: eg[u] -> rx[u] */
	/* DCQCN NP: CNP frames eg[u] builds (in rx[u]'s frames) for the
	 * other port -> eg[peer(u)], and back to rx[u] when sent */
	struct handoff_ring *np_ho; /* unit u: eg[u] -> eg[peer(u)] */
	struct return_ring *np_ret; /* unit u: eg[peer(u)] -> rx[u] */
	struct feedback_ring *fb; /* [u * queues + j]: rx[u] -> the egress
				   * task j of rx[u]'s port */
	struct feedback_ring *hint; /* unit u: control thread -> eg[u] */
	struct pathmon_ring *path; /* [u * queues + j]: rx[u] -> the egress
				    * task j of rx[u]'s port (adaptive); a
				    * port's slots allocated once path_ready */
	bool path_ready[GW_PORTS]; /* adaptive egress's memory is made for
				    * the port (gw_path_reserve) */
	struct adaptive_shared *path_shared; /* per port: what the egress
					      * tasks transmitting on it share
					      * (adaptive) */
	/* per port: which of the egress tasks transmitting on it sends a
	 * flow (written by them, read by the port's RX tasks: adaptive) */
	struct path_owner path_owner[GW_PORTS];
	/* per port with several queues: the queue rebalancer of the egress
	 * tasks transmitting on it (qrate.h); NULL with one queue */
	struct qrate_port *qrate;
	struct worker *w;
	uint32_t n_workers;
	struct plc_result plc; /* workers, unit -> worker, memory node */
	char umem_msg[256]; /* how the UMEM was mapped and bound */
};

/* The port whose RX task unit u runs. */
static inline uint32_t gw_unit_port(const struct gateway *gw, uint32_t u)
{
	return u / gw->p.queues;
}

/* The queue of unit u (on both ports). */
static inline uint32_t gw_unit_queue(const struct gateway *gw, uint32_t u)
{
	return u % gw->p.queues;
}

/* The unit whose RX task reads queue q of port. */
static inline uint32_t gw_unit(const struct gateway *gw, uint32_t port,
			       uint32_t q)
{
	return port * gw->p.queues + q;
}

/* The unit whose egress task transmits on queue q of port. */
static inline uint32_t gw_unit_tx(const struct gateway *gw, uint32_t port,
				  uint32_t q)
{
	return gw_unit(gw, 1 - port, q);
}

/* The unit of the same queue on the other port. */
static inline uint32_t gw_unit_peer(const struct gateway *gw, uint32_t u)
{
	return gw_unit(gw, 1 - gw_unit_port(gw, u), gw_unit_queue(gw, u));
}

/* n * size bytes, cache-line aligned, zeroed; NULL when out of memory. */
static inline void *gw_zalloc_aligned(size_t n, size_t size)
{
	void *m = NULL;

	if (posix_memalign(&m, CACHELINE, n * size))
		return NULL;
	memset(m, 0, n * size);
	return m;
}

static inline void gw_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* gw_ports.c: lock, check (MTU, frames per packet) and name the ports,
 * match queues with the NICs' channels (nic_channels.h: resolve auto,
 * set the channels or refuse); the AF_XDP sockets of every (port,
 * queue). */
int gw_ports_open(struct gateway *gw, char *errbuf, size_t errlen);
int gw_ports_resolve_queues(struct gateway *gw, char *errbuf, size_t errlen);
int gw_sockets_open(struct gateway *gw, char *errbuf, size_t errlen);
void gw_sockets_close(struct gateway *gw);
void gw_ports_log_frames(const struct gateway *gw);
void gw_ports_unlock(struct gateway *gw);
/* Put back what start-up changed on the ports (gw_port.mtu_was,
 * channels_was), logged; a failure is logged and the rest still put
 * back. Before gw_ports_unlock(), after the programs are detached. */
void gw_ports_restore(struct gateway *gw);
/* Promiscuous mode off on the ports where start-up set it (promisc_set),
 * logged. After the programs are detached, before gw_ports_unlock(). */
void gw_ports_promisc_off(struct gateway *gw);
/* VLAN tag stripping on again where start-up turned it off (strip_off),
 * logged. After the programs are detached, before gw_ports_unlock(). */
void gw_ports_strip_restore(struct gateway *gw);
/* After the port's program is attached: a stale program it replaced may
 * say the previous run turned promiscuous mode on (then this run turns it
 * off at stop), and the new program records whether this run did
 * (steer_conf.flags, for `xdplane --detach`). */
void gw_ports_record(struct gateway *gw, struct gw_port *pt);

/* gw_units.c: placement, tasks and rings of every unit, workers; the
 * census over them; their teardown. */
int gw_units_place(struct gateway *gw, char *errbuf, size_t errlen);
int gw_units_setup(struct gateway *gw);
int gw_units_setup_workers(struct gateway *gw);
void gw_units_census(struct gateway *gw, struct gw_census *out);
void gw_units_fini(struct gateway *gw);
/* Adaptive egress's memory for `port` (adaptive.h "Memory"): the slots of
 * its event rings and its egress tasks' monitors, sized for the queues;
 * once, kept until close. At set-up, and by the control thread before it
 * publishes the first policy generation that turns adaptive egress on
 * for the port (the workers touch none of it before they run such a
 * generation). 0 or -ENOMEM (what was made is kept: a retry finishes). */
int gw_path_reserve(struct gateway *gw, uint32_t port);

/* gw_csum.c: ports[].checksum resolved per port (auto: is the device
 * virtual?), logged, and set on the port's RX tasks. After
 * gw_units_setup(). */
void gw_csum_setup(struct gateway *gw);

#endif
