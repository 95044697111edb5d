// SPDX-License-Identifier: BSD-2-Clause
/*
 * egress_pfc.c - PFC in an egress task (egress.h "PFC", pfc.h): the
 * policy's lossless priorities, the pauses the peer asks for applied to
 * the scheduler (with the watchdog's flush), the XOFF/XON frames for the
 * peer built and handed to the other port's task, and the control frames
 * that task hands here put onto the TX ring. The worker thread that runs
 * the task; egress_task_set_pfc() also at set-up, egress_task_set_pfc_mac()
 * only then.
 */
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "egress_int.h"

void egress_task_set_pfc(struct egress_task *t, const struct qos_policy *pol)
{
	const struct qos_port *me = &pol->port[t->port],
			      *other = &pol->port[1 - t->port];
	struct pfc_rx_cfg rc = {
		.link_bps = me->link_bps ? me->link_bps : me->rate_bps,
		.watchdog_ns = pol->pfc.watchdog_ns,
		.restore_ns = pol->pfc.restore_ns,
	};
	uint64_t other_bps =
		other->link_bps ? other->link_bps : other->rate_bps;
	uint16_t quanta = pol->pfc.quanta ? pol->pfc.quanta : PFC_MAX_QUANTA;
	struct sched *s = &t->sched;
	uint8_t pcps = 0, was = t->pfc_tx_pcps | t->pfc_tx_release;

	t->pfc_on = pol->pfc.enabled;
	pfc_rx_set_cfg(&t->pfc_rx, &rc);
	/* slots may have moved: the pauses again */
	for (unsigned int p = 0; p < PFC_PRIOS; p++) {
		sched_pause_pcp(s, p, pfc_rx_until(&t->pfc_rx, p));
		t->pfc_tx_slots[p] = 0;
		t->pfc_txc[p] = (struct pfc_tx_cfg){0};
	}
	for (uint32_t i = 0; i < s->n_slots && t->pfc_on; i++) {
		const struct qos_class *qc = &pol->classes[s->cl[i].id];
		unsigned int p = qc->pcp & 7;

		if (!qc->lossless || !qc->has_pcp)
			continue;
		pcps |= (uint8_t)(1u << p);
		t->pfc_tx_slots[p] |= 1u << i;
		t->pfc_txc[p].xoff += qc->pfc_xoff[t->port];
		t->pfc_txc[p].xon += qc->pfc_xon[t->port];
	}
	for (unsigned int p = 0; p < PFC_PRIOS; p++) {
		struct pfc_tx_cfg *c = &t->pfc_txc[p];

		if (pcps >> p & 1) {
			c->quanta = quanta;
			c->refresh_ns = pfc_refresh_ns(quanta, other_bps);
			/* a priority new to PFC starts afresh; one that
			 * stays keeps its XOFF/XON state */
			if (!(was >> p & 1))
				t->pfc_tx[p] = (struct pfc_tx){0};
		} else if (t->pfc_tx[p].xoff) {
			/* it leaves PFC while its sender is paused: XON owed
			 * (egress_pfc_pass), else the sender waits for the pause to
			 * run out */
			t->pfc_tx_release |= (uint8_t)(1u << p);
			continue;
		}
		t->pfc_tx_release &= (uint8_t) ~(1u << p);
	}
	t->pfc_tx_pcps = pcps;
}

int egress_task_set_pfc_mac(struct egress_task *t, int ifindex)
{
	struct ifreq ifr = {0};
	int fd, err = 0;

	if (!if_indextoname((unsigned int)ifindex, ifr.ifr_name))
		return -errno;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		err = -errno;
	else
		memcpy(t->pfc_mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return err;
}

void egress_pfc_tx_ctrl(struct egress_task *t, const struct frame_desc *d)
{
	struct xdp_desc *txd;
	uint32_t idx;

	if (unlikely(xsk_ring_prod__reserve(&t->xq->tx, 1, &idx) != 1)) {
		ctr_add(&t->pfc.ctrl_ring_full, 1);
		give_back_desc(t, d);
		return;
	}
	txd = xsk_ring_prod__tx_desc(&t->xq->tx, idx);
	txd->addr = d->addr;
	txd->len = d->len;
	txd->options = 0;
	xsk_ring_prod__submit(&t->xq->tx, 1);
	t->outstanding++;
	ctr_add(&t->pfc.ctrl_sent, 1);
}

/* Apply the deadlines of the priorities in `changed` to the scheduler,
 * and flush those the watchdog declared storms. */
static void give_back_cb(const struct frame_desc *d, void *arg)
{
	give_back_desc(arg, d);
}

static void pfc_apply(struct egress_task *t, uint8_t changed, uint8_t storms,
		      uint64_t now)
{
	for (unsigned int m = changed; m; m &= m - 1) {
		unsigned int p = (unsigned int)__builtin_ctz(m);

		sched_pause_pcp(&t->sched, p, pfc_rx_until(&t->pfc_rx, p));
	}
	for (unsigned int m = storms; m; m &= m - 1) {
		unsigned int p = (unsigned int)__builtin_ctz(m);
		uint32_t n =
			sched_flush_pcp(&t->sched, p, now, give_back_cb, t);

		ctr_add(&t->pfc.watchdog_drops[p], n);
		log_warn("PFC watchdog: priority %u on egress port %d paused "
			 "for %llu ms: storm, %u frames dropped, PFC ignored "
			 "for %llu ms",
			 p, t->port,
			 (unsigned long long)(t->pfc_rx.cfg.watchdog_ns /
					      1000000),
			 n,
			 (unsigned long long)(t->pfc_rx.cfg.restore_ns /
					      1000000));
	}
}

void egress_pfc_event(struct egress_task *t, const struct fb_event *ev,
		      uint64_t now)
{
	struct pfc_frame f = {.vector = ev->class_id};
	uint8_t changed, storms = 0;

	if (!t->pfc_on)
		return;
	memcpy(f.quanta, ev->src, sizeof(f.quanta));
	changed = pfc_rx_frame(&t->pfc_rx, &f, now, &storms);
	pfc_apply(t, changed, storms, now);
}

/* Build a PFC frame for priority pcp (quanta 0: XON) and hand it to the
 * other port's egress task. Returns true when it is on its way. */
static bool send_pfc(struct egress_task *t, unsigned int pcp, uint16_t quanta)
{
	uint16_t q[PFC_PRIOS] = {0};
	struct frame_desc d;

	if (!np_take(t, &d))
		return false;
	q[pcp] = quanta;
	d.len = (uint32_t)pfc_build((uint8_t *)t->umem->base + d.addr,
				    t->umem->frame_size, t->pfc_mac,
				    (uint8_t)(1u << pcp), q);
	d.meta = FRAME_META_CTRL;
	if (unlikely(!d.len)) { /* cannot happen: a frame holds 64 bytes */
		frame_pool_put(t->np_pool, d.addr);
		return false;
	}
	return np_send(t, &d);
}

/* Bytes queued in the lossless classes of priority pcp. */
static uint64_t pfc_queued(const struct egress_task *t, unsigned int pcp)
{
	uint64_t bytes = 0;

	for (uint32_t m = t->pfc_tx_slots[pcp]; m; m &= m - 1)
		bytes += t->sched.cl[__builtin_ctz(m)].bytes;
	return bytes;
}

void egress_pfc_pass(struct egress_task *t, uint64_t now)
{
	if (t->pfc_rx.paused) {
		uint8_t storms = 0,
			ended = pfc_rx_tick(&t->pfc_rx, now, &storms);

		if (unlikely(ended))
			pfc_apply(t, ended, storms, now);
	}
	for (unsigned int m = t->pfc_tx_pcps; m; m &= m - 1) {
		unsigned int pcp = (unsigned int)__builtin_ctz(m);
		const struct pfc_tx_cfg *c = &t->pfc_txc[pcp];
		enum pfc_tx_action a = pfc_tx_decide(&t->pfc_tx[pcp], c,
						     pfc_queued(t, pcp), now);

		if (likely(a == PFC_TX_NONE))
			continue;
		if (!send_pfc(t, pcp, a == PFC_TX_XOFF ? c->quanta : 0)) {
			ctr_add(&t->pfc.tx_no_frame, 1);
			continue;
		}
		pfc_tx_commit(&t->pfc_tx[pcp], c, a, now);
		ctr_add(a == PFC_TX_XOFF ? &t->pfc.tx_xoff[pcp]
					 : &t->pfc.tx_xon[pcp],
			1);
	}
	for (unsigned int m = t->pfc_tx_release; m; m &= m - 1) {
		unsigned int pcp = (unsigned int)__builtin_ctz(m);

		if (!send_pfc(t, pcp, 0)) {
			ctr_add(&t->pfc.tx_no_frame, 1);
			continue;
		}
		t->pfc_tx[pcp] = (struct pfc_tx){0};
		t->pfc_tx_release &= (uint8_t) ~(1u << pcp);
		ctr_add(&t->pfc.tx_xon[pcp], 1);
	}
}
