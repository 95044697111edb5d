// SPDX-License-Identifier: BSD-2-Clause
/*
 * roce_peer_recv.c - roce_peer recv: the RC responder that reads the ECN
 * field of every datagram, acknowledges and answers CE marks with CNPs per
 * flow (a bounded flow table), and its report.
 */
#include "roce_peer.h"

/* ---- recv ---- */

static uint32_t flow_hash(const struct endpoint *e)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ e->addr[i]) * 16777619u;
	h = (h ^ e->port) * 16777619u;
	return h ^ (h >> 15);
}

/* The flow of e, created if new and there is room; NULL when full. */
struct flow *flow_get(struct flow_table *t, const struct endpoint *e)
{
	uint32_t i = flow_hash(e) & (RP_FLOW_SLOTS - 1);

	for (;; i = (i + 1) & (RP_FLOW_SLOTS - 1)) {
		struct flow *f = &t->slot[i];

		if (!f->used) {
			if (t->n >= RP_MAX_FLOWS) {
				t->overflow++;
				return NULL;
			}
			memset(f, 0, sizeof(*f));
			f->used = true;
			f->src = *e;
			t->n++;
			return f;
		}
		if (ep_equal_addr(&f->src, e) && f->src.port == e->port)
			return f;
	}
}

/* NIC-like notification point: a CNP for a CE mark unless one went out
 * for this flow less than interval ago. */
bool np_allow(struct flow *f, uint64_t now, uint64_t interval)
{
	if (f->cnp_sent && now - f->last_cnp_ns < interval) {
		f->cnps_suppressed++;
		return false;
	}
	f->cnp_sent = true;
	f->last_cnp_ns = now;
	return true;
}

/* Totals; ACKs and CNPs sent are summed from the flows. */
struct recv_stats {
	uint64_t packets, bytes; /* data packets, frame bytes */
	uint64_t ecn[4]; /* by codepoint: Not-ECT, ECT(1), ECT(0), CE */
	uint64_t cnps_suppressed, non_data, malformed, send_errors;
};

static bool is_data_opcode(uint8_t op)
{
	return op <= 0x0b; /* RC SEND_* 0x00-0x05, RDMA WRITE_* 0x06-0x0b */
}

/* What the control messages of one datagram say. */
struct rx_info {
	int tos; /* -1: unknown */
	bool have_dst;
	struct endpoint dst; /* our address the datagram came to */
	int ifindex;
};

static void parse_cmsgs(struct msghdr *mh, struct rx_info *ri)
{
	ri->tos = -1;
	ri->have_dst = false;
	ri->ifindex = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS &&
		    c->cmsg_len >= CMSG_LEN(1)) {
			ri->tos = *(uint8_t *)CMSG_DATA(c);
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_TCLASS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			ri->tos = v & 0xff;
		} else if (c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			memset(&ri->dst, 0, sizeof(ri->dst));
			ri->dst.family = 4;
			memcpy(ri->dst.addr, &pi.ipi_addr, 4);
			ri->ifindex = pi.ipi_ifindex;
			ri->have_dst = true;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_PKTINFO &&
			   c->cmsg_len >=
				   CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi;
			struct sockaddr_storage ss = {.ss_family = AF_INET6};

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr,
			       &pi.ipi6_addr, 16);
			ep_from_sa(&ss, &ri->dst);
			ri->ifindex = (int)pi.ipi6_ifindex;
			ri->have_dst = true;
		}
	}
}

/*
 * Send a reply payload p[0..n) (RP_HEADROOM bytes of room before it) from
 * local to peer over fd, whose family is sock_family; the ICRC is sealed
 * for exactly these addresses, which pktinfo pins.
 */
static bool send_reply(int fd, int sock_family, uint8_t *p, size_t n,
		       const struct endpoint *local,
		       const struct endpoint *peer, int ifindex)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} u;
	struct sockaddr_storage ss;
	struct iovec iov = {p, n};
	struct msghdr mh = {0};
	struct cmsghdr *c;

	if (!icrc_seal(p, n, local, peer))
		return false;
	memset(&u, 0, sizeof(u));
	mh.msg_name = &ss;
	mh.msg_namelen = ep_to_sa(peer, sock_family, (uint32_t)ifindex, &ss);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	c = (struct cmsghdr *)u.buf;
	if (sock_family == AF_INET) {
		struct in_pktinfo pi = {0};

		memcpy(&pi.ipi_spec_dst, local->addr, 4);
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		mh.msg_controllen = CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = {0};
		struct sockaddr_storage l;

		ep_to_sa(local, AF_INET6, 0, &l);
		pi.ipi6_addr = ((struct sockaddr_in6 *)&l)->sin6_addr;
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		mh.msg_controllen = CMSG_SPACE(sizeof(pi));
	}
	return sendmsg(fd, &mh, 0) == (ssize_t)n;
}

static void print_flows(const struct flow_table *t)
{
	char abuf[INET6_ADDRSTRLEN];
	bool first = true;

	for (size_t i = 0; i < RP_FLOW_SLOTS; i++) {
		const struct flow *f = &t->slot[i];

		if (!f->used)
			continue;
		printf("%s{\"src\":\"%s\",\"sport\":%u,\"packets\":%" PRIu64
		       ",\"bytes\":%" PRIu64 ",\"ce_marked\":%" PRIu64
		       ",\"acks_sent\":%" PRIu64 ",\"cnps_sent\":%" PRIu64
		       ",\"cnps_suppressed\":%" PRIu64 ",\"last_psn\":%u}",
		       first ? "" : ",", ep_str(&f->src, abuf, sizeof(abuf)),
		       f->src.port, f->packets, f->bytes, f->ce, f->acks,
		       f->cnps, f->cnps_suppressed, f->last_psn);
		first = false;
	}
}

/* One receiver run: its socket, flows and counters. */
struct receiver {
	int fd, family; /* socket and its AF_INET / AF_INET6 */
	struct endpoint bound;
	uint32_t peer_qpn;
	uint64_t cnp_interval_ns;
	struct flow_table flows;
	struct recv_stats st;
	uint8_t reply[RP_HEADROOM + 64]; /* a reply payload after headroom */
};

static int receiver_open(struct receiver *r, const struct opts *o)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	int one = 1;

	if (!nu_parse_addr("roce_peer", o->bind, &sa, &salen))
		bad_usage("bad --bind", o->bind);
	r->family = sa.ss_family;
	r->peer_qpn = (uint32_t)o->peer_qpn;
	r->cnp_interval_ns = o->cnp_interval_us * 1000;
	ep_from_sa(&sa, &r->bound);
	r->fd = socket(r->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&sa, salen) < 0) {
		fprintf(stderr, "roce_peer: bind %s: %s\n", o->bind,
			strerror(errno));
		return 1;
	}
	/* ECN and our address of every datagram; IPv4 ones on an IPv6
	 * socket come with the IPv4 options. */
	setsockopt(r->fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	setsockopt(r->fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	if (r->family == AF_INET6) {
		setsockopt(r->fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one,
			   sizeof(one));
		setsockopt(r->fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one,
			   sizeof(one));
	}
	set_df(r->fd, r->family);
	nu_set_sockbuf(r->fd, SO_RCVBUF, RP_SOCKBUF, NULL);
	return 0;
}

/* Send the reply payload of n bytes in r->reply; count it in *sent. */
static void receiver_reply(struct receiver *r, size_t n,
			   const struct endpoint *local,
			   const struct endpoint *peer, int ifindex,
			   uint64_t *sent)
{
	if (send_reply(r->fd, r->family, r->reply + RP_HEADROOM, n, local, peer,
		       ifindex))
		(*sent)++;
	else
		r->st.send_errors++;
}

/* One datagram p[0..len) from src, with its control messages. */
static void receiver_take(struct receiver *r, const struct opts *o,
			  const uint8_t *p, size_t len,
			  const struct sockaddr_storage *src, struct msghdr *mh,
			  uint64_t now)
{
	struct endpoint peer, local;
	struct rx_info ri;
	struct flow *f;
	uint64_t frame_bytes;
	bool ce;

	if (len < BTH_LEN || (mh->msg_flags & MSG_TRUNC)) {
		r->st.malformed++;
		return;
	}
	if (!is_data_opcode(bth_opcode(p))) {
		r->st.non_data++;
		return;
	}
	parse_cmsgs(mh, &ri);
	ep_from_sa(src, &peer);
	local = ri.have_dst ? ri.dst : r->bound;
	local.port = r->bound.port;
	frame_bytes = len + l2_l4_len(peer.family);
	ce = ri.tos >= 0 && (ri.tos & 3) == 3;
	r->st.packets++;
	r->st.bytes += frame_bytes;
	if (ri.tos >= 0)
		r->st.ecn[ri.tos & 3]++;
	f = flow_get(&r->flows, &peer);
	if (!f)
		return; /* counted in flows.overflow, not answered */
	f->packets++;
	f->bytes += frame_bytes;
	f->ce += ce;
	f->last_psn = bth_psn(p);
	f->msn = (f->msn + 1) & ROCE_PSN_MASK;
	peer.port = (uint16_t)o->reply_port;
	if (o->ack_every && ++f->since_ack >= o->ack_every) {
		size_t n = build_ack(r->reply + RP_HEADROOM, r->peer_qpn,
				     f->last_psn, f->msn);

		f->since_ack = 0;
		receiver_reply(r, n, &local, &peer, ri.ifindex, &f->acks);
	}
	if (ce && o->cnp_on_ce) {
		if (np_allow(f, now, r->cnp_interval_ns)) {
			size_t n = build_cnp_payload(r->reply + RP_HEADROOM,
						     r->peer_qpn);

			receiver_reply(r, n, &local, &peer, ri.ifindex,
				       &f->cnps);
		} else {
			r->st.cnps_suppressed++;
		}
	}
}

static void receiver_report(const struct receiver *r, const struct opts *o)
{
	const struct recv_stats *st = &r->st;
	uint64_t acks = 0, cnps = 0;

	for (size_t i = 0; i < RP_FLOW_SLOTS; i++) {
		acks += r->flows.slot[i].acks;
		cnps += r->flows.slot[i].cnps;
	}
	fprintf(stderr,
		"roce_peer: packets=%" PRIu64 " bytes=%" PRIu64
		" ce_marked=%" PRIu64 " acks_sent=%" PRIu64
		" cnps_sent=%" PRIu64 " flows=%u\n",
		st->packets, st->bytes, st->ecn[3], acks, cnps, r->flows.n);
	if (!o->json)
		return;
	printf("{\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64
	       ",\"ce_marked\":%" PRIu64 ",\"ecn\":{\"not_ect\":%" PRIu64
	       ",\"ect1\":%" PRIu64 ",\"ect0\":%" PRIu64 ",\"ce\":%" PRIu64
	       "},\"acks_sent\":%" PRIu64 ",\"cnps_sent\":%" PRIu64
	       ",\"cnps_suppressed\":%" PRIu64 ",\"non_data\":%" PRIu64
	       ",\"malformed\":%" PRIu64 ",\"send_errors\":%" PRIu64
	       ",\"flows_overflow\":%" PRIu64 ",\"flows\":[",
	       st->packets, st->bytes, st->ecn[3], st->ecn[0], st->ecn[1],
	       st->ecn[2], st->ecn[3], acks, cnps, st->cnps_suppressed,
	       st->non_data, st->malformed, st->send_errors, r->flows.overflow);
	print_flows(&r->flows);
	printf("]}\n");
	fflush(stdout);
}

int do_recv(const struct opts *o)
{
	static uint8_t bufs[RP_BATCH][RP_MAX_PAYLOAD + 64];
	static struct receiver r = {.fd = -1};
	union {
		char buf[256];
		struct cmsghdr align;
	} ctl[RP_BATCH];
	struct mmsghdr msgs[RP_BATCH];
	struct iovec iov[RP_BATCH];
	struct sockaddr_storage src[RP_BATCH];
	uint64_t deadline;

	if (receiver_open(&r, o)) {
		if (r.fd >= 0)
			close(r.fd);
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < RP_BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &src[i];
	}
	nu_install_signals(NULL);
	fprintf(stderr, "roce_peer: ready\n");
	deadline = o->duration > 0 ? nu_now_ns() + (uint64_t)(o->duration * 1e9)
				   : UINT64_MAX;
	while (!nu_stop_requested) {
		struct pollfd pfd = {r.fd, POLLIN, 0};
		uint64_t now = nu_now_ns();
		struct timespec ts;
		int k;

		if (now >= deadline)
			break;
		ts = nu_ns_to_ts(MIN(deadline - now, RP_POLL_NS));
		if (ppoll(&pfd, 1, &ts, NULL) <= 0)
			continue;
		for (int i = 0; i < RP_BATCH; i++) {
			msgs[i].msg_hdr.msg_namelen = sizeof(src[i]);
			msgs[i].msg_hdr.msg_control = ctl[i].buf;
			msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
		}
		k = recvmmsg(r.fd, msgs, RP_BATCH, MSG_DONTWAIT, NULL);
		now = nu_now_ns();
		for (int i = 0; i < k; i++)
			receiver_take(&r, o, bufs[i], msgs[i].msg_len, &src[i],
				      &msgs[i].msg_hdr, now);
	}
	receiver_report(&r, o);
	close(r.fd);
	return 0;
}
