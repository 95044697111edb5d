// SPDX-License-Identifier: BSD-2-Clause
/*
 * pathmon_frame.c - a parsed frame as a departure or an event of the
 * path monitor (pathmon_dep_of(), pathmon_ack_of(); pathmon.h).
 */
#include <string.h>
#include "pathmon.h"
#include "pkt_tcp.h"
#include "roce.h"

/* ---- helpers for the tasks ---- */

static inline uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* RC request opcodes (IBA 9.2): SEND, WRITE (0x00-0x0b), READ request
 * (0x0c), atomics (0x13, 0x14), SEND with invalidate (0x16, 0x17). */
static bool rc_request(uint8_t op)
{
	return op <= 0x0c || op == 0x13 || op == 0x14 || op == 0x16 ||
	       op == 0x17;
}

/* Bytes of an RC request's payload: the UDP length less UDP, BTH, its
 * extension headers, pad and ICRC. */
static uint32_t roce_payload(const uint8_t *frame, uint32_t len,
			     const struct pkt_meta *m)
{
	uint32_t l4 = m->l4_off, ulen, ext = 0, pad;
	uint8_t op = m->bth_opcode;

	if (l4 + 8 + BTH_LEN > len)
		return 0;
	ulen = rd16(frame + l4 + 4);
	pad = (frame[l4 + 8 + 1] >> 4) & 3;
	if (op == 0x06 || op == 0x0a || op == 0x0b)
		ext += ROCE_RETH_LEN;
	if (op == 0x03 || op == 0x05 || op == 0x09 || op == 0x0b ||
	    op == 0x16 || op == 0x17)
		ext += 4; /* ImmDt, IETH */
	ext += 8 + BTH_LEN + ROCE_ICRC_LEN + pad;
	return ulen > ext ? ulen - ext : 0;
}

static bool key_of_ip(const struct pkt_meta *m, bool reverse,
		      struct pathmon_key *k)
{
	memset(k, 0, sizeof(*k));
	if (m->l3 == PKT_L3_IPV4)
		k->family = 4;
	else if (m->l3 == PKT_L3_IPV6)
		k->family = 6;
	else
		return false;
	memcpy(k->src, reverse ? m->dst : m->src, 16);
	memcpy(k->dst, reverse ? m->src : m->dst, 16);
	return !(m->flags & PKT_F_FRAG);
}

bool pathmon_dep_of(const uint8_t *frame, uint32_t len,
		    const struct pkt_meta *m, struct pathmon_key *k,
		    struct pathmon_dep *d)
{
	struct pkt_tcp t;

	memset(d, 0, sizeof(*d));
	if (!key_of_ip(m, false, k))
		return false;
	if (m->flags & PKT_F_BTH) {
		if (!rc_request(m->bth_opcode))
			return false;
		k->proto = PATHMON_P_ROCE;
		k->qpn = m->bth_dqpn & ROCE_QPN_MASK;
		d->seq = d->end = m->bth_psn & PATHMON_PSN_MASK;
		if (m->bth_flags & PKT_BTH_ACKREQ)
			d->flags |= PATHMON_DF_ACKREQ;
		if (m->bth_opcode == 0x0c || m->bth_opcode == 0x13 ||
		    m->bth_opcode == 0x14)
			d->flags |= PATHMON_DF_NOSAMPLE;
		else
			d->bytes = roce_payload(frame, len, m);
		return true;
	}
	if (pkt_tcp_read(frame, len, m, &t) != PKT_TCP_OK)
		return false;
	k->proto = PATHMON_P_TCP;
	k->sport = m->sport;
	k->dport = m->dport;
	d->seq = t.seq;
	d->end = pkt_tcp_end_seq(&t);
	d->bytes = t.payload_len;
	if (t.opts & PKT_TCP_O_TS) {
		d->flags |= PATHMON_DF_TS;
		d->tsval = t.tsval;
	}
	if (t.flags & PKT_TCP_SYN)
		d->flags |= PATHMON_DF_SYN;
	if (t.flags & PKT_TCP_RST)
		d->flags |= PATHMON_DF_RST;
	return true;
}

bool pathmon_ack_of(const uint8_t *frame, uint32_t len,
		    const struct pkt_meta *m, uint64_t now_ns,
		    struct pathmon_ack *ev)
{
	struct pkt_tcp t;

	memset(ev, 0, sizeof(*ev));
	ev->seen_ns = now_ns;
	if (!key_of_ip(m, true, &ev->key))
		return false;
	if (m->flags & PKT_F_BTH) {
		uint32_t l4 = m->l4_off, aeth = l4 + 8 + BTH_LEN;

		ev->key.proto = PATHMON_P_ROCE;
		ev->key.qpn = m->bth_dqpn & ROCE_QPN_MASK;
		if (m->bth_opcode == BTH_OP_CNP) {
			ev->type = PATHMON_EV_CNP;
			return true;
		}
		if (m->bth_opcode != BTH_OP_RC_ACK && m->bth_opcode != 0x12)
			return false;
		/* the AETH: inside the frame and the UDP datagram */
		if (aeth + ROCE_AETH_LEN > len ||
		    rd16(frame + l4 + 4) < 8 + BTH_LEN + ROCE_AETH_LEN)
			return false;
		ev->type = PATHMON_EV_ROCE_ACK;
		ev->syndrome = frame[aeth];
		ev->ack = m->bth_psn & PATHMON_PSN_MASK;
		return true;
	}
	if (pkt_tcp_read(frame, len, m, &t) != PKT_TCP_OK ||
	    !(t.flags & PKT_TCP_ACK) || (t.flags & PKT_TCP_RST))
		return false;
	ev->type = PATHMON_EV_TCP;
	ev->key.proto = PATHMON_P_TCP;
	ev->key.sport = m->dport;
	ev->key.dport = m->sport;
	ev->ack = t.ack;
	if (t.opts & PKT_TCP_O_TS) {
		ev->flags |= PATHMON_AF_TS;
		ev->tsecr = t.tsecr;
	}
	/* on a SYN-ACK, ECE negotiates ECN: it is not a mark */
	if ((t.flags & PKT_TCP_ECE) && !(t.flags & PKT_TCP_SYN))
		ev->flags |= PATHMON_AF_ECE;
	return true;
}
