// SPDX-License-Identifier: BSD-2-Clause
/*
 * gw_units.c - the units of the gateway (gw_internal.h): where they run
 * (placement), the RX and egress task of each and the rings between
 * them, the DCQCN and PFC plumbing across the ports, the workers; the
 * frame census over all of it; the flows and hints that reach the
 * egress tasks from the control thread. Control thread only.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "frame.h"
#include "gw_internal.h"
#include "log.h"
#include "mono_clock.h"

/* Where the workers, the units and the UMEM go (placement.h). */
int gw_units_place(struct gateway *gw, char *errbuf, size_t errlen)
{
	struct plc_topo *topo = calloc(1, sizeof(*topo));
	int allowed[PLC_MAX_CPUS], cfg[PLC_MAX_CPUS], node[2] = {-1, -1};
	struct plc_input in = {0};
	char msg[256], text[sizeof(gw->plc.why)], *line, *save = NULL;
	uint32_t n_allowed = 0;
	cpu_set_t set;
	int err;

	if (!topo)
		return -ENOMEM;
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set))
		for (int c = 0; c < CPU_SETSIZE && n_allowed < PLC_MAX_CPUS;
		     c++)
			if (CPU_ISSET(c, &set))
				allowed[n_allowed++] = c;
	if (placement_topo_load(topo, msg, sizeof(msg))) {
		/* no topology: every allowed CPU its own core, no nodes */
		log_warn("placement: no hwloc topology (%s): cores treated "
			 "as independent, memory not bound",
			 msg);
		topo->n = n_allowed;
		for (uint32_t i = 0; i < n_allowed; i++)
			topo->cpu[i] =
				(struct plc_cpu){allowed[i], (int)i, 0, -1};
	} else {
		placement_port_nodes(gw->port[0].name, gw->port[1].name, node);
	}
	for (uint32_t i = 0; i < gw->p.n_cpus && i < PLC_MAX_CPUS; i++)
		cfg[i] = (int)gw->p.cpus[i];
	in.topo = topo;
	in.port_node[0] = node[0];
	in.port_node[1] = node[1];
	in.allowed = allowed;
	in.n_allowed = n_allowed;
	in.cfg_cpus = cfg;
	in.n_cfg_cpus = MIN(gw->p.n_cpus, PLC_MAX_CPUS);
	in.queues = gw->p.queues;
	err = placement_decide(&in, &gw->plc);
	free(topo);
	if (err) {
		snprintf(errbuf, errlen, "placement: %s", gw->plc.why);
		return err;
	}
	snprintf(text, sizeof(text), "%s", gw->plc.why);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		log_info("placement: %s", line);
	return 0;
}

/* DCQCN plumbing (feedback.h, egress.h): feedback rings from each RX task
 * to the egress tasks that transmit on its port, a hint ring per egress
 * task, and the NP path of each unit. Set up whatever the policy: a
 * reload may turn DCQCN parameters on, and the rings cost little. */
static int setup_dcqcn_paths(struct gateway *gw, uint32_t per_part)
{
	uint32_t n = gw->n_units, nq = gw->p.queues;
	int err = 0;

	gw->np_ho = gw_zalloc_aligned(n, sizeof(*gw->np_ho));
	gw->np_ret = gw_zalloc_aligned(n, sizeof(*gw->np_ret));
	gw->fb = gw_zalloc_aligned((size_t)n * nq, sizeof(*gw->fb));
	gw->hint = gw_zalloc_aligned(n, sizeof(*gw->hint));
	if (!gw->np_ho || !gw->np_ret || !gw->fb || !gw->hint)
		return -ENOMEM;
	for (uint32_t u = 0; u < n && !err; u++) {
		uint32_t port = gw_unit_port(gw, u);

		if (handoff_ring_init(&gw->np_ho[u], 256) ||
		    return_ring_init(&gw->np_ret[u], per_part) ||
		    feedback_ring_init(&gw->hint[u], 256))
			return -ENOMEM;
		/* rx[u] feeds every egress task transmitting on its port */
		for (uint32_t j = 0; j < nq && !err; j++) {
			struct feedback_ring *r = &gw->fb[u * nq + j];

			if (feedback_ring_init(r, 1024))
				return -ENOMEM;
			err = rx_task_add_feedback(&gw->rx[u], r);
			if (!err)
				err = egress_task_add_feedback(
					&gw->eg[gw_unit_tx(gw, port, j)], r);
		}
		if (!err)
			err = egress_task_add_feedback(&gw->eg[u],
						       &gw->hint[u]);
		if (!err)
			err = egress_task_add_input(
				&gw->eg[gw_unit_peer(gw, u)], &gw->np_ho[u], u,
				&gw->np_ret[u]);
		if (!err)
			err = rx_task_add_return(&gw->rx[u], &gw->np_ret[u]);
		gw->eg[u].np_pool = &gw->rx[u].pool;
		gw->eg[u].np_out = &gw->np_ho[u];
		gw->eg[u].cls = &gw->live->cls;
		gw->eg[u].dcq = &gw->live->qos.dcqcn;
		gw->eg[u].np_wake_fd = -1;
		/* PFC frames eg[u] sends leave by rx[u]'s port */
		if (egress_task_set_pfc_mac(&gw->eg[u], gw->port[port].ifindex))
			log_warn("%s: no MAC address for PFC frames",
				 gw->port[port].name);
		rx_task_set_policy(&gw->rx[u], &gw->live->qos);
	}
	return err;
}

int gw_path_reserve(struct gateway *gw, uint32_t port)
{
	uint32_t nq = gw->p.queues, slots = adaptive_plan_ring(nq);
	uint64_t now = mono_ns();
	struct pathmon_ring *r;

	if (gw->path_ready[port])
		return 0;
	for (uint32_t q = 0; q < nq; q++) {
		for (uint32_t j = 0; j < nq; j++) {
			r = &gw->path[gw_unit(gw, port, q) * nq + j];
			if (!r->geo.slots && pathmon_ring_init(r, slots))
				return -ENOMEM;
		}
		if (adaptive_reserve(&gw->eg[gw_unit_tx(gw, port, q)].adapt, nq,
				     now))
			return -ENOMEM;
	}
	gw->path_ready[port] = true;
	return 0;
}

/* Adaptive egress (adaptive.h): a path event ring from each RX task to
 * every egress task transmitting on its port, wired whatever the policy
 * (a reload may turn it on). The rings' slots and the monitors are made
 * for the ports the policy turns it on for (gw_path_reserve; a reload
 * that turns it on makes them then), sized for the queues. */
static int setup_path_rings(struct gateway *gw)
{
	const struct qos_policy *pol = &gw->live->qos;
	uint32_t n = gw->n_units, nq = gw->p.queues;
	uint64_t now = mono_ns();
	int err = 0;

	gw->path = gw_zalloc_aligned((size_t)n * nq, sizeof(*gw->path));
	if (!gw->path)
		return -ENOMEM;
	for (uint32_t u = 0; u < n && !err; u++) {
		uint32_t port = gw_unit_port(gw, u);

		for (uint32_t j = 0; j < nq && !err; j++) {
			struct pathmon_ring *r = &gw->path[u * nq + j];

			err = rx_task_add_path(&gw->rx[u], r, (int)port);
			if (!err)
				err = egress_task_add_path(
					&gw->eg[gw_unit_tx(gw, port, j)], r);
		}
		rx_task_set_policy(&gw->rx[u], pol);
	}
	for (uint32_t p = 0; p < GW_PORTS && !err; p++) {
		if (!pol->port[p].adaptive.on)
			continue;
		err = gw_path_reserve(gw, p);
		/* on now that its monitor is there */
		for (uint32_t j = 0; j < nq && !err; j++) {
			struct egress_task *t = &gw->eg[gw_unit_tx(gw, p, j)];

			adaptive_configure(&t->adapt, pol, &t->sched, now);
		}
	}
	return err;
}

/* Adaptive egress: what the egress tasks of each port share
 * (adaptive_share). */
static int setup_path_shared(struct gateway *gw)
{
	gw->path_shared = gw_zalloc_aligned(GW_PORTS, sizeof(*gw->path_shared));
	if (!gw->path_shared)
		return -ENOMEM;
	for (uint32_t u = 0; u < gw->n_units; u++)
		adaptive_share(&gw->eg[u].adapt,
			       &gw->path_shared[1 - gw_unit_port(gw, u)]);
	return 0;
}

/* bit/s as "97.66 Mbit/s" into buf. */
static const char *bps_str(char *buf, size_t len, double bps)
{
	static const char *const pre[] = {"", "k", "M", "G", "T"};
	unsigned int k = 0;

	while (bps >= 1000 && k < 4) {
		bps /= 1000;
		k++;
	}
	snprintf(buf, len, "%.4g %sbit/s", bps, pre[k]);
	return buf;
}

/* Per shaped port of several queues: how its rate is split. */
static void log_qrate(const struct gateway *gw)
{
	const struct qos_policy *pol = &gw->live->qos;
	uint32_t n = gw->p.queues;

	for (uint32_t p = 0; p < GW_PORTS; p++) {
		const struct qos_port *pp = &pol->port[p];
		double r = (double)pp->rate_bps,
		       floor = r / n / QRATE_FLOOR_DIV;
		char a[32], b[32], c[32], d[32];

		if (!pp->rate_bps)
			continue;
		if (pp->adaptive.on) {
			log_warn("%s: rate %s over %u queues, adaptive egress "
				 "on: each queue's controller runs its even "
				 "part, %s at most, so one flow (one RSS "
				 "queue) gets at most that; per-queue rates: "
				 "shaper_rate_bps",
				 gw->port[p].name, bps_str(a, sizeof(a), r), n,
				 bps_str(b, sizeof(b), r / n));
			continue;
		}
		log_info("%s: rate %s for the port as a whole, split between "
			 "its %u queues by demand every %llu ms (each keeps "
			 "at least %s; one busy queue gets up to %s; "
			 "%s each at start); per-queue rates: "
			 "shaper_rate_bps",
			 gw->port[p].name, bps_str(a, sizeof(a), r), n,
			 QRATE_PERIOD_NS / 1000000ull,
			 bps_str(b, sizeof(b), floor),
			 bps_str(c, sizeof(c), r - (n - 1) * floor),
			 bps_str(d, sizeof(d), r / n));
	}
}

/* The queue rebalancer of each port with several queues (qrate.h): the
 * egress tasks transmitting on it share one. */
static int setup_qrate(struct gateway *gw)
{
	if (gw->p.queues < 2)
		return 0;
	log_qrate(gw);
	gw->qrate = gw_zalloc_aligned(GW_PORTS, sizeof(*gw->qrate));
	if (!gw->qrate)
		return -ENOMEM;
	for (uint32_t p = 0; p < GW_PORTS; p++)
		qrate_init(&gw->qrate[p], gw->p.queues);
	for (uint32_t u = 0; u < gw->n_units; u++)
		egress_task_set_qrate(&gw->eg[u],
				      &gw->qrate[1 - gw_unit_port(gw, u)],
				      gw_unit_queue(gw, u));
	return 0;
}

/* Adaptive egress: per port, the table of which queue sends a flow
 * (path_owner.h), sized for the flows the port's monitors hold. The
 * egress task of queue j writes j; the port's RX tasks post to path[j]
 * (setup_path_rings adds the rings in queue order). */
static int setup_path_owner(struct gateway *gw)
{
	uint32_t nq = gw->p.queues;
	uint64_t seed = mono_ns();
	struct pathmon_params pp;
	int err;

	pathmon_params_default(&pp);
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed ^= (uint64_t)(uintptr_t)gw;
	for (uint32_t p = 0; p < GW_PORTS; p++) {
		err = path_owner_init(&gw->path_owner[p], nq * pp.max_flows,
				      seed + p);
		if (err)
			return err;
		for (uint32_t j = 0; j < nq; j++)
			adaptive_set_owner(&gw->eg[gw_unit_tx(gw, p, j)].adapt,
					   &gw->path_owner[p], j);
	}
	for (uint32_t u = 0; u < gw->n_units; u++)
		rx_task_set_path_owner(&gw->rx[u],
				       &gw->path_owner[gw_unit_port(gw, u)]);
	return 0;
}

int gw_units_setup(struct gateway *gw)
{
	uint32_t n = gw->n_units, per_part = umem_frames_per_part(&gw->umem);
	int err;

	gw->rx = gw_zalloc_aligned(n, sizeof(*gw->rx));
	gw->eg = gw_zalloc_aligned(n, sizeof(*gw->eg));
	gw->ho = gw_zalloc_aligned(n, sizeof(*gw->ho));
	gw->ret = gw_zalloc_aligned(n, sizeof(*gw->ret));
	if (!gw->rx || !gw->eg || !gw->ho || !gw->ret)
		return -ENOMEM;
	for (uint32_t u = 0; u < n; u++) {
		uint32_t p = gw_unit_port(gw, u), q = gw_unit_queue(gw, u);

		/* The return ring holds every frame of the partition: an
		 * egress task can always give a frame back. */
		if (handoff_ring_init(&gw->ho[u], gw->p.handoff_size) ||
		    return_ring_init(&gw->ret[u], per_part))
			return -ENOMEM;
		err = rx_task_init(&gw->rx[u], &gw->port[p].q[q], &gw->umem, u,
				   &gw->live->cls, &gw->ho[u], gw->p.batch,
				   gw->max_frame);
		if (err)
			return err;
		rx_task_add_return(&gw->rx[u], &gw->ret[u]);
		err = egress_task_init(&gw->eg[u], &gw->port[1 - p].q[q],
				       &gw->umem, gw->p.batch, &gw->live->qos,
				       1 - p, per_part);
		/* the port's queues share its rates */
		if (!err && gw->p.queues > 1)
			err = egress_task_set_queues(&gw->eg[u], gw->p.queues,
						     &gw->live->qos);
		if (err)
			return err;
		if (gw->multibuf) {
			rx_task_set_multibuf(&gw->rx[u], gw->max_frags);
			egress_task_set_multibuf(&gw->eg[u], gw->max_frags);
		}
		err = egress_task_add_input(&gw->eg[u], &gw->ho[u], u,
					    &gw->ret[u]);
		if (err)
			return err;
		sched_set_frame_base(&gw->eg[u].sched, gw->umem.base);
	}
	err = setup_dcqcn_paths(gw, per_part);
	if (!err)
		err = setup_path_rings(gw);
	if (!err)
		err = setup_path_shared(gw);
	if (!err)
		err = setup_path_owner(gw);
	if (!err)
		err = setup_qrate(gw);
	if (err)
		return err;
	for (uint32_t u = 0; u < n; u++)
		rx_task_refill(&gw->rx[u]);
	return 0;
}

int gw_units_setup_workers(struct gateway *gw)
{
	const struct worker_poll poll = {
		.busy_us = gw->p.busy_us,
		.coalesce_us = gw->p.coalesce_us,
		.shaper_spin_us = gw->p.shaper_spin_us,
		.shaper_wait_spin = gw->p.shaper_wait_spin,
	};
	int err;

	gw->n_workers = gw->plc.n_workers;
	gw->w = gw_zalloc_aligned(gw->n_workers, sizeof(*gw->w));
	if (!gw->w)
		return -ENOMEM;
	for (uint32_t i = 0; i < gw->n_workers; i++) {
		err = worker_init(&gw->w[i], i, gw->plc.worker_cpu[i], &poll,
				  &gw->live);
		if (err)
			return err;
	}
	for (uint32_t u = 0; u < gw->n_units; u++) {
		struct worker *w = &gw->w[gw->plc.unit_worker[u]];

		if (worker_add_rx(w, &gw->rx[u]) ||
		    worker_add_egress(w, &gw->eg[u]))
			return -ENOSPC;
	}
	/* NP frames cross to the other port's egress task: wake its worker
	 * when that is another one */
	for (uint32_t u = 0; u < gw->n_units; u++) {
		uint32_t a = gw->plc.unit_worker[u],
			 b = gw->plc.unit_worker[gw_unit_peer(gw, u)];

		gw->eg[u].np_wake_fd = a == b ? -1 : gw->w[b].wake_fd;
	}
	for (uint32_t i = 0; i < gw->n_workers; i++) {
		struct worker *w = &gw->w[i];

		log_info("worker %u on CPU %d:", i, w->cpu);
		for (uint32_t k = 0; k < w->n_rx; k++) {
			uint32_t u = w->rx[k] - gw->rx, p = gw_unit_port(gw, u),
				 q = gw_unit_queue(gw, u);

			log_info("  RX %s queue %u -> egress %s queue %u",
				 gw->port[p].name, q, gw->port[1 - p].name, q);
		}
	}
	return 0;
}

/* Every UMEM frame in exactly one place: pools, rings, sockets. */
void gw_units_census(struct gateway *gw, struct gw_census *out)
{
	struct umem_census c;

	memset(out, 0, sizeof(*out));
	if (!gw->rx || umem_census_init(&c, &gw->umem))
		return;
	for (uint32_t u = 0; u < gw->n_units; u++) {
		rx_task_census(&gw->rx[u], &c);
		egress_task_census(&gw->eg[u], &c);
		handoff_ring_foreach(&gw->ho[u], frame_desc_census, &c);
		return_ring_foreach(&gw->ret[u], umem_census_addr, &c);
		if (gw->np_ho) {
			handoff_ring_foreach(&gw->np_ho[u], frame_desc_census,
					     &c);
			return_ring_foreach(&gw->np_ret[u], umem_census_addr,
					    &c);
		}
	}
	for (int p = 0; p < GW_PORTS; p++)
		for (uint32_t q = 0; q < gw->p.queues; q++)
			xsk_queue_census(&gw->port[p].q[q], &c);
	out->total = gw->umem.n_frames;
	out->found = c.found;
	out->driver = c.uncounted;
	out->missing = umem_census_missing(&c);
	out->doubles = c.doubles;
	out->strays = c.strays;
	out->done = true;
	umem_census_fini(&c);
}

/* Workers, tasks and rings freed (the workers stopped). */
void gw_units_fini(struct gateway *gw)
{
	for (uint32_t i = 0; gw->w && i < gw->n_workers; i++)
		worker_fini(&gw->w[i]);
	for (uint32_t u = 0; gw->rx && u < gw->n_units; u++) {
		rx_task_fini(&gw->rx[u]);
		egress_task_fini(&gw->eg[u]);
		handoff_ring_fini(&gw->ho[u]);
		return_ring_fini(&gw->ret[u]);
		if (gw->np_ho)
			handoff_ring_fini(&gw->np_ho[u]);
		if (gw->np_ret)
			return_ring_fini(&gw->np_ret[u]);
		if (gw->hint)
			feedback_ring_fini(&gw->hint[u]);
		for (uint32_t j = 0; gw->fb && j < gw->p.queues; j++)
			feedback_ring_fini(&gw->fb[u * gw->p.queues + j]);
		for (uint32_t j = 0; gw->path && j < gw->p.queues; j++)
			pathmon_ring_fini(&gw->path[u * gw->p.queues + j]);
	}
	free(gw->path);
	free(gw->path_shared);
	free(gw->qrate);
	gw->qrate = NULL;
	for (uint32_t p = 0; p < GW_PORTS; p++)
		path_owner_fini(&gw->path_owner[p]);
	free(gw->np_ho);
	free(gw->np_ret);
	free(gw->fb);
	free(gw->hint);
	free(gw->w);
	free(gw->rx);
	free(gw->eg);
	free(gw->ho);
	free(gw->ret);
}

void gateway_queue_placement(const struct gateway *gw, int port, uint32_t q,
			     int *worker, int *cpu)
{
	uint32_t u = gw_unit(gw, (uint32_t)port, q);

	*worker = -1;
	*cpu = -1;
	if (!gw->w || u >= gw->n_units)
		return;
	*worker = (int)gw->plc.unit_worker[u];
	*cpu = gw->w[*worker].cpu;
}

void gateway_flows(struct gateway *gw,
		   void (*fn)(const struct gw_flow *f, void *arg), void *arg)
{
	struct gw_flow f;

	for (uint32_t u = 0; gw->eg && u < gw->n_units; u++) {
		const struct sched *s = &gw->eg[u].sched;

		f.port = gw->eg[u].port;
		f.queue = gw_unit_queue(gw, u);
		for (uint32_t m = s->fq_mask; m; m &= m - 1) {
			unsigned int slot = (unsigned int)__builtin_ctz(m);
			const struct flowq *q = s->cl[slot].fq;

			f.class_name = s->name[slot];
			for (uint32_t i = 0; i < q->max_flows; i++)
				if (flowq_view(q, i, &f.v))
					fn(&f, arg);
		}
	}
}

int gateway_hint(struct gateway *gw, int port, unsigned int class_id,
		 uint8_t family, const uint8_t *prefix, uint8_t plen,
		 uint32_t severity)
{
	const struct qos_policy *pol = &gw->live->qos;
	struct feedback_ring *rings[GW_MAX_QUEUES];
	struct fb_event ev = {
		.type = FB_HINT,
		.family = family,
		.plen = plen,
		.class_id = (uint8_t)class_id,
		.psn = severity,
	};
	uint32_t n = 0, k;
	bool dcqcn = false;
	int err;

	/* everything is checked before any queue gets the hint: it reaches
	 * every egress queue of the port or none */
	for (k = 0; k < pol->n_classes; k++)
		dcqcn |= pol->classes[k].dcqcn &&
			 (class_id == 0xff || class_id == k);
	if (!dcqcn)
		return -ENOENT;
	for (uint32_t u = 0; gw->eg && u < gw->n_units; u++)
		if (gw->eg[u].port == port)
			rings[n++] = &gw->hint[u];
	memcpy(ev.src, prefix, family == 6 ? 16 : 4);
	err = feedback_post_all(rings, n, &ev);
	if (err < 0)
		return err;
	for (uint32_t u = 0; gw->w && u < gw->n_units; u++)
		if (gw->eg[u].port == port)
			worker_wake(&gw->w[gw->plc.unit_worker[u]]);
	return (int)n;
}
