// SPDX-License-Identifier: BSD-2-Clause
/*
 * gateway.c - see gateway.h. The flow queue, its gate, its vqueue and the
 * RED decision are the gateway's own code (flowq.c, ecn.h); what is
 * modelled here is only what surrounds them in the dataplane: the
 * worker's looks and stops, the port, and mark_flow_frame().
 */
#include "gateway.h"
#include "frame_meta.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HDR 64 /* the header bytes of a frame the flowq reads */
#define GAP_SEED 0x9e3779b97f4a7c15ull
#define RED_SEED 0xd1b54a32d192ed03ull
#define SENDER_QPN 0x200u
#define RECEIVER_QPN 0x100u

/* Flow i's destination, 10.0.<i / 256>.<i % 256 + 1>. */
static void dst_of(uint32_t flow, uint8_t *addr)
{
	addr[0] = 10;
	addr[1] = 0;
	addr[2] = (uint8_t)(flow >> 8);
	addr[3] = (uint8_t)(flow + 1);
}

/* An Ethernet/IPv4/UDP 4791/BTH header of flow's frame with psn, ECT(0);
 * *meta as the RX parser sets it. */
static void make_hdr(uint8_t *f, uint32_t flow, uint32_t psn, uint32_t *meta)
{
	uint32_t qpn = RECEIVER_QPN + flow;

	memset(f, 0, HDR);
	memcpy(f, "\x02\x00\x00\x00\x00\x0b\x02\x00\x00\x00\x00\x0a", 12);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = ECN_ECT0;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x00\xff\x01", 4);
	dst_of(flow, f + 30);
	f[34] = 0xc0;
	f[36] = 0x12;
	f[37] = 0xb7; /* 4791 */
	f[42] = 0x0a; /* RDMA WRITE ONLY */
	f[47] = (uint8_t)(qpn >> 16);
	f[48] = (uint8_t)(qpn >> 8);
	f[49] = (uint8_t)qpn;
	f[51] = (uint8_t)(psn >> 16);
	f[52] = (uint8_t)(psn >> 8);
	f[53] = (uint8_t)psn;
	*meta = frame_meta_pack(0, ECN_ECT0, ECN_L3_IPV4, 14) |
		frame_meta_l4(14, 34, true, false);
}

/* Exponential with mean m ns, at least 1 ns. */
static uint64_t exp_ns(uint64_t *rng, uint64_t m)
{
	double u = ((double)(ecn_rng_next(rng) >> 11) + 1.0) * 0x1p-53;
	double v = -log(u) * (double)m;

	return v < 1 ? 1 : (uint64_t)llround(v);
}

/* The stop after the one that ends at `after` (the first: after = 0). */
static void next_gap(struct gw *g, uint64_t after)
{
	const struct scn_gateway *c = g->cfg;

	g->gap_start = g->gap_end = UINT64_MAX;
	if (!c->gap_ns)
		return;
	if (c->gap_mean_ns) {
		g->gap_start = after + exp_ns(&g->gap_rng, c->gap_mean_ns);
	} else {
		if (g->next_gap == c->n_gaps)
			return;
		g->gap_start = c->gap_at[g->next_gap++];
	}
	g->gap_end = g->gap_start + c->gap_ns;
}

int gw_init(struct gw *g, const struct scenario *sc, uint64_t seed)
{
	const struct scn_gateway *c = &sc->gateway;
	struct qos_dcqcn dc = {
		.par = sc->params,
		.key = QOS_FLOW_QP,
		.max_flows = sc->n_flows,
		.flow_idle_ns = UINT64_MAX / 4,
		.cnp_action = QOS_CNP_FORWARD,
		.cp_loop = false,
		.np = true,
	};
	uint64_t cap = c->buffer_bytes / sc->packet_bytes + 1;
	int rc;

	memset(g, 0, sizeof(*g));
	g->cfg = c;
	g->n_flows = sc->n_flows;
	g->port_ns_per_byte = 8e9 / c->port_bps;
	rc = ecn_red_init(&g->red, &c->ecn);
	if (rc)
		return rc;
	ecn_rng_seed(&g->rng, seed ^ RED_SEED);
	ecn_rng_seed(&g->gap_rng, seed ^ GAP_SEED);
	g->flow_of = calloc(sc->n_flows, sizeof(*g->flow_of));
	g->psn = calloc(sc->n_flows, sizeof(*g->psn));
	if (!g->flow_of || !g->psn) {
		gw_free(g);
		return -ENOMEM;
	}
	rc = flowq_init(&g->q, (uint32_t)cap, &dc, sc->params.line_bps, seed,
			0);
	if (rc) {
		gw_free(g);
		return rc;
	}
	g->sum.enabled = true;
	g->sum.rc_min = sc->params.line_bps;
	next_gap(g, 0);
	return 0;
}

void gw_free(struct gw *g)
{
	if (g->q.flows)
		flowq_fini(&g->q);
	free(g->flow_of);
	free(g->psn);
	g->flow_of = g->psn = NULL;
}

bool gw_arrive(struct gw *g, uint32_t flow, uint32_t bytes, uint64_t now_ns)
{
	uint8_t hdr[HDR];
	struct frame_desc d = {.addr = flow, .len = bytes};
	struct flowq_key k;
	uint8_t dst[4];
	uint32_t fid;

	if (g->bytes + bytes > g->cfg->buffer_bytes) {
		g->sum.drops++;
		return false;
	}
	make_hdr(hdr, flow, g->psn[flow], &d.meta);
	flowq_key_of(hdr, HDR, d.meta, QOS_FLOW_QP, &k);
	fid = flowq_push(&g->q, &k, &d, hdr, now_ns);
	if (fid == FLOWQ_NONE) { /* cannot happen: a slot per flow */
		g->sum.drops++;
		return false;
	}
	g->flow_of[fid] = flow;
	if (!g->q.flows[fid].peer.qpn_known) { /* the flow's first ACK */
		dst_of(flow, dst);
		flowq_ack(&g->q, 4, dst, SENDER_QPN + flow, g->psn[flow]);
	}
	g->psn[flow] = (g->psn[flow] + 1) & 0xffffffu;
	g->bytes += bytes;
	if (g->bytes > g->sum.queue_max)
		g->sum.queue_max = g->bytes;
	return true;
}

/* tc_sched.c mark_flow_frame(): the NP answers, or the frame leaves CE. */
static bool mark_frame(struct gw *g, uint32_t fid, struct frame_desc *d,
		       uint64_t now_ns)
{
	unsigned int ecn = frame_meta_ecn(d->meta);

	if (ecn != ECN_ECT0 && ecn != ECN_ECT1)
		return false;
	g->sum.marks++;
	if (!flowq_np_covers(&g->q, fid)) {
		d->meta = frame_meta_set_ecn(d->meta, ECN_CE);
		g->sum.ce++;
	}
	flowq_marked(&g->q, fid, now_ns);
	return frame_meta_ecn(d->meta) == ECN_CE;
}

static void np_send(struct gw *g, uint64_t now_ns, const struct gw_ops *ops)
{
	for (uint32_t i = 0; i < g->q.n_np_due; i++) {
		g->sum.np_cnps++;
		ops->cnp(ops->ctx, g->flow_of[g->q.np_due[i]], now_ns);
	}
	g->q.n_np_due = 0;
}

/* The worker is stopped at now (now >= gap_start): the look is at the
 * stop's end. Stops that ended between two looks are counted too. */
static uint64_t stopped(struct gw *g, uint64_t now_ns)
{
	uint64_t resume = g->gap_end;

	if (!g->draining) { /* else the stop before has not drained yet */
		g->draining = true;
		g->drain_level = g->last_level;
	}
	g->drain_from = g->gap_end;
	g->sum.gaps++;
	g->sum.gap_ns += g->cfg->gap_ns;
	next_gap(g, g->gap_end);
	return resume > now_ns ? resume : now_ns;
}

uint64_t gw_poll(struct gw *g, uint64_t now_ns, const struct gw_ops *ops)
{
	uint64_t horizon = now_ns + g->cfg->poll_ns;

	if (now_ns >= g->gap_start)
		return stopped(g, now_ns);
	flowq_np_poll(&g->q, now_ns);
	flowq_expire(&g->q, now_ns);
	np_send(g, now_ns, ops);
	while (g->port_free_at < (double)horizon) {
		uint32_t fid = flowq_peek(&g->q, now_ns);
		uint64_t vq;
		struct flowq_entry fe;
		struct gw_frame out;

		if (fid == FLOWQ_NONE)
			break;
		vq = flowq_vqueue(&g->q, now_ns);
		flowq_pop(&g->q, fid, now_ns, &fe);
		g->bytes -= fe.d.len;
		out.flow = (uint32_t)fe.d.addr;
		out.bytes = fe.d.len;
		out.ce = ecn_red_choose(&g->red, vq, &g->rng) &&
			 mark_frame(g, fid, &fe.d, now_ns);
		g->port_free_at = fmax(g->port_free_at, (double)now_ns) +
				  fe.d.len * g->port_ns_per_byte;
		out.leave_ns = (uint64_t)ceil(g->port_free_at);
		ops->sent(ops->ctx, &out);
	}
	np_send(g, now_ns, ops);
	for (uint32_t i = 0; i < g->q.max_flows; i++)
		if (g->q.flows[i].in_use && g->q.flows[i].rp.rc < g->sum.rc_min)
			g->sum.rc_min = g->q.flows[i].rp.rc;
	g->last_level = g->bytes;
	if (g->draining && g->bytes <= g->drain_level) {
		uint64_t t = now_ns - g->drain_from;

		g->draining = false;
		g->sum.drained++;
		g->sum.drain_sum_ns += t;
		if (t > g->sum.drain_max_ns)
			g->sum.drain_max_ns = t;
	}
	return horizon;
}

void gw_cnp_from_wire(struct gw *g, uint32_t flow, uint64_t now_ns)
{
	uint8_t src[4];

	dst_of(flow, src);
	g->sum.rp_cnps +=
		flowq_cnp_from_wire(&g->q, 4, src, SENDER_QPN + flow, now_ns);
}

void gw_finish(struct gw *g, uint64_t end_ns, struct gw_summary *out)
{
	if (g->draining && g->drain_from <= end_ns)
		g->sum.undrained++; /* not a stop the end cut short */
	g->draining = false;
	*out = g->sum;
}
