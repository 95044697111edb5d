// SPDX-License-Identifier: BSD-2-Clause
/*
 * snapshot.c - see snapshot.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "snapshot.h"

uint64_t snapshot_class_rate(uint64_t bps, uint32_t share, uint64_t port_bps)
{
	__extension__ typedef unsigned __int128 u128;

	if (bps)
		return bps;
	if (!share || !port_bps)
		return 0;
	return (uint64_t)(((u128)port_bps * share) >> 16);
}

static void take_port(struct gateway *gw, int p, const struct qos_policy *pol,
		      struct snap_port *sp)
{
	const struct qos_port *qp = &pol->port[p];

	snprintf(sp->ifname, sizeof(sp->ifname), "%s",
		 gateway_port_name(gw, p));
	sp->rate_bps = qp->rate_bps;
	gateway_port_stats(gw, p, &sp->s);
	sp->n_queues = gateway_queues(gw);
	for (uint32_t q = 0; q < sp->n_queues && q < GW_MAX_QUEUES; q++) {
		struct snap_queue *sq = &sp->q[q];

		sq->queue = q;
		gateway_queue_placement(gw, p, q, &sq->worker, &sq->cpu);
		gateway_queue_stats(gw, p, q, &sq->s);
		gateway_adaptive(gw, p, q, &sq->adaptive);
	}
	for (uint32_t k = 0; k < pol->n_classes; k++) {
		const struct qos_class *qc = &pol->classes[k];
		struct snap_class *sc = &sp->cls[sp->n_classes];

		if (gateway_class_stats(gw, p, k, &sc->s))
			continue;
		memcpy(sc->name, qc->name, sizeof(sc->name));
		sc->id = k;
		sc->level = qc->level;
		sc->quantum = qc->quantum;
		sc->ceil_bps = snapshot_class_rate(qc->ceil_bps, qc->ceil_share,
						   qp->rate_bps);
		sc->min_bps = snapshot_class_rate(qc->min_bps, qc->min_share,
						  qp->rate_bps);
		sc->limit_bytes = qc->limit_bytes;
		sc->limit_packets = qc->limit_packets;
		sc->ecn = qc->ecn.enabled;
		sc->lossless = qc->lossless;
		sc->pcp = qc->has_pcp ? qc->pcp : -1;
		sc->set_dscp = qc->has_set_dscp ? qc->set_dscp : -1;
		sc->set_pcp = qc->has_set_pcp ? qc->set_pcp : -1;
		sp->n_classes++;
	}
}

/* The process's resident set (/proc/self/statm) and CPU time. */
static void take_process(struct stats_snapshot *s)
{
	unsigned long long size, resident;
	struct rusage ru;
	FILE *f;

	if (!getrusage(RUSAGE_SELF, &ru))
		s->cpu_seconds =
			(double)ru.ru_utime.tv_sec +
			(double)ru.ru_stime.tv_sec +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%llu %llu", &size, &resident) == 2)
			s->rss_bytes =
				resident * (uint64_t)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
}

struct stats_snapshot *snapshot_take(const struct snapshot_source *src)
{
	struct stats_snapshot *s = calloc(1, sizeof(*s));
	const struct qos_policy *pol = gateway_policy(src->gw);
	struct timespec rt, mono;
	struct gw_info info;

	if (!s)
		return NULL;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	gateway_info(src->gw, &info);
	s->version = XDPLANE_VERSION;
	snprintf(s->config_path, sizeof(s->config_path), "%s",
		 src->config_path);
	s->start_unix = src->start_unix;
	s->now_unix = (double)rt.tv_sec + rt.tv_nsec / 1e9;
	s->uptime_s = s->now_unix - s->start_unix;
	s->now_mono_ns = (uint64_t)mono.tv_sec * 1000000000ull + mono.tv_nsec;
	s->xdp_mode = info.xdp_mode;
	s->bind_mode = info.zerocopy ? "zerocopy" : "copy";
	s->failure_mode = src->failure_mode;
	s->n_workers = info.n_workers;
	s->umem_frames = info.umem_frames;
	s->max_frame = info.max_frame;
	s->multibuf = info.multibuf;
	s->max_frags = info.max_frags;
	for (int p = 0; p < GW_PORTS; p++)
		s->ports[p].mtu = info.mtu[p];
	s->queues = info.queues;
	s->mem_node = info.mem_node;
	s->control_cpu = info.control_cpu;
	s->placement = info.placement;
	s->umem = info.umem;
	s->reload = *src->reload;
	for (int p = 0; p < GW_PORTS; p++) {
		take_port(src->gw, p, pol, &s->ports[p]);
		s->ports[p].link_up = src->link_up[p];
		s->ports[p].gone = src->gone[p];
	}
	for (uint32_t i = 0; i < s->n_workers && i < SNAP_MAX_WORKERS; i++) {
		struct gw_worker_stats ws;

		if (gateway_worker_stats(src->gw, i, &ws))
			continue;
		s->workers[i].cpu = ws.cpu;
		s->workers[i].loops = ws.heartbeat;
		s->workers[i].busy_ns = ws.busy_ns;
		s->workers[i].idle_ns = ws.idle_ns;
		s->workers[i].sleep_ns = ws.sleep_ns;
		s->workers[i].sleeps = ws.sleeps;
		s->workers[i].timed_wakes = ws.timed_wakes;
		s->workers[i].late_wakes = ws.late_wakes;
		s->workers[i].spin_waits = ws.spin_waits;
		s->workers[i].naps = ws.naps;
		s->workers[i].wake_late_ns = ws.wake_late_ns;
	}
	take_process(s);
	return s;
}

void snapshot_free(struct stats_snapshot *s)
{
	if (s)
		free(s->jobs);
	free(s);
}
