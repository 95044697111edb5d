/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_qp.h - one RoCEv2 RC queue pair as a pure state machine: the requester
 * (message queue, PSNs, window, go-back-N on NAK and on retransmit timeout,
 * pacing at the line rate or at the DCQCN reaction point's R_C) and the
 * responder (in-order acceptance, one NAK per gap, coalesced ACKs, DCQCN
 * notification point sending CNPs for CE-marked data). No I/O, no clock of
 * its own: every call takes now (ns, never decreasing); packets are built
 * into and parsed from caller buffers holding the UDP payload (BTH ...
 * ICRC); the caller seals the ICRC (it knows the addresses).
 *
 * Data packets: RDMA WRITE FIRST / MIDDLE / LAST / ONLY (0x06 .. 0x0a),
 * RETH (VA = message id << 32, R_Key 0, DMA length = message length) on
 * FIRST and ONLY, AckReq on LAST and ONLY and every ack_every packets (or
 * more often when pacing is slow: at least every rto / 4, so that the
 * ACKs of a QP paced near DCQCN's R_min, or sharing the port with many,
 * arrive before its retransmit timer fires). Every payload starts with
 * RC_HDR_LEN bytes: message id (be32), offset of the payload's data in the
 * message (be32), send time (be64, the caller's clock); then the message's
 * data (or a filler pattern when it was posted without data). A payload is
 * cfg->mtu bytes except the last of a message, so a packet carries
 * mtu - RC_HDR_LEN bytes of message data.
 * ACK: BTH 0x11, PSN = the last PSN received in order, AETH syndrome 0x1f.
 * NAK: BTH 0x11, PSN = the expected PSN, AETH syndrome 0x60 (PSN sequence
 * error). CNP: BTH 0x81, BECN, 16 zero bytes. MSN in the AETH: messages
 * completed by the responder (24 bits).
 *
 * PSNs are kept unwrapped in 64 bits inside and are 24 bits on the wire.
 *
 * Ownership: a struct rc_qp belongs to one thread. Memory: the message ring
 * is allocated by rc_qp_init(), nothing afterwards. Invariants:
 * una <= nxt <= max_sent <= post_psn; max_sent - una <= window; a message
 * leaves the ring (send_done) only when all its PSNs are acknowledged; the
 * responder hands data to the rx callbacks exactly once and in PSN order.
 */
#ifndef COLL_RC_QP_H
#define COLL_RC_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dcqcn.h"

#define RC_HDR_LEN 16 /* msg id, offset, send timestamp */
/* Frame bytes around a UDP payload: Ethernet 14 + VLAN 4 + IPv4 20 + UDP 8 */
#define RC_FRAME_OVERHEAD 46
#define RC_MAX_MTU 4096
#define RC_MIN_MTU 64
/* Largest UDP payload of a data packet: BTH + RETH + mtu + ICRC */
#define RC_MAX_PKT (12 + 16 + RC_MAX_MTU + 4)
#define RC_CTRL_LEN 20 /* ACK / NAK: BTH 12 + AETH 4 + ICRC 4 */
#define RC_CNP_LEN 32 /* BTH 12 + 16 reserved + ICRC 4 */

enum rc_opcode {
	RC_OP_WRITE_FIRST = 0x06,
	RC_OP_WRITE_MIDDLE = 0x07,
	RC_OP_WRITE_LAST = 0x08,
	RC_OP_WRITE_ONLY = 0x0a,
	RC_OP_ACK = 0x11,
	RC_OP_CNP = 0x81,
};

#define RC_AETH_ACK 0x1f
#define RC_AETH_NAK_PSN_SEQ 0x60

struct rc_cfg {
	uint32_t mtu; /* payload bytes of a full data packet */
	uint32_t window; /* packets sent and not acknowledged, at most */
	uint32_t ack_every; /* ACK after this many in-order packets */
	uint64_t rto_ns; /* retransmit timeout */
	uint32_t rto_max_shift; /* backoff: rto_ns << shift, shift capped */
	double line_bps; /* frame bits per second */
	bool cc_dcqcn; /* pace at the RP's R_C (else at line_bps) */
	struct dcqcn_params dcqcn; /* RP parameters; NP interval always used */
	uint32_t burst; /* frames a late pacer may catch up at once */
};

/* Defaults of the CLI: mtu 1024, window 256, ack every 16, RTO 4 ms capped
 * at 64x, burst 16, line 100 Gbit/s, DCQCN off (paper parameters). */
void rc_cfg_default(struct rc_cfg *c);

/* A send-time pacer: the next frame may go at next_ns. A pacer that fell
 * behind (the caller woke late or had nothing to send) catches up at most
 * burst frames' worth of time. */
struct rc_pacer {
	uint64_t next_ns;
};

static inline bool rc_pacer_due(const struct rc_pacer *p, uint64_t now)
{
	return p->next_ns <= now;
}

/* A frame of frame_bytes leaves at now at bps: the next may leave
 * bytes * 8 / bps later than this one's slot (no earlier than now minus
 * burst_ns). */
void rc_pacer_charge(struct rc_pacer *p, uint64_t now, uint32_t frame_bytes,
		     double bps, uint64_t burst_ns);

struct rc_qp_stats {
	uint64_t data_packets_sent, data_bytes_sent; /* frame bytes */
	uint64_t retransmitted_packets, timeouts;
	uint64_t naks_sent, naks_received, acks_sent, acks_received;
	uint64_t loss_events, ooo_dropped, dup_received;
	uint64_t data_packets_received, data_bytes_received;
	uint64_t ce_seen, cnps_sent, cnps_received;
	uint64_t malformed; /* too short, bad opcode sequence, bad header */
	uint64_t msgs_received, msgs_sent_done;
};

struct rc_qp;

/* What the responder and the requester tell their owner. Any may be NULL. */
struct rc_ops {
	/* n bytes of message data at offset off, in order, exactly once */
	void (*data)(void *ctx, struct rc_qp *qp, uint32_t msg_id, uint32_t off,
		     const uint8_t *p, uint32_t n);
	/* the message's last packet arrived; len = its data bytes */
	void (*msg_done)(void *ctx, struct rc_qp *qp, uint32_t msg_id,
			 uint32_t len, uint64_t now);
	/* every PSN of a posted message was acknowledged */
	void (*send_done)(void *ctx, struct rc_qp *qp, uint32_t msg_id,
			  uint64_t now);
	/* a data packet arrived: now - the send time it carries */
	void (*latency)(void *ctx, struct rc_qp *qp, uint64_t ns);
};

struct rc_msg {
	uint32_t id, len;
	const uint8_t *data; /* NULL: filler */
	uint64_t first_psn;
	uint32_t npkts;
};

struct rc_qp {
	const struct rc_cfg *cfg;
	const struct rc_ops *ops;
	void *ctx;
	uint32_t lqpn, rqpn; /* ours, the peer's (dest QP of what we send) */
	int peer; /* the owner's name for the peer (rank) */
	/* requester: ring of messages [head, tail), cap a power of two */
	struct rc_msg *msgs;
	uint32_t msg_cap, msg_head, msg_tail;
	uint32_t cur; /* ring counter of the message holding nxt */
	uint64_t post_psn; /* first PSN of the next posted message */
	uint64_t una; /* oldest unacknowledged PSN */
	uint64_t nxt; /* next PSN to (re)transmit */
	uint64_t max_sent; /* one past the highest PSN ever sent */
	uint64_t rto_at; /* UINT64_MAX: not armed */
	uint32_t rto_shift;
	uint32_t since_ackreq; /* packets sent since the last AckReq */
	uint64_t last_ackreq_ns; /* when the last AckReq went */
	struct rc_pacer pacer;
	struct dcqcn_rp rp;
	/* responder */
	uint64_t epsn; /* expected PSN */
	uint32_t since_ack; /* in-order packets since the last ACK */
	uint32_t msn;
	bool nak_sent; /* NAK sent for the current gap */
	bool ack_pending, nak_pending;
	bool cnp_pending;
	bool in_msg;
	uint32_t rx_msg_id, rx_off;
	struct dcqcn_np np;
	struct rc_qp_stats st;
};

/* A QP with room for msg_cap posted messages (rounded up to a power of
 * two). 0, or -ENOMEM / -EINVAL. */
int rc_qp_init(struct rc_qp *qp, const struct rc_cfg *cfg,
	       const struct rc_ops *ops, void *ctx, uint32_t lqpn,
	       uint32_t rqpn, int peer, uint32_t msg_cap, uint64_t now);
void rc_qp_free(struct rc_qp *qp);

/* Queue a message of len (>= 1) bytes of data (NULL: filler), which must
 * stay unchanged until send_done. 0, -ENOSPC (ring full) or -EINVAL. */
int rc_qp_post(struct rc_qp *qp, uint32_t id, const uint8_t *data,
	       uint32_t len);

/* The pacing rate now (line, or R_C with DCQCN after catching up). */
double rc_qp_rate(struct rc_qp *qp, uint64_t now);

/* Something to send that the window allows (pacing aside). */
bool rc_qp_has_tx(const struct rc_qp *qp);
/* ...and the pacer allows it now. */
bool rc_qp_tx_ready(const struct rc_qp *qp, uint64_t now);

/* What rc_qp_tx_data() built, for rc_qp_unsend(). */
struct rc_tx_info {
	uint64_t psn;
	uint32_t frame_bytes;
	bool retrans;
};

/*
 * Build the next data packet (UDP payload, ICRC bytes zero) into
 * buf[0..cap) with send time now; charge the pacer and the RP. Returns its
 * length, or 0 when nothing may go (or cap is too small).
 */
size_t rc_qp_tx_data(struct rc_qp *qp, uint64_t now, uint8_t *buf, size_t cap,
		     struct rc_tx_info *info);
/* The socket refused packets built from info[0] on (n of them, the last
 * ones built): send them again later, as if never sent. */
void rc_qp_unsend(struct rc_qp *qp, const struct rc_tx_info *info, size_t n);

/* A pending ACK or NAK (NAK first) into buf: length, 0 if none. */
size_t rc_qp_take_ack(struct rc_qp *qp, uint8_t *buf, size_t cap);
/* A pending CNP into buf: length, 0 if none. */
size_t rc_qp_take_cnp(struct rc_qp *qp, uint8_t *buf, size_t cap);

/*
 * A packet for this QP (UDP payload p[0..len), ICRC included and already
 * checked, BTH dest QP = lqpn): data (responder), ACK / NAK or CNP
 * (requester). ecn: the IP ECN bits it arrived with (3 = CE).
 */
void rc_qp_rx(struct rc_qp *qp, uint64_t now, const uint8_t *p, size_t len,
	      unsigned int ecn);

/* Fire what is due at now: retransmit timeout, deferred CNP. */
void rc_qp_timers(struct rc_qp *qp, uint64_t now);

/* The earliest time rc_qp_timers() or rc_qp_tx_data() has something to
 * do (> now unless something is due), UINT64_MAX: nothing. */
uint64_t rc_qp_next_ns(const struct rc_qp *qp);

/* No message queued or unacknowledged. */
static inline bool rc_qp_tx_idle(const struct rc_qp *qp)
{
	return qp->msg_head == qp->msg_tail;
}

/* The frame bytes of a data packet of payload n (a UDP payload length). */
static inline uint32_t rc_frame_bytes(size_t udp_len)
{
	return (uint32_t)udp_len + RC_FRAME_OVERHEAD;
}

#endif
