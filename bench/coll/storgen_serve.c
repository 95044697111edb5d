// SPDX-License-Identifier: GPL-2.0
/*
 * storgen_serve.c - storgen's receiver (storgen serve): accepts the TCP
 * flows and reads them, receives the UDP bursts and accounts their loss per
 * sender (stor_proto.h), writes the timeline and the JSON (storgen.c says
 * what they hold). One epoll loop; every fd is non-blocking.
 *
 * Invariant: every payload byte counted in the totals is counted in
 * exactly one timeline interval, and every interval from the start to the
 * exit is written (zero rows included), so the rows sum to the totals.
 */
#include <arpa/inet.h>
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

#include "stor_proto.h"
#include "storgen.h"

struct conn {
	int fd; /* -1: free */
	uint32_t segs; /* tcpi_data_segs_in already counted */
};

/* The timeline: one interval being filled, rows written when it ends. */
struct timeline {
	FILE *f;
	uint64_t iv; /* start of the current interval */
	uint64_t tcp_bytes, tcp_pkts, udp_bytes, udp_pkts;
	uint32_t udp_srcs; /* senders seen in this interval */
};

static struct serve {
	int lfd, ufd, ep;
	struct conn conns[MAX_CONNS];
	unsigned int nconns;
	struct stor_src srcs[MAX_SRCS];
	struct timeline tl;
	uint64_t tcp_bytes, tcp_segs, udp_bytes, udp_dgrams, udp_fins;
	uint64_t udp_foreign, udp_untracked, udp_trunc;
	uint64_t accepted, rejected, resets, read_errors;
	uint64_t first_ns, last_ns;
	uint64_t owd_sum, owd_max, owd_n;
} sv;

static uint8_t rbuf[RBUF_LEN];
static uint8_t ubuf[UDP_BATCH][UDP_MAX_DGRAM];
static char tlbuf[1 << 16];

/* Count the data segments received on c since the last call. */
static void conn_segs(struct conn *c)
{
	struct tcp_info ti;

	if (!get_tcp_info(c->fd, &ti))
		return;
	sv.tl.tcp_pkts += ti.tcpi_data_segs_in - c->segs;
	sv.tcp_segs += ti.tcpi_data_segs_in - c->segs;
	c->segs = ti.tcpi_data_segs_in;
}

static void tl_emit(void)
{
	struct timeline *t = &sv.tl;
	unsigned int i;

	if (t->tcp_bytes) {
		for (i = 0; i < MAX_CONNS; i++)
			if (sv.conns[i].fd >= 0)
				conn_segs(&sv.conns[i]);
	}
	if (t->f) {
		fprintf(t->f, "%" PRIu64 ",tcp,%" PRIu64 ",%" PRIu64 ",%u\n",
			t->iv, t->tcp_bytes, t->tcp_pkts, sv.nconns);
		fprintf(t->f, "%" PRIu64 ",udp,%" PRIu64 ",%" PRIu64 ",%u\n",
			t->iv, t->udp_bytes, t->udp_pkts, t->udp_srcs);
	}
	t->tcp_bytes = t->tcp_pkts = t->udp_bytes = t->udp_pkts = 0;
	t->udp_srcs = 0;
}

/* Close every interval that ended before now. */
static void tl_advance(uint64_t now)
{
	while (now >= sv.tl.iv + TL_IV_NS) {
		tl_emit();
		sv.tl.iv += TL_IV_NS;
	}
}

static void note_bytes(uint64_t now)
{
	if (!sv.first_ns)
		sv.first_ns = now;
	sv.last_ns = now;
}

static void conn_close(unsigned int i)
{
	struct conn *c = &sv.conns[i];

	conn_segs(c);
	epoll_ctl(sv.ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	sv.nconns--;
}

static void serve_accept(void)
{
	for (;;) {
		int fd = accept4(sv.lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = {.events = EPOLLIN};
		unsigned int i;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				fprintf(stderr, "storgen: accept: %s\n",
					strerror(errno));
			return;
		}
		for (i = 0; i < MAX_CONNS && sv.conns[i].fd >= 0; i++)
			;
		if (i == MAX_CONNS) {
			sv.rejected++;
			close(fd);
			continue;
		}
		ev.data.u64 = 2 + i; /* 0: listener, 1: UDP */
		if (epoll_ctl(sv.ep, EPOLL_CTL_ADD, fd, &ev)) {
			fprintf(stderr, "storgen: epoll_ctl: %s\n",
				strerror(errno));
			close(fd);
			continue;
		}
		sv.conns[i].fd = fd;
		sv.conns[i].segs = 0;
		sv.nconns++;
		sv.accepted++;
	}
}

static void serve_read(unsigned int i)
{
	struct conn *c = &sv.conns[i];
	ssize_t n = read(c->fd, rbuf, sizeof(rbuf));

	if (n > 0) {
		sv.tcp_bytes += (uint64_t)n;
		sv.tl.tcp_bytes += (uint64_t)n;
		note_bytes(nu_now_ns());
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		if (errno == ECONNRESET)
			sv.resets++;
		else
			sv.read_errors++;
		fprintf(stderr, "storgen: connection %u: %s\n", i,
			strerror(errno));
	}
	conn_close(i);
}

static void src_key(const struct sockaddr_storage *ss, uint8_t a[16],
		    uint16_t *port)
{
	memset(a, 0, 16);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		a[10] = a[11] = 0xff;
		memcpy(a + 12, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		memcpy(a, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
	}
}

static void serve_udp(void)
{
	static struct mmsghdr mm[UDP_BATCH];
	static struct iovec iov[UDP_BATCH];
	static struct sockaddr_storage from[UDP_BATCH];
	int round, n, k;

	for (round = 0; round < 8; round++) {
		uint64_t now;

		for (k = 0; k < UDP_BATCH; k++) {
			iov[k].iov_base = ubuf[k];
			iov[k].iov_len = UDP_MAX_DGRAM;
			memset(&mm[k].msg_hdr, 0, sizeof(mm[k].msg_hdr));
			mm[k].msg_hdr.msg_iov = &iov[k];
			mm[k].msg_hdr.msg_iovlen = 1;
			mm[k].msg_hdr.msg_name = &from[k];
			mm[k].msg_hdr.msg_namelen = sizeof(from[k]);
		}
		n = recvmmsg(sv.ufd, mm, UDP_BATCH, MSG_DONTWAIT | MSG_TRUNC,
			     NULL);
		if (n <= 0)
			return;
		now = nu_now_ns();
		for (k = 0; k < n; k++) {
			size_t len = mm[k].msg_len;
			size_t have = len < UDP_MAX_DGRAM ? len : UDP_MAX_DGRAM;
			struct stor_hdr h;
			struct stor_src *s;
			uint8_t a[16];
			uint16_t port;

			if (mm[k].msg_hdr.msg_flags & MSG_TRUNC)
				sv.udp_trunc++;
			if (!stor_get(ubuf[k], have, &h)) {
				sv.udp_foreign++;
			} else {
				src_key(&from[k], a, &port);
				s = stor_src_find(sv.srcs, MAX_SRCS, a, port,
						  h.sender_id);
				if (!s) {
					sv.udp_untracked++;
				} else {
					stor_src_account(s, &h);
					if (h.flags & STOR_F_FIN) {
						sv.udp_fins++;
						continue;
					}
					if (s->last_iv != sv.tl.iv + 1) {
						s->last_iv = sv.tl.iv + 1;
						sv.tl.udp_srcs++;
					}
				}
				if (h.send_ns && h.send_ns <= now) {
					uint64_t d = now - h.send_ns;

					sv.owd_sum += d;
					sv.owd_n++;
					if (d > sv.owd_max)
						sv.owd_max = d;
				}
			}
			sv.udp_bytes += len;
			sv.udp_dgrams++;
			sv.tl.udp_bytes += len;
			sv.tl.udp_pkts++;
			note_bytes(now);
		}
		if (n < UDP_BATCH)
			return;
	}
}

static int serve_socket(int type, const struct sockaddr_storage *ss,
			socklen_t len)
{
	int one = 1, fd;
	char a[INET6_ADDRSTRLEN + 8];

	fd = socket(ss->ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "storgen: socket: %s\n", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Beyond rmem_max as root; the plain option otherwise. */
	if (type == SOCK_DGRAM)
		nu_set_sockbuf(fd, SO_RCVBUF, 8 << 20, NULL);
	addr_str(ss, a, sizeof(a));
	if (bind(fd, (const struct sockaddr *)ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 1024))) {
		fprintf(stderr, "storgen: bind %s %s: %s\n",
			type == SOCK_STREAM ? "tcp" : "udp", a,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void serve_json(FILE *f, uint64_t start, uint64_t end)
{
	uint64_t lost = 0;
	unsigned int i, nsrc = 0;
	char a[INET6_ADDRSTRLEN];

	for (i = 0; i < MAX_SRCS && sv.srcs[i].used; i++) {
		lost += stor_src_lost(&sv.srcs[i]);
		nsrc++;
	}
	fprintf(f,
		"{\"mode\":\"serve\",\"tcp_bytes\":%" PRIu64
		",\"tcp_data_segs\":%" PRIu64 ",\"udp_bytes\":%" PRIu64
		",\"udp_datagrams\":%" PRIu64 ",\"udp_lost\":%" PRIu64
		",\"udp_fins\":%" PRIu64 ",\"udp_foreign\":%" PRIu64
		",\"udp_untracked\":%" PRIu64 ",\"udp_truncated\":%" PRIu64
		",\"conns_accepted\":%" PRIu64 ",\"conns_rejected\":%" PRIu64
		",\"conn_resets\":%" PRIu64 ",\"read_errors\":%" PRIu64
		",\"first_byte_ns\":%" PRIu64 ",\"last_byte_ns\":%" PRIu64
		",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
		",\"udp_owd_mean_ns\":%" PRIu64 ",\"udp_owd_max_ns\":%" PRIu64
		",\"udp_senders\":[",
		sv.tcp_bytes, sv.tcp_segs, sv.udp_bytes, sv.udp_dgrams, lost,
		sv.udp_fins, sv.udp_foreign, sv.udp_untracked, sv.udp_trunc,
		sv.accepted, sv.rejected, sv.resets, sv.read_errors,
		sv.first_ns, sv.last_ns, start, end,
		sv.owd_n ? sv.owd_sum / sv.owd_n : 0, sv.owd_max);
	for (i = 0; i < nsrc; i++) {
		const struct stor_src *s = &sv.srcs[i];
		bool v4 = s->addr[10] == 0xff && s->addr[11] == 0xff &&
			  !s->addr[0];

		if (!inet_ntop(v4 ? AF_INET : AF_INET6,
			       v4 ? s->addr + 12 : s->addr, a, sizeof(a)))
			snprintf(a, sizeof(a), "?");
		fprintf(f,
			"%s{\"addr\":\"%s\",\"port\":%u,\"sender_id\":%u,"
			"\"received\":%" PRIu64 ",\"max_seq\":%" PRIu64
			",\"expected\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"fin\":%s}",
			i ? "," : "", a, s->port, s->sender_id, s->received,
			s->max_seq, stor_src_expected(s), stor_src_lost(s),
			s->fin ? "true" : "false");
	}
	fprintf(f, "]}\n");
}

int run_serve(const struct opts *o)
{
	struct sockaddr_storage ss;
	struct epoll_event ev = {.events = EPOLLIN};
	socklen_t len;
	uint64_t start, end, deadline = 0;
	char a[INET6_ADDRSTRLEN + 8];
	FILE *out;
	unsigned int i;
	int rc = 0;

	if (!o->bind)
		die_usage("serve needs %s", "--bind IP");
	if (!parse_ip(o->bind, &ss, &len))
		die_usage("bad --bind address %s", o->bind);
	for (i = 0; i < MAX_CONNS; i++)
		sv.conns[i].fd = -1;
	out = open_out(o->out);
	if (o->timeline) {
		sv.tl.f = fopen(o->timeline, "w");
		if (!sv.tl.f) {
			fprintf(stderr, "storgen: %s: %s\n", o->timeline,
				strerror(errno));
			return 2;
		}
		/* stdio's buffer: ours, fixed, not allocated on first write */
		setvbuf(sv.tl.f, tlbuf, _IOFBF, sizeof(tlbuf));
		fprintf(sv.tl.f, "t_ns,proto,bytes,packets,conns\n");
	}
	set_port(&ss, o->tcp_port);
	sv.lfd = serve_socket(SOCK_STREAM, &ss, len);
	set_port(&ss, o->udp_port);
	sv.ufd = serve_socket(SOCK_DGRAM, &ss, len);
	if (sv.lfd < 0 || sv.ufd < 0)
		return 1;
	sv.ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.u64 = 0;
	epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.lfd, &ev);
	ev.data.u64 = 1;
	epoll_ctl(sv.ep, EPOLL_CTL_ADD, sv.ufd, &ev);

	start = nu_now_ns();
	sv.tl.iv = start - start % TL_IV_NS;
	if (o->duration_s > 0)
		deadline = start + (uint64_t)(o->duration_s * 1e9);
	set_port(&ss, o->tcp_port);
	addr_str(&ss, a, sizeof(a));
	fprintf(stderr, "storgen: serving tcp %s udp port %u\n", a,
		o->udp_port);

	while (!nu_stop_requested) {
		struct epoll_event evs[64];
		int n, k, tmo = -1;
		uint64_t now = nu_now_ns();

		if (deadline) {
			if (now >= deadline)
				break;
			tmo = (int)((deadline - now + 999999) / 1000000);
		}
		n = epoll_pwait(sv.ep, evs, 64, tmo, &wait_mask);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "storgen: epoll_wait: %s\n",
				strerror(errno));
			rc = 1;
			break;
		}
		tl_advance(nu_now_ns());
		for (k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;

			if (id == 0)
				serve_accept();
			else if (id == 1)
				serve_udp();
			else if (sv.conns[id - 2].fd >= 0)
				serve_read((unsigned int)(id - 2));
		}
	}
	end = nu_now_ns();
	tl_advance(end);
	tl_emit(); /* the last, partial interval */
	for (i = 0; i < MAX_CONNS; i++)
		if (sv.conns[i].fd >= 0)
			conn_close(i);
	if (sv.tl.f && close_out(sv.tl.f, o->timeline))
		rc = 1;
	serve_json(out, start, end);
	if (close_out(out, o->out))
		rc = 1;
	if (sv.resets) {
		fprintf(stderr, "storgen: %" PRIu64 " connection(s) reset\n",
			sv.resets);
		rc = 1;
	}
	return rc;
}
