// SPDX-License-Identifier: BSD-2-Clause
/*
 * xfwd - a minimal two-port AF_XDP forwarder: the floor that xdplane's I/O
 * path allows (bench/fwd, row "bare").
 *
 *   xfwd [options] IF_A IF_B
 *
 * What it does: every frame received on IF_A is transmitted on IF_B, and
 * vice versa, by passing its UMEM address (no copy in user space), with
 * the daemon's own I/O pieces, linked from the dataplane library:
 *  - the steering program (xdp/steer.bpf.c, steer_attach(): native XDP,
 *    generic if refused; an XSKMAP redirect per RX queue, fail-open to
 *    the peer port while no socket is bound);
 *  - one UMEM for both ports (umem_area_init_plain: 32768 frames of 4096
 *    bytes in two partitions, one per RX port, as the daemon maps it for
 *    one queue per port), registered once and shared (XDP_SHARED_UMEM);
 *  - one socket per port on queue 0 (xsk_queue_open: XDP_USE_NEED_WAKEUP,
 *    zero-copy tried first, then copy mode, as bind_mode auto does), with
 *    the daemon's default rings: fill 4096, completion 2048, RX 2048,
 *    TX 2048;
 *  - the daemon's batch (poll.batch, 64 descriptors per RX peek), its fill
 *    policy (the fill ring topped up from the RX port's frame pool every
 *    pass), its completion reaping (up to 256 per call, each frame back to
 *    the pool of the port that received it), its kicks (copy mode: up to
 *    64 sendto() per pass while the TX ring holds unsent descriptors, then
 *    a reap; zero-copy: one sendto() when the TX ring needs a wakeup; a
 *    recvfrom() when RX is empty and the fill ring needs a wakeup) and its
 *    idle policy (spin --busy-us, poll.busy_us = 20 by default, then sleep
 *    in poll() on both sockets: 1 ms while transmissions await completion,
 *    else 1 s).
 *
 * What it does not do: no parsing, no classes, no scheduler, no shaper, no
 * checksum completion, no hand-off rings between tasks (one thread does
 * everything), one queue per port, no multi-buffer (a descriptor flagged
 * XDP_PKT_CONTD is dropped, counted), no MAC rewriting, no reload, no
 * control socket. When the TX ring of the other port has no room, the
 * descriptors stay in the RX ring (the kernel then drops at a full RX ring
 * and counts it: rx_ring_full below). Run it under taskset to pin it.
 *
 * Frames are never leaked: each one is in a frame pool, a fill, RX, TX or
 * completion ring, and at exit (SIGINT, SIGTERM) the sockets leave the
 * XSKMAPs, in-flight transmissions drain (at most 1 s), and a census
 * (umem_census, as the daemon's) counts every frame found in the pools and
 * rings. Frames the kernel took from a fill ring and dropped on a full RX
 * ring can sit in the kernel's own free list, in no ring: the census
 * reports them as "in the kernel". Output at exit, one line each:
 *
 *   xfwd: stats {JSON: per port rx, tx, drops, kicks, the kernel's
 *         XDP_STATISTICS and the steering verdicts; the census}
 *
 * Counters of what it drops: drop_invalid (RX descriptor out of bounds or
 * not from this port's fill ring), drop_multibuf (XDP_PKT_CONTD),
 * foreign_completion (a completed address outside both partitions: no
 * pool to return it to), kick_errors.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_xdp.h>

#include "bits.h"
#include "frame_chain.h" /* XDP_PKT_CONTD on older headers */
#include "log.h"
#include "mono_clock.h"
#include "steer_prog.h"
#include "umem.h"
#include "xsk_queue.h"

/* The daemon's defaults (config/xdplane.yaml: rings, umem, poll). */
#define XFWD_FILL 4096
#define XFWD_COMP 2048
#define XFWD_RX 2048
#define XFWD_TX 2048
#define XFWD_FRAMES 32768
#define XFWD_FRAME_SIZE 4096
#define XFWD_XDP_HEADROOM 256 /* the kernel's, before every RX frame */
#define XFWD_BATCH 64
#define XFWD_MAX_BATCH 256 /* RX_MAX_BATCH, EGRESS_MAX_BATCH */
#define XFWD_BUSY_US 20
#define XFWD_KICK_TRIES 64 /* copy mode: sendto()s per pass, at most */
#define XFWD_KICK_BACKOFF_NS 10000000ull /* after a failed kick: 10 ms */
#define XFWD_DRAIN_NS 1000000000ull

struct port_ctr {
	uint64_t rx_packets, rx_bytes; /* descriptors received */
	uint64_t tx_packets; /* descriptors put on this port's TX ring */
	uint64_t completed; /* ... and completed */
	uint64_t drop_invalid; /* RX descriptor out of bounds / not ours */
	uint64_t drop_multibuf; /* RX descriptor with XDP_PKT_CONTD */
	uint64_t lost_invalid; /* ... whose frame is no partition's */
	uint64_t foreign_completion; /* completed address of no partition */
	uint64_t kicks, kick_errors; /* TX sendto()s, failed ones */
	uint64_t fill_wakeups; /* recvfrom()s for the fill ring */
};

struct port {
	const char *name;
	int ifindex;
	struct steer_prog prog;
	struct xsk_queue q;
	struct frame_pool pool; /* partition = this port's index */
	uint32_t outstanding; /* TX descriptors submitted, not completed */
	uint64_t kick_after; /* no kick before (after a failed one) */
	struct port_ctr ctr;
};

struct xfwd {
	struct port port[2];
	struct umem_area umem;
	struct xsk_umem_reg reg;
	uint32_t batch;
	uint32_t max_len; /* bytes of a frame after the XDP headroom */
	uint64_t busy_ns;
	bool zerocopy;
	uint64_t sleeps; /* poll()s */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* Completed transmissions of port p back to the pools of the ports that
 * received them. */
static uint32_t reap(struct xfwd *f, struct port *p)
{
	uint32_t n, idx, i, owner;
	uint64_t addr;

	n = xsk_ring_cons__peek(&p->q.comp, XFWD_MAX_BATCH, &idx);
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		addr = umem_frame_start(&f->umem, *xsk_ring_cons__comp_addr(
							  &p->q.comp, idx + i));
		owner = umem_owner(&f->umem, addr);
		if (owner < 2)
			frame_pool_put(&f->port[owner].pool, addr);
		else
			p->ctr.foreign_completion++;
	}
	xsk_ring_cons__release(&p->q.comp, n);
	p->outstanding -= n < p->outstanding ? n : p->outstanding;
	p->ctr.completed += n;
	return n;
}

/* Top the fill ring up from the pool (rx_task_refill). */
static uint32_t refill(struct port *p)
{
	struct xsk_ring_prod *fq = &p->q.fill;
	uint32_t n, idx, i;

	n = xsk_prod_nb_free(fq, p->pool.count);
	n = n < p->pool.count ? n : p->pool.count;
	if (!n || xsk_ring_prod__reserve(fq, n, &idx) != n)
		return 0;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(fq, idx + i) =
			frame_pool_get(&p->pool);
	xsk_ring_prod__submit(fq, n);
	return n;
}

/* Could the kernel have produced RX descriptor d on port `in`? Its frame
 * is of in's partition and its bytes lie inside the frame (rx_desc_valid). */
static bool desc_valid(const struct xfwd *f, const struct port *in,
		       const struct xdp_desc *d)
{
	uint64_t mask = in->pool.frame_mask;

	return d->len <= f->max_len && (d->addr & mask) + d->len <= mask + 1 &&
	       frame_pool_owns(&in->pool, d->addr & ~mask);
}

/* A descriptor that goes no further: its frame back to in's pool when it
 * is one of in's, else counted as lost (no kernel could have made it). */
static void drop_desc(struct xfwd *f, struct port *in, uint64_t addr)
{
	if (!frame_pool_reclaim(&in->pool, &f->umem, addr))
		in->ctr.lost_invalid++;
}

/* RX of `in` straight onto the TX ring of `out`, at most a batch, at most
 * what out's TX ring has room for. */
static uint32_t forward(struct xfwd *f, struct port *in, struct port *out)
{
	struct xdp_desc ok[XFWD_MAX_BATCH];
	const struct xdp_desc *d;
	struct xdp_desc *txd;
	uint32_t room, n, idx, tidx = 0, i, k = 0;
	uint64_t bytes = 0;

	room = xsk_prod_nb_free(&out->q.tx, f->batch);
	room = room < f->batch ? room : f->batch;
	n = room ? xsk_ring_cons__peek(&in->q.rx, room, &idx) : 0;
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&in->q.fill)) {
			recvfrom(in->q.fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
			in->ctr.fill_wakeups++;
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		d = xsk_ring_cons__rx_desc(&in->q.rx, idx + i);
		if (unlikely(d->options & XDP_PKT_CONTD)) {
			in->ctr.drop_multibuf++;
			drop_desc(f, in, d->addr);
			continue;
		}
		if (unlikely(!desc_valid(f, in, d))) {
			in->ctr.drop_invalid++;
			drop_desc(f, in, d->addr);
			continue;
		}
		ok[k].addr = d->addr;
		ok[k].len = d->len;
		bytes += d->len;
		k++;
	}
	xsk_ring_cons__release(&in->q.rx, n);
	in->ctr.rx_packets += n;
	in->ctr.rx_bytes += bytes;
	if (!k)
		return n;
	/* room was checked: the reserve cannot come up short */
	xsk_ring_prod__reserve(&out->q.tx, k, &tidx);
	for (i = 0; i < k; i++) {
		txd = xsk_ring_prod__tx_desc(&out->q.tx, tidx + i);
		txd->addr = ok[i].addr;
		txd->len = ok[i].len;
		txd->options = 0;
	}
	xsk_ring_prod__submit(&out->q.tx, k);
	out->outstanding += k;
	out->ctr.tx_packets += k;
	return n;
}

static uint32_t tx_unsent(const struct xsk_queue *q)
{
	return *q->tx.producer -
	       __atomic_load_n(q->tx.consumer, __ATOMIC_ACQUIRE);
}

/* The daemon's kick (egress.c): copy mode transmits in sendto() itself, a
 * few dozen frames per call, so it is called until the TX ring is empty
 * (at most XFWD_KICK_TRIES times); zero-copy only needs the driver woken.
 * Returns the completions reaped after it. */
static uint32_t kick(struct xfwd *f, struct port *p)
{
	int tries = f->zerocopy ? 1 : XFWD_KICK_TRIES;

	if (f->zerocopy
		    ? !(p->outstanding && xsk_ring_prod__needs_wakeup(&p->q.tx))
		    : !tx_unsent(&p->q))
		return 0;
	if (p->kick_after && mono_ns() < p->kick_after)
		return 0;
	p->kick_after = 0;
	while (tries-- > 0) {
		p->ctr.kicks++;
		if (sendto(p->q.fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS) {
			p->ctr.kick_errors++;
			p->kick_after = mono_ns() + XFWD_KICK_BACKOFF_NS;
			break;
		}
		if (!tx_unsent(&p->q))
			break;
	}
	return reap(f, p);
}

/* One pass over both directions; returns the work done (0: idle). */
static uint32_t run_pass(struct xfwd *f)
{
	struct port *a = &f->port[0], *b = &f->port[1];
	uint32_t work = 0;

	work += reap(f, a) + reap(f, b);
	work += refill(a) + refill(b);
	work += forward(f, a, b) + forward(f, b, a);
	work += kick(f, a) + kick(f, b);
	return work;
}

/* Sleep until a socket has something (poll() also transmits what a copy
 * mode TX ring holds), 1 ms at most while transmissions are in flight. */
static void sleep_until_work(struct xfwd *f)
{
	struct pollfd pfd[2] = {
		{.fd = f->port[0].q.fd, .events = POLLIN},
		{.fd = f->port[1].q.fd, .events = POLLIN},
	};
	bool pending = f->port[0].outstanding || f->port[1].outstanding;

	f->sleeps++;
	poll(pfd, 2, pending ? 1 : 1000);
}

static void run(struct xfwd *f)
{
	uint64_t idle_since = 0, now;

	while (!stop) {
		if (run_pass(f)) {
			idle_since = 0;
			continue;
		}
		now = mono_ns();
		if (!idle_since) {
			idle_since = now;
			continue;
		}
		if (now - idle_since < f->busy_ns) {
			cpu_relax();
			continue;
		}
		sleep_until_work(f);
		idle_since = 0;
	}
}

/* Stopping: no more frames come (the sockets are out of the XSKMAPs);
 * run until nothing is in flight, for at most a second. */
static void drain(struct xfwd *f)
{
	uint64_t deadline = mono_ns() + XFWD_DRAIN_NS;
	uint32_t quiet = 0;

	while (mono_ns() < deadline && quiet < 3) {
		if (run_pass(f) || f->port[0].outstanding ||
		    f->port[1].outstanding)
			quiet = 0;
		else
			quiet++;
	}
}

static void close_sockets(struct xfwd *f)
{
	for (int i = 0; i < 2; i++)
		xsk_queue_close(&f->port[i].q);
	xsk_umem_reg_fini(&f->reg);
}

/* Both sockets in one bind mode (gw_ports.c open_sockets); all or none. */
static int open_sockets(struct xfwd *f, bool zerocopy, char *err, size_t len)
{
	struct xsk_ring_sizes sz = {XFWD_FILL, XFWD_COMP, XFWD_RX, XFWD_TX};
	int e;

	e = xsk_umem_reg_init(&f->reg, &f->umem, &sz, &f->port[0].q);
	if (e) {
		snprintf(err, len, "cannot register the UMEM: %s",
			 strerror(-e));
		return e;
	}
	for (int i = 0; i < 2; i++) {
		/* a socket closed by a previous run goes away
		 * asynchronously: EBUSY for a moment */
		for (int tries = 0; tries < 30; tries++) {
			e = xsk_queue_open(&f->port[i].q, &f->reg,
					   f->port[i].name, 0, &sz, zerocopy,
					   false);
			if (e != -EBUSY)
				break;
			usleep(100000);
		}
		if (e) {
			snprintf(err, len, "%s queue 0: AF_XDP bind (%s): %s",
				 f->port[i].name,
				 zerocopy ? "zero-copy" : "copy", strerror(-e));
			close_sockets(f);
			return e;
		}
	}
	f->zerocopy = zerocopy;
	return 0;
}

/* bind: 0 auto (zero-copy, else copy), 1 zero-copy only, 2 copy only. */
static int open_all(struct xfwd *f, int bind, char *err, size_t len)
{
	int e;

	if (bind != 2) {
		e = open_sockets(f, true, err, len);
		if (!e || bind == 1)
			return e;
		fprintf(stderr,
			"xfwd: zero-copy not available (%s); using copy "
			"mode\n",
			err);
	}
	return open_sockets(f, false, err, len);
}

static void print_port(const struct xfwd *f, const struct port *p, bool last)
{
	const struct port_ctr *c = &p->ctr;
	struct xdp_statistics st;
	uint64_t v[STEER_V_MAX];

	xsk_queue_stats(&p->q, &st);
	steer_read_verdicts(&p->prog, v);
	printf("\"%s\": {\"rx_packets\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
	       ", \"tx_packets\": %" PRIu64 ", \"completed\": %" PRIu64
	       ", \"drop_invalid\": %" PRIu64 ", \"drop_multibuf\": %" PRIu64
	       ", \"lost_invalid\": %" PRIu64
	       ", \"foreign_completion\": %" PRIu64 ", \"kicks\": %" PRIu64
	       ", \"kick_errors\": %" PRIu64 ", \"fill_wakeups\": %" PRIu64
	       ", \"xsk\": {\"rx_dropped\": %llu, \"rx_invalid_descs\": %llu"
	       ", \"tx_invalid_descs\": %llu, \"rx_ring_full\": %llu"
	       ", \"rx_fill_ring_empty_descs\": %llu"
	       ", \"tx_ring_empty_descs\": %llu}, \"steer\": {",
	       p->name, c->rx_packets, c->rx_bytes, c->tx_packets, c->completed,
	       c->drop_invalid, c->drop_multibuf, c->lost_invalid,
	       c->foreign_completion, c->kicks, c->kick_errors, c->fill_wakeups,
	       (unsigned long long)st.rx_dropped,
	       (unsigned long long)st.rx_invalid_descs,
	       (unsigned long long)st.tx_invalid_descs,
	       (unsigned long long)st.rx_ring_full,
	       (unsigned long long)st.rx_fill_ring_empty_descs,
	       (unsigned long long)st.tx_ring_empty_descs);
	for (uint32_t k = 0; k < STEER_V_MAX; k++)
		printf("%s\"%s\": %" PRIu64, k ? ", " : "",
		       steer_verdict_name(k), v[k]);
	printf("}}%s", last ? "" : ", ");
}

/* Every frame in the pools and the rings, once; the sockets must be
 * quiescent (after drain). Returns false on a frame found twice or an
 * address outside the UMEM. */
static bool census(struct xfwd *f)
{
	struct umem_census c;
	bool ok;

	if (umem_census_init(&c, &f->umem)) {
		printf("\"census\": \"out of memory\"");
		return false;
	}
	for (int i = 0; i < 2; i++) {
		const struct frame_pool *p = &f->port[i].pool;

		for (uint32_t k = 0; k < p->count; k++)
			umem_census_add(&c, p->addrs[k]);
		xsk_queue_census(&f->port[i].q, &c);
	}
	printf("\"census\": {\"frames\": %" PRIu32 ", \"found\": %" PRIu64
	       ", \"in_kernel\": %" PRIu64 ", \"doubles\": %" PRIu64
	       ", \"strays\": %" PRIu64 "}",
	       f->umem.n_frames, c.found, umem_census_missing(&c), c.doubles,
	       c.strays);
	ok = !c.doubles && !c.strays;
	umem_census_fini(&c);
	return ok;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xfwd [options] IF_A IF_B\n"
		"Forward every frame from IF_A to IF_B and back through "
		"AF_XDP\n"
		"(queue 0 of each), with xdplane's sockets, rings, batch and\n"
		"steering program, and nothing else: no parsing, no classes.\n"
		"Pin it with taskset. Stops on SIGINT/SIGTERM and prints its\n"
		"counters and a frame census as one JSON line.\n"
		"\n"
		"  --batch N      descriptors per RX peek, 1..%d (default %d,\n"
		"                 the daemon's poll.batch)\n"
		"  --busy-us N    spin this long on empty rings before "
		"sleeping\n"
		"                 in poll() (default %d, poll.busy_us)\n"
		"  --bind MODE    auto (zero-copy, else copy), zerocopy or "
		"copy\n"
		"                 (default auto)\n"
		"  --xdp MODE     auto (native, else generic), native or "
		"generic\n"
		"                 (default auto)\n"
		"  -h, --help     this text\n"
		"\n"
		"Fixed, as the daemon's defaults: UMEM %d frames of %d bytes\n"
		"(one partition per port), rings fill %d, completion %d, RX "
		"%d,\n"
		"TX %d, XDP_USE_NEED_WAKEUP.\n",
		XFWD_MAX_BATCH, XFWD_BATCH, XFWD_BUSY_US, XFWD_FRAMES,
		XFWD_FRAME_SIZE, XFWD_FILL, XFWD_COMP, XFWD_RX, XFWD_TX);
}

static int parse_uint(const char *s, unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"batch", required_argument, NULL, 'b'},
		{"busy-us", required_argument, NULL, 'u'},
		{"bind", required_argument, NULL, 'm'},
		{"xdp", required_argument, NULL, 'x'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct xfwd fw;
	struct xfwd *f = &fw;
	enum steer_mode_req xdp = STEER_MODE_AUTO;
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	struct sigaction sa = {.sa_handler = on_signal};
	uint32_t busy_us = XFWD_BUSY_US;
	char err[512] = "";
	int bind = 0, c, e, rc = 1;
	bool ok;

	f->batch = XFWD_BATCH;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (parse_uint(optarg, XFWD_MAX_BATCH, &f->batch) ||
			    !f->batch) {
				fprintf(stderr, "xfwd: --batch 1..%d\n",
					XFWD_MAX_BATCH);
				return 2;
			}
			break;
		case 'u':
			if (parse_uint(optarg, 10000000, &busy_us)) {
				fprintf(stderr, "xfwd: bad --busy-us\n");
				return 2;
			}
			break;
		case 'm':
			if (!strcmp(optarg, "auto"))
				bind = 0;
			else if (!strcmp(optarg, "zerocopy"))
				bind = 1;
			else if (!strcmp(optarg, "copy"))
				bind = 2;
			else {
				fprintf(stderr, "xfwd: --bind auto, zerocopy "
						"or copy\n");
				return 2;
			}
			break;
		case 'x':
			if (!strcmp(optarg, "auto"))
				xdp = STEER_MODE_AUTO;
			else if (!strcmp(optarg, "native"))
				xdp = STEER_MODE_NATIVE;
			else if (!strcmp(optarg, "generic"))
				xdp = STEER_MODE_GENERIC;
			else {
				fprintf(stderr, "xfwd: --xdp auto, native or "
						"generic\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	f->busy_ns = (uint64_t)busy_us * 1000;
	f->max_len = XFWD_FRAME_SIZE - XFWD_XDP_HEADROOM;
	for (int i = 0; i < 2; i++) {
		f->port[i].name = argv[optind + i];
		f->port[i].ifindex = (int)if_nametoindex(f->port[i].name);
		f->port[i].prog.xsks_map_fd = -1;
		f->port[i].q.fd = -1;
		if (!f->port[i].ifindex) {
			fprintf(stderr, "xfwd: %s: %s\n", f->port[i].name,
				strerror(errno));
			return 1;
		}
	}
	if (f->port[0].ifindex == f->port[1].ifindex) {
		fprintf(stderr, "xfwd: IF_A and IF_B must differ\n");
		return 2;
	}
	/* UMEM pages count against RLIMIT_MEMLOCK without CAP_IPC_LOCK */
	setrlimit(RLIMIT_MEMLOCK, &rl);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	e = umem_area_init_plain(&f->umem, XFWD_FRAMES, XFWD_FRAME_SIZE, 2);
	if (e) {
		fprintf(stderr, "xfwd: cannot map the UMEM: %s\n",
			strerror(-e));
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		if (frame_pool_init(&f->port[i].pool, &f->umem, (uint32_t)i)) {
			fprintf(stderr, "xfwd: out of memory\n");
			goto out_pools;
		}
	}
	for (int i = 0; i < 2; i++) {
		e = steer_attach(&f->port[i].prog, f->port[i].ifindex,
				 f->port[i].name, f->port[1 - i].ifindex, xdp,
				 STEER_FAIL_OPEN, 1, false, 0, err,
				 sizeof(err));
		if (e) {
			fprintf(stderr, "xfwd: %s\n", err);
			goto out_progs;
		}
	}
	if (open_all(f, bind, err, sizeof(err))) {
		fprintf(stderr, "xfwd: %s\n", err);
		goto out_progs;
	}
	/* Frames in the fill rings before any is steered to the sockets. */
	refill(&f->port[0]);
	refill(&f->port[1]);
	for (int i = 0; i < 2; i++) {
		e = xsk_socket__update_xskmap(f->port[i].q.xsk,
					      f->port[i].prog.xsks_map_fd);
		if (e) {
			fprintf(stderr,
				"xfwd: %s: cannot enter the socket in the "
				"XSKMAP: %s\n",
				f->port[i].name, strerror(-e));
			goto out_socks;
		}
	}
	fprintf(stderr,
		"xfwd: forwarding %s <-> %s: XDP %s, AF_XDP %s mode, UMEM %u "
		"frames of %u bytes, rings fill %d comp %d rx %d tx %d, batch "
		"%u, busy %u us\n",
		f->port[0].name, f->port[1].name,
		steer_mode_name(&f->port[0].prog),
		f->zerocopy ? "zero-copy" : "copy", f->umem.n_frames,
		f->umem.frame_size, XFWD_FILL, XFWD_COMP, XFWD_RX, XFWD_TX,
		f->batch, busy_us);

	run(f);

	for (int i = 0; i < 2; i++)
		steer_unbind_all(&f->port[i].prog);
	drain(f);
	printf("xfwd: stats {\"mode\": \"%s\", \"sleeps\": %" PRIu64 ", ",
	       f->zerocopy ? "zero-copy" : "copy", f->sleeps);
	print_port(f, &f->port[0], false);
	print_port(f, &f->port[1], false);
	ok = census(f);
	printf("}\n");
	fflush(stdout);
	rc = ok ? 0 : 1;
out_socks:
	close_sockets(f);
out_progs:
	for (int i = 0; i < 2; i++)
		steer_detach(&f->port[i].prog);
out_pools:
	for (int i = 0; i < 2; i++)
		frame_pool_fini(&f->port[i].pool);
	umem_area_fini(&f->umem);
	return rc;
}
