// SPDX-License-Identifier: BSD-2-Clause
/*
 * gateway.c - set-up, tear-down and statistics of a port pair. See
 * gateway.h for the structure and the rules.
 */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-qsbr.h>
#include "classify.h"
#include "egress.h"
#include "frame.h"
#include "gateway.h"
#include "log.h"
#include "placement.h"
#include "policy.h"
#include "rx_task.h"
#include "steer_prog.h"
#include "umem.h"
#include "worker.h"
#include "xsk_queue.h"

/* The kernel keeps XDP_PACKET_HEADROOM bytes in front of every received
 * frame; a VLAN tag may add 4 bytes to an MTU-sized frame. */
#define GW_XDP_HEADROOM 256
#define GW_L2_OVERHEAD (14 + 4)

struct gw_port {
	char name[IF_NAMESIZE];
	int ifindex;
	int mtu;
	uint32_t frames; /* UMEM frames an MTU-sized packet takes */
	int lock_fd;
	struct steer_prog prog;
	struct xsk_queue q[GW_MAX_QUEUES];
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
	struct worker *w;
	uint32_t n_workers;
	struct plc_result plc; /* workers, unit -> worker, memory node */
	char umem_msg[256]; /* how the UMEM was mapped and bound */
};

static uint32_t unit_port(const struct gateway *gw, uint32_t u)
{
	return u / gw->p.queues;
}

static uint32_t unit_queue(const struct gateway *gw, uint32_t u)
{
	return u % gw->p.queues;
}

static void *zalloc_aligned(size_t n, size_t size)
{
	void *m = NULL;

	if (posix_memalign(&m, CACHELINE, n * size))
		return NULL;
	memset(m, 0, n * size);
	return m;
}

/* One xdplane per interface per network namespace: an abstract socket
 * name is the lock; the kernel releases it when the process dies. */
static int lock_port(struct gw_port *pt, char *errbuf, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len;
	int n;

	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "xdplane/port/%s", pt->name);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	pt->lock_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (pt->lock_fd < 0 || bind(pt->lock_fd, (struct sockaddr *)&sa, len)) {
		int err = errno;

		snprintf(errbuf, errlen, "%s: %s", pt->name,
			 err == EADDRINUSE
				 ? "another xdplane is already running on this "
				   "interface"
				 : strerror(err));
		return -err;
	}
	return 0;
}

/* The channels (queues) a NIC has: combined, else RX; 0 if unknown. */
static uint32_t port_channels(const char *name)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t n = 0;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = (void *)&ch;
	if (fd >= 0 && !ioctl(fd, SIOCETHTOOL, &ifr))
		n = ch.combined_count ? ch.combined_count : ch.rx_count;
	if (fd >= 0)
		close(fd);
	return n;
}

/* queues: auto (0) -> the channel count both ports have. */
static void resolve_queues(struct gateway *gw)
{
	uint32_t c0, c1, n;

	if (gw->p.queues)
		return;
	c0 = port_channels(gw->port[0].name);
	c1 = port_channels(gw->port[1].name);
	n = MIN(c0 ? c0 : 1, c1 ? c1 : 1);
	n = MIN(n, GW_MAX_QUEUES);
	gw->p.queues = n;
	log_info("queues: auto -> %u (%s: %u channels, %s: %u channels%s)", n,
		 gw->port[0].name, c0, gw->port[1].name, c1,
		 c0 && c1 ? "" : "; 0: the driver does not say");
}

/* Where the workers, the units and the UMEM go (placement.h). */
static int place(struct gateway *gw, char *errbuf, size_t errlen)
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

static int check_port(struct gateway *gw, struct gw_port *pt, char *errbuf,
		      size_t errlen)
{
	struct ifreq ifr = {0};
	uint32_t want, mtu, need, frames;
	int fd;

	pt->ifindex = if_nametoindex(pt->name);
	if (!pt->ifindex) {
		snprintf(errbuf, errlen, "%s: no such interface", pt->name);
		return -ENODEV;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", pt->name);
	if (fd < 0 || ioctl(fd, SIOCGIFMTU, &ifr)) {
		snprintf(errbuf, errlen, "%s: cannot read the MTU: %s",
			 pt->name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	pt->mtu = ifr.ifr_mtu;
	want = gw->p.mtu[pt - gw->port];
	mtu = want ? want : (uint32_t)pt->mtu;
	/* Frames per packet, decided before the interface is touched: a
	 * refused MTU leaves it as it was. */
	need = mtu + GW_L2_OVERHEAD;
	frames = (need + gw->max_frame - 1) / gw->max_frame;
	if (frames > 1 && frames + 1 > FRAME_CHAIN_MAX) {
		snprintf(
			errbuf, errlen,
			"%s: MTU %u needs %u frames of %u B per packet, but "
			"AF_XDP multi-buffer carries at most %d (a %u-byte "
			"UMEM frame holds %u after %d bytes of kernel headroom "
			"and umem.headroom %u): lower the MTU to %u or less, "
			"or raise umem.frame_size",
			pt->name, mtu, frames, gw->p.frame_size,
			FRAME_CHAIN_MAX - 1, gw->p.frame_size, gw->max_frame,
			GW_XDP_HEADROOM, gw->p.frame_headroom,
			(FRAME_CHAIN_MAX - 1) * gw->max_frame - GW_L2_OVERHEAD);
		close(fd);
		return -EMSGSIZE;
	}
	if (mtu != (uint32_t)pt->mtu) {
		/* ports[].mtu: the interface takes it (refused above the
		 * driver's max_mtu) */
		ifr.ifr_mtu = (int)mtu;
		if (ioctl(fd, SIOCSIFMTU, &ifr)) {
			int err = errno;

			snprintf(errbuf, errlen,
				 "%s: cannot set the MTU to %u (ports[].mtu; "
				 "now %d): %s%s",
				 pt->name, mtu, pt->mtu, strerror(err),
				 err == EINVAL
					 ? " (above the driver's max_mtu, "
					   "see ip -d link show)"
					 : "");
			close(fd);
			return -err;
		}
		log_info("%s: MTU set to %u (was %d)", pt->name, mtu, pt->mtu);
		pt->mtu = (int)mtu;
	}
	close(fd);
	pt->frames = frames;
	if (frames > 1) {
		/* one frame of slack: a driver may fill frames less */
		gw->multibuf = true;
		gw->max_frags = MAX(gw->max_frags, frames + 1);
	}
	return 0;
}

/* The start-up log line of a port's frame decision. */
static void log_port_frames(const struct gateway *gw, const struct gw_port *pt)
{
	if (pt->frames > 1)
		log_info("%s: MTU %d, multi-buffer on, up to %u frames of %u B "
			 "per packet",
			 pt->name, pt->mtu, pt->frames, gw->umem.frame_size);
	else
		log_info("%s: MTU %d, single-buffer (multi-buffer %s: a "
			 "%u B frame holds %u B)",
			 pt->name, pt->mtu,
			 gw->multibuf ? "on for the other port" : "off",
			 gw->umem.frame_size, gw->max_frame);
}

static void close_sockets(struct gateway *gw)
{
	for (int p = 0; p < GW_PORTS; p++)
		for (uint32_t q = 0; q < gw->p.queues; q++)
			xsk_queue_close(&gw->port[p].q[q]);
	xsk_umem_reg_fini(&gw->reg);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* The bind with XDP_USE_SG failed with EINVAL: a kernel without AF_XDP
 * multi-buffer (< 6.6). Names the port that needs it and the way out. */
static void sg_refused(const struct gateway *gw, int err, char *errbuf,
		       size_t errlen)
{
	const struct gw_port *pt = &gw->port[0];

	if (gw->port[1].frames > pt->frames)
		pt = &gw->port[1];
	snprintf(errbuf, errlen,
		 "%s: MTU %d needs AF_XDP multi-buffer (XDP_USE_SG), which "
		 "the kernel refused: %s; lower the MTU to %u or upgrade to "
		 "Linux >= 6.6",
		 pt->name, pt->mtu, strerror(-err),
		 gw->max_frame - GW_L2_OVERHEAD);
}

/* Create every socket in one bind mode; all or nothing. */
static int open_sockets(struct gateway *gw, bool zerocopy, char *errbuf,
			size_t errlen)
{
	struct xsk_ring_sizes sz = {gw->p.fill_size, gw->p.comp_size,
				    gw->p.rx_size, gw->p.tx_size};
	int err;

	err = xsk_umem_reg_init(&gw->reg, &gw->umem, &sz, &gw->port[0].q[0]);
	if (err) {
		snprintf(
			errbuf, errlen,
			"cannot register the UMEM (%u frames of %u bytes): "
			"%s%s",
			gw->umem.n_frames, gw->umem.frame_size, strerror(-err),
			err == -ENOBUFS || err == -ENOMEM
				? " (raise RLIMIT_MEMLOCK or keep CAP_IPC_LOCK)"
				: "");
		return err;
	}
	for (int p = 0; p < GW_PORTS; p++) {
		for (uint32_t q = 0; q < gw->p.queues; q++) {
			/* A socket closed by a previous run is torn down
			 * asynchronously: EBUSY for a moment. */
			for (int tries = 0; tries < 30; tries++) {
				err = xsk_queue_open(&gw->port[p].q[q],
						     &gw->reg, gw->port[p].name,
						     q, &sz, zerocopy,
						     gw->multibuf);
				if (err != -EBUSY)
					break;
				sleep_ms(100);
			}
			if (err && gw->multibuf && err == -EINVAL)
				sg_refused(gw, err, errbuf, errlen);
			else if (err)
				snprintf(errbuf, errlen,
					 "%s queue %u: AF_XDP bind (%s%s): %s",
					 gw->port[p].name, q,
					 zerocopy ? "zero-copy" : "copy",
					 gw->multibuf ? ", multi-buffer" : "",
					 strerror(-err));
			if (err) {
				close_sockets(gw);
				return err;
			}
		}
	}
	gw->zerocopy = zerocopy;
	return 0;
}

static int setup_sockets(struct gateway *gw, char *errbuf, size_t errlen)
{
	int err;

	if (gw->p.bind_mode != 2) {
		err = open_sockets(gw, true, errbuf, errlen);
		if (!err || gw->p.bind_mode == 1)
			return err;
		log_info("zero-copy not available (%s); using copy mode",
			 errbuf);
	}
	return open_sockets(gw, false, errbuf, errlen);
}

/* The unit of the same queue on the other port. */
static uint32_t unit_peer(const struct gateway *gw, uint32_t u)
{
	return (1 - unit_port(gw, u)) * gw->p.queues + unit_queue(gw, u);
}

/* DCQCN plumbing (feedback.h, egress.h): feedback rings from each RX task
 * to the egress tasks that transmit on its port, a hint ring per egress
 * task, and the NP path of each unit. Set up whatever the policy: a
 * reload may turn DCQCN parameters on, and the rings cost little. */
static int setup_dcqcn_paths(struct gateway *gw, uint32_t per_part)
{
	uint32_t n = gw->n_units, nq = gw->p.queues;
	int err = 0;

	gw->np_ho = zalloc_aligned(n, sizeof(*gw->np_ho));
	gw->np_ret = zalloc_aligned(n, sizeof(*gw->np_ret));
	gw->fb = zalloc_aligned((size_t)n * nq, sizeof(*gw->fb));
	gw->hint = zalloc_aligned(n, sizeof(*gw->hint));
	if (!gw->np_ho || !gw->np_ret || !gw->fb || !gw->hint)
		return -ENOMEM;
	for (uint32_t u = 0; u < n && !err; u++) {
		uint32_t peer = unit_peer(gw, u);

		if (handoff_ring_init(&gw->np_ho[u], 256) ||
		    return_ring_init(&gw->np_ret[u], per_part) ||
		    feedback_ring_init(&gw->hint[u], 256))
			return -ENOMEM;
		/* eg[v] transmits on rx[u]'s port when unit v is a unit of
		 * the other port */
		for (uint32_t j = 0; j < nq && !err; j++) {
			struct feedback_ring *r = &gw->fb[u * nq + j];

			if (feedback_ring_init(r, 1024))
				return -ENOMEM;
			err = rx_task_add_feedback(&gw->rx[u], r);
			if (!err)
				err = egress_task_add_feedback(
					&gw->eg[(1 - unit_port(gw, u)) * nq +
						j],
					r);
		}
		if (!err)
			err = egress_task_add_feedback(&gw->eg[u],
						       &gw->hint[u]);
		if (!err)
			err = egress_task_add_input(&gw->eg[peer],
						    &gw->np_ho[u], u,
						    &gw->np_ret[u]);
		if (!err)
			err = rx_task_add_return(&gw->rx[u], &gw->np_ret[u]);
		gw->eg[u].np_pool = &gw->rx[u].pool;
		gw->eg[u].np_out = &gw->np_ho[u];
		gw->eg[u].cls = &gw->live->cls;
		gw->eg[u].dcq = &gw->live->qos.dcqcn;
		gw->eg[u].np_wake_fd = -1;
		/* PFC frames eg[u] sends leave by rx[u]'s port */
		if (egress_task_set_pfc_mac(&gw->eg[u],
					    gw->port[unit_port(gw, u)].ifindex))
			log_warn("%s: no MAC address for PFC frames",
				 gw->port[unit_port(gw, u)].name);
		rx_task_set_dcqcn(&gw->rx[u], &gw->live->qos);
	}
	return err;
}

static int setup_tasks(struct gateway *gw)
{
	uint32_t n = gw->n_units, per_part = umem_frames_per_part(&gw->umem);
	int err;

	gw->rx = zalloc_aligned(n, sizeof(*gw->rx));
	gw->eg = zalloc_aligned(n, sizeof(*gw->eg));
	gw->ho = zalloc_aligned(n, sizeof(*gw->ho));
	gw->ret = zalloc_aligned(n, sizeof(*gw->ret));
	if (!gw->rx || !gw->eg || !gw->ho || !gw->ret)
		return -ENOMEM;
	for (uint32_t u = 0; u < n; u++) {
		uint32_t p = unit_port(gw, u), q = unit_queue(gw, u);

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
	if (err)
		return err;
	for (uint32_t u = 0; u < n; u++)
		rx_task_refill(&gw->rx[u]);
	return 0;
}

static int setup_workers(struct gateway *gw)
{
	int err;

	gw->n_workers = gw->plc.n_workers;
	gw->w = zalloc_aligned(gw->n_workers, sizeof(*gw->w));
	if (!gw->w)
		return -ENOMEM;
	for (uint32_t i = 0; i < gw->n_workers; i++) {
		err = worker_init(&gw->w[i], i, gw->plc.worker_cpu[i],
				  gw->p.busy_us, gw->p.shaper_spin_us,
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
			 b = gw->plc.unit_worker[unit_peer(gw, u)];

		gw->eg[u].np_wake_fd = a == b ? -1 : gw->w[b].wake_fd;
	}
	for (uint32_t i = 0; i < gw->n_workers; i++) {
		struct worker *w = &gw->w[i];

		log_info("worker %u on CPU %d:", i, w->cpu);
		for (uint32_t k = 0; k < w->n_rx; k++) {
			uint32_t u = w->rx[k] - gw->rx;

			log_info("  RX %s queue %u -> egress %s queue %u",
				 gw->port[unit_port(gw, u)].name,
				 unit_queue(gw, u),
				 gw->port[1 - unit_port(gw, u)].name,
				 unit_queue(gw, u));
		}
	}
	return 0;
}

/* A new policy generation: validated for both egress ports, classifier
 * compiled. NULL and errbuf filled when the policy is refused. */
static struct policy_gen *policy_gen_new(const struct qos_policy *qos,
					 uint64_t gen, char *errbuf,
					 size_t errlen)
{
	struct policy_gen *g =
		aligned_alloc(CACHELINE, (sizeof(*g) + CACHELINE - 1) &
						 ~(size_t)(CACHELINE - 1));
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

struct gateway *gateway_open(const struct gw_params *p, char *errbuf,
			     size_t errlen)
{
	struct gateway *gw;
	int err;

	gw = calloc(1, sizeof(*gw));
	if (!gw) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	gw->p = *p;
	gw->max_frame = p->frame_size - GW_XDP_HEADROOM - p->frame_headroom;
	gw->max_frags = 1;
	for (int i = 0; i < GW_PORTS; i++) {
		gw->port[i].lock_fd = -1;
		gw->port[i].prog.prog_fd = -1;
		gw->port[i].prog.xsks_map_fd = -1;
		gw->port[i].prog.verdicts_fd = -1;
		snprintf(gw->port[i].name, sizeof(gw->port[i].name), "%s",
			 p->ifname[i]);
	}
	for (int i = 0; i < GW_PORTS; i++) {
		/* locked first: check_port() may set the MTU */
		err = lock_port(&gw->port[i], errbuf, errlen);
		if (!err)
			err = check_port(gw, &gw->port[i], errbuf, errlen);
		if (err)
			goto fail;
	}
	resolve_queues(gw);
	gw->n_units = GW_PORTS * gw->p.queues;
	/* the check config.c defers for queues: auto */
	if ((uint64_t)gw->p.umem_frames <
	    2ull * gw->p.queues *
		    (gw->p.fill_size + gw->p.tx_size + gw->p.handoff_size)) {
		snprintf(errbuf, errlen,
			 "umem.frames %u is too small for %u queues: need at "
			 "least 2 * queues * (rings.fill + rings.tx + "
			 "rings.handoff) = %llu; raise umem.frames or set "
			 "queues",
			 gw->p.umem_frames, gw->p.queues,
			 2ull * gw->p.queues *
				 (gw->p.fill_size + gw->p.tx_size +
				  gw->p.handoff_size));
		goto fail;
	}
	err = place(gw, errbuf, errlen);
	if (err)
		goto fail;
	gw->live = policy_gen_new(&p->qos, 1, errbuf, errlen);
	gw->last_gen = 1;
	if (!gw->live)
		goto fail;
	err = umem_area_init(&gw->umem, p->umem_frames, p->frame_size,
			     gw->n_units, gw->plc.mem_node, p->hugepages,
			     gw->umem_msg, sizeof(gw->umem_msg));
	if (gw->umem_msg[0])
		log_info("UMEM: %s", gw->umem_msg);
	if (err) {
		snprintf(errbuf, errlen, "cannot map the UMEM: %s",
			 strerror(-err));
		goto fail;
	}
	for (int i = 0; i < GW_PORTS; i++) {
		err = steer_attach(&gw->port[i].prog, gw->port[i].ifindex,
				   gw->port[i].name, gw->port[1 - i].ifindex,
				   p->xdp_mode, p->failure_mode, gw->multibuf,
				   errbuf, errlen);
		if (err)
			goto fail;
	}
	err = setup_sockets(gw, errbuf, errlen);
	if (err)
		goto fail;
	log_info("AF_XDP bind mode: %s%s (%u queue%s per port, UMEM %u frames "
		 "of %u bytes, largest frame %u bytes)",
		 gw->zerocopy ? "zero-copy" : "copy",
		 gw->multibuf ? ", multi-buffer" : "", gw->p.queues,
		 gw->p.queues > 1 ? "s" : "", gw->umem.n_frames,
		 gw->umem.frame_size, gw->max_frame * gw->max_frags);
	for (int i = 0; i < GW_PORTS; i++)
		log_port_frames(gw, &gw->port[i]);
	err = setup_tasks(gw);
	if (err) {
		snprintf(errbuf, errlen, "cannot set up the tasks: %s%s",
			 strerror(-err),
			 err == -EINVAL ? " (the class policy is invalid)"
					: "");
		goto fail;
	}
	err = setup_workers(gw);
	if (err) {
		snprintf(errbuf, errlen, "cannot set up the workers: %s",
			 strerror(-err));
		goto fail;
	}
	/* Last: steer traffic into the sockets (it waits in their RX rings
	 * until gateway_start() starts the workers). */
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
				goto fail;
			}
		}
	}
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
	log_info("forwarding started: %s <-> %s", gw->port[0].name,
		 gw->port[1].name);
	return 0;
}

static void census_handoff(const struct frame_desc *d, void *arg)
{
	struct umem_census *c = arg;
	uint64_t starts[FRAME_CHAIN_MAX];
	uint32_t n = frame_desc_frames(c->u, d, starts);

	for (uint32_t i = 0; i < n; i++)
		umem_census_add(c, starts[i]);
}

static void census_return(const uint64_t *addr, void *arg)
{
	umem_census_add(arg, *addr);
}

static void take_census(struct gateway *gw, struct gw_census *out)
{
	struct umem_census c;

	memset(out, 0, sizeof(*out));
	if (!gw->rx || umem_census_init(&c, &gw->umem))
		return;
	for (uint32_t u = 0; u < gw->n_units; u++) {
		rx_task_census(&gw->rx[u], &c);
		egress_task_census(&gw->eg[u], &c);
		handoff_ring_foreach(&gw->ho[u], census_handoff, &c);
		return_ring_foreach(&gw->ret[u], census_return, &c);
		if (gw->np_ho) {
			handoff_ring_foreach(&gw->np_ho[u], census_handoff, &c);
			return_ring_foreach(&gw->np_ret[u], census_return, &c);
		}
	}
	for (int p = 0; p < GW_PORTS; p++)
		for (uint32_t q = 0; q < gw->p.queues; q++)
			xsk_queue_census(&gw->port[p].q[q], &c);
	out->total = gw->umem.n_frames;
	out->found = c.found;
	out->missing = umem_census_missing(&c);
	out->doubles = c.doubles;
	out->strays = c.strays;
	out->done = true;
	umem_census_fini(&c);
}

void gateway_stop(struct gateway *gw)
{
	/* New frames take the failure path from here on. */
	for (int i = 0; i < GW_PORTS; i++)
		steer_unbind_all(&gw->port[i].prog);
	if (gw->w) {
		sleep_ms(20); /* frames already past the lookup land */
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
		take_census(gw, census);
	for (int i = 0; i < GW_PORTS; i++)
		steer_detach(&gw->port[i].prog);
	close_sockets(gw);
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
	}
	free(gw->np_ho);
	free(gw->np_ret);
	free(gw->fb);
	free(gw->hint);
	free(gw->w);
	free(gw->rx);
	free(gw->eg);
	free(gw->ho);
	free(gw->ret);
	umem_area_fini(&gw->umem);
	for (int i = 0; i < GW_PORTS; i++)
		if (gw->port[i].lock_fd >= 0)
			close(gw->port[i].lock_fd);
	for (uint32_t i = 0; i < gw->n_retired; i++)
		free(gw->retired[i]);
	free(gw->retired);
	free(gw->beat_seen);
	free(gw->beat_at);
	free(gw->live);
	free(gw);
}

static void add_dcqcn_stats(struct gateway *gw, int port, uint32_t q,
			    struct gw_port_stats *s)
{
	const struct rx_counters *rc = &gw->rx[port * gw->p.queues + q].ctr;
	struct egress_task *eg = &gw->eg[(1 - port) * gw->p.queues + q];
	struct gw_dcqcn_stats *d = &s->dcqcn;

	d->cnps_seen += ctr_read(&rc->cnps_seen);
	d->cnps_absorbed += ctr_read(&rc->cnps_absorbed);
	d->acks_seen += ctr_read(&rc->acks_seen);
	d->feedback_full += ctr_read(&rc->feedback_full);
	d->fb_events += ctr_read(&eg->ctr.fb_events);
	d->np_cnps += ctr_read(&eg->ctr.np_cnps);
	d->np_no_frame += ctr_read(&eg->ctr.np_no_frame);
	d->np_out_full += ctr_read(&eg->ctr.np_out_full);
	d->np_build_failed += ctr_read(&eg->ctr.np_build_failed);
	for (uint32_t m = eg->sched.fq_mask; m; m &= m - 1) {
		const struct flowq *fq = eg->sched.cl[__builtin_ctz(m)].fq;
		const struct flowq_stats *st = &fq->st;

		d->flows += ctr_read(&st->flows_created) -
			    ctr_read(&st->flows_expired);
		d->flows_created += ctr_read(&st->flows_created);
		d->flows_expired += ctr_read(&st->flows_expired);
		d->table_full += ctr_read(&st->table_full);
		d->cnp_unmatched += ctr_read(&st->cnp_unmatched);
		d->qpn_learned += ctr_read(&st->qpn_learned);
		d->qpn_ambiguous += ctr_read(&st->qpn_ambiguous);
		d->qpn_unmatched += ctr_read(&st->qpn_unmatched);
		d->np_qpn_unknown += ctr_read(&st->np_qpn_unknown);
		d->np_due_full += ctr_read(&st->np_due_full);
		d->hints += ctr_read(&st->hints);
	}
}

/* PFC of queue q of a port: received by rx[port.q], the pause state of
 * the egress task transmitting on the port, the frames sent out of it by
 * the egress task of unit port.q (np_out). */
static void add_pfc_stats(struct gateway *gw, int port, uint32_t q,
			  struct gw_port_stats *s)
{
	const struct rx_counters *rc = &gw->rx[port * gw->p.queues + q].ctr;
	const struct egress_task *me = &gw->eg[(1 - port) * gw->p.queues + q],
				 *snd = &gw->eg[port * gw->p.queues + q];
	const struct pfc_rx_counters *pr = &me->pfc_rx.ctr;
	struct gw_pfc_stats *f = &s->pfc;

	f->rx_frames += ctr_read(&rc->pfc_frames);
	f->mac_control_drops += ctr_read(&rc->mac_control_drops);
	for (int p = 0; p < PFC_PRIOS; p++) {
		f->rx[p] = MAX(f->rx[p], ctr_read(&pr->rx_prio[p]));
		f->rx_xon[p] = MAX(f->rx_xon[p], ctr_read(&pr->rx_xon[p]));
		f->ignored[p] = MAX(f->ignored[p], ctr_read(&pr->ignored[p]));
		f->paused_ns[p] =
			MAX(f->paused_ns[p], ctr_read(&pr->paused_ns[p]));
		f->storms[p] = MAX(f->storms[p], ctr_read(&pr->storms[p]));
		f->watchdog_drops[p] += ctr_read(&me->pfc.watchdog_drops[p]);
		f->tx_xoff[p] += ctr_read(&snd->pfc.tx_xoff[p]);
		f->tx_xon[p] += ctr_read(&snd->pfc.tx_xon[p]);
	}
	f->tx_no_frame += ctr_read(&snd->pfc.tx_no_frame);
	f->ctrl_sent += ctr_read(&me->pfc.ctrl_sent);
	f->ctrl_ring_full += ctr_read(&me->pfc.ctrl_ring_full);
}

/* Add the counters of queue q of a port: its RX task (unit port.q), the
 * egress task that transmits on it (unit other-port.q), its socket. */
static void add_queue_stats(struct gateway *gw, int port, uint32_t q,
			    struct gw_port_stats *s)
{
	const struct rx_counters *rc = &gw->rx[port * gw->p.queues + q].ctr;
	const struct egress_counters *ec =
		&gw->eg[(1 - port) * gw->p.queues + q].ctr;
	struct xdp_statistics xs;

	s->rx_packets += ctr_read(&rc->packets);
	s->rx_bytes += ctr_read(&rc->bytes);
	s->drop_handoff_full += ctr_read(&rc->drop_handoff_full);
	s->drop_invalid_desc += ctr_read(&rc->drop_invalid_desc);
	s->drop_multibuf += ctr_read(&rc->drop_multibuf);
	s->rx_chains += ctr_read(&rc->chains);
	s->drop_chain_long += ctr_read(&rc->drop_chain_long);
	s->drop_chain_head += ctr_read(&rc->drop_chain_head);
	s->drop_chain_room += ctr_read(&rc->drop_chain_room);
	s->tx_chains += ctr_read(&ec->chains);
	s->drop_chain_tx += ctr_read(&ec->chain_no_room);
	s->drop_malformed += ctr_read(&rc->drop_malformed);
	s->fill_wakeups += ctr_read(&rc->fill_wakeups);
	s->drop_port_down += ctr_read(&ec->drop_port_down);
	for (int r = 1; r < PKT_MALFORMED_MAX; r++)
		s->malformed[r] += ctr_read(&rc->malformed[r]);
	s->tx_packets += ctr_read(&ec->packets);
	s->tx_bytes += ctr_read(&ec->bytes);
	s->tx_completed += ctr_read(&ec->completed);
	s->tx_kicks += ctr_read(&ec->kicks);
	s->tx_kick_errors += ctr_read(&ec->kick_errors);
	s->foreign_frames += ctr_read(&ec->foreign_frames);
	add_dcqcn_stats(gw, port, q, s);
	add_pfc_stats(gw, port, q, s);
	if (xsk_queue_stats(&gw->port[port].q[q], &xs))
		return;
	s->xsk.rx_dropped += xs.rx_dropped;
	s->xsk.rx_invalid_descs += xs.rx_invalid_descs;
	s->xsk.tx_invalid_descs += xs.tx_invalid_descs;
	s->xsk.rx_ring_full += xs.rx_ring_full;
	s->xsk.rx_fill_ring_empty_descs += xs.rx_fill_ring_empty_descs;
	s->xsk.tx_ring_empty_descs += xs.tx_ring_empty_descs;
}

void gateway_port_stats(struct gateway *gw, int port, struct gw_port_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (uint32_t q = 0; gw->rx && q < gw->p.queues; q++)
		add_queue_stats(gw, port, q, s);
	steer_read_verdicts(&gw->port[port].prog, s->verdicts);
}

void gateway_queue_stats(struct gateway *gw, int port, uint32_t q,
			 struct gw_port_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (gw->rx && q < gw->p.queues)
		add_queue_stats(gw, port, q, s);
}

int gateway_class_stats(struct gateway *gw, int port, unsigned int class_id,
			struct gw_class_stats *s)
{
	const struct sched_class_stats *c;
	int found = -1;

	memset(s, 0, sizeof(*s));
	for (uint32_t u = 0; u < gw->n_units; u++) {
		if ((int)unit_port(gw, u) == port)
			continue; /* eg[u] transmits on the other port */
		c = sched_class_stats(&gw->eg[u].sched, class_id);
		if (!c)
			continue;
		found = 0;
		s->enq_packets += ctr_read(&c->enq_packets);
		s->enq_bytes += ctr_read(&c->enq_bytes);
		s->sent_packets += ctr_read(&c->sent_packets);
		s->sent_bytes += ctr_read(&c->sent_bytes);
		for (int r = 0; r < SCHED_DROP_REASONS; r++)
			s->drops[r] += ctr_read(&c->drops[r]);
		s->ecn_marks += ctr_read(&c->ecn_marks);
		s->depth_bytes += sched_depth_bytes(c);
		s->depth_packets += sched_depth_packets(c);
		for (int b = 0; b < SCHED_HIST_BUCKETS; b++)
			s->sojourn[b] += ctr_read(&c->sojourn[b]);
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

const char *gateway_port_name(const struct gateway *gw, int port)
{
	return gw->port[port].name;
}

int gateway_port_ifindex(const struct gateway *gw, int port)
{
	return gw->port[port].ifindex;
}

void gateway_port_set_down(struct gateway *gw, int port, bool down)
{
	for (uint32_t u = 0; gw->eg && u < gw->n_units; u++) {
		if (gw->eg[u].port != port)
			continue;
		__atomic_store_n(&gw->eg[u].port_down, down, __ATOMIC_RELAXED);
		if (gw->w)
			worker_wake(&gw->w[gw->plc.unit_worker[u]]);
	}
}

/* How long a reload waits for every worker to run the new generation. A
 * running worker switches within one pass, a sleeping one as soon as its
 * eventfd wakes it; a worker that misses this is stuck, not slow. */
#define GW_RELOAD_WAIT_NS 2000000000ull

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
	g = policy_gen_new(qos, gw->last_gen + 1, errbuf, errlen);
	if (!g)
		return -EINVAL;
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

void gateway_queue_placement(const struct gateway *gw, int port, uint32_t q,
			     int *worker, int *cpu)
{
	uint32_t u = (uint32_t)port * gw->p.queues + q;

	*worker = -1;
	*cpu = -1;
	if (!gw->w || u >= gw->n_units)
		return;
	*worker = (int)gw->plc.unit_worker[u];
	*cpu = gw->w[*worker].cpu;
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

void gateway_flows(struct gateway *gw,
		   void (*fn)(const struct gw_flow *f, void *arg), void *arg)
{
	struct gw_flow f;

	for (uint32_t u = 0; gw->eg && u < gw->n_units; u++) {
		const struct sched *s = &gw->eg[u].sched;

		f.port = gw->eg[u].port;
		f.queue = unit_queue(gw, u);
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
