// SPDX-License-Identifier: BSD-2-Clause
/*
 * gateway.c - the life cycle of a port pair: open (in the order the
 * pieces depend on each other), start, stop, close; the traffic policy
 * and its reloads. The pieces are in gw_ports.c, gw_units.c and
 * gw_stats.c; gateway.h has the structure and the rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "classify.h"
#include "gw_internal.h"
#include "log.h"

/* How long a reload waits for every worker to run the new generation. A
 * running worker switches within one pass, a sleeping one as soon as its
 * eventfd wakes it; a worker that misses this is stuck, not slow. */
#define GW_RELOAD_WAIT_NS 2000000000ull

/* A new policy generation: validated for both egress ports (their
 * adaptive egress with the rates shared by `queues` queues), classifier
 * compiled. NULL and errbuf filled when the policy is refused. */
static struct policy_gen *policy_gen_new(const struct qos_policy *qos,
					 uint64_t gen, uint32_t queues,
					 char *errbuf, size_t errlen)
{
	struct policy_gen *g =
		aligned_alloc(CACHELINE, (sizeof(*g) + CACHELINE - 1) &
						 ~(size_t)(CACHELINE - 1));
	const char *why;
	int err;

	if (!g) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	memset(g, 0, sizeof(*g));
	g->gen = gen;
	g->qos = *qos;
	for (int port = 0; port < GW_PORTS; port++) {
		err = sched_check_policy(qos, port);
		if (err) {
			snprintf(errbuf, errlen,
				 "the class policy is invalid for egress port "
				 "%d: %s",
				 port, strerror(-err));
			free(g);
			return NULL;
		}
		if (adaptive_check(qos, port, queues, &why)) {
			snprintf(errbuf, errlen,
				 "ports[%d].adaptive: %s (floor %llu bit/s "
				 "over %u queue%s)",
				 port, why,
				 (unsigned long long)qos->port[port]
					 .adaptive.floor_bps,
				 queues, queues > 1 ? "s" : "");
			free(g);
			return NULL;
		}
	}
	err = classifier_build(&g->cls, qos);
	if (err) {
		snprintf(errbuf, errlen,
			 "invalid classification rules (rule %d)",
			 g->cls.err_rule);
		free(g);
		return NULL;
	}
	return g;
}

/* The check config_load.c defers for queues: auto; umem.frames not
 * written grows to what the queues need (a power of two). */
static int check_umem_frames(struct gateway *gw, char *errbuf, size_t errlen)
{
	uint64_t need = 2ull * gw->p.queues *
			(gw->p.fill_size + gw->p.tx_size + gw->p.handoff_size);
	uint64_t frames = gw->p.umem_frames;

	if (frames >= need)
		return 0;
	if (gw->p.umem_frames_auto) {
		while (frames < need)
			frames *= 2;
		log_info("umem.frames: %llu (not set; the default %u is too "
			 "small for %u queues: 2 * queues * (rings.fill + "
			 "rings.tx + rings.handoff) = %llu)",
			 (unsigned long long)frames, gw->p.umem_frames,
			 gw->p.queues, (unsigned long long)need);
		gw->p.umem_frames = (uint32_t)frames;
		return 0;
	}
	snprintf(errbuf, errlen,
		 "umem.frames %u is too small for %u queues: need at "
		 "least 2 * queues * (rings.fill + rings.tx + "
		 "rings.handoff) = %llu; raise umem.frames or set "
		 "queues",
		 gw->p.umem_frames, gw->p.queues, (unsigned long long)need);
	return -EINVAL;
}

/* Last step of open: steer traffic into the sockets (it waits in their
 * RX rings until gateway_start() starts the workers). */
static int enter_xskmaps(struct gateway *gw, char *errbuf, size_t errlen)
{
	int err;

	for (int i = 0; i < GW_PORTS; i++) {
		for (uint32_t q = 0; q < gw->p.queues; q++) {
			err = xsk_socket__update_xskmap(
				gw->port[i].q[q].xsk,
				gw->port[i].prog.xsks_map_fd);
			if (err) {
				snprintf(errbuf, errlen,
					 "%s queue %u: cannot enter the socket "
					 "in the XSKMAP: %s",
					 gw->port[i].name, q, strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

struct gateway *gateway_open(const struct gw_params *p, char *errbuf,
			     size_t errlen)
{
	struct gateway *gw;
	uint32_t stamp_room;
	int err;

	gw = calloc(1, sizeof(*gw));
	if (!gw) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	gw->p = *p;
	gw->max_frame = p->frame_size - GW_XDP_HEADROOM - p->frame_headroom;
	gw->max_frags = 1;
	if (gw_ports_open(gw, errbuf, errlen))
		goto fail;
	if (gw_ports_resolve_queues(gw, errbuf, errlen))
		goto fail;
	gw->n_units = GW_PORTS * gw->p.queues;
	if (check_umem_frames(gw, errbuf, errlen) ||
	    gw_units_place(gw, errbuf, errlen))
		goto fail;
	gw->live = policy_gen_new(&p->qos, 1, gw->p.queues, errbuf, errlen);
	gw->last_gen = 1;
	if (!gw->live)
		goto fail;
	err = umem_area_init(&gw->umem, gw->p.umem_frames, p->frame_size,
			     gw->n_units, gw->plc.mem_node, p->hugepages,
			     gw->umem_msg, sizeof(gw->umem_msg));
	if (gw->umem_msg[0])
		log_info("UMEM: %s", gw->umem_msg);
	if (err) {
		snprintf(errbuf, errlen, "cannot map the UMEM: %s",
			 strerror(-err));
		goto fail;
	}
	/* arrival stamps (steer_abi.h, rx_task.h): not with chains, where a
	 * stamp could cost a frame */
	stamp_room = gw->multibuf ? 0 : gw->max_frame;
	for (int i = 0; i < GW_PORTS; i++) {
		err = steer_attach(&gw->port[i].prog, gw->port[i].ifindex,
				   gw->port[i].name, gw->port[1 - i].ifindex,
				   p->xdp_mode, p->failure_mode, gw->p.queues,
				   gw->multibuf, stamp_room, errbuf, errlen);
		if (err)
			goto fail;
		gw_ports_record(gw, &gw->port[i]);
	}
	if (gw_sockets_open(gw, errbuf, errlen))
		goto fail;
	log_info("AF_XDP bind mode: %s%s (%u queue%s per port, UMEM %u frames "
		 "of %u bytes, largest frame %u bytes)",
		 gw->zerocopy ? "zero-copy" : "copy",
		 gw->multibuf ? ", multi-buffer" : "", gw->p.queues,
		 gw->p.queues > 1 ? "s" : "", gw->umem.n_frames,
		 gw->umem.frame_size, gw->max_frame * gw->max_frags);
	gw_ports_log_frames(gw);
	err = gw_units_setup(gw);
	if (err) {
		snprintf(errbuf, errlen, "cannot set up the tasks: %s%s",
			 strerror(-err),
			 err == -EINVAL ? " (the class policy is invalid)"
					: "");
		goto fail;
	}
	gw_csum_setup(gw);
	err = gw_units_setup_workers(gw);
	if (err) {
		snprintf(errbuf, errlen, "cannot set up the workers: %s",
			 strerror(-err));
		goto fail;
	}
	if (enter_xskmaps(gw, errbuf, errlen))
		goto fail;
	return gw;
fail:
	gateway_close(gw, NULL);
	return NULL;
}

int gateway_start(struct gateway *gw, char *errbuf, size_t errlen)
{
	int err;

	for (uint32_t i = 0; i < gw->n_workers; i++) {
		err = worker_start(&gw->w[i]);
		if (err) {
			snprintf(errbuf, errlen, "cannot start worker %u: %s",
				 i, strerror(-err));
			return err;
		}
	}
	gw->started = true;
	log_info("forwarding started: %s <-> %s", gw->port[0].name,
		 gw->port[1].name);
	return 0;
}

void gateway_stop(struct gateway *gw)
{
	/* New frames take the failure path from here on. */
	for (int i = 0; i < GW_PORTS; i++)
		steer_unbind_all(&gw->port[i].prog);
	if (gw->w) {
		gw_sleep_ms(20); /* frames already past the lookup land */
		for (uint32_t i = 0; i < gw->n_workers; i++)
			worker_stop(&gw->w[i]);
	}
}

void gateway_close(struct gateway *gw, struct gw_census *census)
{
	if (!gw)
		return;
	gateway_stop(gw);
	if (census)
		gw_units_census(gw, census);
	for (int i = 0; i < GW_PORTS; i++)
		steer_detach(&gw->port[i].prog);
	gw_sockets_close(gw);
	gw_units_fini(gw);
	umem_area_fini(&gw->umem);
	if (!gw->started) /* a refused start: the ports as they were */
		gw_ports_restore(gw);
	gw_ports_promisc_off(gw);
	gw_ports_strip_restore(gw);
	gw_ports_unlock(gw);
	for (uint32_t i = 0; i < gw->n_retired; i++)
		free(gw->retired[i]);
	free(gw->retired);
	free(gw->beat_seen);
	free(gw->beat_at);
	free(gw->live);
	free(gw);
}

/* Keep generation g until close: a worker may still run it. */
static void retire(struct gateway *gw, struct policy_gen *g)
{
	struct policy_gen **r =
		realloc(gw->retired, (gw->n_retired + 1) * sizeof(*r));

	if (r) {
		gw->retired = r;
		gw->retired[gw->n_retired++] = g;
	}
}

int gateway_reload(struct gateway *gw, const struct qos_policy *qos,
		   char *errbuf, size_t errlen)
{
	struct policy_gen *old = gw->live, *g, *unused;
	int err;

	if (sched_reload_compatible(&old->qos, qos)) {
		snprintf(errbuf, errlen,
			 "the classes with dcqcn, and dcqcn.max_flows, are "
			 "fixed while running (their flow tables are "
			 "allocated at start): restart required");
		return -EINVAL;
	}
	g = policy_gen_new(qos, gw->last_gen + 1, gw->p.queues, errbuf, errlen);
	if (!g)
		return -EINVAL;
	/* adaptive egress turned on for a port the first time: its memory,
	 * before the workers can see the generation */
	for (uint32_t p = 0; p < GW_PORTS; p++) {
		if (!qos->port[p].adaptive.on || !gw_path_reserve(gw, p))
			continue;
		snprintf(errbuf, errlen,
			 "ports[%u].adaptive: out of memory for its monitors "
			 "and event rings (%u queues)",
			 p, gw->p.queues);
		free(g);
		return -ENOMEM;
	}
	gw->last_gen = g->gen; /* burnt even if refused: policy.h */
	err = policy_publish(&gw->live, gw->w, gw->w ? gw->n_workers : 0, g,
			     GW_RELOAD_WAIT_NS, &unused, errbuf, errlen);
	if (unused)
		free(unused);
	else
		retire(gw, err == -ECANCELED ? g : old);
	return err;
}

const struct qos_policy *gateway_policy(const struct gateway *gw)
{
	return &gw->live->qos;
}

uint64_t gateway_generation(const struct gateway *gw)
{
	return gw->live->gen;
}

uint32_t gateway_queues(const struct gateway *gw)
{
	return gw->p.queues;
}
