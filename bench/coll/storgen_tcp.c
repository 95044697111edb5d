// SPDX-License-Identifier: GPL-2.0
/*
 * storgen_tcp.c - storgen's bulk TCP sender (storgen tcp): --flows
 * parallel connections writing --bytes each, or for --duration-s, then a
 * drain until the receiver has read everything; the JSON (storgen.c says
 * what it holds). One epoll loop; every socket is non-blocking.
 *
 * Invariant: a flow's bytes are the bytes the kernel accepted from
 * write(); the flow ends when the receiver closed after reading them all
 * (EOF after our shutdown), so its bytes were delivered by its end time.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "storgen.h"

enum flow_state { F_CONNECTING, F_SENDING, F_DRAINING, F_DONE, F_FAILED };

struct flow {
	int fd;
	enum flow_state st;
	int err; /* errno of the failure */
	uint64_t bytes, t_start, t_est, t_end;
	uint32_t retrans;
	uint64_t acked; /* tcpi_bytes_acked at the end */
};

static struct flow flows[MAX_FLOWS];
static uint8_t wbuf[WBUF_LEN];
static uint8_t rbuf[RBUF_LEN]; /* what the receiver sends back: ignored */

static void flow_info(struct flow *f)
{
	struct tcp_info ti;

	if (!get_tcp_info(f->fd, &ti))
		return;
	f->retrans = ti.tcpi_total_retrans;
	f->acked = ti.tcpi_bytes_acked;
}

static void flow_end(int ep, struct flow *f, enum flow_state st, int err)
{
	flow_info(f);
	f->t_end = nu_now_ns();
	f->st = st;
	f->err = err;
	epoll_ctl(ep, EPOLL_CTL_DEL, f->fd, NULL);
	close(f->fd);
	f->fd = -1;
}

static void flow_fail(int ep, struct flow *f, unsigned int i, int err)
{
	fprintf(stderr, "storgen: flow %u: %s\n", i, strerror(err));
	flow_end(ep, f, F_FAILED, err);
}

/* Stop writing: FIN after the data, then wait for the receiver's EOF. */
static void flow_stop(int ep, struct flow *f, unsigned int i)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = i};

	if (f->st == F_CONNECTING) {
		flow_end(ep, f, F_DONE, 0);
		return;
	}
	if (f->st != F_SENDING)
		return;
	shutdown(f->fd, SHUT_WR);
	f->st = F_DRAINING;
	epoll_ctl(ep, EPOLL_CTL_MOD, f->fd, &ev);
}

static void flow_event(int ep, struct flow *f, unsigned int i, uint64_t limit)
{
	struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = i};
	int err = 0, w;
	socklen_t l = sizeof(err);

	if (f->st == F_CONNECTING) {
		getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err) {
			flow_fail(ep, f, i, err);
			return;
		}
		f->st = F_SENDING;
		f->t_est = nu_now_ns();
		epoll_ctl(ep, EPOLL_CTL_MOD, f->fd, &ev);
	}
	if (f->st == F_SENDING) {
		for (w = 0; w < 4; w++) {
			size_t n = WBUF_LEN;
			ssize_t r;

			if (limit && limit - f->bytes < n)
				n = (size_t)(limit - f->bytes);
			r = write(f->fd, wbuf, n);
			if (r < 0) {
				if (errno == EAGAIN || errno == EINTR)
					return;
				flow_fail(ep, f, i, errno);
				return;
			}
			f->bytes += (uint64_t)r;
			if (limit && f->bytes >= limit) {
				flow_stop(ep, f, i);
				return;
			}
			if ((size_t)r < n)
				return;
		}
		return;
	}
	if (f->st == F_DRAINING) {
		ssize_t r = read(f->fd, rbuf, sizeof(rbuf));

		if (r == 0)
			flow_end(ep, f, F_DONE, 0);
		else if (r < 0 && errno != EAGAIN && errno != EINTR)
			flow_fail(ep, f, i, errno);
		/* data from the receiver: ignored */
	}
}

int run_tcp(const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len;
	uint64_t t0, stop_at = 0, drain_until = 0, total = 0, t_end = 0;
	unsigned int i, active, nfail = 0, nincomplete = 0, retrans = 0;
	bool stopped = false;
	char a[INET6_ADDRSTRLEN + 8];
	FILE *out;
	int ep, rc = 0;

	if (!o->to)
		die_usage("tcp needs %s", "--to IP:PORT");
	if (!o->bytes == !(o->duration_s > 0))
		die_usage("tcp needs %s",
			  "exactly one of --bytes, --duration-s");
	parse_hostport(o->to, &ss, &len);
	addr_str(&ss, a, sizeof(a));
	out = open_out(o->out);
	for (i = 0; i < WBUF_LEN; i++)
		wbuf[i] = (uint8_t)(i * 131 + 7);
	if (!wait_start(o))
		return 1;
	ep = epoll_create1(EPOLL_CLOEXEC);
	t0 = nu_now_ns();
	if (o->duration_s > 0)
		stop_at = t0 + (uint64_t)(o->duration_s * 1e9);
	for (i = 0; i < o->flows; i++) {
		struct flow *f = &flows[i];
		struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = i};

		f->t_start = nu_now_ns();
		f->fd = socket(ss.ss_family,
			       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (f->fd < 0) {
			fprintf(stderr, "storgen: socket: %s\n",
				strerror(errno));
			f->st = F_FAILED;
			f->err = errno;
			continue;
		}
		set_marks(f->fd, ss.ss_family, o);
		f->st = F_CONNECTING;
		if (connect(f->fd, (struct sockaddr *)&ss, len) &&
		    errno != EINPROGRESS) {
			epoll_ctl(ep, EPOLL_CTL_ADD, f->fd, &ev);
			flow_fail(ep, f, i, errno);
			continue;
		}
		epoll_ctl(ep, EPOLL_CTL_ADD, f->fd, &ev);
	}

	for (;;) {
		struct epoll_event evs[64];
		uint64_t now = nu_now_ns(), next = 0;
		int n, k, tmo = -1;

		active = 0;
		for (i = 0; i < o->flows; i++)
			if (flows[i].st < F_DONE)
				active++;
		if (!active)
			break;
		if (!stopped &&
		    (nu_stop_requested || (stop_at && now >= stop_at))) {
			stopped = true;
			drain_until = now + (nu_stop_requested ? DRAIN_SIG_NS
							       : DRAIN_NS);
			for (i = 0; i < o->flows; i++)
				flow_stop(ep, &flows[i], i);
			continue;
		}
		if (stopped && (nu_stop_requested > 1 || now >= drain_until))
			break;
		if (stopped)
			next = drain_until;
		else if (stop_at)
			next = stop_at;
		if (next)
			tmo = (int)((next - now + 999999) / 1000000);
		n = epoll_pwait(ep, evs, 64, tmo, &wait_mask);
		for (k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;

			if (flows[id].st < F_DONE)
				flow_event(ep, &flows[id], (unsigned int)id,
					   o->bytes);
		}
	}
	/* Flows the receiver did not confirm in time: incomplete. */
	for (i = 0; i < o->flows; i++) {
		struct flow *f = &flows[i];

		if (f->st < F_DONE) {
			fprintf(stderr,
				"storgen: flow %u: not confirmed by the "
				"receiver (%" PRIu64 " bytes written)\n",
				i, f->bytes);
			flow_end(ep, f, F_FAILED, ETIMEDOUT);
			nincomplete++;
		}
	}
	close(ep);

	fprintf(out, "{\"mode\":\"tcp\",\"to\":\"%s\",\"flows\":[", a);
	for (i = 0; i < o->flows; i++) {
		struct flow *f = &flows[i];
		uint64_t d = f->t_end > f->t_start ? f->t_end - f->t_start : 0;

		if (f->st == F_FAILED && f->err != ETIMEDOUT)
			nfail++;
		total += f->bytes;
		retrans += f->retrans;
		if (f->t_end > t_end)
			t_end = f->t_end;
		fprintf(out,
			"%s{\"bytes\":%" PRIu64 ",\"start_ns\":%" PRIu64
			",\"established_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
			",\"bps\":%.0f,\"total_retrans\":%u,\"bytes_acked\":"
			"%" PRIu64 ",\"ok\":%s,\"error\":\"%s\"}",
			i ? "," : "", f->bytes, f->t_start, f->t_est, f->t_end,
			d ? (double)f->bytes * 8e9 / (double)d : 0.0,
			f->retrans, f->acked,
			f->st == F_DONE ? "true" : "false",
			f->err ? strerror(f->err) : "");
	}
	fprintf(out,
		"],\"total_bytes\":%" PRIu64 ",\"start_ns\":%" PRIu64
		",\"end_ns\":%" PRIu64 ",\"bps\":%.0f,\"total_retrans\":%u"
		",\"failed\":%u,\"incomplete\":%u,\"interrupted\":%s}\n",
		total, t0, t_end,
		t_end > t0 ? (double)total * 8e9 / (double)(t_end - t0) : 0.0,
		retrans, nfail, nincomplete,
		nu_stop_requested ? "true" : "false");
	if (close_out(out, o->out))
		rc = 1;
	if (nfail || nincomplete)
		rc = 1;
	return rc;
}
