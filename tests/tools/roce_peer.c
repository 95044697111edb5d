// SPDX-License-Identifier: BSD-2-Clause
/*
 * roce_peer.c - a synthetic RoCEv2 endpoint for the integration tests: a
 * constant-rate RC sender that counts the ACKs and CNPs coming back (and
 * checks the ICRC of every CNP), and a receiver that reads the ECN field of
 * every datagram, acknowledges like an RC responder and answers CE marks
 * with CNPs like a NIC's notification point.
 *
 *   roce_peer send --to ADDR:PORT --qpn SRC_QPN --dqpn DST_QPN
 *                  --rate BITS/S --size BYTES --duration SEC [options]
 *   roce_peer recv --bind ADDR:PORT --peer-qpn QPN [options]
 *   roce_peer selftest
 *
 * Plain UDP sockets carry everything; the sender additionally opens an
 * AF_PACKET socket on --ifname to see whole frames, which the ICRC check
 * needs (it covers the IP header). Ownership: one thread, no shared state
 * besides the SIGINT/SIGTERM flag; memory is bounded (fixed batches, a flow
 * table of RP_MAX_FLOWS, a rate series of at most RP_MAX_SERIES buckets).
 *
 * Packets (RoCEv2 over UDP, destination port 4791 unless told otherwise):
 *   data  BTH(op 0x0a WRITE ONLY or 0x04 SEND ONLY, P_Key 0xffff, M=1,
 *         dest QP = --dqpn, PSN 0, 1, 2, ... mod 2^24, AckReq on every
 *         --ackreq-every'th) [RETH for WRITE: VA 0, R_Key 0, length]
 *         then the 64-bit sequence number and filler, then the ICRC.
 *   ACK   BTH(op 0x11, dest QP = --peer-qpn, PSN = the acked data PSN),
 *         AETH(syndrome 0x1f: ACK, credits not given; MSN = data packets
 *         of the flow so far), ICRC.
 *   CNP   BTH(op 0x81, BECN, dest QP = --peer-qpn, PSN 0), 16 zero bytes,
 *         ICRC.
 * Every ICRC is computed for the IP and UDP headers the kernel will put in
 * front: the sockets are unconnected with DF set (IP_PMTUDISC_DO), so Linux
 * sends IPv4 identification 0; TOS/TTL/flow label are outside the ICRC.
 *
 * Sizes and rates count Ethernet frame bytes without FCS, as flowgen does:
 * UDP payload + 42 over IPv4, + 62 over IPv6.
 *
 * send --json (one object on stdout): local, sport (the data's UDP source
 * port), qpn, dqpn, sent_packets, sent_bytes, send_errors (refused by the
 * socket; their PSNs are skipped), slips (pacing fell more than 64 packets
 * behind and the backlog was dropped), seconds, rate_bps; replies to our
 * address: acks (ACKs for --qpn), acks_other_qpn, acks_icrc_bad,
 * cnps_received, cnps_icrc_ok, cnps_icrc_bad, cnps_bad_qpn (dest QP not
 * --qpn), other_rx, udp_rx (datagrams the UDP socket drained),
 * icrc_checked (false without --ifname: ICRC counts stay 0); with --series
 * also series_ms (100), series_sent_bps[] and series_cnps[].
 * Two senders sharing one (local address, peer address) pair see each
 * other's CNPs as cnps_bad_qpn: give each its own --from address.
 *
 * recv --json: packets, bytes (data only), ce_marked, ecn{not_ect, ect1,
 * ect0, ce}, acks_sent, cnps_sent, cnps_suppressed (CE marks inside a
 * flow's interval), non_data (ACKs, CNPs, other opcodes: not counted as
 * data), malformed (shorter than a BTH), send_errors, flows_overflow
 * (packets of flows beyond the first RP_MAX_FLOWS: counted in the totals,
 * never answered) and flows[] {src, sport, packets, bytes, ce_marked,
 * acks_sent, cnps_sent, cnps_suppressed, last_psn}. Data opcodes are the
 * RC SEND and RDMA WRITE ones (0x00-0x0b).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include "netutil.h"
#include "pkt_parse.h"
#include "roce.h"
#include "roce_udp.h"

#define RP_MAX_PAYLOAD 9000
#define RP_HEADROOM 48 /* pseudo IPv6 (40) + UDP (8) header for the ICRC */
#define RP_BATCH 32
#define RP_MAX_DEBT 64 /* largest catch-up burst, packets */
#define RP_MAX_FLOWS 256
#define RP_FLOW_SLOTS 512 /* open addressing, at most half full */
#define RP_SERIES_NS (100 * 1000 * 1000ull)
#define RP_MAX_DURATION 3600.0 /* seconds */
#define RP_MAX_SERIES ((size_t)(RP_MAX_DURATION * 10) + 64)
#define RP_DEF_ACKREQ_EVERY 8
#define RP_DEF_ACK_EVERY 8
#define RP_DEF_CNP_INTERVAL_US 50
#define RP_DEF_LINGER_MS 200
#define RP_DEF_TOS 0x6a /* DSCP 26, ECT(0) */
#define RP_FRAME_MAX 65536
#define RP_SOCKBUF (8 << 20)
/* Longest wait in ppoll(). SIGINT/SIGTERM are not blocked: a signal that
 * lands just before a wait is seen at most this late. */
#define RP_POLL_NS (100 * 1000 * 1000ull)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- addresses and the pseudo headers the ICRC covers ---- */

/* An IP address and port; IPv4 in addr[0..4), the rest zero. */
struct endpoint {
	int family; /* 4 or 6 */
	uint8_t addr[16];
	uint16_t port;
};

static bool ep_equal_addr(const struct endpoint *a, const struct endpoint *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, 16);
}

/* From a socket address; an IPv4-mapped IPv6 address becomes IPv4. */
static void ep_from_sa(const struct sockaddr_storage *ss, struct endpoint *e)
{
	memset(e, 0, sizeof(*e));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		e->family = 4;
		memcpy(e->addr, &s4->sin_addr, 4);
		e->port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		e->port = ntohs(s6->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			e->family = 4;
			memcpy(e->addr, s6->sin6_addr.s6_addr + 12, 4);
		} else {
			e->family = 6;
			memcpy(e->addr, &s6->sin6_addr, 16);
		}
	}
}

/* To a socket address of the socket's family (IPv4 on an IPv6 socket:
 * mapped). scope: IPv6 scope id for link-local peers. */
static socklen_t ep_to_sa(const struct endpoint *e, int sock_family,
			  uint32_t scope, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (sock_family == AF_INET) {
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, e->addr, 4);
		s4->sin_port = htons(e->port);
		return sizeof(*s4);
	}
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(e->port);
	s6->sin6_scope_id = scope;
	if (e->family == 4) {
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(s6->sin6_addr.s6_addr + 12, e->addr, 4);
	} else {
		memcpy(&s6->sin6_addr, e->addr, 16);
	}
	return sizeof(*s6);
}

static const char *ep_str(const struct endpoint *e, char *buf, size_t n)
{
	if (!inet_ntop(e->family == 4 ? AF_INET : AF_INET6, e->addr, buf,
		       (socklen_t)n))
		snprintf(buf, n, "?");
	return buf;
}

static size_t l2_l4_len(int family)
{
	return family == 4 ? 42 : 62; /* Ethernet 14 + IP + UDP 8 */
}

static size_t pseudo_hdr_len(int family)
{
	return roce_udp_pseudo_len(family);
}

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static struct roce_udp_ep udp_ep(const struct endpoint *e)
{
	struct roce_udp_ep u = {.family = e->family, .port = e->port};

	memcpy(u.addr, e->addr, sizeof(u.addr));
	return u;
}

/* The IP + UDP header as the ICRC sees it (roce_udp.h). */
static void write_pseudo_hdr(uint8_t *h, const struct endpoint *src,
			     const struct endpoint *dst, size_t n)
{
	struct roce_udp_ep s = udp_ep(src), d = udp_ep(dst);

	roce_udp_pseudo_hdr(h, &s, &d, n);
}

/*
 * Fill the last 4 bytes of the UDP payload p[0..n) with its ICRC. p must
 * have RP_HEADROOM writable bytes before it (the pseudo header goes there).
 */
static bool icrc_seal(uint8_t *p, size_t n, const struct endpoint *src,
		      const struct endpoint *dst)
{
	struct roce_udp_ep s = udp_ep(src), d = udp_ep(dst);

	return roce_udp_seal(p, n, &s, &d);
}

/* ---- reply payloads (receiver) ---- */

#define RP_ACK_LEN (BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN)
#define RP_CNP_LEN (BTH_LEN + ROCE_CNP_PAD_LEN + ROCE_ICRC_LEN)

static size_t build_ack(uint8_t *p, uint32_t dqpn, uint32_t psn, uint32_t msn)
{
	bth_write(p, BTH_OP_RC_ACK, ROCE_PKEY_DEFAULT, dqpn, psn, 0);
	p[BTH_LEN] = ROCE_AETH_SYNDROME_ACK;
	p[BTH_LEN + 1] = (uint8_t)(msn >> 16);
	wr16(p + BTH_LEN + 2, msn);
	return RP_ACK_LEN;
}

static size_t build_cnp_payload(uint8_t *p, uint32_t dqpn)
{
	bth_write(p, BTH_OP_CNP, ROCE_PKEY_DEFAULT, dqpn, 0, BTH_W_BECN);
	memset(p + BTH_LEN, 0, ROCE_CNP_PAD_LEN);
	return RP_CNP_LEN;
}

/* ---- options ---- */

struct opts {
	const char *to, *from, *bind, *ifname;
	uint64_t qpn, dqpn, peer_qpn, size, tos, opcode, ackreq_every, sport;
	uint64_t ack_every, cnp_interval_us, reply_port, linger_ms;
	double rate, duration;
	bool have_qpn, have_dqpn, have_peer_qpn, have_sport, cnp_on_ce;
	bool json, series, follow_cnp;
};

static const char usage_text[] =
	"usage: roce_peer send --to ADDR:PORT --qpn SRC_QPN --dqpn DST_QPN\n"
	"                      --rate BITS/S --size BYTES --duration SEC\n"
	"                      [--from IP] [--sport N] [--tos N]\n"
	"                      [--opcode write|send] [--ackreq-every K]\n"
	"                      [--ifname IF] [--linger-ms MS] [--series]\n"
	"                      [--follow-cnp] [--json]\n"
	"       roce_peer recv --bind ADDR:PORT --peer-qpn QPN\n"
	"                      [--ack-every N] [--cnp-on-ce]\n"
	"                      [--cnp-interval-us US] [--reply-port N]\n"
	"                      [--duration SEC] [--json]\n"
	"       roce_peer selftest\n"
	"\n"
	"ADDR:PORT is numeric: 10.77.0.2:4791 or [fd77::2]:4791. Numbers are\n"
	"decimal or 0x hex; rates take k, M, G (10^3, 10^6, 10^9).\n"
	"send: constant-rate RC data (WRITE ONLY 0x0a, or SEND ONLY 0x04)\n"
	"  to --to with dest QP --dqpn, PSN 0, 1, ..., AckReq on every K'th\n"
	"  (default 8; 0 never), TOS --tos (default 0x6a: DSCP 26, ECT(0)),\n"
	"  from --from (default: the route's source) and UDP port --sport\n"
	"  (default: any). --size is the Ethernet frame (UDP payload + 42\n"
	"  over IPv4, + 62 over IPv6), --rate counts frame bits. Listens on\n"
	"  --from:PORT (SO_REUSEPORT) for ACKs (0x11) and CNPs (0x81). With\n"
	"  --ifname it counts them from whole frames on that interface\n"
	"  (AF_PACKET, needs CAP_NET_RAW), checks every CNP's ICRC and its\n"
	"  dest QP against --qpn; without, it counts what the UDP socket\n"
	"  gets and cannot check ICRCs. After --duration it keeps listening\n"
	"  --linger-ms (default 200). --series adds per-100 ms sent rates\n"
	"  and CNP counts. --follow-cnp is accepted and changes nothing: the\n"
	"  gateway is the reaction point, this is a constant-rate source.\n"
	"recv: counts data per (source IP, UDP port) and the ECN field of\n"
	"  every datagram; every N'th data packet of a flow (--ack-every,\n"
	"  default 8; 0 never) is answered with an ACK for its PSN, sent to\n"
	"  (source IP, --reply-port, default the bound port) with dest QP\n"
	"  --peer-qpn. --cnp-on-ce answers a CE-marked packet with a CNP to\n"
	"  the same place, at most one per flow per --cnp-interval-us\n"
	"  (default 50). Runs --duration SEC (default 0: until a signal).\n"
	"Both stop on SIGINT/SIGTERM and print a summary on stderr and, with\n"
	"--json, one JSON object on stdout. Exit status: 0 done, 1 error,\n"
	"2 bad usage.\n";

__attribute__((noreturn)) static void bad_usage(const char *msg,
						const char *arg)
{
	if (msg)
		fprintf(stderr, "roce_peer: %s%s%s\n", msg, arg ? ": " : "",
			arg ? arg : "");
	fputs(usage_text, stderr);
	exit(2);
}

/* Decimal or 0x hex, no sign or blanks, lo <= v <= hi. */
static bool parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end,
		     s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno || *end || end == s || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* A positive number with an optional k / M / G suffix. */
static bool parse_rate(const char *s, double *out)
{
	char *end;
	double v, mul = 1;

	if (!s || ((*s < '0' || *s > '9') && *s != '.'))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return false;
	if (*end == 'k' || *end == 'K')
		mul = 1e3;
	else if (*end == 'M')
		mul = 1e6;
	else if (*end == 'G')
		mul = 1e9;
	if (mul != 1)
		end++;
	if (*end || !isfinite(v) || v <= 0)
		return false;
	*out = v * mul;
	return true;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || ((*s < '0' || *s > '9') && *s != '.'))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v < 0 ||
	    v > RP_MAX_DURATION)
		return false;
	*out = v;
	return true;
}

/* A bare numeric IP of the given family (4 or 6). */
static bool parse_ip(const char *s, int family, struct endpoint *e)
{
	memset(e->addr, 0, sizeof(e->addr));
	e->family = family;
	return inet_pton(family == 4 ? AF_INET : AF_INET6, s, e->addr) == 1;
}

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

static void set_df(int fd, int family)
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

/* Payload layout of a data packet; the sequence number after the headers
 * when it fits. */
static void build_data(uint8_t *p, size_t n, uint8_t opcode, uint32_t dqpn,
		       uint64_t seq, bool ackreq)
{
	size_t off = BTH_LEN;

	bth_write(p, opcode, ROCE_PKEY_DEFAULT, dqpn, (uint32_t)seq,
		  BTH_W_MIGREQ | (ackreq ? BTH_W_ACKREQ : 0));
	if (opcode == BTH_OP_RC_WRITE_ONLY) {
		uint32_t dma_len =
			(uint32_t)(n - BTH_LEN - ROCE_RETH_LEN - ROCE_ICRC_LEN);

		memset(p + off, 0, 12); /* virtual address, R_Key */
		nu_put_be32(p + off + 12, dma_len);
		off += ROCE_RETH_LEN;
	}
	if (off + 8 + ROCE_ICRC_LEN <= n) {
		nu_put_be32(p + off, (uint32_t)(seq >> 32));
		nu_put_be32(p + off + 4, (uint32_t)seq);
	}
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

static int do_send(const struct opts *o)
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

/* ---- recv ---- */

struct flow {
	bool used;
	struct endpoint src; /* sender address and UDP source port */
	uint64_t packets, bytes, ce, acks, cnps, cnps_suppressed;
	uint64_t last_cnp_ns;
	uint32_t since_ack, msn, last_psn;
	bool cnp_sent;
};

struct flow_table {
	struct flow slot[RP_FLOW_SLOTS];
	unsigned int n;
	uint64_t overflow; /* packets of flows that did not fit */
};

static uint32_t flow_hash(const struct endpoint *e)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ e->addr[i]) * 16777619u;
	h = (h ^ e->port) * 16777619u;
	return h ^ (h >> 15);
}

/* The flow of e, created if new and there is room; NULL when full. */
static struct flow *flow_get(struct flow_table *t, const struct endpoint *e)
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
static bool np_allow(struct flow *f, uint64_t now, uint64_t interval)
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

static int do_recv(const struct opts *o)
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

/* ---- selftest ---- */

static int st_fail;
static unsigned int st_checks;

static void st_expect(bool cond, const char *what, uint64_t a)
{
	st_checks++;
	if (!cond) {
		st_fail++;
		fprintf(stderr, "roce_peer: selftest FAIL: %s (%" PRIu64 ")\n",
			what, a);
	}
}

/*
 * The frame the kernel would build around a UDP payload built here: the
 * pseudo header with Ethernet in front. Returns its length.
 */
static size_t frame_around(uint8_t *f, const uint8_t *payload, size_t n,
			   const struct endpoint *src,
			   const struct endpoint *dst)
{
	size_t hl = pseudo_hdr_len(src->family);

	memset(f, 0, 12);
	wr16(f + 12, src->family == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6);
	write_pseudo_hdr(f + 14, src, dst, n);
	f[14 + (src->family == 4 ? 8 : 7)] = 64; /* TTL / hop limit */
	memcpy(f + 14 + hl, payload, n);
	return 14 + hl + n;
}

static int do_selftest(void)
{
	static uint8_t buf[RP_HEADROOM + RP_MAX_PAYLOAD];
	static uint8_t frame[RP_MAX_PAYLOAD + 128];
	static struct flow_table t;
	uint8_t *p = buf + RP_HEADROOM;
	struct endpoint a4 = {4, {10, 77, 0, 1}, 4791};
	struct endpoint b4 = {4, {10, 77, 0, 2}, 4791};
	struct endpoint a6 = {6, {0xfd, 0x77, [15] = 1}, 4791};
	struct endpoint b6 = {6, {0xfd, 0x77, [15] = 2}, 4791};
	size_t n, fl;

	/* The module against the golden CNP of tests/unit/test_roce.c. */
	{
		static const uint8_t icrc[4] = {0xda, 0xfc, 0x1b, 0xef};
		struct cnp_spec s;
		uint8_t f[ROCE_CNP_MAX_LEN];

		roce_cnp_spec_default(&s);
		memcpy(s.src_ip, (const uint8_t[]){22, 22, 22, 8}, 4);
		memcpy(s.dst_ip, (const uint8_t[]){22, 22, 22, 7}, 4);
		s.dscp = 34;
		s.ecn = 1;
		s.ttl = 0x20;
		s.ip_id = 0x98c6;
		s.udp_sport = 56238;
		s.dest_qpn = 0xd2;
		n = roce_build_cnp(f, sizeof(f), &s);
		st_expect(n == 74, "golden CNP length", n);
		st_expect(!memcmp(f + 70, icrc, 4), "golden ICRC",
			  roce_icrc_get(f + 70));
		st_expect(f[24] == 0x69 && f[25] == 0x27, "golden checksum",
			  f[24]);
		st_expect(roce_icrc_valid(f, n), "golden valid", n);
	}

	/* A reply CNP built here equals the module's CNP with the IP ID and
	 * UDP ports the kernel uses, for both families. */
	for (int v = 0; v < 2; v++) {
		const struct endpoint *src = v ? &a6 : &a4;
		const struct endpoint *dst = v ? &b6 : &b4;
		struct cnp_spec s;
		uint8_t f[ROCE_CNP_MAX_LEN];
		size_t hl = pseudo_hdr_len(src->family);

		roce_cnp_spec_default(&s);
		s.family = src->family;
		memcpy(s.src_ip, src->addr, 16);
		memcpy(s.dst_ip, dst->addr, 16);
		s.udp_sport = src->port;
		s.dest_qpn = 0x123456;
		fl = roce_build_cnp(f, sizeof(f), &s);
		n = build_cnp_payload(p, 0x123456);
		st_expect(icrc_seal(p, n, src, dst), "seal CNP", (uint64_t)v);
		st_expect(fl == 14 + hl + n && !memcmp(f + 14 + hl, p, n),
			  "reply CNP == roce_build_cnp", (uint64_t)v);
		fl = frame_around(frame, p, n, src, dst);
		st_expect(roce_icrc_valid(frame, fl), "reply CNP valid", fl);
	}

	/* ACK and data packets: valid ICRC, and one changed byte breaks
	 * it; fields read back. */
	for (int v = 0; v < 2; v++) {
		const struct endpoint *src = v ? &a6 : &a4;
		const struct endpoint *dst = v ? &b6 : &b4;
		struct pkt_meta m;

		n = build_ack(p, 0xabcdef, 0x123456, 7);
		st_expect(icrc_seal(p, n, src, dst), "seal ACK", 0);
		fl = frame_around(frame, p, n, src, dst);
		st_expect(roce_icrc_valid(frame, fl), "ACK valid", fl);
		st_expect(pkt_parse(frame, (uint32_t)fl, &m) == PKT_OK &&
				  m.bth_opcode == BTH_OP_RC_ACK &&
				  m.bth_dqpn == 0xabcdef &&
				  m.bth_psn == 0x123456,
			  "ACK fields", m.bth_psn);
		st_expect(frame[fl - 8] == 0x1f && frame[fl - 5] == 7, "AETH",
			  frame[fl - 5]);

		for (int op = 0; op < 2; op++) {
			uint8_t opc =
				op ? BTH_OP_RC_SEND_ONLY : BTH_OP_RC_WRITE_ONLY;

			n = 1000;
			build_data(p, n, opc, 0x11, 0x1000005, true);
			st_expect(icrc_seal(p, n, src, dst), "seal data", 0);
			fl = frame_around(frame, p, n, src, dst);
			st_expect(roce_icrc_valid(frame, fl), "data valid", fl);
			st_expect(pkt_parse(frame, (uint32_t)fl, &m) ==
						  PKT_OK &&
					  m.bth_opcode == opc &&
					  m.bth_psn == 0x000005 &&
					  (m.bth_flags & PKT_BTH_ACKREQ),
				  "data fields", m.bth_psn);
			frame[fl - 100] ^= 0x20;
			st_expect(!roce_icrc_valid(frame, fl),
				  "payload change caught", fl);
		}
	}

	/* Sealing refuses what it cannot describe. */
	st_expect(!icrc_seal(p, 15, &a4, &b4), "short payload refused", 15);
	st_expect(!icrc_seal(p, 100, &a4, &b6), "mixed families refused", 0);

	/* The flow table is bounded; a full one counts and refuses. */
	for (unsigned int i = 0; i < RP_MAX_FLOWS + 10; i++) {
		struct endpoint e = a4;

		e.port = (uint16_t)(1000 + i);
		flow_get(&t, &e);
	}
	st_expect(t.n == RP_MAX_FLOWS, "flows bounded", t.n);
	st_expect(t.overflow == 10, "overflow counted", t.overflow);
	{
		struct endpoint e = a4;
		struct flow *f1, *f2;

		e.port = 1000;
		f1 = flow_get(&t, &e);
		f2 = flow_get(&t, &e);
		st_expect(f1 && f1 == f2 && f1->src.port == 1000,
			  "flow found again", 0);
		/* NP: first mark at once, then one per interval. */
		st_expect(np_allow(f1, 1000000, 50000), "first CNP", 0);
		st_expect(!np_allow(f1, 1049999, 50000), "inside interval", 0);
		st_expect(np_allow(f1, 1050000, 50000), "interval over", 0);
		st_expect(f1->cnps_suppressed == 1, "suppressed counted",
			  f1->cnps_suppressed);
	}

	/* Option parsing. */
	{
		uint64_t u = 0;
		double d = 0;

		st_expect(parse_uint("0x6a", 0, 255, &u) && u == 0x6a, "hex",
			  u);
		st_expect(parse_uint("4791", 0, 65535, &u) && u == 4791,
			  "decimal", u);
		st_expect(!parse_uint("0x1000000", 0, 0xffffff, &u),
			  "24-bit bound", 0);
		st_expect(!parse_uint("-1", 0, 10, &u) &&
				  !parse_uint("1x", 0, 10, &u) &&
				  !parse_uint("", 0, 10, &u),
			  "junk refused", 0);
		st_expect(parse_rate("2.5G", &d) && d == 2.5e9, "rate G", 0);
		st_expect(parse_rate("800M", &d) && d == 8e8, "rate M", 0);
		st_expect(!parse_rate("0", &d) && !parse_rate("1T", &d) &&
				  !parse_rate("G", &d),
			  "bad rates refused", 0);
		st_expect(!parse_seconds("3601", &d) &&
				  parse_seconds("0.5", &d),
			  "seconds", 0);
	}

	if (st_fail) {
		fprintf(stderr, "roce_peer: selftest FAILED: %d of %u checks\n",
			st_fail, st_checks);
		return 1;
	}
	printf("roce_peer: selftest ok (%u checks)\n", st_checks);
	return 0;
}

/* ---- main ---- */

enum {
	OPT_TO = 256,
	OPT_FROM,
	OPT_BIND,
	OPT_IFNAME,
	OPT_QPN,
	OPT_DQPN,
	OPT_PEER_QPN,
	OPT_RATE,
	OPT_SIZE,
	OPT_DURATION,
	OPT_TOS,
	OPT_SPORT,
	OPT_OPCODE,
	OPT_ACKREQ_EVERY,
	OPT_ACK_EVERY,
	OPT_CNP_ON_CE,
	OPT_CNP_INTERVAL,
	OPT_REPLY_PORT,
	OPT_LINGER,
	OPT_SERIES,
	OPT_FOLLOW_CNP,
	OPT_JSON,
};

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"to", required_argument, NULL, OPT_TO},
		{"from", required_argument, NULL, OPT_FROM},
		{"bind", required_argument, NULL, OPT_BIND},
		{"ifname", required_argument, NULL, OPT_IFNAME},
		{"qpn", required_argument, NULL, OPT_QPN},
		{"dqpn", required_argument, NULL, OPT_DQPN},
		{"peer-qpn", required_argument, NULL, OPT_PEER_QPN},
		{"rate", required_argument, NULL, OPT_RATE},
		{"size", required_argument, NULL, OPT_SIZE},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"tos", required_argument, NULL, OPT_TOS},
		{"sport", required_argument, NULL, OPT_SPORT},
		{"opcode", required_argument, NULL, OPT_OPCODE},
		{"ackreq-every", required_argument, NULL, OPT_ACKREQ_EVERY},
		{"ack-every", required_argument, NULL, OPT_ACK_EVERY},
		{"cnp-on-ce", no_argument, NULL, OPT_CNP_ON_CE},
		{"cnp-interval-us", required_argument, NULL, OPT_CNP_INTERVAL},
		{"reply-port", required_argument, NULL, OPT_REPLY_PORT},
		{"linger-ms", required_argument, NULL, OPT_LINGER},
		{"series", no_argument, NULL, OPT_SERIES},
		{"follow-cnp", no_argument, NULL, OPT_FOLLOW_CNP},
		{"json", no_argument, NULL, OPT_JSON},
		{0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case OPT_TO:
			o->to = optarg;
			break;
		case OPT_FROM:
			o->from = optarg;
			break;
		case OPT_BIND:
			o->bind = optarg;
			break;
		case OPT_IFNAME:
			o->ifname = optarg;
			break;
		case OPT_QPN:
			ok = parse_uint(optarg, 0, ROCE_QPN_MASK, &o->qpn);
			o->have_qpn = true;
			break;
		case OPT_DQPN:
			ok = parse_uint(optarg, 0, ROCE_QPN_MASK, &o->dqpn);
			o->have_dqpn = true;
			break;
		case OPT_PEER_QPN:
			ok = parse_uint(optarg, 0, ROCE_QPN_MASK, &o->peer_qpn);
			o->have_peer_qpn = true;
			break;
		case OPT_RATE:
			ok = parse_rate(optarg, &o->rate);
			break;
		case OPT_SIZE:
			ok = parse_uint(optarg, 1, 65535, &o->size);
			break;
		case OPT_DURATION:
			ok = parse_seconds(optarg, &o->duration);
			break;
		case OPT_TOS:
			ok = parse_uint(optarg, 0, 255, &o->tos);
			break;
		case OPT_SPORT:
			ok = parse_uint(optarg, 1, 65535, &o->sport);
			break;
		case OPT_OPCODE:
			if (!strcmp(optarg, "write"))
				o->opcode = BTH_OP_RC_WRITE_ONLY;
			else if (!strcmp(optarg, "send"))
				o->opcode = BTH_OP_RC_SEND_ONLY;
			else
				ok = parse_uint(optarg, 0, 0x0b, &o->opcode) &&
				     (o->opcode == BTH_OP_RC_WRITE_ONLY ||
				      o->opcode == BTH_OP_RC_SEND_ONLY);
			break;
		case OPT_ACKREQ_EVERY:
			ok = parse_uint(optarg, 0, 1u << 30, &o->ackreq_every);
			break;
		case OPT_ACK_EVERY:
			ok = parse_uint(optarg, 0, 1u << 30, &o->ack_every);
			break;
		case OPT_CNP_ON_CE:
			o->cnp_on_ce = true;
			break;
		case OPT_CNP_INTERVAL:
			ok = parse_uint(optarg, 0, 1000000,
					&o->cnp_interval_us);
			break;
		case OPT_REPLY_PORT:
			ok = parse_uint(optarg, 1, 65535, &o->reply_port);
			break;
		case OPT_LINGER:
			ok = parse_uint(optarg, 0, 60000, &o->linger_ms);
			break;
		case OPT_SERIES:
			o->series = true;
			break;
		case OPT_FOLLOW_CNP:
			o->follow_cnp = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		default:
			bad_usage(NULL, NULL);
		}
		if (!ok)
			bad_usage("bad value", optarg);
	}
	if (optind != argc)
		bad_usage("unexpected argument", argv[optind]);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.tos = RP_DEF_TOS,
		.opcode = BTH_OP_RC_WRITE_ONLY,
		.ackreq_every = RP_DEF_ACKREQ_EVERY,
		.ack_every = RP_DEF_ACK_EVERY,
		.cnp_interval_us = RP_DEF_CNP_INTERVAL_US,
		.linger_ms = RP_DEF_LINGER_MS,
	};

	if (argc < 2)
		bad_usage(NULL, NULL);
	if (!strcmp(argv[1], "selftest"))
		return do_selftest();
	parse_opts(argc - 1, argv + 1, &o);
	if (!strcmp(argv[1], "send")) {
		if (!o.to || !o.have_qpn || !o.have_dqpn || o.rate <= 0 ||
		    !o.size || o.duration <= 0)
			bad_usage("send needs --to, --qpn, --dqpn, --rate, "
				  "--size and --duration",
				  NULL);
		return do_send(&o);
	}
	if (!strcmp(argv[1], "recv")) {
		if (!o.bind || !o.have_peer_qpn)
			bad_usage("recv needs --bind and --peer-qpn", NULL);
		if (!o.reply_port) {
			struct sockaddr_storage ss;
			socklen_t sl;
			struct endpoint e;

			if (!nu_parse_addr("roce_peer", o.bind, &ss, &sl))
				bad_usage("bad --bind", o.bind);
			ep_from_sa(&ss, &e);
			o.reply_port = e.port;
		}
		return do_recv(&o);
	}
	bad_usage("unknown mode", argv[1]);
}
