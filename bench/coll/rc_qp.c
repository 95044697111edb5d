// SPDX-License-Identifier: BSD-2-Clause
/*
 * rc_qp.c - RoCEv2 RC queue pair state machine; see rc_qp.h. Pure: no I/O,
 * no clock, no allocation after rc_qp_init().
 */
#include "rc_qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "roce.h"

#define PSN_HALF (1u << 23)

void rc_cfg_default(struct rc_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->mtu = 1024;
	c->window = 256;
	c->ack_every = 16;
	c->rto_ns = 4000000;
	c->rto_max_shift = 6;
	c->line_bps = 100e9;
	c->burst = 16;
	dcqcn_params_default(&c->dcqcn, DCQCN_PAPER, c->line_bps);
}

void rc_pacer_charge(struct rc_pacer *p, uint64_t now, uint32_t frame_bytes,
		     double bps, uint64_t burst_ns)
{
	uint64_t floor = now > burst_ns ? now - burst_ns : 0;

	if (p->next_ns < floor)
		p->next_ns = floor;
	p->next_ns += (uint64_t)((double)frame_bytes * 8e9 / bps + 0.5);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* The 64-bit PSN nearest to ref whose low 24 bits are psn24. */
static uint64_t psn_unwrap(uint64_t ref, uint32_t psn24)
{
	uint32_t d = (psn24 - (uint32_t)ref) & ROCE_PSN_MASK;

	if (d < PSN_HALF)
		return ref + d;
	d = (uint32_t)(ROCE_PSN_MASK + 1 - d);
	return d > ref ? 0 : ref - d;
}

int rc_qp_init(struct rc_qp *qp, const struct rc_cfg *cfg,
	       const struct rc_ops *ops, void *ctx, uint32_t lqpn,
	       uint32_t rqpn, int peer, uint32_t msg_cap, uint64_t now)
{
	uint32_t cap = 1;

	if (!cfg || cfg->mtu < RC_MIN_MTU || cfg->mtu > RC_MAX_MTU ||
	    !cfg->window || cfg->window >= PSN_HALF || !cfg->rto_ns ||
	    !(cfg->line_bps > 0) || msg_cap == 0 || msg_cap > (1u << 24))
		return -EINVAL;
	while (cap < msg_cap)
		cap <<= 1;
	memset(qp, 0, sizeof(*qp));
	qp->msgs = calloc(cap, sizeof(*qp->msgs));
	if (!qp->msgs)
		return -ENOMEM;
	qp->cfg = cfg;
	qp->ops = ops;
	qp->ctx = ctx;
	qp->lqpn = lqpn & ROCE_QPN_MASK;
	qp->rqpn = rqpn & ROCE_QPN_MASK;
	qp->peer = peer;
	qp->msg_cap = cap;
	qp->rto_at = UINT64_MAX;
	qp->pacer.next_ns = now;
	dcqcn_rp_init(&qp->rp, &cfg->dcqcn, now);
	dcqcn_np_init(&qp->np);
	return 0;
}

void rc_qp_free(struct rc_qp *qp)
{
	free(qp->msgs);
	qp->msgs = NULL;
}

static struct rc_msg *msg_at(const struct rc_qp *qp, uint32_t i)
{
	return &qp->msgs[i & (qp->msg_cap - 1)];
}

int rc_qp_post(struct rc_qp *qp, uint32_t id, const uint8_t *data, uint32_t len)
{
	uint32_t per = qp->cfg->mtu - RC_HDR_LEN;
	struct rc_msg *m;

	if (!len)
		return -EINVAL;
	if (qp->msg_tail - qp->msg_head >= qp->msg_cap)
		return -ENOSPC;
	m = msg_at(qp, qp->msg_tail++);
	m->id = id;
	m->len = len;
	m->data = data;
	m->first_psn = qp->post_psn;
	m->npkts = (len + per - 1) / per;
	qp->post_psn += m->npkts;
	return 0;
}

double rc_qp_rate(struct rc_qp *qp, uint64_t now)
{
	if (!qp->cfg->cc_dcqcn)
		return qp->cfg->line_bps;
	dcqcn_rp_catch_up(&qp->rp, &qp->cfg->dcqcn, now);
	return qp->rp.rc;
}

bool rc_qp_has_tx(const struct rc_qp *qp)
{
	return qp->nxt < qp->post_psn && qp->nxt - qp->una < qp->cfg->window;
}

bool rc_qp_tx_ready(const struct rc_qp *qp, uint64_t now)
{
	return rc_qp_has_tx(qp) && rc_pacer_due(&qp->pacer, now);
}

/* Point cur at the message holding PSN psn (head <= cur <= tail). */
static void seek(struct rc_qp *qp, uint64_t psn)
{
	uint32_t i = qp->msg_head;

	while (i != qp->msg_tail) {
		const struct rc_msg *m = msg_at(qp, i);

		if (psn < m->first_psn + m->npkts)
			break;
		i++;
	}
	qp->cur = i;
}

static void arm_rto(struct rc_qp *qp, uint64_t now)
{
	uint32_t s = qp->rto_shift;

	qp->rto_at = now + (qp->cfg->rto_ns << s);
}

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i);
}

size_t rc_qp_tx_data(struct rc_qp *qp, uint64_t now, uint8_t *buf, size_t cap,
		     struct rc_tx_info *info)
{
	uint32_t per = qp->cfg->mtu - RC_HDR_LEN;
	const struct rc_msg *m;
	uint32_t idx, off, n, flags = BTH_W_MIGREQ;
	uint64_t burst;
	double bps;
	uint8_t op, *p;
	size_t len;

	if (!rc_qp_has_tx(qp))
		return 0;
	if (qp->cur == qp->msg_tail ||
	    qp->nxt < msg_at(qp, qp->cur)->first_psn ||
	    qp->nxt >=
		    msg_at(qp, qp->cur)->first_psn + msg_at(qp, qp->cur)->npkts)
		seek(qp, qp->nxt);
	if (qp->cur == qp->msg_tail)
		return 0; /* cannot happen: nxt < post_psn */
	m = msg_at(qp, qp->cur);
	idx = (uint32_t)(qp->nxt - m->first_psn);
	off = idx * per;
	n = m->len - off < per ? m->len - off : per;
	if (m->npkts == 1)
		op = RC_OP_WRITE_ONLY;
	else if (idx == 0)
		op = RC_OP_WRITE_FIRST;
	else if (idx + 1 == m->npkts)
		op = RC_OP_WRITE_LAST;
	else
		op = RC_OP_WRITE_MIDDLE;
	len = BTH_LEN + RC_HDR_LEN + n + ROCE_ICRC_LEN;
	if (op == RC_OP_WRITE_FIRST || op == RC_OP_WRITE_ONLY)
		len += ROCE_RETH_LEN;
	if (len > cap)
		return 0;
	/* AckReq: the end of a message, every ack_every packets, and at
	 * least every rto / 4, so that a slowly paced QP (DCQCN near R_min,
	 * or one of many sharing the port) hears ACKs before its retransmit
	 * timer runs out */
	if (idx + 1 == m->npkts || ++qp->since_ackreq >= qp->cfg->ack_every ||
	    now - qp->last_ackreq_ns >= qp->cfg->rto_ns / 4) {
		flags |= BTH_W_ACKREQ;
		qp->since_ackreq = 0;
		qp->last_ackreq_ns = now;
	}
	bth_write(buf, op, ROCE_PKEY_DEFAULT, qp->rqpn, (uint32_t)qp->nxt,
		  flags);
	p = buf + BTH_LEN;
	if (op == RC_OP_WRITE_FIRST || op == RC_OP_WRITE_ONLY) {
		put64(p, (uint64_t)m->id << 32); /* VA */
		put32(p + 8, 0); /* R_Key */
		put32(p + 12, m->len); /* DMA length */
		p += ROCE_RETH_LEN;
	}
	put32(p, m->id);
	put32(p + 4, off);
	put64(p + 8, now);
	if (m->data)
		memcpy(p + RC_HDR_LEN, m->data + off, n);
	else
		fill(p + RC_HDR_LEN, n, m->id + off);
	memset(p + RC_HDR_LEN + n, 0, ROCE_ICRC_LEN);

	if (info) {
		info->psn = qp->nxt;
		info->frame_bytes = rc_frame_bytes(len);
		info->retrans = qp->nxt < qp->max_sent;
	}
	if (qp->nxt < qp->max_sent)
		qp->st.retransmitted_packets++;
	qp->st.data_packets_sent++;
	qp->st.data_bytes_sent += rc_frame_bytes(len);
	qp->nxt++;
	if (qp->nxt > qp->max_sent)
		qp->max_sent = qp->nxt;
	if (qp->rto_at == UINT64_MAX)
		arm_rto(qp, now);
	bps = rc_qp_rate(qp, now);
	burst = (uint64_t)((double)qp->cfg->burst *
			   rc_frame_bytes(BTH_LEN + qp->cfg->mtu) * 8e9 / bps);
	rc_pacer_charge(&qp->pacer, now, rc_frame_bytes(len), bps, burst);
	if (qp->cfg->cc_dcqcn)
		dcqcn_rp_on_sent(&qp->rp, &qp->cfg->dcqcn, rc_frame_bytes(len),
				 now);
	return len;
}

void rc_qp_unsend(struct rc_qp *qp, const struct rc_tx_info *info, size_t n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		qp->st.data_packets_sent--;
		qp->st.data_bytes_sent -= info[i].frame_bytes;
		if (info[i].retrans)
			qp->st.retransmitted_packets--;
		else if (qp->max_sent > info[i].psn)
			qp->max_sent = info[i].psn;
	}
	if (info[0].psn < qp->nxt && info[0].psn >= qp->una)
		qp->nxt = info[0].psn;
	if (qp->max_sent < qp->nxt)
		qp->max_sent = qp->nxt;
	if (qp->una == qp->max_sent)
		qp->rto_at = UINT64_MAX;
}

static size_t build_aeth(uint8_t *buf, size_t cap, uint32_t dqpn, uint32_t psn,
			 uint8_t syndrome, uint32_t msn)
{
	if (cap < RC_CTRL_LEN)
		return 0;
	bth_write(buf, RC_OP_ACK, ROCE_PKEY_DEFAULT, dqpn, psn, 0);
	put32(buf + BTH_LEN, (uint32_t)syndrome << 24 | (msn & 0xffffff));
	memset(buf + BTH_LEN + ROCE_AETH_LEN, 0, ROCE_ICRC_LEN);
	return RC_CTRL_LEN;
}

size_t rc_qp_take_ack(struct rc_qp *qp, uint8_t *buf, size_t cap)
{
	size_t n;

	if (qp->nak_pending) {
		n = build_aeth(buf, cap, qp->rqpn, (uint32_t)qp->epsn,
			       RC_AETH_NAK_PSN_SEQ, qp->msn);
		if (n) {
			qp->nak_pending = false;
			qp->ack_pending = false;
			qp->since_ack = 0;
			qp->st.naks_sent++;
		}
		return n;
	}
	if (!qp->ack_pending || !qp->epsn)
		return 0;
	n = build_aeth(buf, cap, qp->rqpn, (uint32_t)(qp->epsn - 1),
		       RC_AETH_ACK, qp->msn);
	if (n) {
		qp->ack_pending = false;
		qp->since_ack = 0;
		qp->st.acks_sent++;
	}
	return n;
}

size_t rc_qp_take_cnp(struct rc_qp *qp, uint8_t *buf, size_t cap)
{
	if (!qp->cnp_pending || cap < RC_CNP_LEN)
		return 0;
	bth_write(buf, RC_OP_CNP, ROCE_PKEY_DEFAULT, qp->rqpn, 0, BTH_W_BECN);
	memset(buf + BTH_LEN, 0, ROCE_CNP_PAD_LEN + ROCE_ICRC_LEN);
	qp->cnp_pending = false;
	qp->st.cnps_sent++;
	return RC_CNP_LEN;
}

/* Requester: everything before psn (64-bit) is acknowledged. */
static void acked_to(struct rc_qp *qp, uint64_t psn, uint64_t now)
{
	if (psn <= qp->una)
		return;
	if (psn > qp->max_sent)
		psn = qp->max_sent; /* an ACK for what we never sent */
	qp->una = psn;
	if (qp->nxt < psn)
		qp->nxt = psn;
	while (qp->msg_head != qp->msg_tail) {
		const struct rc_msg *m = msg_at(qp, qp->msg_head);

		if (m->first_psn + m->npkts > psn)
			break;
		qp->msg_head++;
		qp->st.msgs_sent_done++;
		if (qp->ops && qp->ops->send_done)
			qp->ops->send_done(qp->ctx, qp, m->id, now);
	}
	if ((int32_t)(qp->cur - qp->msg_head) < 0)
		qp->cur = qp->msg_head;
	qp->rto_shift = 0;
	if (qp->una < qp->max_sent)
		arm_rto(qp, now);
	else
		qp->rto_at = UINT64_MAX;
}

static void rx_ack(struct rc_qp *qp, uint64_t now, const uint8_t *p, size_t len)
{
	uint32_t aeth;
	uint64_t psn;

	if (len < BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN) {
		qp->st.malformed++;
		return;
	}
	aeth = get32(p + BTH_LEN);
	psn = psn_unwrap(qp->una, bth_psn(p));
	if ((aeth >> 24) == RC_AETH_NAK_PSN_SEQ) {
		qp->st.naks_received++;
		/* everything before the expected PSN arrived */
		acked_to(qp, psn, now);
		if (psn >= qp->una && psn < qp->nxt)
			qp->nxt = psn; /* go back N */
		return;
	}
	if ((aeth >> 29) != 0) { /* another NAK or RNR: not ours to handle */
		qp->st.malformed++;
		return;
	}
	qp->st.acks_received++;
	acked_to(qp, psn + 1, now);
}

static bool is_data_op(uint8_t op)
{
	return op >= RC_OP_WRITE_FIRST && op <= RC_OP_WRITE_ONLY && op != 0x09;
}

/* Responder: an in-order data packet. False (not accepted) if malformed. */
static bool accept_data(struct rc_qp *qp, uint64_t now, const uint8_t *p,
			size_t len)
{
	uint8_t op = bth_opcode(p);
	bool first = op == RC_OP_WRITE_FIRST || op == RC_OP_WRITE_ONLY;
	bool last = op == RC_OP_WRITE_LAST || op == RC_OP_WRITE_ONLY;
	size_t hl = BTH_LEN + (first ? ROCE_RETH_LEN : 0);
	uint32_t id, off, n;

	if (len < hl + RC_HDR_LEN + ROCE_ICRC_LEN || first == qp->in_msg)
		return false;
	id = get32(p + hl);
	off = get32(p + hl + 4);
	n = (uint32_t)(len - hl - RC_HDR_LEN - ROCE_ICRC_LEN);
	if (first ? off != 0 : id != qp->rx_msg_id || off != qp->rx_off)
		return false;
	if (!last && n != qp->cfg->mtu - RC_HDR_LEN)
		return false;
	qp->rx_msg_id = id;
	qp->rx_off = off + n;
	qp->in_msg = !last;
	if (qp->ops && qp->ops->data && n)
		qp->ops->data(qp->ctx, qp, id, off, p + hl + RC_HDR_LEN, n);
	if (last) {
		qp->msn++;
		qp->st.msgs_received++;
		if (qp->ops && qp->ops->msg_done)
			qp->ops->msg_done(qp->ctx, qp, id, off + n, now);
	}
	return true;
}

static void rx_data(struct rc_qp *qp, uint64_t now, const uint8_t *p,
		    size_t len, unsigned int ecn)
{
	uint64_t psn = psn_unwrap(qp->epsn, bth_psn(p));
	bool first = bth_opcode(p) == RC_OP_WRITE_FIRST ||
		     bth_opcode(p) == RC_OP_WRITE_ONLY;
	size_t hl = BTH_LEN + (first ? ROCE_RETH_LEN : 0);

	qp->st.data_packets_received++;
	qp->st.data_bytes_received += rc_frame_bytes(len);
	if (len >= hl + RC_HDR_LEN + ROCE_ICRC_LEN && qp->ops &&
	    qp->ops->latency) {
		uint64_t ts = get64(p + hl + 8);

		qp->ops->latency(qp->ctx, qp, now > ts ? now - ts : 0);
	}
	if (ecn == 3) {
		qp->st.ce_seen++;
		if (dcqcn_np_on_marked(&qp->np, &qp->cfg->dcqcn, now))
			qp->cnp_pending = true;
	}
	if (psn < qp->epsn) { /* duplicate: re-ACK */
		qp->st.dup_received++;
		qp->ack_pending = true;
		return;
	}
	if (psn > qp->epsn) { /* a gap: one NAK, then drop until it fills */
		qp->st.ooo_dropped++;
		if (!qp->nak_sent) {
			qp->nak_sent = true;
			qp->nak_pending = true;
			qp->st.loss_events++;
		}
		return;
	}
	if (!accept_data(qp, now, p, len)) {
		qp->st.malformed++; /* dropped: the sender will resend it */
		return;
	}
	qp->epsn++;
	qp->nak_sent = false;
	if (++qp->since_ack >= qp->cfg->ack_every || bth_ackreq(p))
		qp->ack_pending = true;
}

void rc_qp_rx(struct rc_qp *qp, uint64_t now, const uint8_t *p, size_t len,
	      unsigned int ecn)
{
	uint8_t op;

	if (len < BTH_LEN + ROCE_ICRC_LEN) {
		qp->st.malformed++;
		return;
	}
	op = bth_opcode(p);
	if (is_data_op(op)) {
		rx_data(qp, now, p, len, ecn);
	} else if (op == RC_OP_ACK) {
		rx_ack(qp, now, p, len);
	} else if (op == RC_OP_CNP) {
		qp->st.cnps_received++;
		if (qp->cfg->cc_dcqcn)
			dcqcn_rp_on_cnp(&qp->rp, &qp->cfg->dcqcn, now);
	} else {
		qp->st.malformed++;
	}
}

void rc_qp_timers(struct rc_qp *qp, uint64_t now)
{
	if (qp->rto_at <= now) {
		if (qp->una < qp->max_sent) {
			qp->st.timeouts++;
			qp->nxt = qp->una;
			if (qp->rto_shift < qp->cfg->rto_max_shift)
				qp->rto_shift++;
			arm_rto(qp, now);
		} else {
			qp->rto_at = UINT64_MAX;
		}
	}
	if (dcqcn_np_poll(&qp->np, &qp->cfg->dcqcn, now))
		qp->cnp_pending = true;
}

uint64_t rc_qp_next_ns(const struct rc_qp *qp)
{
	uint64_t t = qp->rto_at, np = dcqcn_np_next_ns(&qp->np);

	if (np < t)
		t = np;
	if (rc_qp_has_tx(qp) && qp->pacer.next_ns < t)
		t = qp->pacer.next_ns;
	return t;
}
