/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_host.h - the RDMA NIC of one emulated host: one RC queue pair per peer
 * rank, a port pacer at the line rate shared by all of them, round-robin
 * between the queue pairs that may send, and the dispatch of received
 * packets by destination QP number. Pure like rc_qp.h (no I/O, no clock):
 * the caller moves the packets (UDP sockets in rocegen, an in-memory wire
 * in the tests).
 *
 * QP numbers: the QP of rank `local` for its connection with rank `remote`
 * is rc_qpn(local, remote) = 0x100000 + 16 * local + remote, so data from
 * a to b carries dest QP rc_qpn(b, a), and b's ACKs and CNPs for it carry
 * rc_qpn(a, b). Ranks are 0 .. RC_MAX_RANKS - 1.
 *
 * Ownership: one thread. Memory: QPs allocated at rc_host_init(), none
 * after. Invariant: the port pacer lets frames go at no more than line_bps
 * on average (plus a burst of cfg.burst frames after idle time).
 */
#ifndef COLL_RC_HOST_H
#define COLL_RC_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include "lat_hist.h"
#include "rc_qp.h"

#define RC_MAX_RANKS 16
#define RC_QPN_BASE 0x100000u

static inline uint32_t rc_qpn(int local, int remote)
{
	return RC_QPN_BASE + 16u * (uint32_t)local + (uint32_t)remote;
}

struct rc_host {
	int rank, nranks;
	struct rc_cfg cfg;
	struct rc_qp qp[RC_MAX_RANKS]; /* by peer rank; qp[rank] unused */
	struct rc_pacer port;
	int rr; /* next peer to look at for sending */
	uint32_t tx_blocked; /* bit per peer: its socket is full, skip it */
	const struct rc_ops *user_ops; /* the owner's callbacks */
	void *user_ctx;
	struct lat_hist lat;
	uint64_t unknown_qp; /* packets for a QP we do not have */
	uint64_t malformed; /* shorter than a BTH + ICRC */
};

/* Host rank of nranks with cfg (copied), room for msg_cap messages per QP,
 * ops/ctx for every QP. 0 or a negative errno. */
int rc_host_init(struct rc_host *h, const struct rc_cfg *cfg, int rank,
		 int nranks, uint32_t msg_cap, const struct rc_ops *ops,
		 void *ctx, uint64_t now);
void rc_host_free(struct rc_host *h);

/* Queue a message to peer: see rc_qp_post(). -EINVAL for a bad peer. */
int rc_host_post(struct rc_host *h, int peer, uint32_t id, const uint8_t *data,
		 uint32_t len);

/* A received UDP payload (ICRC checked) with its IP ECN bits. */
void rc_host_rx(struct rc_host *h, uint64_t now, const uint8_t *p, size_t len,
		unsigned int ecn);

/* Fire every QP's due timers. */
void rc_host_timers(struct rc_host *h, uint64_t now);

/*
 * Pick the next QP (round robin) that may send now under both pacers and
 * build up to max of its packets into bufs[i] (each of cap bytes), lens[i]
 * and info[i]; stops early when either pacer says wait. Returns the number
 * built and sets *peer; 0: nothing may go now.
 */
int rc_host_tx_burst(struct rc_host *h, uint64_t now, uint8_t *const *bufs,
		     size_t cap, size_t *lens, struct rc_tx_info *info, int max,
		     int *peer);

/* The socket refused the last n packets of a burst to peer. */
void rc_host_unsend(struct rc_host *h, int peer, const struct rc_tx_info *info,
		    int n);

/* The earliest time something is due, UINT64_MAX: nothing. */
uint64_t rc_host_next_ns(const struct rc_host *h);

/* The earliest retransmit timeout or deferred CNP, UINT64_MAX: none. */
uint64_t rc_host_next_timer_ns(const struct rc_host *h);

/* The earliest time a data frame may go (both pacers), UINT64_MAX: none
 * waiting. */
uint64_t rc_host_next_tx_ns(const struct rc_host *h);

/* Every QP's counters added up into *sum. */
void rc_host_stats(const struct rc_host *h, struct rc_qp_stats *sum);

/* Nothing queued or unacknowledged on any QP. */
bool rc_host_tx_idle(const struct rc_host *h);

#endif
