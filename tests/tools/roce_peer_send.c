// SPDX-License-Identifier: BSD-2-Clause
/*
 * roce_peer_send.c - roce_peer send: the constant-rate RC sender, its
 * sockets (UDP, and AF_PACKET on --ifname for the ICRC check of replies),
 * the count of the ACKs and CNPs coming back, and its report.
 */
#include "roce_peer.h"

/* ---- send ---- */

struct send_stats {
	uint64_t sent_pkts, sent_bytes, send_errors, slips;
	uint64_t acks, acks_other_qpn, acks_icrc_bad;
	uint64_t cnps_received, cnps_icrc_ok, cnps_icrc_bad, cnps_bad_qpn;
	uint64_t other_rx, udp_rx;
	uint64_t *series_bytes, *series_cnps;
	size_t n_series;
};

static size_t series_index(const struct send_stats *st, uint64_t t0,
			   uint64_t now)
{
	uint64_t i = (now - t0) / RP_SERIES_NS;

	return i < st->n_series ? (size_t)i : st->n_series - 1;
}

/*
 * One reply seen by the sender. icrc: 1 valid, 0 invalid, -1 not checked
 * (UDP socket: no IP header to check against).
 */
static void count_reply(struct send_stats *st, const uint8_t *bth, int icrc,
			uint32_t qpn, size_t bucket)
{
	uint8_t op = bth_opcode(bth);

	if (op == BTH_OP_CNP) {
		st->cnps_received++;
		st->series_cnps[bucket]++;
		if (icrc == 1)
			st->cnps_icrc_ok++;
		else if (icrc == 0)
			st->cnps_icrc_bad++;
		if (bth_dqpn(bth) != qpn)
			st->cnps_bad_qpn++;
	} else if (op == BTH_OP_RC_ACK) {
		if (bth_dqpn(bth) == qpn)
			st->acks++;
		else
			st->acks_other_qpn++;
		if (icrc == 0)
			st->acks_icrc_bad++;
	} else {
		st->other_rx++;
	}
}

/* Whole frames from the AF_PACKET socket: RoCEv2 to our address. */
static void drain_packet(int fd, struct send_stats *st,
			 const struct endpoint *local, uint32_t qpn,
			 size_t bucket)
{
	static uint8_t frame[RP_FRAME_MAX];

	for (int k = 0; k < 256; k++) {
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		struct pkt_meta m;
		struct endpoint dst = {.family = local->family};
		ssize_t n = recvfrom(fd, frame, sizeof(frame),
				     MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&sll, &sl);

		if (n < 0)
			return;
		if ((size_t)n > sizeof(frame) ||
		    sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (pkt_parse(frame, (uint32_t)n, &m) != PKT_OK ||
		    !(m.flags & PKT_F_BTH))
			continue;
		if ((m.l3 == PKT_L3_IPV4) != (local->family == 4))
			continue;
		memcpy(dst.addr, m.dst, 16);
		if (!ep_equal_addr(&dst, local))
			continue;
		count_reply(st, roce_bth(frame, &m),
			    roce_icrc_check(frame, (uint32_t)n, &m) ? 1 : 0,
			    qpn, bucket);
	}
}

/* The UDP socket on the RoCEv2 port: counted only without --ifname. */
static void drain_udp(int fd, struct send_stats *st, bool count, uint32_t qpn,
		      size_t bucket)
{
	uint8_t buf[2048];

	for (int k = 0; k < 256; k++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0)
			return;
		st->udp_rx++;
		if (count && n >= BTH_LEN)
			count_reply(st, buf, -1, qpn, bucket);
	}
}

/* The address the kernel would send from towards to. */
static bool route_source(const struct sockaddr_storage *to, socklen_t tolen,
			 struct endpoint *src)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = socket(to->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = connect(fd, (const struct sockaddr *)to, tolen) == 0 &&
	     getsockname(fd, (struct sockaddr *)&ss, &sl) == 0;
	close(fd);
	if (ok)
		ep_from_sa(&ss, src);
	return ok;
}

void set_df(int fd, int family)
{
	int v4 = IP_PMTUDISC_DO, v6 = IPV6_PMTUDISC_DO;

	/* IPv4 identification 0 needs DF on an unconnected socket. */
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v4, sizeof(v4));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &v6,
			   sizeof(v6));
}

static int open_packet_socket(const char *ifname)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL)};
	int one = 1, fd;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "roce_peer: %s: %s\n", ifname, strerror(errno));
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "roce_peer: AF_PACKET on %s: %s\n", ifname,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Our own data would be most of what it sees; drop it early (the
	 * pkttype check stays for kernels without the option). */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	nu_set_sockbuf(fd, SO_RCVBUF, RP_SOCKBUF, NULL);
	return fd;
}

static void print_series(const uint64_t *v, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++)
		printf("%s%.0f", i ? "," : "", (double)v[i] * scale);
}

/* One sender run: its sockets, addresses and counters. */
struct sender {
	int tx, rx, pk; /* data out; UDP replies; AF_PACKET; -1: none */
	struct endpoint local, peer;
	struct sockaddr_storage to;
	socklen_t tolen;
	uint32_t scope; /* IPv6 scope id of --to */
	size_t payload; /* UDP payload bytes of a data packet */
	struct pollfd pfd[2];
	nfds_t nfds;
	struct send_stats st;
};

static void sender_close(struct sender *s)
{
	if (s->tx >= 0)
		close(s->tx);
	if (s->rx >= 0)
		close(s->rx);
	if (s->pk >= 0)
		close(s->pk);
	free(s->st.series_bytes);
	free(s->st.series_cnps);
}

/* A UDP socket of the family of --to bound to e; reuse: SO_REUSEPORT. */
static int bound_udp_socket(const struct sender *s, const struct endpoint *e,
			    bool reuse)
{
	struct sockaddr_storage ss;
	socklen_t sl = ep_to_sa(e, s->to.ss_family, s->scope, &ss);
	char abuf[INET6_ADDRSTRLEN];
	int one = 1, fd = socket(s->to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && reuse) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		fprintf(stderr, "roce_peer: bind %s port %u: %s\n",
			ep_str(e, abuf, sizeof(abuf)), e->port,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Addresses, sockets and the rate series; 0, or 1 after a message. */
static int sender_open(struct sender *s, const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct endpoint reply_ep;
	int tos = (int)o->tos;
	size_t hdrs, n_series;

	if (!nu_parse_addr("roce_peer", o->to, &s->to, &s->tolen))
		bad_usage("bad --to", o->to);
	if (s->to.ss_family == AF_INET6)
		s->scope = ((struct sockaddr_in6 *)&s->to)->sin6_scope_id;
	ep_from_sa(&s->to, &s->peer);
	if (o->from) {
		if (!parse_ip(o->from, s->peer.family, &s->local))
			bad_usage("bad --from (same family as --to)", o->from);
	} else if (!route_source(&s->to, s->tolen, &s->local)) {
		fprintf(stderr, "roce_peer: no route to %s\n", o->to);
		return 1;
	}
	hdrs = l2_l4_len(s->peer.family);
	if (o->size < hdrs + BTH_LEN + ROCE_ICRC_LEN +
			      (o->opcode == BTH_OP_RC_WRITE_ONLY ? ROCE_RETH_LEN
								 : 0) ||
	    o->size - hdrs > RP_MAX_PAYLOAD)
		bad_usage("--size out of range for this family and opcode",
			  NULL);
	s->payload = o->size - hdrs;

	/* Data from (local, --sport): unconnected with DF, so IPv4 ID 0. */
	s->local.port = (uint16_t)o->sport;
	s->tx = bound_udp_socket(s, &s->local, false);
	if (s->tx < 0)
		return 1;
	if (getsockname(s->tx, (struct sockaddr *)&ss, &sl) == 0) {
		struct endpoint bound;

		ep_from_sa(&ss, &bound);
		s->local.port = bound.port; /* the kernel's pick */
	}
	set_df(s->tx, s->to.ss_family);
	nu_set_sockbuf(s->tx, SO_SNDBUF, RP_SOCKBUF, NULL);
	if (setsockopt(s->tx,
		       s->to.ss_family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       s->to.ss_family == AF_INET6 ? IPV6_TCLASS : IP_TOS, &tos,
		       sizeof(tos)) < 0)
		perror("roce_peer: setsockopt(TOS)");

	/* Replies come to the RoCEv2 port on our address; other senders
	 * on this host may listen there too. Without it, AF_PACKET still
	 * sees them (and the kernel answers with ICMP). */
	reply_ep = s->local;
	reply_ep.port = s->peer.port;
	s->rx = bound_udp_socket(s, &reply_ep, true);
	if (s->rx < 0 && !o->ifname)
		return 1;
	if (s->rx >= 0)
		s->pfd[s->nfds++] = (struct pollfd){s->rx, POLLIN, 0};
	if (o->ifname) {
		s->pk = open_packet_socket(o->ifname);
		if (s->pk < 0)
			return 1;
		s->pfd[s->nfds++] = (struct pollfd){s->pk, POLLIN, 0};
	}

	n_series = (size_t)((o->duration * 1e9 + (double)o->linger_ms * 1e6) /
			    (double)RP_SERIES_NS) +
		   2;
	s->st.n_series = MIN(n_series, RP_MAX_SERIES);
	s->st.series_bytes = calloc(s->st.n_series, sizeof(uint64_t));
	s->st.series_cnps = calloc(s->st.n_series, sizeof(uint64_t));
	if (!s->st.series_bytes || !s->st.series_cnps) {
		perror("roce_peer: calloc");
		return 1;
	}
	return 0;
}

static void sender_count_replies(struct sender *s, uint32_t qpn, size_t bucket)
{
	if (s->pk >= 0)
		drain_packet(s->pk, &s->st, &s->local, qpn, bucket);
	if (s->rx >= 0)
		drain_udp(s->rx, &s->st, s->pk < 0, qpn, bucket);
}

static void sender_report(const struct sender *s, const struct opts *o,
			  double secs, size_t n_series)
{
	const struct send_stats *st = &s->st;
	double bps = secs > 0 ? (double)st->sent_bytes * 8 / secs : 0;
	char abuf[INET6_ADDRSTRLEN];

	fprintf(stderr,
		"roce_peer: sent=%" PRIu64 " bytes=%" PRIu64
		" rate_mbit=%.2f acks=%" PRIu64 " cnps=%" PRIu64
		" cnps_icrc_ok=%" PRIu64 " cnps_icrc_bad=%" PRIu64
		" cnps_bad_qpn=%" PRIu64 "\n",
		st->sent_pkts, st->sent_bytes, bps / 1e6, st->acks,
		st->cnps_received, st->cnps_icrc_ok, st->cnps_icrc_bad,
		st->cnps_bad_qpn);
	if (!o->json)
		return;
	printf("{\"local\":\"%s\",\"sport\":%u,\"qpn\":%" PRIu64
	       ",\"dqpn\":%" PRIu64 ",\"sent_packets\":%" PRIu64
	       ",\"sent_bytes\":%" PRIu64 ",\"send_errors\":%" PRIu64
	       ",\"slips\":%" PRIu64 ",\"seconds\":%.6f,\"rate_bps\":%.0f"
	       ",\"acks\":%" PRIu64 ",\"acks_other_qpn\":%" PRIu64
	       ",\"acks_icrc_bad\":%" PRIu64 ",\"cnps_received\":%" PRIu64
	       ",\"cnps_icrc_ok\":%" PRIu64 ",\"cnps_icrc_bad\":%" PRIu64
	       ",\"cnps_bad_qpn\":%" PRIu64 ",\"other_rx\":%" PRIu64
	       ",\"udp_rx\":%" PRIu64 ",\"icrc_checked\":%s",
	       ep_str(&s->local, abuf, sizeof(abuf)), s->local.port, o->qpn,
	       o->dqpn, st->sent_pkts, st->sent_bytes, st->send_errors,
	       st->slips, secs, bps, st->acks, st->acks_other_qpn,
	       st->acks_icrc_bad, st->cnps_received, st->cnps_icrc_ok,
	       st->cnps_icrc_bad, st->cnps_bad_qpn, st->other_rx, st->udp_rx,
	       s->pk >= 0 ? "true" : "false");
	if (o->series) {
		printf(",\"series_ms\":100,\"series_sent_bps\":[");
		print_series(st->series_bytes, n_series,
			     8e9 / (double)RP_SERIES_NS);
		printf("],\"series_cnps\":[");
		print_series(st->series_cnps, n_series, 1);
		printf("]");
	}
	printf("}\n");
	fflush(stdout);
}

int do_send(const struct opts *o)
{
	static uint8_t bufs[RP_BATCH][RP_HEADROOM + RP_MAX_PAYLOAD];
	struct sender s = {.tx = -1, .rx = -1, .pk = -1};
	struct send_stats *st = &s.st;
	struct mmsghdr msgs[RP_BATCH];
	struct iovec iov[RP_BATCH];
	struct sockaddr_storage to;
	socklen_t tolen;
	uint64_t seq = 0, t0, end, gap_ns, next, now, linger_end;
	uint32_t qpn = (uint32_t)o->qpn;
	char abuf[INET6_ADDRSTRLEN];

	if (sender_open(&s, o)) {
		sender_close(&s);
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	tolen = ep_to_sa(&s.peer, s.to.ss_family, s.scope, &to);
	for (int i = 0; i < RP_BATCH; i++) {
		iov[i].iov_base = bufs[i] + RP_HEADROOM;
		iov[i].iov_len = s.payload;
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = tolen;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	nu_install_signals(NULL);
	fprintf(stderr, "roce_peer: sending from %s port %u\n",
		ep_str(&s.local, abuf, sizeof(abuf)), s.local.port);

	gap_ns = MAX((uint64_t)((double)o->size * 8e9 / o->rate), 1);
	t0 = next = nu_now_ns();
	end = t0 + (uint64_t)(o->duration * 1e9);
	for (now = t0; !nu_stop_requested && now < end; now = nu_now_ns()) {
		size_t bucket = series_index(st, t0, now);
		unsigned int n = 0;
		struct timespec ts;
		int k;

		if (now > next + RP_MAX_DEBT * gap_ns) {
			/* Descheduled: do not burst the backlog out. */
			next = now - RP_MAX_DEBT * gap_ns;
			st->slips++;
		}
		for (; n < RP_BATCH && next <= now; n++, seq++) {
			uint8_t *p = bufs[n] + RP_HEADROOM;
			bool ackreq = o->ackreq_every &&
				      (seq + 1) % o->ackreq_every == 0;

			build_data(p, s.payload, (uint8_t)o->opcode,
				   (uint32_t)o->dqpn, seq, ackreq);
			icrc_seal(p, s.payload, &s.local, &s.peer);
			next += gap_ns;
		}
		k = n ? sendmmsg(s.tx, msgs, n, 0) : 0;
		if (k < 0) {
			if (errno != ENOBUFS && errno != EAGAIN &&
			    errno != ECONNREFUSED && errno != EINTR) {
				perror("roce_peer: sendmmsg");
				break;
			}
			k = 0;
		}
		/* PSNs advance for packets the socket refused. */
		st->send_errors += n - (unsigned int)k;
		st->sent_pkts += (uint64_t)k;
		st->sent_bytes += (uint64_t)k * o->size;
		st->series_bytes[bucket] += (uint64_t)k * o->size;
		sender_count_replies(&s, qpn, bucket);
		now = nu_now_ns();
		if (next <= now)
			continue;
		ts = nu_ns_to_ts(MIN(MIN(next, end) - now, RP_POLL_NS));
		ppoll(s.pfd, s.nfds, &ts, NULL);
	}
	/* Replies still in flight. */
	now = nu_now_ns();
	linger_end = now + o->linger_ms * 1000000ull;
	while (!nu_stop_requested && now < linger_end) {
		struct timespec ts =
			nu_ns_to_ts(MIN(linger_end - now, RP_POLL_NS));

		ppoll(s.pfd, s.nfds, &ts, NULL);
		sender_count_replies(&s, qpn, series_index(st, t0, now));
		now = nu_now_ns();
	}
	sender_report(&s, o, (double)(MIN(end, now) - t0) / 1e9,
		      series_index(st, t0, now) + 1);
	sender_close(&s);
	return 0;
}
