/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stor_proto.h - the header storgen puts at the start of every UDP datagram
 * of its storage bursts, and the receiver's per-sender loss accounting.
 *
 * Wire format (all fields little-endian, 32 bytes, at UDP payload offset 0):
 *   0  magic      "STG1" (0x31475453 read as a little-endian u32)
 *   4  flags      STOR_F_FIN: end of stream, seq carries the number of data
 *                 datagrams sent; not a data datagram itself
 *   6  hdr_len    32
 *   8  sender_id  random per sender process: a restarted sender is a new
 *                 stream even from the same address and port
 *  12  burst      index of the burst the datagram belongs to
 *  16  seq        0, 1, 2 ... per sender (data datagrams only)
 *  24  send_ns    CLOCK_MONOTONIC when handed to the kernel
 *
 * Loss: a sender's expected count is the FIN's total when a FIN arrived,
 * else the highest sequence number seen + 1 (tail loss is then invisible);
 * lost = expected - received, never negative (duplicates are not removed).
 *
 * Also the sender's pacing arithmetic (stor_due, stor_wake,
 * stor_next_burst), so that unit tests can drive it with a fake clock.
 *
 * Pure functions and plain data: no I/O, no allocation, no clock; the
 * caller owns the table and runs it from one thread.
 */
#ifndef STOR_PROTO_H
#define STOR_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define STOR_MAGIC 0x31475453u /* "STG1" */
#define STOR_HDR_LEN 32u
#define STOR_F_FIN 0x0001u
#define STOR_ETH_IP_UDP 42u /* Ethernet 14 + IPv4 20 + UDP 8 */

struct stor_hdr {
	uint32_t magic;
	uint16_t flags;
	uint16_t hdr_len;
	uint32_t sender_id;
	uint32_t burst;
	uint64_t seq;
	uint64_t send_ns;
};

static inline void stor_put(uint8_t *p, const struct stor_hdr *h)
{
	/* x86 and the other targets that run this are little-endian; the
	 * static assert below keeps the layout honest. */
	_Static_assert(sizeof(struct stor_hdr) == STOR_HDR_LEN, "hdr layout");
	memcpy(p, h, sizeof(*h));
}

/* false when the buffer is too short or not ours */
static inline bool stor_get(const uint8_t *p, size_t len, struct stor_hdr *h)
{
	if (len < STOR_HDR_LEN)
		return false;
	memcpy(h, p, sizeof(*h));
	return h->magic == STOR_MAGIC && h->hdr_len == STOR_HDR_LEN;
}

/* One sending stream as the receiver sees it. */
struct stor_src {
	uint8_t addr[16]; /* IPv4-mapped or IPv6 source address */
	uint16_t port;
	uint32_t sender_id;
	bool used;
	bool fin; /* fin_total valid */
	uint64_t received; /* data datagrams */
	uint64_t max_seq;
	uint64_t fin_total;
	uint64_t last_iv; /* timeline interval it last sent in, + 1 */
};

static inline uint64_t stor_src_expected(const struct stor_src *s)
{
	if (s->fin)
		return s->fin_total;
	return s->received ? s->max_seq + 1 : 0;
}

static inline uint64_t stor_src_lost(const struct stor_src *s)
{
	uint64_t e = stor_src_expected(s);

	return e > s->received ? e - s->received : 0;
}

/*
 * Find the entry of (addr, port, sender_id) in tab[0..n), claiming a free one
 * if it is new; NULL when the table is full (the caller counts it).
 */
static inline struct stor_src *stor_src_find(struct stor_src *tab, size_t n,
					     const uint8_t addr[16],
					     uint16_t port, uint32_t sender_id)
{
	size_t i;

	for (i = 0; i < n && tab[i].used; i++) {
		if (tab[i].sender_id == sender_id && tab[i].port == port &&
		    !memcmp(tab[i].addr, addr, 16))
			return &tab[i];
	}
	if (i == n)
		return NULL;
	memset(&tab[i], 0, sizeof(tab[i]));
	memcpy(tab[i].addr, addr, 16);
	tab[i].port = port;
	tab[i].sender_id = sender_id;
	tab[i].used = true;
	return &tab[i];
}

/* Account one datagram carrying header h to s. */
static inline void stor_src_account(struct stor_src *s,
				    const struct stor_hdr *h)
{
	if (h->flags & STOR_F_FIN) {
		s->fin = true;
		s->fin_total = h->seq;
		return;
	}
	if (!s->received || h->seq > s->max_seq)
		s->max_seq = h->seq;
	s->received++;
}

/*
 * Pacing inside a burst of n datagrams that starts at start (ns), one every
 * gap ns: datagram k is due at start + k * gap. How many are due by now.
 */
static inline uint64_t stor_due(uint64_t now, uint64_t start, uint64_t gap,
				uint64_t n)
{
	uint64_t d;

	if (now < start)
		return 0;
	d = gap ? (now - start) / gap + 1 : n;
	return d < n ? d : n;
}

/*
 * When to wake up to send datagram i (the first not yet sent): when it is
 * due, but not sooner than min_sleep from now, so that a fast rate is sent
 * in batches rather than one wake-up per datagram.
 */
static inline uint64_t stor_wake(uint64_t now, uint64_t start, uint64_t gap,
				 uint64_t i, uint64_t min_sleep)
{
	uint64_t due = start + i * gap;

	return due > now + min_sleep ? due : now + min_sleep;
}

/*
 * Start of burst k (k >= 1) of a run that started at t0: on the period grid,
 * or, when the previous burst ended after that (the rate is too low for
 * the period), as soon as it ended; *overrun tells which.
 */
static inline uint64_t stor_next_burst(uint64_t t0, uint64_t k, uint64_t period,
				       uint64_t prev_end, bool *overrun)
{
	uint64_t s = t0 + k * period;

	*overrun = s < prev_end;
	return *overrun ? prev_end : s;
}

#endif /* STOR_PROTO_H */
