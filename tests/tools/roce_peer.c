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
#include "roce_peer.h"

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

void bad_usage(const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, "roce_peer: %s%s%s\n", msg, arg ? ": " : "",
			arg ? arg : "");
	fputs(usage_text, stderr);
	exit(2);
}

/* Decimal or 0x hex, no sign or blanks, lo <= v <= hi. */
bool parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
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
bool parse_rate(const char *s, double *out)
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

bool parse_seconds(const char *s, double *out)
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
bool parse_ip(const char *s, int family, struct endpoint *e)
{
	memset(e->addr, 0, sizeof(e->addr));
	e->family = family;
	return inet_pton(family == 4 ? AF_INET : AF_INET6, s, e->addr) == 1;
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
