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
 * Which counters there are, where each comes from and how a port's is
 * made from its queues' is gw_counters.def, one row per counter.
 *
 * Files: gateway.c the life cycle and the policy, gw_ports.c the ports
 * (locks, MTU, channels, sockets), gw_units.c the units (tasks, rings,
 * workers, census, flows, hints), gw_stats.c the statistics,
 * gw_counters.c the counter schema as data; gw_internal.h is struct
 * gateway, which they share and nobody else sees.
 */
#ifndef XDPLANE_GATEWAY_H
#define XDPLANE_GATEWAY_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/if_xdp.h>
#include "../../xdp/steer_abi.h"
#include "adaptive.h"
#include "pkt_parse.h"
#include "qos.h"
#include "flowq.h"
#include "tc_sched.h"
#include "gw_counters.h"

#define GW_PORTS 2
#define GW_MAX_QUEUES 64
#define GW_MAX_CPUS 256

/* ports[].checksum: complete TCP/UDP checksums left partial by a virtual
 * link (pkt/l4_csum.h) on the frames received on a port. */
enum gw_csum_mode {
	GW_CSUM_AUTO = 0, /* complete when the port's device is virtual */
	GW_CSUM_COMPLETE,
	GW_CSUM_TRUST, /* leave every frame as it is */
};

struct gw_params {
	char ifname[GW_PORTS][16];
	uint32_t queues; /* 0: auto, the ports' channel count */
	bool set_channels; /* set the NICs' channels to queues (ethtool -L) */
	int xdp_mode; /* enum steer_mode_req */
	int bind_mode; /* 0 auto, 1 zerocopy, 2 copy */
	uint32_t failure_mode; /* enum steer_failure_mode */
	uint32_t fill_size, comp_size, rx_size, tx_size, handoff_size;
	uint32_t umem_frames, frame_size, frame_headroom;
	bool umem_frames_auto; /* umem.frames not written: raised to what
				* the queues need */
	uint32_t mtu[GW_PORTS]; /* ports[].mtu: set on the interface at
				 * open; 0: the interface's MTU as it is */
	/* ports[].checksum: enum gw_csum_mode (gw_csum.c), fixed at open */
	uint8_t checksum[GW_PORTS];
	bool hugepages; /* back the UMEM with huge pages when reserved */
	uint32_t busy_us, batch;
	uint32_t coalesce_us; /* worker.h: nap after work, 0: off */
	uint32_t shaper_spin_us; /* see worker.h */
	bool shaper_wait_spin; /* worker.h: spin, not sleep, for shaped frames */
	/* Test only (XDPLANE_TEST_STARVE, xdplane(8)): with test_starve,
	 * the sockets of port test_starve_port, queue test_starve_queue
	 * (UINT32_MAX: every queue), are muted (xsk_queue.h `mute`); with
	 * test_starve_nokick the starvation detector does not wake them
	 * either. Zero: off. */
	bool test_starve;
	int test_starve_port;
	uint32_t test_starve_queue;
	bool test_starve_nokick;
	uint32_t n_cpus; /* 0: every CPU the process may use */
	uint32_t cpus[GW_MAX_CPUS];
	struct qos_policy qos; /* classes, rules, port shapers */
};

/* The counters of a port or one of its queues, one field per row of
 * gw_counters.def (which says where each comes from, and how a port's is
 * made from its queues'): the xsk, dcqcn and pfc parts are its
 * GW_XSK_COUNTER, GW_DCQCN_COUNTER and GW_PFC_COUNTER rows, the rest its
 * GW_PORT_COUNTER rows. Every field is a uint64_t or an array of them
 * (gw_counters.c checks). */
#define GW_STATS_FIELD(field, dim, ...) uint64_t field GW_DIM_DECL_##dim;

/* The sockets' XDP_STATISTICS (struct xdp_statistics), summed. */
struct gw_xsk_stats {
#define GW_XSK_COUNTER GW_STATS_FIELD
#include "gw_counters.def"
};

/* DCQCN, about the flows that leave a port (its egress). */
struct gw_dcqcn_stats {
#define GW_DCQCN_COUNTER GW_STATS_FIELD
#include "gw_counters.def"
};

/* PFC (pfc.h) of a port, per 802.1p priority. The pause state is kept by
 * each egress queue of the port from the same frames: its counters are
 * the largest over the queues, not their sum. */
struct gw_pfc_stats {
#define GW_PFC_COUNTER GW_STATS_FIELD
#include "gw_counters.def"
};

struct gw_port_stats {
#define GW_PORT_COUNTER GW_STATS_FIELD
#include "gw_counters.def"
	struct gw_xsk_stats xsk; /* summed over the port's sockets */
	struct gw_dcqcn_stats dcqcn;
	struct gw_pfc_stats pfc;
};

/* Counters of a class on an egress port, summed over the port's queues
 * (gauges summed too): the GW_CLASS_COUNTER rows of gw_counters.def. */
struct gw_class_stats {
#define GW_CLASS_COUNTER GW_STATS_FIELD
#include "gw_counters.def"
};

struct gw_census {
	uint64_t total; /* frames in the UMEM */
	uint64_t found; /* found exactly once */
	uint64_t driver; /* held by the kernel outside the rings, by count
			  * (a zero-copy driver's queues; xsk_queue_census) */
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

/*
 * The functions below, grouped by job and file. Each says which thread
 * may call it and which system calls it may issue ("none": memory only).
 * "Control thread" is the thread that opened the gateway; it is the only
 * one that may call any of them, between gateway_open() and
 * gateway_close(). Workers never call into this header.
 */

/* ---- life cycle (gateway.c) ---- */

/* Everything set up, workers not started. errbuf gets one line saying
 * what failed and what to change. Control thread (any thread before
 * there is a gateway). Syscalls: the privileged part -- socket(2),
 * bind(2) (the port locks), ioctl(2) SIOCGIFMTU, SIOCSIFMTU,
 * SIOCETHTOOL, sched_getaffinity(2), hwloc's reads of /sys and /proc,
 * mmap(2), mbind(2), madvise(2) (UMEM), bpf(2) (program, maps, XSKMAP),
 * netlink (XDP attach), AF_XDP socket(2), setsockopt(2), bind(2),
 * mmap(2) (rings), eventfd(2) (workers), nanosleep(2) (a socket still
 * being torn down: EBUSY retries). */
struct gateway *gateway_open(const struct gw_params *p, char *errbuf,
			     size_t errlen);
/* Start the workers. 0, or -errno and errbuf filled (then close).
 * Control thread. Syscalls: clone(2) (pthread_create), with the
 * workers' CPU affinity. */
int gateway_start(struct gateway *gw, char *errbuf, size_t errlen);
/* Stop forwarding: sockets leave the XSKMAPs, workers drain and exit.
 * Statistics stay readable until gateway_close(). Idempotent. Control
 * thread. Syscalls: bpf(2) (XSKMAP deletes), nanosleep(2), write(2) to
 * the workers' eventfds, futex(2) (pthread_join). */
void gateway_stop(struct gateway *gw);
/* Without a gateway, after the daemon is gone (a crash, kill -9: the
 * program outlives it by design; `xdplane --detach`): take the port's
 * lock (-EBUSY while an xdplane runs on it), detach the port's XDP
 * program if it is xdplane's (never a foreign one) and turn promiscuous
 * mode off if the program records that xdplane turned it on. 0 (detached,
 * or nothing of xdplane's there, or no such interface) or -errno; msg gets
 * one line saying what was done. Any thread. Syscalls: socket(2), bind(2)
 * (the lock), netlink, bpf(2), ioctl(2) SIOCGIFFLAGS, SIOCSIFFLAGS,
 * close(2). */
int gateway_detach_port(const char *ifname, char *msg, size_t msglen);
/* Stop if needed, take the census (when asked), detach, free. Before
 * gateway_start() succeeded (a refused start, whichever step refused it)
 * it also puts back what gateway_open() changed on the ports: their MTUs
 * (ports[].mtu) and channel counts (queues_set_channels); after it they
 * are left as set. Control thread. Syscalls: those of gateway_stop(),
 * netlink (XDP detach), close(2), munmap(2); on a refused start
 * socket(2), ioctl(2) SIOCSIFMTU, SIOCETHTOOL. */
void gateway_close(struct gateway *gw, struct gw_census *census);
/* Replace the traffic policy without losing a frame (policy.h). Returns
 * once every worker runs it: 0; -EINVAL (errbuf says why) when the policy
 * is refused and nothing changed; -ECANCELED when a worker could not apply
 * it (errbuf says which and why): every worker was rolled back to the
 * previous policy, which stays in force; -ETIMEDOUT when a worker did not
 * switch within 2 s (the policy is published and it will switch when it
 * runs). Control thread only. Syscalls: write(2) to the workers'
 * eventfds, nanosleep(2) (waiting for them), futex(2) (RCU grace
 * period). */
int gateway_reload(struct gateway *gw, const struct qos_policy *qos,
		   char *errbuf, size_t errlen);
/* The policy in force and its generation (1 at open, +1 per reload);
 * queues per port. Control thread. Syscalls: none. */
const struct qos_policy *gateway_policy(const struct gateway *gw);
uint64_t gateway_generation(const struct gateway *gw);
uint32_t gateway_queues(const struct gateway *gw);

/* ---- ports (gw_ports.c) ---- */

/* The port's interface name. Control thread. Syscalls: none. */
const char *gateway_port_name(const struct gateway *gw, int port);
/* The ifindex the port was opened on (an interface deleted and created
 * again under the same name gets a new one). Control thread. Syscalls:
 * none. */
int gateway_port_ifindex(const struct gateway *gw, int port);
/* The port's interface vanished (down = true): the egress tasks of the
 * port stop transmitting and drop what is handed to them, counted as
 * drop_port_down; queued frames stay for the census. Control thread.
 * There is no way back for the same gateway: the sockets were bound to
 * the vanished device (the daemon restarts to re-attach, xdplane(8)).
 * Syscalls: write(2) to the eventfds of the workers concerned. */
void gateway_port_set_down(struct gateway *gw, int port, bool down);

/* RX queues without a socket: reads each port's channel count and the
 * XDP program's nosock counters, updates the gauge queues_without_socket
 * (the queues the NIC has beyond the gateway's, and any on which frames
 * arrived without a socket since the previous call) and logs a warning
 * when frames arrived on them: at once, then at most once a minute while
 * it goes on. Returns the number of such queues over both ports (0:
 * healthy). Call it periodically (the daemon's stats tick). Control
 * thread. Syscalls: socket(2), ioctl(2) SIOCETHTOOL, close(2) per port;
 * bpf(2) (map lookups); write(2) of log.h. */
uint32_t gateway_watch_queues(struct gateway *gw, uint64_t now_ns);

/* Starved AF_XDP sockets (xsk_starve.h): samples each socket of both
 * ports -- the RX task's packets, the fill ring's indices and wake-up
 * flag, XDP_STATISTICS, the port device's drop counters from
 * /sys/class/net/<port>/statistics -- and decides per queue. A socket
 * found starved is logged (port, queue, bind mode, the evidence) and its
 * driver woken (xsk_queue_kick()) at every call while it lasts, counted
 * (rx_starve_kicks); that the kicks did not help is logged once after
 * XSK_STARVE_GIVEUP_NS; recovery is logged. Returns the queues starved
 * now over both ports (0: healthy); the gauge rx_starved says which.
 * Call it periodically (the daemon's stats tick). Control thread.
 * Syscalls: open(2), read(2), close(2) (sysfs), getsockopt(2)
 * XDP_STATISTICS, and for a starved socket recvfrom(2), sendto(2),
 * poll(2); write(2) of log.h. */
uint32_t gateway_watch_starve(struct gateway *gw, uint64_t now_ns);

/* ---- units: tasks, rings, workers (gw_units.c) ---- */

/* Worker (and its CPU, -1 if not pinned) that runs RX of (port, q).
 * Control thread. Syscalls: none. */
void gateway_queue_placement(const struct gateway *gw, int port, uint32_t q,
			     int *worker, int *cpu);

/* The DCQCN flows of every egress task, one call of fn each. Control
 * thread. Syscalls: none (fn's own aside). */
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
 * hint ring was full (then no queue got it). Syscalls: write(2) to the
 * eventfds of the workers concerned. */
int gateway_hint(struct gateway *gw, int port, unsigned int class_id,
		 uint8_t family, const uint8_t *prefix, uint8_t plen,
		 uint32_t severity);

/* ---- statistics (gw_stats.c) ---- */

/* A port: its queues' counters added up as gw_counters.def says, plus
 * the XDP program's (verdicts, rx_no_socket) and the gauge
 * queues_without_socket as of the last gateway_watch_queues(). Control
 * thread. Syscalls: getsockopt(2) XDP_STATISTICS per queue, bpf(2) (the
 * verdict and nosock maps). */
void gateway_port_stats(struct gateway *gw, int port, struct gw_port_stats *s);
/* One queue of a port (verdicts, which are per port, stay 0). Control
 * thread. Syscalls: getsockopt(2) XDP_STATISTICS. */
void gateway_queue_stats(struct gateway *gw, int port, uint32_t q,
			 struct gw_port_stats *s);
/* The adaptive egress state of the egress task transmitting on queue q of
 * port (adaptive.h; zeros when there is none). Control thread. Syscalls:
 * none. */
void gateway_adaptive(struct gateway *gw, int port, uint32_t q,
		      struct adaptive_view *out);
/* Counters of class `class_id` on egress port `port`, summed over its
 * queues (gauges summed too). Returns -1 if there is no such class.
 * Control thread, never during a reload. Syscalls: none. */
int gateway_class_stats(struct gateway *gw, int port, unsigned int class_id,
			struct gw_class_stats *s);
/* Modes, geometry, placement. Control thread. Syscalls: none. */
void gateway_info(const struct gateway *gw, struct gw_info *info);
/* A worker's loop: passes (the heartbeat), and the time it spent in
 * passes that moved something (busy) and in the others, spinning or
 * asleep (idle); of idle, the time asleep and the sleeps (worker.h). */
struct gw_worker_stats {
	int cpu; /* -1: not pinned */
	uint64_t heartbeat;
	uint64_t busy_ns, idle_ns, sleep_ns;
	uint64_t sleeps, timed_wakes, late_wakes, spin_waits;
	uint64_t naps; /* of sleeps, poll.coalesce_us naps */
	uint64_t wake_late_ns; /* the worker's lateness estimate (racy read) */
};
/* Worker i < gw_info.n_workers: 0, or -1 (no such worker). Control
 * thread. Syscalls: none. */
int gateway_worker_stats(const struct gateway *gw, uint32_t i,
			 struct gw_worker_stats *s);
/* Workers whose loop has not turned for more than stall_ns (an idle
 * worker still turns once a second). Control thread only: it remembers
 * what it saw between calls. Syscalls: none. */
uint32_t gateway_stalled_workers(struct gateway *gw, uint64_t now_ns,
				 uint64_t stall_ns);

#endif
