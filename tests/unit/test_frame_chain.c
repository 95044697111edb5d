// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_frame_chain.c - AF_XDP multi-buffer (frame_chain.h) through the RX
 * task, the scheduler and the egress task, against a fake kernel whose
 * rings are plain memory (tests/lib/fake_xsk.h): the test plays the
 * kernel, splitting a packet over UMEM frames with XDP_PKT_CONTD on all
 * but the last descriptor (as Documentation/networking/af_xdp.rst
 * describes), and reassembling what the egress task puts on the TX ring.
 *
 * Checks: chains are assembled across RX batches and cross as one packet
 * (one handoff entry, one class-queue entry charged the whole length);
 * TX writes every descriptor of a chain, CONTD on all but the last, and
 * only when the ring has room for a whole chain; over-long chains, chains
 * with a descriptor out of bounds and chains whose first frame is shorter
 * than the header window are dropped whole and counted; every frame comes
 * back (completions) and the census finds every frame exactly once with
 * chains in any place; bytes arrive unchanged. Also pkt_parse_head().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "egress.h"
#include "fake_xsk.h"
#include "frame_chain.h"
#include "pkt_parse.h"
#include "rx_task.h"
#include "umem.h"
#include "xsk_queue.h"

#define FRAME 4096
#define CAP (FRAME - FAKE_HEADROOM) /* data bytes per frame */
#define PART 512 /* frames of partition 0 */
#define MAX_FRAGS 4 /* ceil((9000 + 18) / 3840) + 1 */
#define MAX_PKT (FRAME_CHAIN_MAX * CAP)

struct flow {
	struct qos_policy pol;
	struct classifier cls;
	struct umem_area umem;
	struct fake_socket a, b;
	struct handoff_ring ho;
	struct return_ring ret;
	struct rx_task rx;
	struct egress_task eg;
	uint8_t pkt[MAX_PKT]; /* a packet to receive */
	uint8_t got[MAX_PKT]; /* a packet transmitted */
};

/* Packet `len` bytes: Ethernet + IPv4 (total length = len - 14) + UDP,
 * then a pattern that depends on seed. */
static void make_pkt(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t ip_len = len - 14;

	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
	memset(p, 0xaa, 12);
	p[12] = 0x08;
	p[13] = 0x00;
	p[14] = 0x45;
	p[15] = 0x02; /* ECT(0) */
	p[16] = (uint8_t)(ip_len >> 8);
	p[17] = (uint8_t)ip_len;
	p[20] = p[21] = 0; /* no fragment */
	p[23] = 17; /* UDP */
	p[34] = 0x30;
	p[35] = 0x39;
	p[36] = 0x23;
	p[37] = 0x28; /* dport 9000 */
	p[38] = (uint8_t)((ip_len - 20) >> 8);
	p[39] = (uint8_t)(ip_len - 20);
}

/*
 * Kernel receive of one packet split into frames of the given lengths
 * (lens[0..n)), bytes from pkt. Descriptors carry XDP_PKT_CONTD on all
 * but the last. Returns false if the fill ring ran dry (nothing done).
 */
static bool kernel_rx_frags(struct fake_socket *s, struct umem_area *u,
			    const uint8_t *pkt, const uint32_t *lens,
			    uint32_t n)
{
	uint32_t off = 0;

	if (s->fill.producer - s->fill.consumer < n)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = s->fill.addrs[s->fill.consumer++ % FAKE_RING];
		struct xdp_desc *d = &s->rx.descs[s->rx.producer++ % FAKE_RING];

		d->addr = a + FAKE_HEADROOM;
		d->len = lens[i];
		d->options = i + 1 < n ? XDP_PKT_CONTD : 0;
		memcpy((uint8_t *)u->base + d->addr, pkt + off, lens[i]);
		off += lens[i];
	}
	return true;
}

/* The copy-mode split: full frames, then the rest. */
static bool kernel_rx(struct flow *f, uint32_t len, uint32_t seed)
{
	uint32_t lens[FRAME_CHAIN_MAX + 4], n = 0, left = len;

	make_pkt(f->pkt, len, seed);
	while (left) {
		lens[n] = left > CAP ? CAP : left;
		left -= lens[n++];
	}
	return kernel_rx_frags(&f->a, &f->umem, f->pkt, lens, n);
}

/* Kernel transmit: consume every TX descriptor, reassemble packets by
 * XDP_PKT_CONTD, complete every frame. lens[] gets the packets' lengths;
 * the last packet's bytes are in f->got. Returns packets sent. */
static uint32_t kernel_tx(struct flow *f, uint32_t *lens, uint32_t max)
{
	struct fake_socket *s = &f->b;
	uint32_t n = 0, cur = 0;

	while (s->tx.consumer != s->tx.producer) {
		struct xdp_desc *d = &s->tx.descs[s->tx.consumer++ % FAKE_RING];

		assert_true(cur + d->len <= MAX_PKT);
		memcpy(f->got + cur, (uint8_t *)f->umem.base + d->addr, d->len);
		cur += d->len;
		s->comp.addrs[s->comp.producer++ % FAKE_RING] = d->addr;
		if (d->options & XDP_PKT_CONTD)
			continue;
		if (n < max)
			lens[n] = cur;
		n++;
		cur = 0;
	}
	assert_int_equal(cur, 0); /* never half a packet */
	return n;
}

static int setup_n(void **state, uint32_t max_frags)
{
	struct flow *f = NULL;

	assert_int_equal(posix_memalign((void **)&f, 64, sizeof(*f)), 0);
	memset(f, 0, sizeof(*f));
	assert_int_equal(umem_area_init_plain(&f->umem, 2 * PART, FRAME, 2), 0);
	fake_socket_init(&f->a, 0);
	fake_socket_init(&f->b, 0);
	assert_int_equal(handoff_ring_init(&f->ho, 64), 0);
	assert_int_equal(return_ring_init(&f->ret, PART), 0);
	f->pol.n_classes = 1;
	snprintf(f->pol.classes[0].name, QOS_NAME_MAX, "default");
	f->pol.classes[0].quantum = 9000;
	f->pol.classes[0].limit_packets = 1024;
	f->pol.classes[0].limit_bytes = 1 << 22;
	assert_int_equal(classifier_build(&f->cls, &f->pol), 0);
	assert_int_equal(rx_task_init(&f->rx, &f->a.q, &f->umem, 0, &f->cls,
				      &f->ho, 32, CAP),
			 0);
	rx_task_add_return(&f->rx, &f->ret);
	rx_task_set_multibuf(&f->rx, max_frags);
	assert_int_equal(
		egress_task_init(&f->eg, &f->b.q, &f->umem, 32, &f->pol, 1, 0),
		0);
	egress_task_set_multibuf(&f->eg, max_frags);
	f->eg.copy_mode = false; /* no kicks: the fake kernel needs none */
	assert_int_equal(egress_task_add_input(&f->eg, &f->ho, 0, &f->ret), 0);
	rx_task_refill(&f->rx);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_n(state, MAX_FRAGS);
}

static int setup_single(void **state)
{
	return setup_n(state, 0);
}

static int teardown(void **state)
{
	struct flow *f = *state;

	fake_unit_fini(&f->rx, &f->ho, &f->eg, &f->ret);
	umem_area_fini(&f->umem);
	free(f);
	return 0;
}

/* The census of partition 0: every frame found exactly once. */
static void census_ok(struct flow *f)
{
	struct umem_census c;

	assert_int_equal(umem_census_init(&c, &f->umem), 0);
	fake_unit_census(&c, &f->rx, &f->ho, &f->eg, &f->ret, &f->a, &f->b);
	assert_int_equal(c.doubles, 0);
	assert_int_equal(c.strays, 0);
	assert_int_equal(c.found, PART);
	umem_census_fini(&c);
}

/* Every frame home: pool + fill ring hold the whole partition. */
static void all_home(struct flow *f)
{
	rx_task_poll(&f->rx); /* take returns */
	assert_int_equal(f->rx.pool.count +
				 (f->a.fill.producer - f->a.fill.consumer),
			 PART);
	assert_int_equal(f->eg.outstanding, 0);
}

static void test_chains_cross_whole(void **state)
{
	static const uint32_t sizes[] = {60,   1514, CAP,  CAP + 1, 2 * CAP,
					 7000, 9018, 9014, 4000,    64};
	struct flow *f = *state;
	uint32_t lens[FAKE_RING], i, chains = 0;
	uint64_t bytes = 0;

	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		assert_true(kernel_rx(f, sizes[i], i));
		rx_task_poll(&f->rx);
		/* one packet, one handoff entry, whatever its frames */
		assert_int_equal(handoff_ring_count(&f->ho), 1);
		census_ok(f);
		egress_task_poll(&f->eg);
		/* in the class queue or on the TX ring: one packet */
		assert_int_equal(kernel_tx(f, lens, FAKE_RING), 1);
		assert_int_equal(lens[0], sizes[i]);
		assert_memory_equal(f->got, f->pkt, sizes[i]);
		census_ok(f);
		egress_task_poll(&f->eg); /* completions */
		bytes += sizes[i];
		chains += sizes[i] > CAP;
	}
	all_home(f);
	census_ok(f);
	assert_int_equal(ctr_read(&f->rx.ctr.chains), chains);
	assert_int_equal(ctr_read(&f->eg.ctr.chains), chains);
	assert_int_equal(ctr_read(&f->rx.ctr.bytes), bytes);
	assert_int_equal(ctr_read(&f->eg.ctr.bytes), bytes);
	assert_int_equal(ctr_read(&f->eg.ctr.packets), i);
	/* the class queue was charged whole packets */
	assert_int_equal(ctr_read(&f->eg.sched.st[0].enq_bytes), bytes);
	assert_int_equal(ctr_read(&f->eg.sched.st[0].enq_packets), i);
}

/* A batch that ends inside a packet: the rest comes in the next poll. */
static void test_chain_across_batches(void **state)
{
	struct flow *f = *state;
	uint32_t lens[FAKE_RING];

	f->rx.batch = 2;
	assert_true(kernel_rx(f, 9014, 1)); /* 3 frames */
	assert_true(kernel_rx(f, 9014, 2));
	rx_task_poll(&f->rx); /* frames 1, 2 of packet 1 */
	assert_int_equal(handoff_ring_count(&f->ho), 0);
	assert_true(f->rx.in_chain);
	census_ok(f); /* the half-assembled chain is counted once */
	rx_task_poll(&f->rx); /* 3 of 1, 1 of 2 */
	assert_int_equal(handoff_ring_count(&f->ho), 1);
	census_ok(f);
	rx_task_poll(&f->rx);
	assert_int_equal(handoff_ring_count(&f->ho), 2);
	assert_false(f->rx.in_chain);
	egress_task_poll(&f->eg);
	assert_int_equal(kernel_tx(f, lens, FAKE_RING), 2);
	assert_int_equal(lens[0], 9014);
	assert_int_equal(lens[1], 9014);
	assert_memory_equal(f->got, f->pkt, 9014);
	egress_task_poll(&f->eg);
	all_home(f);
	census_ok(f);
}

/* More frames than max_frags: dropped whole, counted, then the next
 * packet is fine. */
static void test_chain_too_long(void **state)
{
	struct flow *f = *state;
	uint32_t lens[FAKE_RING];

	f->rx.batch = 3; /* the drop spans batches too */
	assert_true(kernel_rx(f, (MAX_FRAGS + 1) * CAP - 10, 1));
	assert_true(kernel_rx(f, 9014, 2));
	while (rx_task_poll(&f->rx))
		census_ok(f);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_chain_long), 1);
	assert_int_equal(handoff_ring_count(&f->ho), 1);
	egress_task_poll(&f->eg);
	assert_int_equal(kernel_tx(f, lens, FAKE_RING), 1);
	assert_int_equal(lens[0], 9014);
	assert_memory_equal(f->got, f->pkt, 9014);
	egress_task_poll(&f->eg);
	all_home(f);
	census_ok(f);
}

/* First frame shorter than the header window; a descriptor out of bounds
 * in the middle of a chain; both dropped whole and counted. */
static void test_chain_bad_parts(void **state)
{
	struct flow *f = *state;
	uint32_t short_head[] = {100, CAP, 1000};
	uint32_t too_long[] = {CAP, CAP + 1, 100};
	uint32_t lens[FAKE_RING];

	make_pkt(f->pkt, 100 + CAP + 1000, 3);
	assert_true(kernel_rx_frags(&f->a, &f->umem, f->pkt, short_head, 3));
	rx_task_poll(&f->rx);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_chain_head), 1);
	make_pkt(f->pkt, 2 * CAP + 101, 4);
	/* the middle descriptor claims more than a frame: the kernel would
	 * never; the whole packet goes */
	assert_true(kernel_rx_frags(&f->a, &f->umem, f->pkt, too_long, 3));
	rx_task_poll(&f->rx);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_invalid_desc), 1);
	assert_int_equal(handoff_ring_count(&f->ho), 0);
	assert_false(f->rx.in_chain);
	census_ok(f);
	assert_true(kernel_rx(f, 5000, 5));
	rx_task_poll(&f->rx);
	egress_task_poll(&f->eg);
	assert_int_equal(kernel_tx(f, lens, FAKE_RING), 1);
	assert_int_equal(lens[0], 5000);
	egress_task_poll(&f->eg);
	all_home(f);
	census_ok(f);
}

/* A chain whose middle descriptor names a frame that never came from this
 * task's fill ring (another partition's, or past the UMEM): the packet is
 * dropped whole and counted, our frames go home, the foreign address
 * never enters the pool (the census would find it twice or astray). */
static void test_chain_foreign_desc(void **state)
{
	static const uint64_t foreign[] = {
		(uint64_t)PART * FRAME + FAKE_HEADROOM,
		(uint64_t)2 * PART * FRAME + FAKE_HEADROOM};
	struct flow *f = *state;

	for (uint32_t k = 0; k < 2; k++) {
		struct fake_socket *s = &f->a;
		struct xdp_desc *d;

		for (uint32_t i = 0; i < 3; i++) {
			d = &s->rx.descs[s->rx.producer++ % FAKE_RING];
			d->addr = i == 1 ? foreign[k]
					 : s->fill.addrs[s->fill.consumer++ %
							 FAKE_RING] +
						   FAKE_HEADROOM;
			d->len = i == 2 ? 100 : CAP;
			d->options = i < 2 ? XDP_PKT_CONTD : 0;
		}
		rx_task_poll(&f->rx);
		assert_int_equal(ctr_read(&f->rx.ctr.drop_invalid_desc), k + 1);
		assert_int_equal(handoff_ring_count(&f->ho), 0);
		assert_false(f->rx.in_chain);
		for (uint32_t i = 0; i < f->rx.pool.count; i++)
			assert_int_equal(
				umem_owner(&f->umem, f->rx.pool.addrs[i]), 0);
		all_home(f);
		census_ok(f);
	}
}

/* TX room: with k free slots, floor(k / max_frags) packets go, each
 * chain whole; the rest waits in its class queue. */
static void test_tx_room_rule(void **state)
{
	struct flow *f = *state;
	uint32_t lens[FAKE_RING], i, sent;

	for (i = 0; i < 3; i++) {
		assert_true(kernel_rx(f, 9014, i)); /* 3 frames each */
		rx_task_poll(&f->rx);
	}
	/* The kernel has not consumed 249 of the ring's 256 descriptors:
	 * 7 free, room for one packet of up to 4 frames. */
	f->b.tx.producer = f->b.tx.consumer = 1000;
	f->b.q.tx.cached_prod = 1000 + 249;
	f->b.q.tx.cached_cons = 1000 + FAKE_RING;
	f->b.tx.producer = 1000 + 249;
	egress_task_poll(&f->eg);
	assert_int_equal(f->b.tx.producer - 1000, 249 + 3);
	for (i = 0; i < 3; i++) /* whole chain, CONTD on all but the last */
		assert_int_equal(f->b.tx.descs[(1249 + i) % FAKE_RING].options,
				 i < 2 ? XDP_PKT_CONTD : 0);
	assert_int_equal(sched_backlog_packets(&f->eg.sched), 2);
	egress_task_poll(&f->eg); /* 4 free now: still one more fits */
	assert_int_equal(f->b.tx.producer - 1000, 249 + 6);
	egress_task_poll(&f->eg); /* 1 free: nothing, never half */
	assert_int_equal(f->b.tx.producer - 1000, 249 + 6);
	assert_int_equal(sched_backlog_packets(&f->eg.sched), 1);
	/* The kernel "sent" the 249 foreign descriptors (no frames). */
	f->b.tx.consumer = 1000 + 249;
	sent = kernel_tx(f, lens, FAKE_RING);
	assert_int_equal(sent, 2);
	egress_task_poll(&f->eg);
	sent = kernel_tx(f, lens, FAKE_RING);
	assert_int_equal(sent, 1);
	assert_int_equal(lens[0], 9014);
	assert_memory_equal(f->got, f->pkt, 9014);
	egress_task_poll(&f->eg);
	all_home(f);
	census_ok(f);
}

/* Handoff ring full: a chain that cannot be handed over goes back whole;
 * a chain the scheduler refuses goes back whole. */
static void test_chain_drops_return_frames(void **state)
{
	struct flow *f = *state;
	uint32_t lens[FAKE_RING];

	/* fill the 64-slot handoff ring, then a chain and a frame more */
	for (int i = 0; i < 64; i++) {
		assert_true(kernel_rx(f, 64, i));
		rx_task_poll(&f->rx);
	}
	assert_true(kernel_rx(f, 9014, 99));
	assert_true(kernel_rx(f, 64, 100));
	rx_task_poll(&f->rx);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_handoff_full), 2);
	census_ok(f);
	/* queue limit of 1 packet: every chain but the first refused */
	do
		kernel_tx(f, lens, FAKE_RING);
	while (egress_task_poll(&f->eg));
	f->eg.sched.cl[0].limit_packets = 1;
	for (int i = 0; i < 3; i++) {
		assert_true(kernel_rx(f, 9014, i));
		rx_task_poll(&f->rx);
	}
	/* the egress task takes all 3 handoffs before it transmits */
	egress_task_poll(&f->eg);
	assert_int_equal(
		ctr_read(&f->eg.sched.st[0].drops[SCHED_DROP_QUEUE_PACKETS]),
		2);
	census_ok(f);
	do
		kernel_tx(f, lens, FAKE_RING);
	while (egress_task_poll(&f->eg));
	all_home(f);
	census_ok(f);
}

/* Multi-buffer off: a descriptor flagged CONTD is dropped and counted as
 * before (the socket was not bound with XDP_USE_SG). */
static void test_single_buffer_drops_contd(void **state)
{
	struct flow *f = *state;

	assert_false(f->rx.multibuf);
	assert_int_equal(f->eg.max_frags, 1);
	assert_true(kernel_rx(f, 9014, 1));
	rx_task_poll(&f->rx);
	assert_int_equal(ctr_read(&f->rx.ctr.drop_multibuf), 2);
	assert_int_equal(ctr_read(&f->rx.ctr.chains), 0);
	assert_false(f->rx.in_chain);
	census_ok(f);
}

/* The assembler alone: limits, verdicts, frames back in the pool. */
static void test_chain_asm_unit(void **state)
{
	struct flow *f = *state;
	struct chain_asm a;
	uint32_t before = f->rx.pool.count;

	chain_asm_init(&a, 2);
	assert_int_equal(chain_asm_add(&a, &f->umem, &f->rx.pool, 4096 + 256,
				       100, XDP_PKT_CONTD, true),
			 CHAIN_MORE);
	assert_int_equal(chain_asm_add(&a, &f->umem, &f->rx.pool, 8192 + 256,
				       100, 0, true),
			 CHAIN_DONE);
	assert_int_equal(a.c.n, 2);
	assert_int_equal(a.c.total, 200);
	a.c.n = 0;
	a.c.total = 0;
	/* three frames with max 2: the first two come back at the third */
	chain_asm_add(&a, &f->umem, &f->rx.pool, 4096, 1, XDP_PKT_CONTD, true);
	chain_asm_add(&a, &f->umem, &f->rx.pool, 8192, 1, XDP_PKT_CONTD, true);
	assert_int_equal(chain_asm_add(&a, &f->umem, &f->rx.pool, 12288 + 9, 1,
				       XDP_PKT_CONTD, true),
			 CHAIN_MORE);
	assert_int_equal(f->rx.pool.count, before + 3);
	assert_int_equal(f->rx.pool.addrs[before + 2], 12288);
	assert_int_equal(
		chain_asm_add(&a, &f->umem, &f->rx.pool, 16384, 1, 0, true),
		CHAIN_DROP_LONG);
	assert_int_equal(f->rx.pool.count, before + 4);
	f->rx.pool.count = before; /* (addresses borrowed, not the pool's) */
	/* the record fits the kernel's headroom */
	assert_true(sizeof(struct frame_chain) <= FAKE_HEADROOM);
	assert_true(frame_chain_fits(&f->umem, 4096 + FAKE_HEADROOM));
	assert_false(frame_chain_fits(&f->umem, 4096 + 64));
}

/* The parser on a chain's first frame: lengths against the packet,
 * reads against the frame. */
static void test_parse_head(void **state)
{
	struct flow *f = *state;
	struct pkt_meta m;

	make_pkt(f->pkt, 9014, 1);
	/* IPv4 total length 9000 > 3840 bytes readable: fine */
	assert_int_equal(pkt_parse_head(f->pkt, CAP, 9014, &m), PKT_OK);
	assert_int_equal(m.dport, 9000);
	assert_int_equal(m.l3, PKT_L3_IPV4);
	/* the same bytes as one frame of 3840: the datagram is cut */
	assert_int_equal(pkt_parse(f->pkt, CAP, &m),
			 PKT_MALFORMED_IPV4_BAD_TOTLEN);
	/* a header that crosses what can be read: truncated, not read */
	assert_int_equal(pkt_parse_head(f->pkt, 38, 9014, &m),
			 PKT_MALFORMED_UDP_TRUNCATED);
	assert_int_equal(pkt_parse_head(f->pkt, 30, 9014, &m),
			 PKT_MALFORMED_IPV4_TRUNCATED);
	/* total length beyond the packet: still bad */
	assert_int_equal(pkt_parse_head(f->pkt, CAP, 9000, &m),
			 PKT_MALFORMED_IPV4_BAD_TOTLEN);
}

/* Frames per packet (gw_ports.c): the largest frame of an MTU is a QinQ
 * frame, 14 + 4 + 4 bytes on top of it, and takes the frames counted. */
static void test_frames_of_mtu(void **state)
{
	const uint32_t room = 3840; /* 4096 - 256 */

	(void)state;
	assert_int_equal(FRAME_L2_MAX, 14 + 4 + 4);
	assert_int_equal(frame_chain_frames(3818, room), 1);
	assert_int_equal(frame_chain_frames(3819, room), 2);
	assert_int_equal(frame_chain_frames(1500, room), 1);
	assert_int_equal(frame_chain_frames(9000, room), 3);
	assert_int_equal(frame_chain_frames(1500, 0), 0);
	for (uint32_t mtu = 68; mtu <= 65535; mtu += 97) {
		uint32_t n = frame_chain_frames(mtu, room);

		assert_true(n * room >= mtu + 22); /* holds a QinQ frame */
		assert_true((n - 1) * room < mtu + 22); /* no frame more */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_chain_foreign_desc, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_chains_cross_whole, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_chain_across_batches,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_too_long, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_chain_bad_parts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tx_room_rule, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_chain_drops_return_frames,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_buffer_drops_contd,
						setup_single, teardown),
		cmocka_unit_test_setup_teardown(test_chain_asm_unit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_parse_head, setup,
						teardown),
		cmocka_unit_test(test_frames_of_mtu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
