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
 * option parsing). Signals: SIGINT/SIGTERM are blocked and read from a
 * signalfd that every wait (epoll, ppoll) includes, so a signal is never
 * lost between a check and a sleep. The first signal ends the run cleanly
 * (outputs written); in tcp mode a second one skips the drain.
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
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/tcp.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "stor_proto.h"

#define NSEC 1000000000ull
#define TL_IV_NS 10000000ull /* timeline interval: 10 ms */
#define RBUF_LEN (1u << 20) /* TCP read buffer */
#define WBUF_LEN (1u << 20) /* TCP write chunk */
#define MAX_CONNS 1024 /* serve: open TCP connections */
#define MAX_SRCS 256 /* serve: UDP senders tracked for loss */
#define MAX_FLOWS 256 /* tcp: parallel flows */
#define UDP_BATCH 64 /* recvmmsg / sendmmsg batch */
#define UDP_MAX_DGRAM 9216
#define UDP_MAX_FRAME (9000 + 14) /* MTU 9000 + Ethernet header */
#define PACE_MIN_SLEEP_NS 250000ull /* at most 4000 wake-ups/s in a burst */
#define DRAIN_NS (30 * NSEC) /* tcp: wait for the receiver after the end */
#define DRAIN_SIG_NS (2 * NSEC) /* ... after a signal */

static int sigfd = -1;
static int nsig; /* signals received */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static void drain_sigfd(void)
{
	struct signalfd_siginfo si;

	while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		nsig++;
}

/*
 * Sleep until deadline (CLOCK_MONOTONIC ns) or until fd (if >= 0) has
 * events ev, whichever comes first; a signal ends the wait too.
 * Returns true if fd became ready.
 */
static bool wait_until(uint64_t deadline, int fd, short ev)
{
	struct pollfd p[2] = {{.fd = sigfd, .events = POLLIN},
			      {.fd = fd, .events = ev}};

	for (;;) {
		uint64_t now = mono_ns();
		struct timespec ts;
		int n;

		if (now >= deadline)
			return false;
		ts.tv_sec = (time_t)((deadline - now) / NSEC);
		ts.tv_nsec = (long)((deadline - now) % NSEC);
		n = ppoll(p, fd >= 0 ? 2 : 1, &ts, NULL);
		if (n < 0 && errno != EINTR)
			return false;
		if (n <= 0)
			continue;
		if (p[0].revents) {
			drain_sigfd();
			return false;
		}
		if (fd >= 0 && p[1].revents)
			return true;
	}
}

/* --- option parsing ---------------------------------------------------- */

static void die_usage(const char *fmt, const char *arg)
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

/* sockaddr of "IPv4" / "IPv6" (port set separately) */
static bool parse_ip(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		*len = sizeof(*a4);
		return true;
	}
	if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		*len = sizeof(*a6);
		return true;
	}
	return false;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static uint16_t parse_port(const char *opt, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > 65535)
		die_usage("bad port for %s", opt);
	return (uint16_t)v;
}

/* "IP:P", "[IPv6]:P" */
static void parse_hostport(const char *s, struct sockaddr_storage *ss,
			   socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	size_t hl;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':')
			die_usage("--to wants IP:PORT or [IPv6]:PORT, got %s",
				  s);
		hl = (size_t)(rb - s - 1);
		if (hl >= sizeof(host))
			die_usage("bad address %s", s);
		memcpy(host, s + 1, hl);
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			die_usage("--to wants IP:PORT, got %s", s);
		hl = (size_t)(colon - s);
		if (hl >= sizeof(host))
			die_usage("bad address %s", s);
		memcpy(host, s, hl);
	}
	host[hl] = 0;
	if (!parse_ip(host, ss, len))
		die_usage("bad IP address in %s", s);
	set_port(ss, parse_port("--to", colon + 1));
}

static void addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
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

struct opts {
	const char *mode;
	const char *bind, *to, *timeline, *out;
	uint16_t tcp_port, udp_port;
	double duration_s; /* 0: none */
	uint64_t start_at, bytes, burst_bytes, rate, size, sndbuf;
	unsigned int flows, period_ms;
	int tos, prio;
};

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

static FILE *open_out(const char *path)
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

static int close_out(FILE *f, const char *path)
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

/* Socket marks for the testbed: IP TOS (DSCP/ECN byte), SO_PRIORITY. */
static void set_marks(int fd, int family, const struct opts *o)
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

/* Sleep until --start-at; false if a signal came first. */
static bool wait_start(const struct opts *o)
{
	if (o->start_at && mono_ns() < o->start_at) {
		wait_until(o->start_at, -1, 0);
		if (nsig)
			return false;
	}
	return true;
}

/* --- serve ------------------------------------------------------------- */

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
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &l))
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
		ev.data.u64 = 3 + i;
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
		note_bytes(mono_ns());
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
		now = mono_ns();
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
	if (type == SOCK_DGRAM) {
		int rb = 8 << 20;

		/* Beyond rmem_max as root; the plain option otherwise. */
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	}
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

static int run_serve(const struct opts *o)
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
	ev.data.u64 = 2;
	epoll_ctl(sv.ep, EPOLL_CTL_ADD, sigfd, &ev);

	start = mono_ns();
	sv.tl.iv = start - start % TL_IV_NS;
	if (o->duration_s > 0)
		deadline = start + (uint64_t)(o->duration_s * 1e9);
	set_port(&ss, o->tcp_port);
	addr_str(&ss, a, sizeof(a));
	fprintf(stderr, "storgen: serving tcp %s udp port %u\n", a,
		o->udp_port);

	while (!nsig) {
		struct epoll_event evs[64];
		int n, k, tmo = -1;
		uint64_t now = mono_ns();

		if (deadline) {
			if (now >= deadline)
				break;
			tmo = (int)((deadline - now + 999999) / 1000000);
		}
		n = epoll_wait(sv.ep, evs, 64, tmo);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "storgen: epoll_wait: %s\n",
				strerror(errno));
			rc = 1;
			break;
		}
		tl_advance(mono_ns());
		for (k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;

			if (id == 0)
				serve_accept();
			else if (id == 1)
				serve_udp();
			else if (id == 2)
				drain_sigfd();
			else if (sv.conns[id - 3].fd >= 0)
				serve_read((unsigned int)(id - 3));
		}
	}
	end = mono_ns();
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

/* --- tcp --------------------------------------------------------------- */

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

static void flow_info(struct flow *f)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &l))
		return;
	f->retrans = ti.tcpi_total_retrans;
	f->acked = ti.tcpi_bytes_acked;
}

static void flow_end(int ep, struct flow *f, enum flow_state st, int err)
{
	flow_info(f);
	f->t_end = mono_ns();
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
		f->t_est = mono_ns();
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

static int run_tcp(const struct opts *o)
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
	{
		struct epoll_event ev = {.events = EPOLLIN,
					 .data.u64 = MAX_FLOWS};

		epoll_ctl(ep, EPOLL_CTL_ADD, sigfd, &ev);
	}
	t0 = mono_ns();
	if (o->duration_s > 0)
		stop_at = t0 + (uint64_t)(o->duration_s * 1e9);
	for (i = 0; i < o->flows; i++) {
		struct flow *f = &flows[i];
		struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = i};

		f->t_start = mono_ns();
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
		uint64_t now = mono_ns(), next = 0;
		int n, k, tmo = -1;

		active = 0;
		for (i = 0; i < o->flows; i++)
			if (flows[i].st < F_DONE)
				active++;
		if (!active)
			break;
		if (!stopped && (nsig || (stop_at && now >= stop_at))) {
			stopped = true;
			drain_until = now + (nsig ? DRAIN_SIG_NS : DRAIN_NS);
			for (i = 0; i < o->flows; i++)
				flow_stop(ep, &flows[i], i);
			continue;
		}
		if (stopped && (nsig > 1 || now >= drain_until))
			break;
		if (stopped)
			next = drain_until;
		else if (stop_at)
			next = stop_at;
		if (next)
			tmo = (int)((next - now + 999999) / 1000000);
		n = epoll_wait(ep, evs, 64, tmo);
		for (k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;

			if (id == MAX_FLOWS) {
				drain_sigfd();
				continue;
			}
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
		retrans, nfail, nincomplete, nsig ? "true" : "false");
	if (close_out(out, o->out))
		rc = 1;
	if (nfail || nincomplete)
		rc = 1;
	return rc;
}

/* --- udp --------------------------------------------------------------- */

static struct mmsghdr smm[UDP_BATCH];
static struct iovec siov[UDP_BATCH][2];
static uint8_t shdr[UDP_BATCH][STOR_HDR_LEN];
static uint8_t sbody[UDP_MAX_FRAME];

struct udp_tx {
	int fd;
	uint32_t sender_id;
	size_t payload; /* UDP payload bytes per datagram */
	uint64_t seq; /* data datagrams sent */
	uint64_t waits, nobufs;
	int err;
};

/*
 * Send datagrams [tx->seq, tx->seq + n) of burst b, or FINs if fin.
 * Returns how many the kernel took; waits for room (or a signal) when
 * the socket buffer is full. tx->err is set on a hard error.
 */
static unsigned int udp_send(struct udp_tx *tx, unsigned int n, uint32_t b,
			     bool fin)
{
	struct stor_hdr h = {.magic = STOR_MAGIC,
			     .hdr_len = STOR_HDR_LEN,
			     .sender_id = tx->sender_id,
			     .burst = b};
	unsigned int k;
	int r;

	if (n > UDP_BATCH)
		n = UDP_BATCH;
	h.send_ns = mono_ns();
	h.flags = fin ? STOR_F_FIN : 0;
	for (k = 0; k < n; k++) {
		h.seq = fin ? tx->seq : tx->seq + k;
		stor_put(shdr[k], &h);
		siov[k][0].iov_base = shdr[k];
		siov[k][0].iov_len = STOR_HDR_LEN;
		siov[k][1].iov_base = sbody;
		siov[k][1].iov_len = tx->payload - STOR_HDR_LEN;
		memset(&smm[k], 0, sizeof(smm[k]));
		smm[k].msg_hdr.msg_iov = siov[k];
		smm[k].msg_hdr.msg_iovlen = 2;
	}
	for (;;) {
		r = sendmmsg(tx->fd, smm, n, MSG_DONTWAIT);
		if (r > 0)
			break;
		if (r < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
			if (errno == EAGAIN) {
				tx->waits++;
				wait_until(mono_ns() + 100000000ull, tx->fd,
					   POLLOUT);
			} else {
				tx->nobufs++;
				wait_until(mono_ns() + 1000000ull, -1, 0);
			}
			if (nsig)
				return 0;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		tx->err = r < 0 ? errno : EIO;
		fprintf(stderr, "storgen: sendmmsg: %s\n", strerror(tx->err));
		return 0;
	}
	if (!fin)
		tx->seq += (unsigned int)r;
	return (unsigned int)r;
}

static int run_udp(const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct udp_tx tx = {0};
	uint64_t t0 = 0, t_end, dur, period, ns_per_dg, per_burst, b_start = 0;
	uint64_t last_burst_start = 0, overruns = 0, fin_at, t_last = 0;
	uint32_t bursts = 0;
	char a[INET6_ADDRSTRLEN + 8];
	unsigned int k, fins = 0;
	FILE *out;
	int sb, rc = 0;

	if (!o->to)
		die_usage("udp needs %s", "--to IP:PORT");
	if (!(o->duration_s > 0))
		die_usage("udp needs %s", "--duration-s S");
	parse_hostport(o->to, &ss, &len);
	addr_str(&ss, a, sizeof(a));
	out = open_out(o->out);
	tx.payload = (size_t)o->size - STOR_ETH_IP_UDP;
	/* ceil(burst_bytes / size), without overflow at UINT64_MAX */
	per_burst = o->burst_bytes / o->size + !!(o->burst_bytes % o->size);
	if (!per_burst)
		per_burst = 1;
	/* ns between datagrams inside a burst, frame bytes at --rate */
	ns_per_dg = (uint64_t)((double)o->size * 8e9 / (double)o->rate);
	period = (uint64_t)o->period_ms * 1000000ull;
	dur = (uint64_t)(o->duration_s * 1e9);
	if (getrandom(&tx.sender_id, sizeof(tx.sender_id), 0) !=
	    sizeof(tx.sender_id))
		tx.sender_id = (uint32_t)mono_ns() ^ (uint32_t)getpid();
	for (k = 0; k < sizeof(sbody); k++)
		sbody[k] = (uint8_t)(k * 131 + 7);

	tx.fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0);
	if (tx.fd < 0) {
		fprintf(stderr, "storgen: socket: %s\n", strerror(errno));
		return 1;
	}
	/* A burst must fit in the socket buffer to reach the qdisc whole. */
	sb = (int)o->sndbuf;
	if (setsockopt(tx.fd, SOL_SOCKET, SO_SNDBUFFORCE, &sb, sizeof(sb)))
		setsockopt(tx.fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	set_marks(tx.fd, ss.ss_family, o);
	if (connect(tx.fd, (struct sockaddr *)&ss, len)) {
		fprintf(stderr, "storgen: connect %s: %s\n", a,
			strerror(errno));
		return 1;
	}
	if (!wait_start(o))
		goto done;
	t0 = mono_ns();
	b_start = t0;
	while (!nsig && !tx.err && b_start < t0 + dur) {
		uint64_t i = 0, due;
		bool overrun;

		last_burst_start = b_start;
		while (i < per_burst && !nsig && !tx.err) {
			uint64_t now = mono_ns();

			due = stor_due(now, b_start, ns_per_dg, per_burst);
			if (due > i) {
				if (due - i > UDP_BATCH)
					due = i + UDP_BATCH;
				i += udp_send(&tx, (unsigned int)(due - i),
					      bursts, false);
				continue;
			}
			wait_until(stor_wake(now, b_start, ns_per_dg, i,
					     PACE_MIN_SLEEP_NS),
				   -1, 0);
		}
		t_last = mono_ns();
		bursts++;
		b_start = stor_next_burst(t0, bursts, period, t_last, &overrun);
		overruns += overrun;
		if (b_start < t0 + dur && !nsig)
			wait_until(b_start, -1, 0);
	}
done:
	/* End of stream: after the queue of the last burst had a period to
	 * drain (unless interrupted), three FINs carrying the count. */
	fin_at = last_burst_start + period;
	if (!nsig && !tx.err && fin_at > mono_ns())
		wait_until(fin_at, -1, 0);
	for (k = 0; k < 3 && !tx.err; k++) {
		int saved = nsig;

		nsig = 0; /* a signal must not stop the FINs themselves */
		fins += udp_send(&tx, 1, bursts, true);
		nsig = saved;
		if (k < 2)
			wait_until(mono_ns() + 1000000ull, -1, 0);
	}
	t_end = mono_ns();
	if (!b_start)
		t0 = t_end;
	close(tx.fd);
	fprintf(out,
		"{\"mode\":\"udp\",\"to\":\"%s\",\"sender_id\":%u"
		",\"sent_datagrams\":%" PRIu64 ",\"sent_bytes\":%" PRIu64
		",\"sent_frame_bytes\":%" PRIu64 ",\"bursts\":%u"
		",\"datagrams_per_burst\":%" PRIu64 ",\"frame_size\":%" PRIu64
		",\"rate_bps\":%" PRIu64 ",\"period_ms\":%u"
		",\"burst_overruns\":%" PRIu64 ",\"sndbuf_waits\":%" PRIu64
		",\"enobufs\":%" PRIu64 ",\"fins\":%u,\"start_ns\":%" PRIu64
		",\"last_burst_end_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
		",\"error\":\"%s\",\"interrupted\":%s}\n",
		a, tx.sender_id, tx.seq, tx.seq * tx.payload, tx.seq * o->size,
		bursts, per_burst, o->size, o->rate, o->period_ms, overruns,
		tx.waits, tx.nobufs, fins, t0, t_last, t_end,
		tx.err ? strerror(tx.err) : "", nsig ? "true" : "false");
	if (close_out(out, o->out))
		rc = 1;
	if (tx.err)
		rc = 1;
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	sigset_t ss;

	parse_opts(argc, argv, &o);
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sigfd < 0) {
		fprintf(stderr, "storgen: signalfd: %s\n", strerror(errno));
		return 1;
	}
	if (!strcmp(o.mode, "serve"))
		return run_serve(&o);
	if (!strcmp(o.mode, "tcp"))
		return run_tcp(&o);
	if (!strcmp(o.mode, "udp"))
		return run_udp(&o);
	die_usage("unknown mode %s (serve, tcp, udp)", o.mode);
	return 2;
}
