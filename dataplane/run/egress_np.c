// SPDX-License-Identifier: BSD-2-Clause
/*
 * egress_np.c - the DCQCN notification point of an egress task
 * (egress.h): the CNPs its flows made due, built and handed to the other
 * port's egress task unclassified, and the classification of the frames
 * the other port's task built for this one. The worker thread of the
 * task only.
 */
#include <string.h>
#include "egress_int.h"
#include "roce.h"

bool egress_np_classify(struct egress_task *t, struct frame_desc *d)
{
	const uint8_t *frame = (const uint8_t *)t->umem->base + d->addr;
	struct pkt_meta m;

	if (unlikely(pkt_parse(frame, d->len, &m))) {
		ctr_add(&t->ctr.np_build_failed, 1);
		return false;
	}
	d->meta = frame_meta_pack(classify(t->cls, &m), m.ecn, m.l3, m.l3_off) |
		  frame_meta_l4_of(&m);
	return true;
}

/* Build the CNP flow f is due and hand it to the other port, unclassified
 * (the task there classifies it under its own generation). True when it is
 * on its way; every failure is counted by reason. */
static bool send_cnp(struct egress_task *t, const struct flowq_flow *f)
{
	struct frame_desc d;
	struct cnp_spec sp;

	if (!np_take(t, &d)) {
		ctr_add(&t->ctr.np_no_frame, 1);
		return false;
	}
	roce_cnp_spec_default(&sp);
	memcpy(sp.dst_mac, f->peer.sender_mac, 6);
	memcpy(sp.src_mac, f->peer.receiver_mac, 6);
	sp.vlan = f->peer.vid != 0xffff;
	sp.vid = sp.vlan ? f->peer.vid : 0;
	sp.pcp = t->dcq->np_pcp;
	sp.family = f->key.family;
	memcpy(sp.src_ip, f->key.addr, 16);
	memcpy(sp.dst_ip, f->peer.sender_ip, 16);
	sp.dscp = t->dcq->np_dscp;
	sp.ip_id = t->np_ip_id++;
	sp.udp_sport = f->peer.udp_sport;
	sp.dest_qpn = f->peer.sender_qpn;
	d.len = (uint32_t)roce_build_cnp((uint8_t *)t->umem->base + d.addr,
					 t->umem->frame_size, &sp);
	d.meta = FRAME_META_UNCLASSIFIED;
	if (unlikely(!d.len)) {
		ctr_add(&t->ctr.np_build_failed, 1);
		frame_pool_put(t->np_pool, d.addr);
		return false;
	}
	if (!np_send(t, &d)) {
		ctr_add(&t->ctr.np_out_full, 1);
		return false;
	}
	ctr_add(&t->ctr.np_cnps, 1);
	return true;
}

void egress_np_send_due(struct egress_task *t)
{
	struct sched *s = &t->sched;

	for (uint32_t m = s->fq_mask; m; m &= m - 1) {
		struct flowq *q = s->cl[__builtin_ctz(m)].fq;

		for (uint32_t i = 0; i < q->n_np_due; i++) {
			struct flowq_flow *f = &q->flows[q->np_due[i]];

			if (send_cnp(t, f))
				ctr_add(&f->cnps_sent, 1);
		}
		q->n_np_due = 0;
	}
}
