// SPDX-License-Identifier: BSD-2-Clause
/*
 * chain_bench.c - per-packet cost of the multi-buffer path against the
 * single-buffer one: the RX task and the egress task (dataplane/run/rx_task.c,
 * dataplane/run/egress.c, frame_chain.h) run against a fake kernel whose rings
 * are plain memory (as in tests/unit/test_frame_chain.c), on one thread.
 *
 * Rows (same packets, same code, only the mode and the size change):
 *   single 1514   multi-buffer off (MTU fits a frame): the fast path
 *   mb     1514   multi-buffer on, packets that fit one frame
 *   mb     9014   multi-buffer on, 3-frame chains (4096-byte UMEM frames)
 * Each row moves N packets in bursts of 32: the fake kernel puts a burst
 * of descriptors on the RX ring (headers written once at set-up: no
 * payload copy), rx_task_poll() parses, classifies and hands them over,
 * egress_task_poll() queues, schedules and writes TX descriptors, the fake
 * kernel completes them, the next polls take the frames home. Reported:
 * ns per packet and per descriptor (the fake kernel's share included; it
 * is a few ring operations per descriptor). Best of R repetitions.
 *
 * Usage: chain_bench [-n PACKETS] [-r REPS]. Exit status 1 if a packet was
 * dropped or the bytes sent differ from the bytes received.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "egress.h"
#include "frame_chain.h"
#include "rx_task.h"
#include "umem.h"
#include "xsk_queue.h"

#define RING 1024
#define HEADROOM 256
#define FRAME 4096
#define CAP (FRAME - HEADROOM)
#define PART 4096
#define BURST 32

static int failed; /* a correctness check failed: exit status 1 */

struct fake_ring {
	uint32_t producer, consumer, flags;
	union {
		uint64_t addrs[RING];
		struct xdp_desc descs[RING];
	};
};

struct fake_socket {
	struct fake_ring fill, comp, rx, tx;
	struct xsk_queue q;
};

struct bench {
	struct qos_policy pol;
	struct classifier cls;
	struct umem_area umem;
	struct fake_socket a, b;
	struct handoff_ring ho;
	struct return_ring ret;
	struct rx_task rx;
	struct egress_task eg;
};

static void wire(struct fake_ring *f, void *ring, uint32_t **prod,
		 uint32_t **cons, uint32_t **flags, void **r)
{
	*prod = &f->producer;
	*cons = &f->consumer;
	*flags = &f->flags;
	*r = ring;
}

static void fake_socket_init(struct fake_socket *s)
{
	memset(s, 0, sizeof(*s));
	wire(&s->fill, s->fill.addrs, &s->q.fill.producer, &s->q.fill.consumer,
	     &s->q.fill.flags, &s->q.fill.ring);
	wire(&s->comp, s->comp.addrs, &s->q.comp.producer, &s->q.comp.consumer,
	     &s->q.comp.flags, &s->q.comp.ring);
	wire(&s->rx, s->rx.descs, &s->q.rx.producer, &s->q.rx.consumer,
	     &s->q.rx.flags, &s->q.rx.ring);
	wire(&s->tx, s->tx.descs, &s->q.tx.producer, &s->q.tx.consumer,
	     &s->q.tx.flags, &s->q.tx.ring);
	s->q.fill.mask = s->q.comp.mask = s->q.rx.mask = s->q.tx.mask =
		RING - 1;
	s->q.fill.size = s->q.comp.size = s->q.rx.size = s->q.tx.size = RING;
	s->q.fill.cached_cons = s->q.tx.cached_cons = RING;
	s->q.fd = -1;
	s->q.xsk = (struct xsk_socket *)1;
}

/* An Ethernet + IPv4 + UDP header in every frame's data area. */
static void write_headers(struct umem_area *u, uint32_t len)
{
	for (uint32_t f = 0; f < u->n_frames; f++) {
		uint8_t *p =
			(uint8_t *)u->base + (uint64_t)f * FRAME + HEADROOM;
		uint32_t ip_len = len - 14;

		memset(p, 0, 42);
		p[12] = 0x08;
		p[14] = 0x45;
		p[16] = (uint8_t)(ip_len >> 8);
		p[17] = (uint8_t)ip_len;
		p[23] = 17;
		p[36] = 0x23;
		p[37] = 0x28;
		p[38] = (uint8_t)((ip_len - 20) >> 8);
		p[39] = (uint8_t)(ip_len - 20);
	}
}

static int setup(struct bench *b, uint32_t max_frags, uint32_t len)
{
	memset(b, 0, sizeof(*b));
	if (umem_area_init_plain(&b->umem, 2 * PART, FRAME, 2))
		return -1;
	write_headers(&b->umem, len);
	fake_socket_init(&b->a);
	fake_socket_init(&b->b);
	if (handoff_ring_init(&b->ho, 1024) || return_ring_init(&b->ret, PART))
		return -1;
	b->pol.n_classes = 1;
	snprintf(b->pol.classes[0].name, QOS_NAME_MAX, "default");
	b->pol.classes[0].quantum = 9000;
	b->pol.classes[0].limit_packets = 1024;
	b->pol.classes[0].limit_bytes = 1 << 24;
	if (classifier_build(&b->cls, &b->pol) ||
	    rx_task_init(&b->rx, &b->a.q, &b->umem, 0, &b->cls, &b->ho, BURST,
			 CAP) ||
	    egress_task_init(&b->eg, &b->b.q, &b->umem, BURST, &b->pol, 1, 0))
		return -1;
	rx_task_add_return(&b->rx, &b->ret);
	egress_task_add_input(&b->eg, &b->ho, 0, &b->ret);
	rx_task_set_multibuf(&b->rx, max_frags);
	egress_task_set_multibuf(&b->eg, max_frags);
	b->eg.copy_mode = false;
	rx_task_refill(&b->rx);
	return 0;
}

static void teardown(struct bench *b)
{
	rx_task_fini(&b->rx);
	egress_task_fini(&b->eg);
	handoff_ring_fini(&b->ho);
	return_ring_fini(&b->ret);
	umem_area_fini(&b->umem);
}

/* Kernel RX of n packets of len bytes: frames from the fill ring. */
static uint32_t kernel_rx(struct fake_socket *s, uint32_t n, uint32_t len)
{
	uint32_t got = 0;

	for (; got < n; got++) {
		uint32_t left = len, k = (len + CAP - 1) / CAP;

		if (s->fill.producer - s->fill.consumer < k ||
		    RING - (s->rx.producer - s->rx.consumer) < k)
			break; /* no frames, or no room: as a NIC would */
		for (uint32_t i = 0; i < k; i++) {
			struct xdp_desc *d =
				&s->rx.descs[s->rx.producer++ % RING];

			d->addr = s->fill.addrs[s->fill.consumer++ % RING] +
				  HEADROOM;
			d->len = left > CAP ? CAP : left;
			d->options = i + 1 < k ? XDP_PKT_CONTD : 0;
			left -= d->len;
		}
	}
	return got;
}

static void kernel_tx(struct fake_socket *s)
{
	while (s->tx.consumer != s->tx.producer) {
		struct xdp_desc *d = &s->tx.descs[s->tx.consumer++ % RING];

		s->comp.addrs[s->comp.producer++ % RING] = d->addr;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ns per packet moving n packets, or 0 on a failure. */
static double run(uint32_t max_frags, uint32_t len, uint64_t n)
{
	struct bench *b =
		aligned_alloc(64, (sizeof(struct bench) + 63) & ~63ul);
	uint64_t done = 0, t0, t;

	if (!b || setup(b, max_frags, len)) {
		fprintf(stderr, "chain_bench: set-up failed\n");
		exit(1);
	}
	t0 = now_ns();
	while (done < n) {
		kernel_rx(&b->a, BURST, len);
		rx_task_poll(&b->rx);
		egress_task_poll(&b->eg);
		kernel_tx(&b->b);
		egress_task_poll(&b->eg);
		done = ctr_read(&b->eg.ctr.packets);
	}
	t = now_ns() - t0;
	if (ctr_read(&b->rx.ctr.drop_handoff_full) ||
	    ctr_read(&b->rx.ctr.drop_multibuf) ||
	    ctr_read(&b->eg.ctr.bytes) != done * len) {
		fprintf(stderr, "chain_bench: packets dropped or cut\n");
		failed = 1;
	}
	teardown(b);
	free(b);
	return (double)t / (double)done;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *mode;
		uint32_t max_frags, len;
	} rows[] = {{"single", 0, 1514}, {"mb", 4, 1514}, {"mb", 4, 9014}};
	uint64_t n = 2000000;
	int reps = 5, o;

	while ((o = getopt(argc, argv, "n:r:h")) != -1) {
		if (o == 'n')
			n = strtoull(optarg, NULL, 10);
		else if (o == 'r')
			reps = atoi(optarg);
		else {
			fprintf(o == 'h' ? stdout : stderr,
				"usage: chain_bench [-n PACKETS] [-r REPS]\n");
			return o == 'h' ? 0 : 2;
		}
	}
	printf("| mode | frame B | frames/packet | ns/packet | ns/descriptor "
	       "|\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		double best = 0;
		uint32_t k = (rows[i].len + CAP - 1) / CAP;

		for (int r = 0; r < reps; r++) {
			double v = run(rows[i].max_frags, rows[i].len, n);

			if (!best || v < best)
				best = v;
		}
		printf("| %s | %u | %u | %.1f | %.1f |\n", rows[i].mode,
		       rows[i].len, k, best, best / k);
	}
	return failed;
}
