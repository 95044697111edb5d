// SPDX-License-Identifier: BSD-2-Clause
/*
 * xskgen - IPv4/UDP traffic generator on an AF_XDP socket's TX ring, for
 * kernels that refuse BPF_PROG_RUN with live frames (xgen). It needs no BPF
 * program: the socket is bound to one queue of --dev (copy mode by default,
 * as veth requires) and sends frames prebuilt in its own UMEM.
 *
 *   xskgen --dev IF --src-mac M --dst-mac M --src-ip A --dst-ip B
 *          [--sport N] [--dport N] [--sport-range N] --size BYTES
 *          [--rate PPS] --duration SEC [--cpu N] [--queue N] [--zerocopy]
 *
 * UMEM: XSKGEN_FRAMES frames of XSKGEN_FRAME_SIZE bytes, frame i prebuilt
 * with UDP source port sport + i % sport-range (UDP checksum 0, so only the
 * port differs). The UMEM is owned by this process; a frame is either free
 * (on the local stack of addresses) or in the kernel (TX ring or in flight
 * until its address returns on the completion ring). The fill and RX rings
 * exist only because bind requires them; nothing is received.
 *
 * In copy mode every kick (sendto) makes the kernel build an skb per
 * descriptor and hand it to the device's transmit function, up to 32 per
 * call. A frame the device dropped still completes (sendto then fails with
 * EBUSY, counted as "busy"); one it could not take (EAGAIN) stays in the
 * ring and is sent by a later kick.
 *
 * At exit it prints one line: "xskgen: sent N frames in T s (...)", N the
 * completions, in the format of xgen's line. It exits 1 if nothing was
 * sent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "gen_frame.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#define XSKGEN_HDR_LEN GEN_HDR_LEN
#define XSKGEN_MIN_SIZE 60
#define XSKGEN_MAX_SIZE 1514
#define XSKGEN_FRAMES 4096u
#define XSKGEN_FRAME_SIZE 2048u
#define XSKGEN_RING 2048u /* TX and completion ring entries */
#define XSKGEN_BATCH 64u

/* One mmapped ring: producer and consumer indices shared with the kernel,
 * ring of size entries (a power of two). */
struct ring {
	uint32_t *producer;
	uint32_t *consumer;
	uint32_t *flags;
	void *desc;
	uint32_t size;
	void *map;
	size_t map_len;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: xskgen --dev IF --src-mac MAC --dst-mac MAC\n"
	      "              --src-ip A --dst-ip B [--sport N] [--dport N]\n"
	      "              [--sport-range N] --size BYTES [--rate PPS]\n"
	      "              --duration SEC [--cpu N] [--queue N] "
	      "[--zerocopy]\n",
	      f);
	fprintf(f,
		"  --size         Ethernet frame without FCS, %d..%d\n"
		"  --rate         frames per second, 0 = flat out (default)\n"
		"  --sport-range  cycle the UDP source port over N ports\n"
		"  --queue        queue of --dev to bind (default 0)\n"
		"  --zerocopy     bind in zero-copy mode (default copy)\n"
		"  --cpu          pin to this CPU\n",
		XSKGEN_MIN_SIZE, XSKGEN_MAX_SIZE);
}

static int map_ring(int fd, struct ring *r, const struct xdp_ring_offset *off,
		    uint32_t size, size_t desc_size, off_t pgoff)
{
	r->map_len = off->desc + size * desc_size;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE, fd, pgoff);
	if (r->map == MAP_FAILED)
		return -1;
	r->producer = (uint32_t *)((char *)r->map + off->producer);
	r->consumer = (uint32_t *)((char *)r->map + off->consumer);
	r->flags = (uint32_t *)((char *)r->map + off->flags);
	r->desc = (char *)r->map + off->desc;
	r->size = size;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	double d = t - now_s();
	struct timespec ts;

	/* Short gaps are spun: nanosleep's slack is tens of microseconds. */
	if (d > 100e-6) {
		d -= 50e-6;
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	while (!stop && now_s() < t)
		;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		GEN_COMMON_OPTIONS,
		{"queue", required_argument, NULL, 'q'},
		{"zerocopy", no_argument, NULL, 'Z'},
		{"help", no_argument, NULL, 'h'},
		{}};
	struct gen_opts g;
	bool zerocopy = false;
	unsigned long queue = 0;
	const char *why;
	struct xdp_umem_reg reg = {0};
	struct xdp_mmap_offsets off;
	struct sockaddr_xdp sxdp = {0};
	struct ring fq = {0}, cq = {0}, rx = {0}, tx = {0};
	struct sigaction sa = {0};
	socklen_t optlen = sizeof(off);
	uint64_t free_addr[XSKGEN_FRAMES];
	uint32_t nfree = 0;
	uint64_t sent = 0, queued = 0, kicks = 0, busy = 0, again = 0;
	uint32_t ring_sz = XSKGEN_RING, fq_sz = 64;
	uint8_t *umem;
	double t0, t1, next = 0, gap = 0;
	int ifindex, fd, c, rc = 0;
	uint32_t i;

	gen_opts_init(&g, XSKGEN_MIN_SIZE, XSKGEN_MAX_SIZE);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int r = gen_opts_parse(&g, c, optarg);

		if (r > 0)
			continue;
		if (r < 0)
			goto bad;
		switch (c) {
		case 'q':
			if (gen_parse_ulong(optarg, 65535, &queue))
				goto bad;
			break;
		case 'Z':
			zerocopy = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		continue;
	bad:
		fprintf(stderr, "xskgen: invalid value for --%s: '%s'\n",
			gen_opt_name(opts, c), optarg);
		return 2;
	}
	why = gen_opts_check(&g);
	if (optind != argc || (why && !*why)) {
		usage(stderr);
		return 2;
	}
	if (why) {
		fprintf(stderr, "xskgen: %s\n", why);
		return 2;
	}
	ifindex = (int)if_nametoindex(g.dev);
	if (!ifindex) {
		fprintf(stderr, "xskgen: no device %s: %s\n", g.dev,
			strerror(errno));
		return 1;
	}
	if (g.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)g.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "xskgen: pin to CPU %ld: %s\n", g.cpu,
				strerror(errno));
			return 1;
		}
	}

	umem = mmap(NULL, (size_t)XSKGEN_FRAMES * XSKGEN_FRAME_SIZE,
		    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (umem == MAP_FAILED) {
		fprintf(stderr, "xskgen: UMEM: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < XSKGEN_FRAMES; i++) {
		gen_build_frame(umem + (size_t)i * XSKGEN_FRAME_SIZE, g.size,
				g.smac, g.dmac, g.sip, g.dip,
				(uint16_t)(g.sport + i % g.sport_range),
				(uint16_t)g.dport);
		free_addr[nfree++] = (uint64_t)i * XSKGEN_FRAME_SIZE;
	}

	fd = socket(AF_XDP, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, "xskgen: AF_XDP socket: %s\n", strerror(errno));
		return 1;
	}
	reg.addr = (uint64_t)(uintptr_t)umem;
	reg.len = (uint64_t)XSKGEN_FRAMES * XSKGEN_FRAME_SIZE;
	reg.chunk_size = XSKGEN_FRAME_SIZE;
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &fq_sz,
		       sizeof(fq_sz)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring_sz,
		       sizeof(ring_sz)) ||
	    setsockopt(fd, SOL_XDP, XDP_RX_RING, &fq_sz, sizeof(fq_sz)) ||
	    setsockopt(fd, SOL_XDP, XDP_TX_RING, &ring_sz, sizeof(ring_sz))) {
		fprintf(stderr, "xskgen: set up UMEM and rings: %s\n",
			strerror(errno));
		return 1;
	}
	if (getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) ||
	    map_ring(fd, &fq, &off.fr, fq_sz, sizeof(uint64_t),
		     XDP_UMEM_PGOFF_FILL_RING) ||
	    map_ring(fd, &cq, &off.cr, ring_sz, sizeof(uint64_t),
		     XDP_UMEM_PGOFF_COMPLETION_RING) ||
	    map_ring(fd, &rx, &off.rx, fq_sz, sizeof(struct xdp_desc),
		     XDP_PGOFF_RX_RING) ||
	    map_ring(fd, &tx, &off.tx, ring_sz, sizeof(struct xdp_desc),
		     XDP_PGOFF_TX_RING)) {
		fprintf(stderr, "xskgen: map rings: %s\n", strerror(errno));
		return 1;
	}
	sxdp.sxdp_family = AF_XDP;
	sxdp.sxdp_ifindex = (uint32_t)ifindex;
	sxdp.sxdp_queue_id = (uint32_t)queue;
	sxdp.sxdp_flags = zerocopy ? XDP_ZEROCOPY : XDP_COPY;
	if (bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp))) {
		fprintf(stderr, "xskgen: bind to %s queue %lu (%s mode): %s\n",
			g.dev, queue, zerocopy ? "zero-copy" : "copy",
			strerror(errno));
		return 1;
	}

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (g.rate)
		gap = 1.0 / (double)g.rate;
	t0 = now_s();
	next = t0;
	while (!stop) {
		uint32_t cons, prod, n, want, k;
		struct xdp_desc *d = tx.desc;
		uint64_t *ca = cq.desc;
		double t = now_s();

		if (t - t0 >= g.duration)
			break;
		/* Completions: the frames the kernel is done with. */
		prod = __atomic_load_n(cq.producer, __ATOMIC_ACQUIRE);
		cons = *cq.consumer;
		for (n = prod - cons, k = 0; k < n; k++)
			free_addr[nfree++] = ca[(cons + k) & (cq.size - 1)];
		if (n) {
			__atomic_store_n(cq.consumer, cons + n,
					 __ATOMIC_RELEASE);
			sent += n;
		}
		/* As many frames as are free, ring space and the pace allow. */
		want = nfree < XSKGEN_BATCH ? nfree : XSKGEN_BATCH;
		if (g.rate) {
			double due = (t - next) / gap + 1;

			if (due < 1) {
				sleep_until(next);
				continue;
			}
			if (due < want)
				want = (uint32_t)due;
			/* A generator that fell behind does not burst to
			 * catch up by more than one batch. */
			if (t - next > XSKGEN_BATCH * gap)
				next = t - XSKGEN_BATCH * gap;
		}
		prod = *tx.producer;
		cons = __atomic_load_n(tx.consumer, __ATOMIC_ACQUIRE);
		if (want > tx.size - (prod - cons))
			want = tx.size - (prod - cons);
		for (k = 0; k < want; k++) {
			struct xdp_desc *e = &d[(prod + k) & (tx.size - 1)];

			e->addr = free_addr[--nfree];
			e->len = (uint32_t)g.size;
			e->options = 0;
		}
		if (want) {
			__atomic_store_n(tx.producer, prod + want,
					 __ATOMIC_RELEASE);
			queued += want;
			next += want * gap;
		}
		/* Copy mode sends only in the kick. */
		if (prod + want != cons) {
			kicks++;
			if (sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
				if (errno == EBUSY)
					busy++;
				else if (errno == EAGAIN || errno == ENOBUFS)
					again++;
				else if (errno != EINTR) {
					fprintf(stderr, "xskgen: sendto: %s\n",
						strerror(errno));
					rc = 1;
					break;
				}
			}
		}
	}
	/* Let the last frames complete (copy mode completes in the kick);
	 * the time includes the wait. */
	for (i = 0; i < 100 && sent < queued; i++) {
		uint32_t prod = __atomic_load_n(cq.producer, __ATOMIC_ACQUIRE);
		uint32_t cons = *cq.consumer;

		sent += prod - cons;
		__atomic_store_n(cq.consumer, prod, __ATOMIC_RELEASE);
		if (sent < queued) {
			sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
			usleep(1000);
		}
	}
	t1 = now_s();
	printf("xskgen: sent %llu frames in %.3f s (%.3f Mpps, %.2f Gbit/s of "
	       "%lu-byte frames, AF_XDP %s mode on %s queue %lu, %llu kicks, "
	       "%llu busy, %llu again%s)\n",
	       (unsigned long long)sent, t1 - t0, sent / (t1 - t0) / 1e6,
	       sent * g.size * 8.0 / (t1 - t0) / 1e9, g.size,
	       zerocopy ? "zero-copy" : "copy", g.dev, queue,
	       (unsigned long long)kicks, (unsigned long long)busy,
	       (unsigned long long)again, g.rate ? ", paced" : "");
	if (!rc && !sent) {
		fprintf(stderr, "xskgen: no frame completed\n");
		rc = 1;
	}
	close(fd);
	return rc;
}
