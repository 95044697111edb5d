/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gateway.h - a port pair assembled: XDP programs, shared UMEM, one socket
 * per (port, queue), RX and egress tasks, worker threads.
 *
 *   port A queue q: RX task  --handoff ring-->  egress task of port B queue q
 *                   (owner of partition A.q) <--return ring--  (TX + compl.)
 *   and the mirror image for B -> A.
 *
 * Placement: the RX task of (A, q) and the egress task of (B, q) form one
 * unit and always run on the same worker; which worker, and on which CPU,
 * placement.h decides from the machine's topology (NUMA node of the
 * ports, cores, the cpuset, workers.cpus); the UMEM is bound to the
 * ports' node.
 *
 * Life cycle (control thread only): gateway_open() sets everything up --
 * the privileged part: programs, UMEM, sockets, XSKMAP entries -- and
 * gateway_start() starts the workers (log line "forwarding started"; the
 * process may drop its capabilities in between, and must, because threads
 * inherit them); gateway_stop() moves
 * the sockets out of the XSKMAPs (frames take the failure path: in-kernel
 * forwarding when fail-open), lets the workers drain and stops them;
 * gateway_close() takes the frame census, detaches the programs and frees
 * everything.
 *
 * Live reload: gateway_reload() publishes a new traffic policy (policy.h):
 * classes, rates, weights, limits, ECN, rules. Everything else is fixed
 * for the life of the gateway.
 *
 * Readers of statistics (gateway_*_stats) run on the control thread (the
 * thread that reloads), between open and close; they only read
 * single-writer counters. Class counters move between slots during a
 * reload, which is why they must not be read while one is under way.
 */
#ifndef XDPLANE_GATEWAY_H
#define XDPLANE_GATEWAY_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/if_xdp.h>
#include "../../xdp/steer_abi.h"
#include "pkt_parse.h"
#include "qos.h"
#include "flowq.h"
#include "tc_sched.h"

#define GW_PORTS 2
#define GW_MAX_QUEUES 64
#define GW_MAX_CPUS 256

struct gw_params {
	char ifname[GW_PORTS][16];
	uint32_t queues; /* 0: auto, the ports' channel count */
	int xdp_mode; /* enum steer_mode_req */
	int bind_mode; /* 0 auto, 1 zerocopy, 2 copy */
	uint32_t failure_mode; /* enum steer_failure_mode */
	uint32_t fill_size, comp_size, rx_size, tx_size, handoff_size;
	uint32_t umem_frames, frame_size, frame_headroom;
	uint32_t mtu[GW_PORTS]; /* ports[].mtu: set on the interface at
				 * open; 0: the interface's MTU as it is */
	bool hugepages; /* back the UMEM with huge pages when reserved */
	uint32_t busy_us, batch;
	uint32_t shaper_spin_us; /* see worker.h */
	uint32_t n_cpus; /* 0: every CPU the process may use */
	uint32_t cpus[GW_MAX_CPUS];
	struct qos_policy qos; /* classes, rules, port shapers */
};

/* DCQCN, about the flows that leave a port (its egress). */
struct gw_dcqcn_stats {
	uint64_t cnps_seen, cnps_absorbed, acks_seen; /* received on it */
	uint64_t feedback_full; /* events lost on the way to egress tasks */
	uint64_t fb_events; /* events the egress tasks took */
	uint64_t np_cnps; /* CNPs built for their senders (NP) */
	uint64_t np_no_frame, np_out_full, np_qpn_unknown, np_due_full;
	uint64_t np_build_failed; /* a CNP due could not be built/parsed */
	uint64_t flows; /* in the tables now */
	uint64_t flows_created, flows_expired, table_full;
	uint64_t cnp_unmatched; /* CNPs no flow matched */
	uint64_t qpn_learned, qpn_ambiguous, qpn_unmatched;
	uint64_t hints; /* hints taken, per DCQCN class and queue */
};

/* PFC (pfc.h) of a port, per 802.1p priority. The pause state is kept by
 * each egress queue of the port from the same frames: its counters are
 * the largest over the queues, not their sum. */
struct gw_pfc_stats {
	uint64_t rx_frames; /* PFC frames received on the port */
	uint64_t mac_control_drops; /* other MAC control frames, dropped */
	uint64_t rx[8], rx_xon[8]; /* frames naming the priority; time 0 */
	uint64_t ignored[8]; /* ...ignored after a watchdog storm */
	uint64_t paused_ns[8]; /* time the port's egress was paused */
	uint64_t storms[8]; /* watchdog: pause storms */
	uint64_t watchdog_drops[8]; /* frames the watchdog dropped */
	uint64_t tx_xoff[8], tx_xon[8]; /* PFC frames sent out of the port */
	uint64_t tx_no_frame; /* due but not built (no frame, ring full) */
	uint64_t ctrl_sent, ctrl_ring_full; /* on the port's TX ring */
};

struct gw_port_stats {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes; /* placed on the TX ring (submitted) */
	uint64_t tx_completed; /* TX descriptors (frames) completed */
	uint64_t drop_handoff_full, drop_invalid_desc, drop_multibuf;
	/* multi-buffer: chains received (RX) and sent (TX, on this port),
	 * chains dropped: too many frames, first frame shorter than the
	 * header window, no headroom for the record, TX ring without room */
	uint64_t rx_chains, tx_chains;
	uint64_t drop_chain_long, drop_chain_head, drop_chain_room;
	uint64_t drop_chain_tx;
	uint64_t drop_malformed; /* malformed and policy drop */
	uint64_t malformed[PKT_MALFORMED_MAX]; /* by reason, whatever policy */
	uint64_t tx_kicks, tx_kick_errors, foreign_frames;
	uint64_t fill_wakeups; /* recvfrom() to wake the driver for fill */
	uint64_t drop_port_down; /* to leave this port while it was gone */
	uint64_t verdicts[STEER_V_MAX];
	struct xdp_statistics xsk; /* summed over the port's sockets */
	struct gw_dcqcn_stats dcqcn;
	struct gw_pfc_stats pfc;
};

struct gw_census {
	uint64_t total; /* frames in the UMEM */
	uint64_t found; /* found exactly once */
	uint64_t missing; /* found nowhere: leaked */
	uint64_t doubles; /* found in two places */
	uint64_t strays; /* addresses outside the UMEM */
	bool done;
};

struct gw_info {
	const char *xdp_mode; /* "native" | "generic" */
	bool zerocopy;
	uint32_t n_workers;
	uint32_t umem_frames;
	uint32_t max_frame; /* largest frame a socket can receive, bytes */
	bool multibuf; /* AF_XDP multi-buffer (frame chains) on */
	uint32_t max_frags; /* UMEM frames per packet, at most (1: off) */
	uint32_t mtu[GW_PORTS]; /* the ports' MTUs at start */
	uint32_t queues; /* per port, resolved from auto */
	int mem_node; /* NUMA node the UMEM is bound to, -1: none */
	int control_cpu; /* where the control thread belongs, -1: anywhere */
	const char *placement; /* the decisions, one per line */
	const char *umem; /* how the UMEM was mapped and bound */
};

struct gateway;

/* errbuf gets one line saying what failed and what to change. */
struct gateway *gateway_open(const struct gw_params *p, char *errbuf,
			     size_t errlen);
/* Stop forwarding: sockets leave the XSKMAPs, workers drain and exit.
 * Statistics stay readable until gateway_close(). Idempotent. */
void gateway_stop(struct gateway *gw);
/* Start the workers. 0, or -errno and errbuf filled (then close). */
int gateway_start(struct gateway *gw, char *errbuf, size_t errlen);
/* Replace the traffic policy without losing a frame (policy.h). Returns
 * once every worker runs it: 0; -EINVAL (errbuf says why) when the policy
 * is refused and nothing changed; -ECANCELED when a worker could not apply
 * it (errbuf says which and why): every worker was rolled back to the
 * previous policy, which stays in force; -ETIMEDOUT when a worker did not
 * switch within 2 s (the policy is published and it will switch when it
 * runs). Control thread only. */
int gateway_reload(struct gateway *gw, const struct qos_policy *qos,
		   char *errbuf, size_t errlen);
/* The policy in force and its generation (1 at open, +1 per reload). */
const struct qos_policy *gateway_policy(const struct gateway *gw);
uint64_t gateway_generation(const struct gateway *gw);
uint32_t gateway_queues(const struct gateway *gw);
/* Workers whose loop has not turned for more than stall_ns (an idle
 * worker still turns once a second). Control thread only: it remembers
 * what it saw between calls. */
uint32_t gateway_stalled_workers(struct gateway *gw, uint64_t now_ns,
				 uint64_t stall_ns);
/* Worker (and its CPU, -1 if not pinned) that runs RX of (port, q). */
void gateway_queue_placement(const struct gateway *gw, int port, uint32_t q,
			     int *worker, int *cpu);
/* Stop if needed, take the census (when asked), detach, free. */
void gateway_close(struct gateway *gw, struct gw_census *census);
void gateway_port_stats(struct gateway *gw, int port, struct gw_port_stats *s);
/* One queue of a port (verdicts, which are per port, stay 0). */
void gateway_queue_stats(struct gateway *gw, int port, uint32_t q,
			 struct gw_port_stats *s);
void gateway_info(const struct gateway *gw, struct gw_info *info);

/* Counters of class `class_id` on egress port `port`, summed over queues
 * (gauges summed too). Returns -1 if there is no such class. */
struct gw_class_stats {
	uint64_t enq_packets, enq_bytes, sent_packets, sent_bytes;
	uint64_t drops[SCHED_DROP_REASONS];
	uint64_t ecn_marks, depth_bytes, depth_packets;
	uint64_t sojourn[SCHED_HIST_BUCKETS];
};
int gateway_class_stats(struct gateway *gw, int port, unsigned int class_id,
			struct gw_class_stats *s);
const char *gateway_port_name(const struct gateway *gw, int port);
/* The ifindex the port was opened on (an interface deleted and created
 * again under the same name gets a new one). */
int gateway_port_ifindex(const struct gateway *gw, int port);
/* The port's interface vanished (down = true): the egress tasks of the
 * port stop transmitting and drop what is handed to them, counted as
 * drop_port_down; queued frames stay for the census. Control thread.
 * There is no way back for the same gateway: the sockets were bound to
 * the vanished device (the daemon restarts to re-attach, xdplane(8)). */
void gateway_port_set_down(struct gateway *gw, int port, bool down);

/* The DCQCN flows of every egress task (control thread). */
struct gw_flow {
	int port; /* egress port */
	uint32_t queue;
	const char *class_name;
	struct flowq_view v;
};
void gateway_flows(struct gateway *gw,
		   void (*fn)(const struct gw_flow *f, void *arg), void *arg);

/* An external congestion hint (xdplanectl congestion) for the flows that
 * leave `port` towards prefix/plen, in class class_id (0xff: every DCQCN
 * class), severity in parts of 65536. Control thread only. All or none:
 * returns the egress queues it reached (every queue of the port), -ENOENT
 * when the running policy has no such DCQCN class, -EAGAIN when a queue's
 * hint ring was full (then no queue got it). */
int gateway_hint(struct gateway *gw, int port, unsigned int class_id,
		 uint8_t family, const uint8_t *prefix, uint8_t plen,
		 uint32_t severity);

#endif
