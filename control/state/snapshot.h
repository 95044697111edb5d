/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * snapshot.h - one consistent-enough picture of the running daemon, taken by
 * the control thread and rendered by every consumer (the JSON control API,
 * the Prometheus exposition, the final report). Renderers never touch the
 * gateway: they read a snapshot, so they can be unit-tested and fuzzed on
 * hand-made snapshots.
 *
 * Ownership: built and freed by the control thread (snapshot_take /
 * snapshot_free); immutable once taken. Counters are read from
 * single-writer dataplane counters without stopping the workers: each
 * counter is exact at the instant it was read, and counters only grow
 * (the reload keeps them by class name), but two counters are not read at
 * the same instant.
 *
 * Units: packets, bytes, bits per second for rates, seconds for times
 * unless a field says otherwise.
 */
#ifndef XDPLANE_SNAPSHOT_H
#define XDPLANE_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include "gateway.h"
#include "health.h"
#include "job_table.h"
#include "qos.h"

struct snap_class {
	char name[QOS_NAME_MAX];
	uint32_t id; /* index in the running policy */
	uint32_t level; /* strict priority level, 0 first */
	uint32_t quantum; /* DWRR weight, bytes */
	uint64_t ceil_bps; /* effective ceiling; 0: none */
	uint64_t min_bps; /* effective guaranteed minimum; 0: none */
	uint32_t limit_bytes, limit_packets;
	bool ecn;
	bool lossless; /* PFC (pfc.h): XOFF/XON instead of drops */
	int pcp; /* 802.1p priority PFC pauses it by; -1: none */
	int set_dscp; /* DSCP its frames leave with; -1: left alone */
	int set_pcp; /* PCP its tagged frames leave with; -1: left alone */
	struct gw_class_stats s; /* summed over the port's queues */
};

struct snap_queue {
	uint32_t queue;
	int worker; /* worker running this queue's RX task, -1 unknown */
	int cpu; /* that worker's CPU, -1 not pinned */
	struct gw_port_stats s; /* verdicts[] are per port: zero here */
	struct adaptive_view adaptive; /* the egress task transmitting on
					* this queue of the port */
};

struct snap_port {
	char ifname[16];
	bool link_up; /* running, as the daemon's link watch last saw */
	bool gone; /* the interface was deleted */
	uint64_t rate_bps; /* egress shaper; 0: unshaped */
	uint32_t mtu; /* the interface's MTU at start */
	struct gw_port_stats s; /* summed over queues, plus XDP verdicts */
	uint32_t n_queues;
	struct snap_queue q[GW_MAX_QUEUES];
	uint32_t n_classes; /* classes of this port's egress scheduler */
	struct snap_class cls[QOS_MAX_CLASSES];
};

struct snap_reload {
	uint64_t generation; /* 1 at start, +1 per applied reload */
	uint64_t attempts_total; /* reloads asked for (SIGHUP, API) */
	uint64_t failures_total; /* refused: invalid file or cold change */
	bool last_successful; /* the last attempt applied (true at start) */
	double last_success_unix; /* time of the last applied config */
	double last_attempt_unix; /* 0: never attempted */
	char last_error
		[512]; /* why the last attempt failed, "" if it did not */
};

#define SNAP_MAX_WORKERS HEALTH_MAX_WORKERS

/* A worker's loop (gateway_worker_stats()). */
struct snap_worker {
	int cpu; /* -1: not pinned */
	uint64_t loops; /* passes of its loop (the heartbeat) */
	uint64_t busy_ns, idle_ns; /* in passes that moved something, not */
	uint64_t sleep_ns; /* of idle_ns: asleep in ppoll (not on the CPU) */
	uint64_t sleeps, timed_wakes, late_wakes, spin_waits; /* worker.h */
	uint64_t naps; /* of sleeps, poll.coalesce_us naps */
	uint64_t wake_late_ns; /* recent timer wake-up lateness (gauge) */
};

/* One job of the job table (job_table.h) as snap_jobs_take() copied it. */
struct snap_job {
	char id[JOB_ID_MAX];
	uint8_t kind; /* JOB_REGISTERED or JOB_PASSIVE */
	uint8_t dscp; /* JOB_DSCP_NONE: any */
	uint32_t n_prefixes; /* registered: its member prefixes */
	struct qos_prefix prefixes[JOB_PREFIXES_MAX];
	char prio_class[JOB_CLASS_NAME_MAX]; /* "": none */
	uint32_t gpus; /* 0: not given */
	uint32_t hosts; /* passive: the hosts of its component */
	double created_unix, last_unix; /* registered (updated) / seen */
	uint64_t flows_seen;
};

/* The job table at the snapshot's instant; the counters are the table's
 * (job_table.h, struct job_table_stats). */
struct snap_jobs {
	const char *mode; /* config_jobs_mode_name() */
	uint32_t max_registered, max_passive;
	uint32_t registered, passive, hosts, edges; /* live */
	struct job_table_stats st;
	uint32_t n; /* job[]: registered first, each by slot */
	struct snap_job job[];
};

struct stats_snapshot {
	const char *version; /* XDPLANE_VERSION */
	char config_path[256];
	double start_unix; /* process start, seconds since the epoch */
	double now_unix; /* when the snapshot was taken */
	double uptime_s;
	uint64_t now_mono_ns; /* CLOCK_MONOTONIC when taken (rates) */
	const char *xdp_mode; /* "native" | "generic" */
	const char *bind_mode; /* "zerocopy" | "copy" */
	const char *failure_mode; /* "fail-open" | "fail-closed" */
	uint32_t n_workers;
	uint32_t umem_frames;
	uint32_t max_frame;
	bool multibuf; /* AF_XDP multi-buffer (frame chains) on */
	uint32_t max_frags; /* UMEM frames per packet, at most */
	uint32_t queues; /* per port */
	int mem_node; /* the UMEM's NUMA node, -1: not bound */
	int control_cpu; /* -1: not pinned */
	const char *placement; /* the placement decisions, one per line */
	const char *umem; /* how the UMEM was mapped */
	struct snap_reload reload;
	struct snap_port ports[GW_PORTS];
	struct snap_worker workers[SNAP_MAX_WORKERS]; /* [0, n_workers) */
	uint64_t rss_bytes; /* the process's resident set */
	double cpu_seconds; /* the process's user + system CPU time */
	/* the daemon's health decision (health.h) at the time of the
	 * snapshot; zero (ok) in snapshots the daemon did not judge */
	struct health_result health;
	/* the job table; NULL when jobs.mode is off (or in snapshots made
	 * without one); freed with the snapshot */
	struct snap_jobs *jobs;
};

/* What snapshot_take() reads from besides the gateway; owned by the
 * daemon, read on the control thread. */
struct snapshot_source {
	struct gateway *gw;
	const char *config_path;
	const char *failure_mode;
	double start_unix;
	const struct snap_reload *reload;
	bool link_up[GW_PORTS], gone[GW_PORTS]; /* the link watch's view */
};

/* The job table t into s->jobs (mode: its name), the times of the
 * jobs turned from CLOCK_MONOTONIC to the wall clock with the
 * snapshot's now_mono_ns / now_unix. 0, or -1 when out of memory. On the
 * thread that owns t (the control thread). */
int snap_jobs_take(struct stats_snapshot *s, const struct job_table *t,
		   const char *mode);

/* A new snapshot (heap; snapshot_free() it), NULL when out of memory. */
struct stats_snapshot *snapshot_take(const struct snapshot_source *src);
void snapshot_free(struct stats_snapshot *s);
/* Effective rate of a class ceiling or minimum: bit/s, or a share of the
 * port rate (parts of QOS_PROB_ONE); 0: none. */
uint64_t snapshot_class_rate(uint64_t bps, uint32_t share, uint64_t port_bps);

#endif
