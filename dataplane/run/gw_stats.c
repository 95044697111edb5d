// SPDX-License-Identifier: BSD-2-Clause
/*
 * gw_stats.c - the gateway's statistics: each counter of struct
 * gw_port_stats and struct gw_class_stats filled from the tasks' counters
 * as its row of gw_counters.def says (the code below is generated from
 * the rows); the info and worker health readers. Control thread only;
 * it reads single-writer counters with ctr_read() (counters.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "gw_internal.h"

_Static_assert(GW_DIM_N_PRIO == PFC_PRIOS, "a PRIO dim is one per priority");

/* What queue q of a port reads from (gw_counters.def, "Sources"). */
struct gw_qsrc {
	const struct rx_counters *rx; /* the queue's RX task */
	const struct egress_task *tx; /* the task transmitting on it */
	const struct egress_task *snd; /* the queue's unit: PFC frames */
	struct xdp_statistics xsk; /* the socket's; zero if unreadable */
	const struct xsk_starve *sv; /* its starvation detector */
};

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The DCQCN flow tables of an egress task: a flowq_stats counter summed
 * over its DCQCN classes. */
static uint64_t flowq_sum(const struct egress_task *eg, size_t offset)
{
	uint64_t sum = 0;

	for (uint32_t m = eg->sched.fq_mask; m; m &= m - 1) {
		const struct flowq *fq = eg->sched.cl[__builtin_ctz(m)].fq;

		sum += ctr_read(
			(const ctr_t *)((const char *)&fq->st + offset));
	}
	return sum;
}

/* Row sources (gw_counters.def), for `c` (struct gw_qsrc), element i. */
#define SRC_RX(m) ctr_read(&c->rx->m)
#define SRC_TX(m) ctr_read(&c->tx->ctr.m)
#define SRC_TXPFC(m) ctr_read(&c->tx->pfc.m)
#define SRC_ADAPT(m) ctr_read(&c->tx->adapt.ctr.m)
#define SRC_QRATE qrate_shown_bps(&c->tx->qrate)
#define SRC_PAUSE(m) ctr_read(&c->tx->pfc_rx.ctr.m)
#define SRC_SND(m) ctr_read(&c->snd->pfc.m)
#define SRC_SOCKET(m) c->xsk.m
#define SRC_STARVE(m) c->sv->m
#define SRC_STARVED ((uint64_t)xsk_starve_is_starved(c->sv))
#define SRC_FLOWQ(m) flowq_sum(c->tx, offsetof(struct flowq_stats, m))
#define SRC_FLOWS (SRC_FLOWQ(flows_created) - SRC_FLOWQ(flows_expired))
#define SRC_PROG(m) 0 /* per port: gateway_port_stats() */
#define SRC_CLASS(m) ctr_read(&st->m)
#define SRC_DEPTH(what) sched_depth_##what(st)

/* Element i of a field of the dim. */
#define GW_ELEM_ONE(x) x
#define GW_ELEM_PRIO(x) x[i]
#define GW_ELEM_MALFORMED(x) x[i]
#define GW_ELEM_VERDICT(x) x[i]
#define GW_ELEM_SCHED_DROP(x) x[i]
#define GW_ELEM_HIST(x) x[i]

/* A queue's value v into the stats s (a port's or the queue's own). */
#define GW_ACC_QSUM(d, v) d += v
#define GW_ACC_PSUM(d, v) d += v
#define GW_ACC_PMAX(d, v) d = max_u64(d, v)
#define GW_ACC_PORT(d, v) (void)(v)
#define GW_ACC_CSUM(d, v) d += v

/* One row: every element of it, from one queue. `part` is the member of
 * struct gw_port_stats the row's field is in ("xsk." ...), empty for the
 * top level. */
#define GW_ADD(part, field, dim, agg, src, ...)                                \
	for (uint32_t i = GW_DIM_FIRST_##dim; i < GW_DIM_N_##dim; i++)         \
		GW_ACC_##agg(GW_ELEM_##dim(s->part field), src);

/* Add the counters of queue q of a port to s: its RX task, the egress
 * task that transmits on it, the egress task of its own unit (the PFC
 * frames it has sent out of the port), its socket. */
static void add_queue(struct gateway *gw, int port, uint32_t q,
		      struct gw_port_stats *s)
{
	struct gw_qsrc src = {
		.rx = &gw->rx[gw_unit(gw, port, q)].ctr,
		.tx = &gw->eg[gw_unit_tx(gw, port, q)],
		.snd = &gw->eg[gw_unit(gw, port, q)],
		.sv = &gw->port[port].starve[q],
	};
	const struct gw_qsrc *c = &src;

	if (xsk_queue_stats(&gw->port[port].q[q], &src.xsk))
		memset(&src.xsk, 0, sizeof(src.xsk));
#define GW_PORT_COUNTER(...) GW_ADD(, __VA_ARGS__)
#define GW_XSK_COUNTER(...) GW_ADD(xsk., __VA_ARGS__)
#define GW_DCQCN_COUNTER(...) GW_ADD(dcqcn., __VA_ARGS__)
#define GW_PFC_COUNTER(...) GW_ADD(pfc., __VA_ARGS__)
#include "gw_counters.def"
}

void gateway_port_stats(struct gateway *gw, int port, struct gw_port_stats *s)
{
	uint64_t nosock[STEER_NOSOCK_SLOTS];

	memset(s, 0, sizeof(*s));
	for (uint32_t q = 0; gw->rx && q < gw->p.queues; q++)
		add_queue(gw, port, q, s);
	/* the PORT rows */
	steer_read_verdicts(&gw->port[port].prog, s->verdicts);
	if (!steer_read_nosock(&gw->port[port].prog, nosock))
		for (uint32_t k = 0; k < STEER_NOSOCK_SLOTS; k++)
			s->rx_no_socket += nosock[k];
	/* as of the last gateway_watch_queues() */
	s->queues_without_socket = gw->port[port].queues_without_socket;
}

void gateway_queue_stats(struct gateway *gw, int port, uint32_t q,
			 struct gw_port_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (gw->rx && q < gw->p.queues)
		add_queue(gw, port, q, s);
}

void gateway_adaptive(struct gateway *gw, int port, uint32_t q,
		      struct adaptive_view *out)
{
	memset(out, 0, sizeof(*out));
	if (gw->eg && q < gw->p.queues)
		adaptive_read(&gw->eg[gw_unit_tx(gw, port, q)].adapt, out);
}

int gateway_class_stats(struct gateway *gw, int port, unsigned int class_id,
			struct gw_class_stats *s)
{
	const struct sched_class_stats *st;
	int found = -1;

	memset(s, 0, sizeof(*s));
	for (uint32_t q = 0; gw->eg && q < gw->p.queues; q++) {
		st = sched_class_stats(&gw->eg[gw_unit_tx(gw, port, q)].sched,
				       class_id);
		if (!st)
			continue;
		found = 0;
#define GW_CLASS_COUNTER(...) GW_ADD(, __VA_ARGS__)
#include "gw_counters.def"
	}
	return found;
}

void gateway_info(const struct gateway *gw, struct gw_info *info)
{
	info->xdp_mode = steer_mode_name(&gw->port[0].prog);
	info->zerocopy = gw->zerocopy;
	info->n_workers = gw->n_workers;
	info->umem_frames = gw->umem.n_frames;
	info->max_frame = gw->max_frame * gw->max_frags;
	info->multibuf = gw->multibuf;
	info->max_frags = gw->max_frags;
	for (int i = 0; i < GW_PORTS; i++)
		info->mtu[i] = (uint32_t)gw->port[i].mtu;
	info->queues = gw->p.queues;
	info->mem_node = gw->plc.mem_node;
	info->control_cpu = gw->plc.control_cpu;
	info->placement = gw->plc.why;
	info->umem = gw->umem_msg;
}

int gateway_worker_stats(const struct gateway *gw, uint32_t i,
			 struct gw_worker_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!gw->w || i >= gw->n_workers)
		return -1;
	s->cpu = gw->w[i].cpu;
	s->heartbeat = ctr_read(&gw->w[i].heartbeat);
	s->busy_ns = ctr_read(&gw->w[i].busy_ns);
	s->idle_ns = ctr_read(&gw->w[i].idle_ns);
	s->sleep_ns = ctr_read(&gw->w[i].sleep_ns);
	s->sleeps = ctr_read(&gw->w[i].sleeps);
	s->timed_wakes = ctr_read(&gw->w[i].timed_wakes);
	s->late_wakes = ctr_read(&gw->w[i].late_wakes);
	s->spin_waits = ctr_read(&gw->w[i].spin_waits);
	s->naps = ctr_read(&gw->w[i].naps);
	s->wake_late_ns =
		__atomic_load_n(&gw->w[i].wake.late_ns, __ATOMIC_RELAXED);
	return 0;
}

uint32_t gateway_stalled_workers(struct gateway *gw, uint64_t now_ns,
				 uint64_t stall_ns)
{
	uint32_t stalled = 0;

	if (!gw->beat_seen) {
		gw->beat_seen = calloc(gw->n_workers, sizeof(uint64_t));
		gw->beat_at = calloc(gw->n_workers, sizeof(uint64_t));
		if (!gw->beat_seen || !gw->beat_at)
			return 0;
		for (uint32_t i = 0; i < gw->n_workers; i++)
			gw->beat_at[i] = now_ns;
	}
	for (uint32_t i = 0; i < gw->n_workers; i++) {
		uint64_t b = ctr_read(&gw->w[i].heartbeat);

		if (b != gw->beat_seen[i]) {
			gw->beat_seen[i] = b;
			gw->beat_at[i] = now_ns;
		} else if (gw->w[i].started &&
			   now_ns - gw->beat_at[i] > stall_ns) {
			stalled++;
		}
	}
	return stalled;
}
