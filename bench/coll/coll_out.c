// SPDX-License-Identifier: BSD-2-Clause
/*
 * coll_out.c - rocegen's JSON summary and timeline CSV; see coll_out.h.
 */
#include "coll_out.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int tl_open(struct coll_timeline *tl, const char *path, uint64_t start_ns,
	    uint64_t period_ns)
{
	memset(tl, 0, sizeof(*tl));
	tl->period_ns = period_ns;
	tl->next_ns = start_ns + period_ns;
	if (!path)
		return 0;
	tl->f = fopen(path, "w");
	if (!tl->f)
		return -errno;
	setvbuf(tl->f, NULL, _IOFBF, 1 << 16);
	fputs("t_ns,qp_peer,dir,bytes,packets,rate_bps,cnps,retrans\n", tl->f);
	return 0;
}

static void rows(struct coll_timeline *tl, struct rc_host *h, uint64_t t,
		 uint64_t now, double secs)
{
	for (int r = 0; r < h->nranks; r++) {
		struct rc_qp *qp = &h->qp[r];
		const struct rc_qp_stats *s = &qp->st;
		struct rc_qp_stats *l = &tl->last[r];
		uint64_t tb, tp, rb, rp;

		if (r == h->rank)
			continue;
		tb = s->data_bytes_sent - l->data_bytes_sent;
		tp = s->data_packets_sent - l->data_packets_sent;
		rb = s->data_bytes_received - l->data_bytes_received;
		rp = s->data_packets_received - l->data_packets_received;
		if (tl->f && (tp || s->cnps_received != l->cnps_received))
			fprintf(tl->f,
				"%" PRIu64 ",%d,tx,%" PRIu64 ",%" PRIu64
				",%.0f,%" PRIu64 ",%" PRIu64 "\n",
				t, r, tb, tp, rc_qp_rate(qp, now),
				s->cnps_received - l->cnps_received,
				s->retransmitted_packets -
					l->retransmitted_packets);
		if (tl->f && (rp || s->cnps_sent != l->cnps_sent))
			fprintf(tl->f,
				"%" PRIu64 ",%d,rx,%" PRIu64 ",%" PRIu64
				",%.0f,%" PRIu64 ",%" PRIu64 "\n",
				t, r, rb, rp, (double)rb * 8 / secs,
				s->cnps_sent - l->cnps_sent,
				s->ooo_dropped - l->ooo_dropped);
		*l = *s;
	}
}

void tl_tick(struct coll_timeline *tl, struct rc_host *h, uint64_t now)
{
	if (now < tl->next_ns)
		return;
	rows(tl, h, tl->next_ns, now, (double)tl->period_ns / 1e9);
	tl->dirty = false;
	/* idle intervals have no rows */
	tl->next_ns += tl->period_ns;
	if (tl->next_ns <= now)
		tl->next_ns +=
			(now - tl->next_ns) / tl->period_ns * tl->period_ns +
			tl->period_ns;
}

uint64_t tl_next_ns(const struct coll_timeline *tl)
{
	return tl->dirty ? tl->next_ns : UINT64_MAX;
}

int tl_close(struct coll_timeline *tl, struct rc_host *h, uint64_t now)
{
	int err = 0;

	if (!tl->f)
		return 0;
	if (now + tl->period_ns > tl->next_ns) {
		uint64_t span = now + tl->period_ns - tl->next_ns;

		rows(tl, h, now, now, span ? (double)span / 1e9 : 1e-9);
	}
	if (ferror(tl->f))
		err = -EIO;
	if (fclose(tl->f))
		err = -errno;
	tl->f = NULL;
	return err;
}

static void kv(FILE *f, const char *k, uint64_t v, bool comma)
{
	fprintf(f, "\"%s\": %" PRIu64 "%s", k, v, comma ? ", " : "");
}

int coll_write_json(const char *path, const struct rc_host *h,
		    const struct coll_job *j, const struct coll_meta *m)
{
	const struct coll_params *p = m->job_params;
	const struct rc_cfg *c = m->cfg;
	struct rc_qp_stats s;
	FILE *f = fopen(path, "w");
	bool first = true;
	int err = 0;

	if (!f)
		return -errno;
	rc_host_stats(h, &s);
	fprintf(f, "{\"rank\": %d, \"nranks\": %d, \"job\": \"%s\",\n", p->rank,
		p->nranks, m->job);
	fprintf(f,
		" \"params\": {\"iters\": %u, \"compute_us\": %" PRIu64
		", \"start_at\": %" PRIu64 ", \"model\": %" PRIu64
		", \"chunk\": %u, \"server\": %d, \"microbatches\": %u, "
		"\"activation\": %u,\n  \"mtu\": %u, \"window\": %u, "
		"\"ack_every\": %u, \"rto_us\": %" PRIu64
		", \"line_rate\": %.0f, \"cc\": \"%s\", \"dcqcn_profile\": "
		"\"%s\", \"cnp_interval_us\": %.3f, \"dscp\": %u, \"prio\": "
		"%u},\n",
		p->iters, p->compute_ns / 1000, p->start_ns, p->model, p->chunk,
		p->server, p->microbatches, p->activation, c->mtu, c->window,
		c->ack_every, c->rto_ns / 1000, c->line_bps, m->cc,
		m->dcqcn_profile, (double)c->dcqcn.np_interval_ns / 1000.0,
		m->dscp, m->prio);
	fprintf(f, " \"iterations\": [");
	for (uint32_t i = 0; j->iters && i < j->p.iters; i++) {
		const struct coll_iter *it = &j->iters[i];

		if (!it->start_ns)
			break;
		fprintf(f,
			"%s{\"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
			"}",
			i ? ", " : "", it->start_ns,
			i < j->cur ? it->end_ns : 0);
	}
	fprintf(f,
		"],\n \"iterations_completed\": %u, \"completed\": %s, "
		"\"timed_out\": %s, \"interrupted\": %s, \"exit_status\": "
		"%d,\n",
		coll_job_completed(j), coll_job_done(j) ? "true" : "false",
		m->timed_out ? "true" : "false",
		m->interrupted ? "true" : "false", m->exit_status);
	fprintf(f, " \"totals\": {");
	kv(f, "data_packets_sent", s.data_packets_sent, true);
	kv(f, "data_bytes_sent", s.data_bytes_sent, true);
	kv(f, "retransmitted_packets", s.retransmitted_packets, true);
	kv(f, "timeouts", s.timeouts, true);
	kv(f, "naks_sent", s.naks_sent, true);
	kv(f, "naks_received", s.naks_received, true);
	kv(f, "loss_events", s.loss_events, true);
	kv(f, "ooo_dropped", s.ooo_dropped, true);
	kv(f, "dup_received", s.dup_received, true);
	kv(f, "acks_sent", s.acks_sent, true);
	kv(f, "acks_received", s.acks_received, true);
	fputs("\n  ", f);
	kv(f, "data_packets_received", s.data_packets_received, true);
	kv(f, "data_bytes_received", s.data_bytes_received, true);
	kv(f, "ce_seen", s.ce_seen, true);
	kv(f, "cnps_sent", s.cnps_sent, true);
	kv(f, "cnps_received", s.cnps_received, true);
	kv(f, "verify_errors", j->verify_errors, true);
	kv(f, "protocol_errors", j->proto_errors, true);
	kv(f, "post_errors", j->post_errors, true);
	kv(f, "icrc_bad", m->icrc_bad, true);
	kv(f, "malformed", s.malformed + h->malformed + h->unknown_qp, true);
	kv(f, "send_errors", m->send_errors, true);
	fputs("\n  ", f);
	kv(f, "messages_sent", j->msgs_posted, true);
	kv(f, "message_bytes_sent", j->bytes_posted, true);
	kv(f, "messages_received", j->msgs_received, true);
	kv(f, "message_bytes_received", j->bytes_received, false);
	fprintf(f,
		"},\n \"latency_us\": {\"samples\": %" PRIu64
		", \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"p999\": "
		"%.3f, \"max\": %.3f},\n",
		h->lat.n, lat_hist_quantile_us(&h->lat, 0.5),
		lat_hist_quantile_us(&h->lat, 0.9),
		lat_hist_quantile_us(&h->lat, 0.99),
		lat_hist_quantile_us(&h->lat, 0.999),
		(double)h->lat.max_ns / 1000.0);
	fprintf(f, " \"latency_hist\": [");
	for (unsigned int i = 0; i < LAT_NBUCKETS; i++) {
		if (!h->lat.count[i])
			continue;
		fprintf(f, "%s[%.4f, %" PRIu64 "]", first ? "" : ", ",
			lat_hist_upper_us(i), h->lat.count[i]);
		first = false;
	}
	fprintf(f, "],\n \"peers\": [");
	first = true;
	for (int r = 0; r < h->nranks; r++) {
		const struct rc_qp_stats *q = &h->qp[r].st;

		if (r == h->rank ||
		    !(q->data_packets_sent || q->data_packets_received))
			continue;
		fprintf(f,
			"%s\n  {\"peer\": %d, \"qpn\": %u, \"peer_qpn\": %u, "
			"\"data_packets_sent\": %" PRIu64
			", \"retransmitted_packets\": %" PRIu64
			", \"timeouts\": %" PRIu64
			", \"cnps_received\": %" PRIu64
			", \"data_packets_received\": %" PRIu64
			", \"loss_events\": %" PRIu64
			", \"cnps_sent\": %" PRIu64 "}",
			first ? "" : ",", r, h->qp[r].lqpn, h->qp[r].rqpn,
			q->data_packets_sent, q->retransmitted_packets,
			q->timeouts, q->cnps_received, q->data_packets_received,
			q->loss_events, q->cnps_sent);
		first = false;
	}
	fprintf(f, "]}\n");
	if (ferror(f))
		err = -EIO;
	if (fclose(f))
		err = -errno;
	return err;
}
