// SPDX-License-Identifier: GPL-2.0
/*
 * storgen - storage cross-traffic for the collective benchmark (bench/coll):
 * bulk TCP flows and paced UDP bursts, and the receiver that counts them.
 *
 *   storgen serve --bind IP [--tcp-port 2049] [--udp-port 2050]
 *                 [--timeline FILE] [--out FILE] [--duration-s S]
 *   storgen tcp --to IP:P [--flows 8] (--bytes B | --duration-s S)
 *               [--start-at NS] [--tos N] [--prio N] [--out FILE]
 *   storgen udp --to IP:P [--burst-bytes 1Mi] [--period-ms 100] [--rate 1G]
 *               [--size 1442] --duration-s S [--start-at NS] [--tos N]
 *               [--prio N] [--sndbuf B] [--out FILE]
 *
 * One process, one thread, every mode. Ownership: all state is static and
 * owned by the main thread; buffers are fixed at start (no allocation after
 * option parsing). Signals: SIGINT/SIGTERM are blocked but inside the
 * waits (ppoll, epoll_pwait), so a signal is never lost between a check
 * and a sleep. The first signal ends the run cleanly (outputs written); in
 * tcp mode a second one skips the drain.
 *
 * Files: this one (options, outputs, addresses, waits, main),
 * storgen_serve.c, storgen_tcp.c, storgen_udp.c; storgen.h is what they
 * share. Clocks, parsing, socket buffers and signals: tests/tools/netutil.h.
 *
 * Invariants:
 * - serve: every payload byte counted in the totals is counted in exactly
 *   one timeline interval, and every interval from the start to the exit is
 *   written (zero rows included), so the rows sum to the totals.
 *   Intervals are aligned to multiples of 10 ms of CLOCK_MONOTONIC, so the
 *   timelines of several hosts line up.
 * - tcp: a flow's bytes are the bytes the kernel accepted from write(); the
 *   flow ends when the receiver closed after reading them all (EOF after
 *   our shutdown), so its bytes were delivered by its end time.
 * - udp: seq counts data datagrams handed to the kernel (sent_datagrams);
 *   a drop in a local qdisc counts as sent and shows up as lost at the
 *   receiver. Datagram k of a burst leaves no earlier than
 *   burst_start + k * size * 8 / rate.
 *
 * Outputs (JSON on one line, to --out or stdout):
 * - serve --timeline: CSV "t_ns,proto,bytes,packets,conns", two rows (tcp,
 *   udp) per 10 ms interval; t_ns is the interval's start. bytes: payload
 *   bytes read (TCP) or UDP payload bytes of data datagrams (FINs are not
 *   counted anywhere but udp_fins). packets: UDP datagrams; for TCP the data
 *   segments the kernel received (tcpi_data_segs_in), sampled when the
 *   interval closes, so they may lag the bytes by one interval. conns: open
 *   TCP connections at the end of the interval; for UDP, senders heard in
 *   it. Rows are written when the next event (or the exit) closes the
 *   interval, not by a timer: an idle receiver does not wake up.
 * - serve JSON: tcp_bytes, udp_bytes, udp_datagrams, udp_lost (see
 *   stor_proto.h), conns_accepted, conn_resets, first_byte_ns,
 *   last_byte_ns, udp one-way delay (mean, max: same clock on one machine),
 *   per UDP sender received/max_seq/expected/lost/fin.
 * - tcp JSON: per flow bytes, start/established/end ns, bps (payload
 *   bits/s over start..end), total_retrans (TCP_INFO at the end),
 *   bytes_acked; totals over the first start..last end. In --duration-s
 *   mode the flows stop writing at the deadline and end when the receiver
 *   has read what was queued (up to the socket buffers, ~0.7 s at 50 Mbit/s
 *   with 8 flows), at most 30 s later (2 s after a signal).
 * - udp JSON: sent_datagrams, sent_bytes (UDP payload), sent_frame_bytes,
 *   bursts, burst_overruns (a burst took longer than the period), the
 *   waits for socket buffer room, start/end ns.
 *
 * Exit status: 0 on success (also after SIGINT/SIGTERM); 1 on a refused or
 * reset connection, a send error or an incomplete drain (all reported on
 * stderr and in the JSON); 2 on bad usage. A UDP sender's socket is
 * connected: start the receiver first, or the ICMP port unreachable makes
 * the next send fail with ECONNREFUSED.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stor_proto.h"
#include "storgen.h"

/* --- option parsing ---------------------------------------------------- */

void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "storgen: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(storgen --help for usage)\n");
	exit(2);
}

/* A number that parses but does not fit in 64 bits. */
static void die_range(const char *opt, const char *s)
{
	fprintf(stderr,
		"storgen: %s: %s is out of range (0..%" PRIu64 ")\n"
		"(storgen --help for usage)\n",
		opt, s, UINT64_MAX);
	exit(2);
}

/*
 * A non-negative number with an optional multiplier: k M G T (x1000),
 * Ki Mi Gi Ti (x1024), then an optional unit word ("B", "bit", "bps",
 * "bit/s"). "1Mi" = 1048576, "50M" = 50000000, "1.5G" = 1500000000.
 * The result is 0..UINT64_MAX: digits alone (with a multiplier or not)
 * are exact over the whole range; other forms ("1.5G", "1e9") go through
 * a double, rounded to the nearest integer. Anything larger is refused
 * (die_range), never wrapped or saturated.
 */
static uint64_t parse_num(const char *opt, const char *s)
{
	char *end;
	double v;
	uint64_t mul = 1, iv;
	bool digits;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || !(v >= 0))
		die_usage("bad number for %s", opt);
	if (errno == ERANGE && v > 1)
		die_range(opt, s);
	if (errno)
		die_usage("bad number for %s", opt);
	digits = strspn(s, "0123456789") == (size_t)(end - s);
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1000;
		break;
	case 'm':
	case 'M':
		mul = 1000000;
		break;
	case 'g':
	case 'G':
		mul = 1000000000;
		break;
	case 't':
	case 'T':
		mul = 1000000000000ull;
		break;
	}
	if (mul != 1) {
		end++;
		if (*end == 'i') {
			mul = mul == 1000	  ? 1ull << 10
			      : mul == 1000000	  ? 1ull << 20
			      : mul == 1000000000 ? 1ull << 30
						  : 1ull << 40;
			end++;
		}
	}
	if (*end && strcmp(end, "B") && strcmp(end, "bit") &&
	    strcmp(end, "bps") && strcmp(end, "bit/s") && strcmp(end, "b"))
		die_usage("bad unit in %s", opt);
	if (digits) {
		errno = 0;
		iv = strtoull(s, NULL, 10);
		if (errno == ERANGE || __builtin_mul_overflow(iv, mul, &iv))
			die_range(opt, s);
		return iv;
	}
	v *= (double)mul;
	/* 2^64: the doubles below it are integers from 2^53 on, so rounding
	 * one never reaches it */
	if (!(v < 18446744073709551616.0))
		die_range(opt, s);
	return (uint64_t)round(v);
}

static double parse_secs(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e7)
		die_usage("%s wants a positive number of seconds", opt);
	return v;
}

bool parse_ip(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	return nu_parse_ip(NULL, s, ss, len);
}

void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static uint16_t parse_port(const char *opt, const char *s)
{
	uint64_t v;

	if (!nu_parse_u64(s, 1, 65535, &v))
		die_usage("bad port for %s", opt);
	return (uint16_t)v;
}

void parse_hostport(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	if (!nu_parse_addr("storgen", s, ss, len))
		die_usage("--to wants IP:PORT or [IPv6]:PORT, got %s", s);
}

void addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a;
	uint16_t port;

	if (ss->ss_family == AF_INET) {
		a = &((const struct sockaddr_in *)ss)->sin_addr;
		port = ntohs(((const struct sockaddr_in *)ss)->sin_port);
	} else {
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
		port = ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	}
	if (!inet_ntop(ss->ss_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	snprintf(buf + strlen(buf), len - strlen(buf), ":%u", port);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage:\n"
		"  storgen serve --bind IP [--tcp-port P(2049)] [--udp-port "
		"U(2050)]\n"
		"                [--timeline FILE] [--out FILE] "
		"[--duration-s S]\n"
		"  storgen tcp --to IP:P [--flows N(8)] (--bytes B | "
		"--duration-s S)\n"
		"              [--start-at NS] [--tos N] [--prio N] [--out "
		"FILE]\n"
		"  storgen udp --to IP:P --duration-s S [--burst-bytes "
		"B(1Mi)]\n"
		"              [--period-ms M(100)] [--rate BITS(1G)] "
		"[--size BYTES(1442)]\n"
		"              [--sndbuf B(4Mi)] [--start-at NS] [--tos N] "
		"[--prio N]\n"
		"              [--out FILE]\n"
		"Numbers (0..2^64-1) take k M G T (x1000) and Ki Mi Gi Ti "
		"(x1024). --rate\n"
		"and --size "
		"count frame bytes including 42 B of Ethernet+IPv4+UDP "
		"headers\n"
		"(over IPv6 frames are 20 B longer: payload = --size - 42);\n"
		"--burst-bytes counts frame bytes too. --start-at is an "
		"absolute\n"
		"CLOCK_MONOTONIC time in ns. Results: JSON to --out "
		"(default stdout).\n");
}

static long parse_int(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		die_usage("%s out of range", opt);
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	enum {
		O_BIND = 256,
		O_TCPP,
		O_UDPP,
		O_TL,
		O_OUT,
		O_DUR,
		O_TO,
		O_FLOWS,
		O_BYTES,
		O_START,
		O_TOS,
		O_PRIO,
		O_BURST,
		O_PERIOD,
		O_RATE,
		O_SIZE,
		O_SNDBUF
	};
	static const struct option lo[] = {
		{"bind", required_argument, NULL, O_BIND},
		{"tcp-port", required_argument, NULL, O_TCPP},
		{"udp-port", required_argument, NULL, O_UDPP},
		{"timeline", required_argument, NULL, O_TL},
		{"out", required_argument, NULL, O_OUT},
		{"duration-s", required_argument, NULL, O_DUR},
		{"to", required_argument, NULL, O_TO},
		{"flows", required_argument, NULL, O_FLOWS},
		{"bytes", required_argument, NULL, O_BYTES},
		{"start-at", required_argument, NULL, O_START},
		{"tos", required_argument, NULL, O_TOS},
		{"prio", required_argument, NULL, O_PRIO},
		{"burst-bytes", required_argument, NULL, O_BURST},
		{"period-ms", required_argument, NULL, O_PERIOD},
		{"rate", required_argument, NULL, O_RATE},
		{"size", required_argument, NULL, O_SIZE},
		{"sndbuf", required_argument, NULL, O_SNDBUF},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->tcp_port = 2049;
	o->udp_port = 2050;
	o->flows = 8;
	o->burst_bytes = 1u << 20;
	o->period_ms = 100;
	o->rate = 1000000000ull;
	o->size = 1442;
	o->sndbuf = 4u << 20;
	o->tos = -1;
	o->prio = -1;
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 &&
		    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			usage(stdout);
			exit(0);
		}
		usage(stderr);
		exit(2);
	}
	o->mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_BIND:
			o->bind = optarg;
			break;
		case O_TCPP:
			o->tcp_port = parse_port("--tcp-port", optarg);
			break;
		case O_UDPP:
			o->udp_port = parse_port("--udp-port", optarg);
			break;
		case O_TL:
			o->timeline = optarg;
			break;
		case O_OUT:
			o->out = optarg;
			break;
		case O_DUR:
			o->duration_s = parse_secs("--duration-s", optarg);
			break;
		case O_TO:
			o->to = optarg;
			break;
		case O_FLOWS:
			o->flows = (unsigned int)parse_int("--flows", optarg, 1,
							   MAX_FLOWS);
			break;
		case O_BYTES:
			o->bytes = parse_num("--bytes", optarg);
			if (!o->bytes)
				die_usage("%s must be > 0", "--bytes");
			break;
		case O_START:
			o->start_at = parse_num("--start-at", optarg);
			break;
		case O_TOS:
			o->tos = (int)parse_int("--tos", optarg, 0, 255);
			break;
		case O_PRIO:
			o->prio = (int)parse_int("--prio", optarg, 0, 65535);
			break;
		case O_BURST:
			o->burst_bytes = parse_num("--burst-bytes", optarg);
			break;
		case O_PERIOD:
			o->period_ms = (unsigned int)parse_int(
				"--period-ms", optarg, 1, 3600000);
			break;
		case O_RATE:
			o->rate = parse_num("--rate", optarg);
			if (o->rate < 1000)
				die_usage("%s must be at least 1k", "--rate");
			break;
		case O_SIZE:
			o->size = parse_num("--size", optarg);
			if (o->size < STOR_ETH_IP_UDP + STOR_HDR_LEN ||
			    o->size > UDP_MAX_FRAME)
				die_usage("%s must be 74..9014 (frame bytes)",
					  "--size");
			break;
		case O_SNDBUF:
			o->sndbuf = parse_num("--sndbuf", optarg);
			if (o->sndbuf > INT32_MAX)
				die_usage("%s too large", "--sndbuf");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc)
		die_usage("unexpected argument %s", argv[optind]);
}

/* --- outputs, socket marks, waits -------------------------------------- */

FILE *open_out(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "storgen: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
}

int close_out(FILE *f, const char *path)
{
	if (f == stdout)
		return fflush(f) ? -1 : 0;
	if (fclose(f)) {
		fprintf(stderr, "storgen: writing %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

void set_marks(int fd, int family, const struct opts *o)
{
	if (o->tos >= 0) {
		int r = family == AF_INET
				? setsockopt(fd, IPPROTO_IP, IP_TOS, &o->tos,
					     sizeof(o->tos))
				: setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS,
					     &o->tos, sizeof(o->tos));
		if (r)
			fprintf(stderr, "storgen: --tos %d: %s\n", o->tos,
				strerror(errno));
	}
	if (o->prio >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &o->prio, sizeof(o->prio)))
		fprintf(stderr, "storgen: --prio %d: %s\n", o->prio,
			strerror(errno));
}

sigset_t wait_mask;

bool get_tcp_info(int fd, struct tcp_info *ti)
{
	socklen_t l = sizeof(*ti);

	memset(ti, 0, sizeof(*ti));
	return !getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &l);
}

bool wait_until(uint64_t deadline, int fd, short ev)
{
	struct pollfd p = {.fd = fd, .events = ev};
	sig_atomic_t seen = nu_stop_requested;

	for (;;) {
		uint64_t now = nu_now_ns();
		struct timespec ts;
		int n;

		if (now >= deadline)
			return false;
		ts = nu_ns_to_ts(deadline - now);
		n = ppoll(&p, fd >= 0 ? 1 : 0, &ts, &wait_mask);
		if (nu_stop_requested != seen)
			return false;
		if (n < 0 && errno != EINTR)
			return false;
		if (n > 0 && p.revents)
			return true;
	}
}

bool wait_start(const struct opts *o)
{
	if (o->start_at && nu_now_ns() < o->start_at) {
		wait_until(o->start_at, -1, 0);
		if (nu_stop_requested)
			return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_opts(argc, argv, &o);
	nu_install_signals(&wait_mask);
	/* taken inside the waits even if the parent had them blocked */
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(o.mode, "serve"))
		return run_serve(&o);
	if (!strcmp(o.mode, "tcp"))
		return run_tcp(&o);
	if (!strcmp(o.mode, "udp"))
		return run_udp(&o);
	die_usage("unknown mode %s (serve, tcp, udp)", o.mode);
	return 2;
}