/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * frame_chain.h - packets larger than one UMEM frame (AF_XDP multi-buffer,
 * XDP_USE_SG): how a chain of frames travels through the gateway as one
 * packet.
 *
 * On the rings of a socket a packet is a run of descriptors, one per frame,
 * every one but the last flagged XDP_PKT_CONTD (kernel
 * Documentation/networking/af_xdp.rst, "Multi-Buffer Support"). The kernel
 * puts only whole packets on an RX ring, but a batch read from it may end
 * inside one: the RX task assembles chains across batches (struct
 * chain_asm).
 *
 * Between RX and TX a chain is ONE frame_desc: addr = the first frame's
 * data, len = the whole packet's length, meta with FRAME_META_CHAIN
 * (frame_meta.h). So the handoff ring, the class queues, the byte counters
 * and the token buckets carry and charge the packet as a unit. The list of
 * frames (struct frame_chain) is written into the headroom of the first
 * frame, in front of its data: the kernel keeps XDP_PACKET_HEADROOM (256)
 * bytes there in copy and zero-copy mode alike, and nobody else reads or
 * writes them while the frame is owned by the gateway. A frame whose
 * headroom is too small for the record is dropped (counted), never
 * overrun.
 *
 * Headers: the parser and the ECN marker read only the first frame, which
 * must hold at least FRAME_CHAIN_HEAD_MIN bytes (the header parse window);
 * pkt_parse_head() bounds every header read by it.
 *
 * TX: a chain is written as its run of descriptors, XDP_PKT_CONTD on all
 * but the last, and only when the TX ring has room for the whole run
 * (egress.c reserves room for max_frags descriptors per packet): never half
 * a packet. Each frame completes on its own and goes back to its owner:
 * every frame of a chain belongs to the RX task that received it.
 *
 * Ownership: a chain record belongs to whoever owns the chain's first
 * frame (umem.h); it is written once by the RX task and read by the egress
 * task and by the census. Single-buffer packets never touch any of this:
 * one test of a meta bit (egress) or of the descriptor's options (RX).
 *
 * Contracts: every function here is inline arithmetic on memory the
 * caller owns. Thread: the owner of the packet (chain_asm_*: the RX task;
 * frame_tx_put: the egress task; frame_desc_census: the control thread
 * taking the census). Syscalls: none.
 */
#ifndef XDPLANE_FRAME_CHAIN_H
#define XDPLANE_FRAME_CHAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <xdp/xsk.h>
#include "bits.h"
#include "frame.h"
#include "frame_meta.h"
#include "umem.h"

#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD (1 << 0) /* linux/if_xdp.h >= 6.6 */
#endif
#ifndef XDP_USE_SG
#define XDP_USE_SG (1 << 4) /* linux/if_xdp.h >= 6.6 */
#endif

/* Frames per packet, at most: the copy-mode limit the kernel guarantees on
 * every configuration (CONFIG_MAX_SKB_FRAGS >= 17, + 1). */
#define FRAME_CHAIN_MAX 18
/* The header parse window: a chain's first frame must hold this many
 * bytes. Ethernet + 2 VLAN tags + IPv6 + extension headers + UDP + BTH of
 * any sane packet fit; the parser never reads past the first frame. */
#define FRAME_CHAIN_HEAD_MIN 256

/* The most a frame adds to its MTU: the Ethernet header (14) and two VLAN
 * tags of 4 (QinQ: an 802.1ad S-tag, TPID 0x88a8, then an 802.1Q C-tag),
 * as many as pkt_parse() reads. The largest frame a port carries is MTU +
 * FRAME_L2_MAX bytes (the FCS is not in the frame); every frame sizing
 * (UMEM frames per packet, the largest MTU one frame or a chain carries)
 * counts it. */
#define FRAME_L2_MAX (14 + 2 * 4)

/* UMEM frames of `room` data bytes that the largest frame of an MTU takes
 * (mtu + FRAME_L2_MAX bytes); 0 when room is 0. */
static inline uint32_t frame_chain_frames(uint32_t mtu, uint32_t room)
{
	return room ? (mtu + FRAME_L2_MAX + room - 1) / room : 0;
}

/* The frames of one packet, in the headroom of its first frame. */
struct frame_chain {
	uint64_t addr[FRAME_CHAIN_MAX]; /* data address of each frame */
	uint32_t len[FRAME_CHAIN_MAX]; /* bytes of data in each */
	uint32_t n; /* frames, 2..FRAME_CHAIN_MAX */
	uint32_t total; /* sum of len[]: the packet's length */
};

static inline bool frame_desc_is_chain(const struct frame_desc *d)
{
	return (d->meta & FRAME_META_CHAIN) != 0;
}

/* Does the headroom in front of data address `addr` hold a record? */
static inline bool frame_chain_fits(const struct umem_area *u, uint64_t addr)
{
	return addr - umem_frame_start(u, addr) >= sizeof(struct frame_chain);
}

/* The record of the chain whose first frame holds data address `addr`. */
static inline struct frame_chain *frame_chain_of(const struct umem_area *u,
						 uint64_t addr)
{
	return (struct frame_chain *)((uint8_t *)u->base +
				      umem_frame_start(u, addr));
}

/* Frame starts of packet d (one, or every frame of its chain) into
 * starts[]; returns how many (1..FRAME_CHAIN_MAX). A record with a bad
 * count (cannot happen: the RX task wrote it) yields the first frame. */
static inline uint32_t frame_desc_frames(const struct umem_area *u,
					 const struct frame_desc *d,
					 uint64_t starts[FRAME_CHAIN_MAX])
{
	const struct frame_chain *c;
	uint32_t n;

	if (likely(!frame_desc_is_chain(d))) {
		starts[0] = umem_frame_start(u, d->addr);
		return 1;
	}
	c = frame_chain_of(u, d->addr);
	n = c->n >= 2 && c->n <= FRAME_CHAIN_MAX ? c->n : 1;
	starts[0] = umem_frame_start(u, d->addr);
	for (uint32_t i = 1; i < n; i++)
		starts[i] = umem_frame_start(u, c->addr[i]);
	return n;
}

/* Census (umem.h): report every frame of packet d -- one, or each of its
 * chain -- to the census passed as arg. Shaped as the callback of the
 * frame_desc walkers (sched_foreach, handoff_ring_foreach), for every
 * place that holds packets rather than frames. */
static inline void frame_desc_census(const struct frame_desc *d, void *census)
{
	struct umem_census *c = census;
	uint64_t starts[FRAME_CHAIN_MAX];
	uint32_t n = frame_desc_frames(c->u, d, starts);

	for (uint32_t i = 0; i < n; i++)
		umem_census_add(c, starts[i]);
}

/* TX descriptors packet d needs. */
static inline uint32_t frame_desc_slots(const struct umem_area *u,
					const struct frame_desc *d)
{
	uint32_t n;

	if (likely(!frame_desc_is_chain(d)))
		return 1;
	n = frame_chain_of(u, d->addr)->n;
	return n >= 2 && n <= FRAME_CHAIN_MAX ? n : 1;
}

/* Write packet d's descriptors at TX slots idx, idx + 1, ... (reserved by
 * the caller: frame_desc_slots() of them); returns how many. */
static inline uint32_t frame_tx_put(struct xsk_ring_prod *tx, uint32_t idx,
				    const struct umem_area *u,
				    const struct frame_desc *d)
{
	const struct frame_chain *c = frame_chain_of(u, d->addr);
	uint32_t n = frame_desc_slots(u, d);
	struct xdp_desc *txd;

	if (n == 1) { /* a broken record: send the first frame alone */
		txd = xsk_ring_prod__tx_desc(tx, idx);
		txd->addr = d->addr;
		txd->len = frame_desc_is_chain(d) ? c->len[0] : d->len;
		txd->options = 0;
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		txd = xsk_ring_prod__tx_desc(tx, idx + i);
		txd->addr = c->addr[i];
		txd->len = c->len[i];
		txd->options = i + 1 < n ? XDP_PKT_CONTD : 0;
	}
	return n;
}

/* Why an assembled chain was dropped (rx_counters). */
enum chain_verdict {
	CHAIN_MORE = 0, /* packet continues in the next descriptor */
	CHAIN_DONE, /* a whole chain is in asm->c */
	CHAIN_DROP_LONG, /* more than max frames: every frame returned */
	CHAIN_DROP_INVALID, /* a descriptor out of bounds: every frame back */
};

/* RX chain assembly: owned by the RX task (one thread). */
struct chain_asm {
	struct frame_chain c; /* frames collected so far */
	uint32_t max; /* frames per packet allowed, 2..FRAME_CHAIN_MAX */
	uint8_t dropping; /* 0, or the chain_verdict the packet will get */
};

static inline void chain_asm_init(struct chain_asm *a, uint32_t max)
{
	a->c.n = 0;
	a->c.total = 0;
	a->dropping = 0;
	a->max = max < 2 ? 2 : max > FRAME_CHAIN_MAX ? FRAME_CHAIN_MAX : max;
}

/* Give every collected frame back to pool p and start over. */
static inline void chain_asm_discard(struct chain_asm *a,
				     const struct umem_area *u,
				     struct frame_pool *p)
{
	for (uint32_t i = 0; i < a->c.n; i++)
		frame_pool_put(p, umem_frame_start(u, a->c.addr[i]));
	a->c.n = 0;
	a->c.total = 0;
}

/*
 * One RX descriptor of a multi-buffer packet (addr, len, XDP_PKT_CONTD in
 * options); valid: the caller's bounds check passed, which includes that
 * addr lies in p's partition (only such frames are ever collected, so
 * discarding a chain returns nothing foreign to p). CHAIN_DONE: the
 * packet is in a->c (the caller takes it, then sets a->c.n = 0); a drop
 * verdict comes with the last descriptor of the packet, every frame of it
 * already back in p.
 */
static inline enum chain_verdict chain_asm_add(struct chain_asm *a,
					       const struct umem_area *u,
					       struct frame_pool *p,
					       uint64_t addr, uint32_t len,
					       uint32_t options, bool valid)
{
	bool last = !(options & XDP_PKT_CONTD);
	enum chain_verdict v;

	if (unlikely(!a->dropping && (!valid || a->c.n == a->max))) {
		a->dropping = valid ? CHAIN_DROP_LONG : CHAIN_DROP_INVALID;
		chain_asm_discard(a, u, p);
	}
	if (unlikely(a->dropping)) {
		/* an invalid descriptor's frame only if it is ours */
		frame_pool_reclaim(p, u, addr);
		if (!last)
			return CHAIN_MORE;
		v = (enum chain_verdict)a->dropping;
		a->dropping = 0;
		return v;
	}
	a->c.addr[a->c.n] = addr;
	a->c.len[a->c.n] = len;
	a->c.n++;
	a->c.total += len;
	return last ? CHAIN_DONE : CHAIN_MORE;
}

#endif
