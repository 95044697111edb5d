// SPDX-License-Identifier: BSD-2-Clause
/*
 * rc_host.c - the RDMA NIC of one emulated host; see rc_host.h.
 */
#include "rc_host.h"

#include <errno.h>
#include <string.h>
#include "roce.h"

/* The QPs report to the host, which records latencies and passes the rest
 * on to the owner's ops. */
static void on_data(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t off,
		    const uint8_t *p, uint32_t n)
{
	struct rc_host *h = ctx;

	if (h->user_ops && h->user_ops->data)
		h->user_ops->data(h->user_ctx, qp, id, off, p, n);
}

static void on_msg_done(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t len,
			uint64_t now)
{
	struct rc_host *h = ctx;

	if (h->user_ops && h->user_ops->msg_done)
		h->user_ops->msg_done(h->user_ctx, qp, id, len, now);
}

static void on_send_done(void *ctx, struct rc_qp *qp, uint32_t id, uint64_t now)
{
	struct rc_host *h = ctx;

	if (h->user_ops && h->user_ops->send_done)
		h->user_ops->send_done(h->user_ctx, qp, id, now);
}

static void on_latency(void *ctx, struct rc_qp *qp, uint64_t ns)
{
	struct rc_host *h = ctx;

	lat_hist_add(&h->lat, ns);
}

static const struct rc_ops host_ops = {
	.data = on_data,
	.msg_done = on_msg_done,
	.send_done = on_send_done,
	.latency = on_latency,
};

int rc_host_init(struct rc_host *h, const struct rc_cfg *cfg, int rank,
		 int nranks, uint32_t msg_cap, const struct rc_ops *ops,
		 void *ctx, uint64_t now)
{
	int err;

	if (nranks < 1 || nranks > RC_MAX_RANKS || rank < 0 || rank >= nranks)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->rank = rank;
	h->nranks = nranks;
	h->cfg = *cfg;
	h->user_ops = ops;
	h->user_ctx = ctx;
	h->port.next_ns = now;
	lat_hist_init(&h->lat);
	for (int r = 0; r < nranks; r++) {
		if (r == rank)
			continue;
		err = rc_qp_init(&h->qp[r], &h->cfg, &host_ops, h,
				 rc_qpn(rank, r), rc_qpn(r, rank), r, msg_cap,
				 now);
		if (err) {
			rc_host_free(h);
			return err;
		}
	}
	return 0;
}

void rc_host_free(struct rc_host *h)
{
	for (int r = 0; r < RC_MAX_RANKS; r++)
		rc_qp_free(&h->qp[r]);
}

static bool peer_ok(const struct rc_host *h, int peer)
{
	return peer >= 0 && peer < h->nranks && peer != h->rank;
}

int rc_host_post(struct rc_host *h, int peer, uint32_t id, const uint8_t *data,
		 uint32_t len)
{
	if (!peer_ok(h, peer))
		return -EINVAL;
	return rc_qp_post(&h->qp[peer], id, data, len);
}

void rc_host_rx(struct rc_host *h, uint64_t now, const uint8_t *p, size_t len,
		unsigned int ecn)
{
	uint32_t dqpn, local, remote;

	if (len < BTH_LEN + ROCE_ICRC_LEN) {
		h->malformed++;
		return;
	}
	dqpn = bth_dqpn(p);
	local = (dqpn - RC_QPN_BASE) / 16;
	remote = (dqpn - RC_QPN_BASE) % 16;
	if (dqpn < RC_QPN_BASE || local != (uint32_t)h->rank ||
	    !peer_ok(h, (int)remote)) {
		h->unknown_qp++;
		return;
	}
	rc_qp_rx(&h->qp[remote], now, p, len, ecn);
}

void rc_host_timers(struct rc_host *h, uint64_t now)
{
	for (int r = 0; r < h->nranks; r++)
		if (r != h->rank)
			rc_qp_timers(&h->qp[r], now);
}

static uint64_t port_burst_ns(const struct rc_host *h)
{
	return (uint64_t)((double)h->cfg.burst *
			  rc_frame_bytes(BTH_LEN + h->cfg.mtu) * 8e9 /
			  h->cfg.line_bps);
}

int rc_host_tx_burst(struct rc_host *h, uint64_t now, uint8_t *const *bufs,
		     size_t cap, size_t *lens, struct rc_tx_info *info, int max,
		     int *peer)
{
	if (!rc_pacer_due(&h->port, now))
		return 0;
	for (int k = 0; k < h->nranks; k++) {
		int r = (h->rr + k) % h->nranks;
		struct rc_qp *qp = &h->qp[r];
		int n = 0;

		if (r == h->rank || (h->tx_blocked & 1u << r) ||
		    !rc_qp_tx_ready(qp, now))
			continue;
		while (n < max && rc_pacer_due(&h->port, now) &&
		       rc_qp_tx_ready(qp, now)) {
			size_t len =
				rc_qp_tx_data(qp, now, bufs[n], cap, &info[n]);

			if (!len)
				break;
			lens[n] = len;
			rc_pacer_charge(&h->port, now, rc_frame_bytes(len),
					h->cfg.line_bps, port_burst_ns(h));
			n++;
		}
		if (n) {
			h->rr = (r + 1) % h->nranks;
			*peer = r;
			return n;
		}
	}
	return 0;
}

void rc_host_unsend(struct rc_host *h, int peer, const struct rc_tx_info *info,
		    int n)
{
	uint64_t back = 0;

	if (!peer_ok(h, peer) || n <= 0)
		return;
	rc_qp_unsend(&h->qp[peer], info, (size_t)n);
	for (int i = 0; i < n; i++)
		back += (uint64_t)((double)info[i].frame_bytes * 8e9 /
					   h->cfg.line_bps +
				   0.5);
	h->port.next_ns = h->port.next_ns > back ? h->port.next_ns - back : 0;
}

uint64_t rc_host_next_timer_ns(const struct rc_host *h)
{
	uint64_t t = UINT64_MAX;

	for (int r = 0; r < h->nranks; r++) {
		const struct rc_qp *qp = &h->qp[r];
		uint64_t np = dcqcn_np_next_ns(&qp->np);

		if (r == h->rank)
			continue;
		if (qp->rto_at < t)
			t = qp->rto_at;
		if (np < t)
			t = np;
	}
	return t;
}

uint64_t rc_host_next_ns(const struct rc_host *h)
{
	uint64_t a = rc_host_next_timer_ns(h), b = rc_host_next_tx_ns(h);

	return a < b ? a : b;
}

uint64_t rc_host_next_tx_ns(const struct rc_host *h)
{
	uint64_t t = UINT64_MAX;

	for (int r = 0; r < h->nranks; r++) {
		const struct rc_qp *qp = &h->qp[r];

		if (r != h->rank && !(h->tx_blocked & 1u << r) &&
		    rc_qp_has_tx(qp) && qp->pacer.next_ns < t)
			t = qp->pacer.next_ns;
	}
	if (t != UINT64_MAX && h->port.next_ns > t)
		t = h->port.next_ns;
	return t;
}

void rc_host_stats(const struct rc_host *h, struct rc_qp_stats *sum)
{
	uint64_t *s = (uint64_t *)sum;

	memset(sum, 0, sizeof(*sum));
	for (int r = 0; r < h->nranks; r++) {
		const uint64_t *q = (const uint64_t *)&h->qp[r].st;

		if (r == h->rank)
			continue;
		for (size_t i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
			s[i] += q[i];
	}
}

bool rc_host_tx_idle(const struct rc_host *h)
{
	for (int r = 0; r < h->nranks; r++)
		if (r != h->rank && !rc_qp_tx_idle(&h->qp[r]))
			return false;
	return true;
}
