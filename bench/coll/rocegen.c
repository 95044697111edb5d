// SPDX-License-Identifier: BSD-2-Clause
/*
 * rocegen.c - RoCEv2-over-UDP collective traffic generator, one process per
 * emulated GPU host. It behaves like an RDMA NIC running RC: every peer
 * rank gets a queue pair (rc_qp.h: PSNs, go-back-N, ACK/NAK, retransmit
 * timer, window, pacing at the line rate or DCQCN's R_C, CNPs for CE
 * marks), and the job (coll_job.h: ring all-reduce, parameter server,
 * pipeline) runs over them.
 *
 *   rocegen --rank R --hosts FILE --job allreduce|ps|pipeline|idle [opts]
 *   rocegen --print-clock      CLOCK_MONOTONIC now, ns (for --start-at)
 *
 * Sockets (all UDP, IPv4, non-blocking, unconnected, DF set so the IPv4 ID
 * is 0 and the ICRC can be computed before the kernel builds the header):
 *   rx    bound to (own IP, 4791): every packet for this host (data, ACK,
 *         NAK, CNP) arrives here, IP_RECVTOS gives the ECN bits; ACKs and
 *         NAKs leave from it too (DSCP --dscp, Not-ECT, SO_PRIORITY --prio).
 *   cnp   bound to (own IP, 0xf000): CNPs, DSCP 48, Not-ECT, priority 6.
 *   data  one per peer, bound to (own IP, 49152 + peer rank): that QP's data
 *         (DSCP --dscp with ECT(0), SO_PRIORITY --prio), so the flows of one
 *         host hash apart.
 * Every received packet's ICRC is checked (bad: counted in icrc_bad, dropped).
 *
 * One thread, one event loop: ppoll() on the rx socket (and on data sockets
 * the kernel refused packets on) until the earliest of: the next paced
 * frame, a retransmit timeout, a deferred CNP, the next iteration, the next
 * timeline row (only after activity), the deadline. Nothing to do: asleep.
 * Memory: fixed after start-up (QP rings, the job's buffers, batches).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include "coll_job.h"
#include "coll_out.h"
#include "netutil.h"
#include "rc_host.h"
#include "roce.h"
#include "roce_udp.h"

#define PROG "rocegen"
#define BATCH 16 /* frames per sendmmsg / recvmmsg */
#define RX_BATCHES 8 /* recvmmsg calls per loop pass, at most */
#define DATA_SPORT_BASE 49152
#define CNP_SPORT 0xf000
#define CNP_DSCP 48
#define CNP_PRIO 6
#define RETRY_NS 50000 /* after ENOBUFS */
#define MAX_WAIT_NS 200000000ull /* longest sleep: signals seen by then */
#define TIMELINE_NS 10000000ull
#define SLOT (ROCE_UDP_HEADROOM + RC_MAX_PKT)
#define COALESCE 4 /* frames a paced sender wakes for */
#define COALESCE_MAX_NS 500000

struct opts {
	const char *hosts, *out, *timeline;
	int rank;
	struct coll_params job;
	struct rc_cfg cfg;
	const char *cc, *profile;
	uint64_t start_at, timeout_s, linger_ms, cnp_interval_us, timescale;
	unsigned int dscp, prio;
	bool have_cnp_interval;
	bool print_dcqcn;
};

struct gen {
	struct opts o;
	struct rc_host host;
	struct coll_job job;
	struct coll_timeline tl;
	struct roce_udp_ep me_data[RC_MAX_RANKS], me_rx, me_cnp;
	struct roce_udp_ep peer[RC_MAX_RANKS]; /* (ip, 4791) */
	struct sockaddr_in peer_sa[RC_MAX_RANKS];
	int rx_fd, cnp_fd, data_fd[RC_MAX_RANKS];
	uint64_t retry_at; /* ENOBUFS: try the data sockets again then */
	uint64_t coalesce_ns; /* wake for COALESCE frames at line rate */
	uint64_t send_errors, icrc_bad, rx_other;
	uint8_t (*txbuf)[SLOT];
	uint8_t (*rxbuf)[SLOT];
};

static const char usage_text[] =
	"usage: rocegen --rank R --hosts FILE --job "
	"allreduce|ps|pipeline|idle\n"
	"               [--start-at NS] [--iters N] [--compute-us US]\n"
	"               [--model BYTES] [--chunk BYTES] [--server RANK]\n"
	"               [--microbatches M] [--activation BYTES]\n"
	"               [--mtu BYTES] [--window PKTS] [--ack-every PKTS]\n"
	"               [--rto-us US] [--line-rate RATE] [--cc none|dcqcn]\n"
	"               [--dcqcn-profile paper|connectx] [--cnp-interval-us "
	"US]\n"
	"               [--dcqcn-timescale X]\n"
	"               [--dscp N] [--prio N] [--out FILE] [--timeline FILE]\n"
	"               [--timeout-s S] [--linger-ms MS]\n"
	"       rocegen --print-clock\n"
	"       rocegen --print-dcqcn [--line-rate RATE] [--dcqcn-profile P]\n"
	"               [--cnp-interval-us US] [--dcqcn-timescale X]\n"
	"\n"
	"FILE lines: 'rank ipv4' (ranks 0..N-1, N <= 16, '#' comments).\n"
	"BYTES take K, M, G (x1024) or KiB, MiB, GiB; RATE takes k, M, G\n"
	"(x1000) and an optional 'bit' or 'bps': 100Mbit, 25G, 1e9.\n"
	"Defaults: iters 5, compute 0, model 4 MiB, chunk 256 KiB, server 4,\n"
	"microbatches 8, activation 1 MiB, mtu 1024, window 256, ack-every "
	"16,\n"
	"rto 4000 us, line-rate 100Gbit, cc none, profile paper, cnp interval\n"
	"50 us, dscp 26, prio 3, timeout 120 s, linger 500 ms.\n"
	"--start-at: absolute CLOCK_MONOTONIC ns (rocegen --print-clock).\n"
	"--dcqcn-timescale X: a testbed X times slower than the fabric it\n"
	"stands for: DCQCN's timers and CNP interval x X, its rate steps / X\n"
	"(bytes unchanged).\n"
	"--print-dcqcn: print the DCQCN parameters the reaction points would\n"
	"use, as an xdplane.yaml 'dcqcn:' section, and exit.\n"
	"Exit: 0 every iteration completed and verified, 1 otherwise, 2 "
	"usage.\n";

__attribute__((noreturn)) static void usage(const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, PROG ": %s%s%s\n", msg, arg ? ": " : "",
			arg ? arg : "");
	fputs(usage_text, stderr);
	exit(2);
}

/* ---- parsing ---- */

static bool parse_num(const char *s, double *v, const char **rest)
{
	char *e;

	errno = 0;
	*v = strtod(s, &e);
	if (e == s || errno || !isfinite(*v) || *v < 0)
		return false;
	*rest = e;
	return true;
}

static uint64_t parse_bytes(const char *s, const char *what, uint64_t lo,
			    uint64_t hi)
{
	static const char *const sfx[][2] = {
		{"", ""}, {"K", "KiB"}, {"M", "MiB"}, {"G", "GiB"}};
	const char *r;
	double v;

	if (parse_num(s, &v, &r))
		for (int i = 0; i < 4; i++)
			if (!strcmp(r, sfx[i][0]) || !strcmp(r, sfx[i][1])) {
				v *= (double)(1ull << (10 * i));
				if (v >= (double)lo && v <= (double)hi &&
				    v == floor(v))
					return (uint64_t)v;
			}
	usage("bad value", what);
}

static double parse_rate(const char *s)
{
	const char *r;
	double v, m = 1;

	if (!parse_num(s, &v, &r))
		usage("bad rate", s);
	if (*r == 'k' || *r == 'K')
		m = 1e3, r++;
	else if (*r == 'M')
		m = 1e6, r++;
	else if (*r == 'G')
		m = 1e9, r++;
	if (*r && strcmp(r, "bit") && strcmp(r, "bps") && strcmp(r, "b"))
		usage("bad rate", s);
	v *= m;
	if (v < 1e5 || v > 1e12)
		usage("rate out of range (100kbit .. 1Tbit)", s);
	return v;
}

static uint64_t parse_u(const char *s, const char *what, uint64_t lo,
			uint64_t hi)
{
	uint64_t v;

	if (!nu_parse_u64(s, lo, hi, &v))
		usage("bad value", what);
	return v;
}

enum {
	O_RANK = 256,
	O_HOSTS,
	O_JOB,
	O_START,
	O_ITERS,
	O_COMPUTE,
	O_MODEL,
	O_CHUNK,
	O_SERVER,
	O_MB,
	O_ACT,
	O_MTU,
	O_WINDOW,
	O_ACK,
	O_RTO,
	O_LINE,
	O_CC,
	O_PROFILE,
	O_CNPI,
	O_TIMESCALE,
	O_DSCP,
	O_PRIO,
	O_OUT,
	O_TL,
	O_TIMEOUT,
	O_LINGER,
	O_CLOCK,
	O_PRINT_DCQCN,
	O_HELP
};

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"rank", 1, NULL, O_RANK},
		{"hosts", 1, NULL, O_HOSTS},
		{"job", 1, NULL, O_JOB},
		{"start-at", 1, NULL, O_START},
		{"iters", 1, NULL, O_ITERS},
		{"compute-us", 1, NULL, O_COMPUTE},
		{"model", 1, NULL, O_MODEL},
		{"chunk", 1, NULL, O_CHUNK},
		{"server", 1, NULL, O_SERVER},
		{"microbatches", 1, NULL, O_MB},
		{"activation", 1, NULL, O_ACT},
		{"mtu", 1, NULL, O_MTU},
		{"window", 1, NULL, O_WINDOW},
		{"ack-every", 1, NULL, O_ACK},
		{"rto-us", 1, NULL, O_RTO},
		{"line-rate", 1, NULL, O_LINE},
		{"cc", 1, NULL, O_CC},
		{"dcqcn-profile", 1, NULL, O_PROFILE},
		{"cnp-interval-us", 1, NULL, O_CNPI},
		{"dcqcn-timescale", 1, NULL, O_TIMESCALE},
		{"dscp", 1, NULL, O_DSCP},
		{"prio", 1, NULL, O_PRIO},
		{"out", 1, NULL, O_OUT},
		{"timeline", 1, NULL, O_TL},
		{"timeout-s", 1, NULL, O_TIMEOUT},
		{"linger-ms", 1, NULL, O_LINGER},
		{"print-clock", 0, NULL, O_CLOCK},
		{"print-dcqcn", 0, NULL, O_PRINT_DCQCN},
		{"help", 0, NULL, O_HELP},
		{NULL, 0, NULL, 0},
	};
	int c, k;

	memset(o, 0, sizeof(*o));
	o->rank = -1;
	coll_params_default(&o->job);
	rc_cfg_default(&o->cfg);
	o->cc = "none";
	o->profile = "paper";
	o->timeout_s = 120;
	o->linger_ms = 500;
	o->cnp_interval_us = 50;
	o->timescale = 1;
	o->dscp = 26;
	o->prio = 3;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case O_RANK:
			o->rank = (int)parse_u(optarg, "--rank", 0,
					       RC_MAX_RANKS - 1);
			break;
		case O_HOSTS:
			o->hosts = optarg;
			break;
		case O_JOB:
			k = coll_kind_from_name(optarg);
			if (k < 0)
				usage("unknown job", optarg);
			o->job.kind = (enum coll_kind)k;
			break;
		case O_START:
			o->start_at = parse_u(optarg, "--start-at", 0,
					      UINT64_MAX / 2);
			break;
		case O_ITERS:
			o->job.iters = (uint32_t)parse_u(optarg, "--iters", 1,
							 1000000);
			break;
		case O_COMPUTE:
			o->job.compute_ns =
				1000 * parse_u(optarg, "--compute-us", 0,
					       3600000000ull);
			break;
		case O_MODEL:
			o->job.model =
				parse_bytes(optarg, "--model", 4, 1ull << 31);
			break;
		case O_CHUNK:
			o->job.chunk = (uint32_t)parse_bytes(optarg, "--chunk",
							     4, 1ull << 30);
			break;
		case O_SERVER:
			o->job.server = (int)parse_u(optarg, "--server", 0,
						     RC_MAX_RANKS - 1);
			break;
		case O_MB:
			o->job.microbatches = (uint32_t)parse_u(
				optarg, "--microbatches", 1, 4096);
			break;
		case O_ACT:
			o->job.activation = (uint32_t)parse_bytes(
				optarg, "--activation", 1, 1ull << 30);
			break;
		case O_MTU:
			o->cfg.mtu = (uint32_t)parse_u(optarg, "--mtu",
						       RC_MIN_MTU, RC_MAX_MTU);
			if (o->cfg.mtu % 4)
				usage("--mtu must be a multiple of 4", optarg);
			break;
		case O_WINDOW:
			o->cfg.window = (uint32_t)parse_u(optarg, "--window", 1,
							  1u << 20);
			break;
		case O_ACK:
			o->cfg.ack_every = (uint32_t)parse_u(
				optarg, "--ack-every", 1, 1u << 20);
			break;
		case O_RTO:
			o->cfg.rto_ns = 1000 * parse_u(optarg, "--rto-us", 10,
						       10000000);
			break;
		case O_LINE:
			o->cfg.line_bps = parse_rate(optarg);
			break;
		case O_CC:
			if (strcmp(optarg, "none") && strcmp(optarg, "dcqcn"))
				usage("--cc: none or dcqcn", optarg);
			o->cc = optarg;
			break;
		case O_PROFILE:
			if (dcqcn_profile_from_name(optarg) < 0)
				usage("--dcqcn-profile: paper or connectx",
				      optarg);
			o->profile = optarg;
			break;
		case O_CNPI:
			o->cnp_interval_us = parse_u(
				optarg, "--cnp-interval-us", 0, 1000000);
			o->have_cnp_interval = true;
			break;
		case O_TIMESCALE:
			o->timescale = parse_u(optarg, "--dcqcn-timescale", 1,
					       1000000);
			break;
		case O_DSCP:
			o->dscp =
				(unsigned int)parse_u(optarg, "--dscp", 0, 63);
			break;
		case O_PRIO:
			o->prio = (unsigned int)parse_u(optarg, "--prio", 0, 7);
			break;
		case O_OUT:
			o->out = optarg;
			break;
		case O_TL:
			o->timeline = optarg;
			break;
		case O_TIMEOUT:
			o->timeout_s =
				parse_u(optarg, "--timeout-s", 1, 86400 * 7);
			break;
		case O_LINGER:
			o->linger_ms =
				parse_u(optarg, "--linger-ms", 0, 600000);
			break;
		case O_CLOCK:
			printf("%" PRIu64 "\n", nu_now_ns());
			exit(0);
		case O_PRINT_DCQCN:
			o->print_dcqcn = true;
			break;
		case O_HELP:
			fputs(usage_text, stdout);
			exit(0);
		default:
			usage(NULL, NULL);
		}
	}
	if (optind < argc)
		usage("unexpected argument", argv[optind]);
	if (!o->print_dcqcn && (o->rank < 0 || !o->hosts))
		usage("--rank and --hosts are required", NULL);
}

/* The DCQCN parameters: the profile's defaults at the line rate, dilated
 * by --dcqcn-timescale X (a testbed X times slower than the fabric it
 * stands for: every timer and the CNP interval x X, every rate step / X,
 * byte counts unchanged), and on a slow line the steps are capped so the
 * rules still make sense (the paper's R_min of 100 Mbit/s would pin a
 * 100 Mbit/s line): R_min <= line / 100, R_AI <= line / 20, R_HAI <=
 * line / 5. */
static void setup_cc(struct opts *o)
{
	struct dcqcn_params *d = &o->cfg.dcqcn;
	const char *why;

	dcqcn_params_default(
		d, (enum dcqcn_profile)dcqcn_profile_from_name(o->profile),
		o->cfg.line_bps * (double)o->timescale);
	dcqcn_params_dilate(d, o->timescale);
	d->line_bps = o->cfg.line_bps;
	if (d->min_bps > o->cfg.line_bps / 100)
		d->min_bps = o->cfg.line_bps / 100;
	if (d->ai_bps > o->cfg.line_bps / 20)
		d->ai_bps = o->cfg.line_bps / 20;
	if (d->hai_bps > o->cfg.line_bps / 5)
		d->hai_bps = o->cfg.line_bps / 5;
	d->np_interval_ns = o->cnp_interval_us * 1000 * o->timescale;
	o->cfg.cc_dcqcn = !strcmp(o->cc, "dcqcn");
	if (dcqcn_params_check(d, &why)) {
		fprintf(stderr, PROG ": DCQCN parameters: %s\n", why);
		exit(2);
	}
}

/* The reaction points' parameters as an xdplane.yaml "dcqcn:" section, in
 * exact units (bit/s, ns, bytes), so that `xdplane --dump-config` can put
 * them beside the gateway's. */
static void print_dcqcn(const struct dcqcn_params *d)
{
	printf("dcqcn:\n  profile: %s\n", dcqcn_profile_name(d->profile));
	printf("  line_rate: %.0fbit\n  min_rate: %.0fbit\n", d->line_bps,
	       d->min_bps);
	printf("  rate_ai: %.0fbit\n  rate_hai: %.0fbit\n", d->ai_bps,
	       d->hai_bps);
	printf("  g: %.17g\n  alpha_init: %.17g\n", d->g, d->alpha_init);
	printf("  alpha_timer: %" PRIu64 "ns\n  increase_timer: %" PRIu64
	       "ns\n",
	       d->alpha_ns, d->inc_ns);
	printf("  decrease_period: %" PRIu64 "ns\n  byte_counter: %" PRIu64
	       "\n",
	       d->dec_ns, d->byte_counter);
	printf("  fast_recovery: %u\n  cnp_interval: %" PRIu64 "ns\n", d->f,
	       d->np_interval_ns);
}

/* Read "rank ipv4" lines; ranks 0..n-1 each once. Returns n. */
static int read_hosts(const char *path, struct in_addr *ip)
{
	bool seen[RC_MAX_RANKS] = {false};
	char line[256];
	int n = 0, lineno = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		char addr[64], extra[8];
		int r, k;

		lineno++;
		if (line[strspn(line, " \t")] == '#' ||
		    line[strspn(line, " \t\r\n")] == '\0')
			continue;
		k = sscanf(line, "%d %63s %7s", &r, addr, extra);
		if (k != 2 || r < 0 || r >= RC_MAX_RANKS || seen[r] ||
		    inet_pton(AF_INET, addr, &ip[r]) != 1) {
			fprintf(stderr,
				PROG ": %s:%d: want 'rank ipv4' with a new "
				     "rank 0..15\n",
				path, lineno);
			exit(2);
		}
		seen[r] = true;
		n++;
	}
	fclose(f);
	for (int r = 0; r < n; r++)
		if (!seen[r]) {
			fprintf(stderr, PROG ": %s: ranks must be 0..%d\n",
				path, n - 1);
			exit(2);
		}
	return n;
}

/* ---- sockets ---- */

static int open_udp(const struct roce_udp_ep *me, int tos, int prio, bool recv)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(me->port)};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1, pmtu = IP_PMTUDISC_DO;
	char ip[INET_ADDRSTRLEN];

	if (fd < 0)
		return -1;
	memcpy(&sa.sin_addr, me->addr, 4);
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) ||
	    setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) ||
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) ||
	    (recv &&
	     setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, PROG ": socket %s:%u: %s\n",
			inet_ntop(AF_INET, me->addr, ip, sizeof(ip)), me->port,
			strerror(errno));
		close(fd);
		return -1;
	}
	if (recv)
		nu_set_sockbuf(fd, SO_RCVBUF, 8 << 20, NULL);
	else
		nu_set_sockbuf(fd, SO_SNDBUF, 1 << 20, NULL);
	return fd;
}

static void ep4(struct roce_udp_ep *e, struct in_addr a, uint16_t port)
{
	memset(e, 0, sizeof(*e));
	e->family = 4;
	memcpy(e->addr, &a, 4);
	e->port = port;
}

static int open_sockets(struct gen *g, const struct in_addr *ip)
{
	int r = g->o.rank, n = g->host.nranks;
	int data_tos = (int)(g->o.dscp << 2 | 2),
	    ack_tos = (int)(g->o.dscp << 2);

	ep4(&g->me_rx, ip[r], ROCEV2_UDP_PORT);
	ep4(&g->me_cnp, ip[r], CNP_SPORT);
	g->rx_fd = open_udp(&g->me_rx, ack_tos, (int)g->o.prio, true);
	g->cnp_fd = open_udp(&g->me_cnp, CNP_DSCP << 2, CNP_PRIO, false);
	if (g->rx_fd < 0 || g->cnp_fd < 0)
		return -1;
	for (int p = 0; p < n; p++) {
		g->data_fd[p] = -1;
		ep4(&g->peer[p], ip[p], ROCEV2_UDP_PORT);
		memset(&g->peer_sa[p], 0, sizeof(g->peer_sa[p]));
		g->peer_sa[p].sin_family = AF_INET;
		g->peer_sa[p].sin_addr = ip[p];
		g->peer_sa[p].sin_port = htons(ROCEV2_UDP_PORT);
		if (p == r)
			continue;
		ep4(&g->me_data[p], ip[r], (uint16_t)(DATA_SPORT_BASE + p));
		g->data_fd[p] = open_udp(&g->me_data[p], data_tos,
					 (int)g->o.prio, false);
		if (g->data_fd[p] < 0)
			return -1;
	}
	return 0;
}

/* ---- the job over the host ---- */

static int job_post(void *ctx, int peer, uint32_t id, const uint8_t *data,
		    uint32_t len)
{
	struct gen *g = ctx;

	return rc_host_post(&g->host, peer, id, data, len);
}

static void on_data(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t off,
		    const uint8_t *p, uint32_t n)
{
	struct gen *g = ctx;

	coll_job_on_data(&g->job, qp->peer, id, off, p, n);
}

static void on_msg(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t len,
		   uint64_t now)
{
	struct gen *g = ctx;

	coll_job_on_msg(&g->job, qp->peer, id, len, now);
}

static void on_sent(void *ctx, struct rc_qp *qp, uint32_t id, uint64_t now)
{
	struct gen *g = ctx;

	coll_job_on_sent(&g->job, qp->peer, id, now);
}

static const struct rc_ops gen_ops = {
	.data = on_data, .msg_done = on_msg, .send_done = on_sent};

/* ---- I/O ---- */

static bool refused(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS ||
	       err == ENOMEM;
}

/* Send one control packet (ACK/NAK from rx_fd, CNP from cnp_fd). */
static void send_ctrl(struct gen *g, int fd, const struct roce_udp_ep *src,
		      int peer, uint8_t *p, size_t n)
{
	if (!roce_udp_seal(p, n, src, &g->peer[peer]))
		return;
	if (sendto(fd, p, n, 0, (struct sockaddr *)&g->peer_sa[peer],
		   sizeof(g->peer_sa[peer])) != (ssize_t)n)
		g->send_errors++;
}

static void flush_ctrl(struct gen *g)
{
	uint8_t *p = g->txbuf[0] + ROCE_UDP_HEADROOM;

	for (int r = 0; r < g->host.nranks; r++) {
		struct rc_qp *qp = &g->host.qp[r];
		size_t n;

		if (r == g->o.rank)
			continue;
		while ((n = rc_qp_take_ack(qp, p, RC_MAX_PKT)))
			send_ctrl(g, g->rx_fd, &g->me_rx, r, p, n);
		if ((n = rc_qp_take_cnp(qp, p, RC_MAX_PKT)))
			send_ctrl(g, g->cnp_fd, &g->me_cnp, r, p, n);
	}
}

/* Send what the pacers allow now. Returns true if anything went. */
static bool flush_data(struct gen *g, uint64_t now)
{
	uint8_t *bufs[BATCH];
	size_t lens[BATCH];
	struct rc_tx_info info[BATCH];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	bool any = false;
	int n, peer;

	if (g->retry_at > now)
		return false;
	g->retry_at = 0;
	for (int i = 0; i < BATCH; i++)
		bufs[i] = g->txbuf[i] + ROCE_UDP_HEADROOM;
	while ((n = rc_host_tx_burst(&g->host, now, bufs, RC_MAX_PKT, lens,
				     info, BATCH, &peer)) > 0) {
		int sent = 0;

		memset(mm, 0, sizeof(mm[0]) * (size_t)n);
		for (int i = 0; i < n; i++) {
			roce_udp_seal(bufs[i], lens[i], &g->me_data[peer],
				      &g->peer[peer]);
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = lens[i];
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &g->peer_sa[peer];
			mm[i].msg_hdr.msg_namelen = sizeof(g->peer_sa[peer]);
		}
		while (sent < n) {
			int k = sendmmsg(g->data_fd[peer], mm + sent,
					 (unsigned int)(n - sent), 0);

			if (k > 0) {
				sent += k;
				continue;
			}
			if (k < 0 && errno == EINTR)
				continue;
			break;
		}
		if (sent > 0)
			any = true;
		if (sent < n) {
			int err = errno;

			g->send_errors += (uint64_t)(n - sent);
			rc_host_unsend(&g->host, peer, info + sent, n - sent);
			if (err == EAGAIN || err == EWOULDBLOCK) {
				g->host.tx_blocked |= 1u << peer;
			} else if (refused(err)) {
				g->retry_at = now + RETRY_NS;
				break;
			} else {
				fprintf(stderr, PROG ": send to rank %d: %s\n",
					peer, strerror(err));
				g->retry_at = now + RETRY_NS;
				break;
			}
		}
	}
	return any;
}

static unsigned int rx_ecn(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS &&
		    c->cmsg_len >= CMSG_LEN(1))
			return *(uint8_t *)CMSG_DATA(c) & 3;
	return 0;
}

/* Drain the rx socket (bounded). Returns the packets taken. */
static int drain_rx(struct gen *g)
{
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in from[BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl[BATCH];
	int total = 0;

	for (int b = 0; b < RX_BATCHES; b++) {
		uint64_t now;
		int k;

		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < BATCH; i++) {
			iov[i].iov_base = g->rxbuf[i] + ROCE_UDP_HEADROOM;
			iov[i].iov_len = RC_MAX_PKT;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &from[i];
			mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
			mm[i].msg_hdr.msg_control = ctl[i].buf;
			mm[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
		}
		k = recvmmsg(g->rx_fd, mm, BATCH, MSG_DONTWAIT, NULL);
		if (k <= 0)
			break;
		now = nu_now_ns();
		for (int i = 0; i < k; i++) {
			uint8_t *p = g->rxbuf[i] + ROCE_UDP_HEADROOM;
			size_t n = mm[i].msg_len;
			struct roce_udp_ep src;

			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC ||
			    from[i].sin_family != AF_INET) {
				g->rx_other++;
				continue;
			}
			ep4(&src, from[i].sin_addr, ntohs(from[i].sin_port));
			if (!roce_udp_icrc_ok(p, n, &src, &g->me_rx)) {
				g->icrc_bad++;
				continue;
			}
			rc_host_rx(&g->host, now, p, n, rx_ecn(&mm[i].msg_hdr));
		}
		total += k;
		if (k < BATCH)
			break;
	}
	return total;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Run until done + linger, the deadline or a signal. */
static void run(struct gen *g, sigset_t *oldmask, bool *timed_out,
		bool *interrupted)
{
	uint64_t start = g->o.start_at, now = nu_now_ns();
	uint64_t deadline =
		(start > now ? start : now) + g->o.timeout_s * NU_NSEC_PER_SEC;
	uint64_t linger_end = UINT64_MAX;
	struct pollfd pfd[1 + RC_MAX_RANKS];
	int peers[1 + RC_MAX_RANKS];

	for (;;) {
		uint64_t next, tx;
		struct timespec ts;
		int npfd = 1;

		now = nu_now_ns();
		if (nu_stop_requested) {
			*interrupted = true;
			break;
		}
		if (now >= deadline) {
			*timed_out = g->o.job.kind != COLL_IDLE;
			break;
		}
		/* what arrived first: an ACK waiting in the socket must not
		 * lose the race against its retransmit timeout */
		if (drain_rx(g) > 0) {
			g->tl.dirty = true;
			now = nu_now_ns();
		}
		coll_job_poll(&g->job, now);
		rc_host_timers(&g->host, now);
		flush_ctrl(g);
		if (flush_data(g, now))
			g->tl.dirty = true;
		tl_tick(&g->tl, &g->host, now);
		if (coll_job_done(&g->job) && linger_end == UINT64_MAX)
			linger_end = now + g->o.linger_ms * 1000000ull;
		if (now >= linger_end)
			break;

		next = min64(rc_host_next_ns(&g->host),
			     coll_job_next_ns(&g->job));
		/* a paced sender wakes for a few frames at once (the pacers
		 * let a late one catch up a burst): fewer wake-ups */
		tx = rc_host_next_tx_ns(&g->host);
		if (tx != UINT64_MAX && tx == next && tx > now)
			next = min64(tx + g->coalesce_ns,
				     min64(rc_host_next_timer_ns(&g->host),
					   coll_job_next_ns(&g->job)));
		next = min64(next, tl_next_ns(&g->tl));
		next = min64(next, min64(deadline, linger_end));
		if (g->retry_at)
			next = min64(next, g->retry_at);
		next = min64(next, now + MAX_WAIT_NS);
		pfd[0].fd = g->rx_fd;
		pfd[0].events = POLLIN;
		for (int r = 0; r < g->host.nranks; r++)
			if (g->host.tx_blocked & 1u << r) {
				pfd[npfd].fd = g->data_fd[r];
				pfd[npfd].events = POLLOUT;
				peers[npfd++] = r;
			}
		ts = nu_ns_to_ts(next > now ? next - now : 0);
		if (ppoll(pfd, (nfds_t)npfd, &ts, oldmask) > 0)
			for (int i = 1; i < npfd; i++)
				if (pfd[i].revents)
					g->host.tx_blocked &= ~(1u << peers[i]);
	}
}

int main(int argc, char **argv)
{
	static struct gen g;
	struct in_addr ip[RC_MAX_RANKS];
	struct coll_meta meta = {0};
	struct rc_qp_stats st;
	bool timed_out = false, interrupted = false;
	sigset_t oldmask;
	const char *why;
	uint64_t now;
	int n, status;

	parse_opts(argc, argv, &g.o);
	setup_cc(&g.o);
	if (g.o.print_dcqcn) {
		print_dcqcn(&g.o.cfg.dcqcn);
		return 0;
	}
	n = read_hosts(g.o.hosts, ip);
	if (g.o.rank >= n)
		usage("--rank is not in the hosts file", NULL);
	g.o.job.nranks = n;
	g.o.job.rank = g.o.rank;
	now = nu_now_ns();
	g.o.job.start_ns = g.o.start_at ? g.o.start_at : now;
	if (coll_params_check(&g.o.job, &why))
		usage(why, NULL);
	if ((g.o.job.kind == COLL_ALLREDUCE || g.o.job.kind == COLL_PS) &&
	    g.o.job.chunk > g.o.job.model)
		g.o.job.chunk = (uint32_t)g.o.job.model;
	g.txbuf = calloc(BATCH, SLOT);
	g.rxbuf = calloc(BATCH, SLOT);
	if (!g.txbuf || !g.rxbuf ||
	    coll_job_init(&g.job, &g.o.job, job_post, &g) ||
	    rc_host_init(&g.host, &g.o.cfg, g.o.rank, n,
			 2 * coll_job_msgs_per_peer(&g.o.job) + 16, &gen_ops,
			 &g, now)) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (open_sockets(&g, ip))
		return 1;
	if (tl_open(&g.tl, g.o.timeline, g.o.job.start_ns, TIMELINE_NS)) {
		fprintf(stderr, PROG ": %s: %s\n", g.o.timeline,
			strerror(errno));
		return 1;
	}
	g.coalesce_ns =
		(uint64_t)(COALESCE * rc_frame_bytes(BTH_LEN + g.o.cfg.mtu) *
			   8e9 / g.o.cfg.line_bps);
	if (g.coalesce_ns > COALESCE_MAX_NS)
		g.coalesce_ns = COALESCE_MAX_NS;
	prctl(PR_SET_TIMERSLACK, 10000UL, 0, 0, 0);
	nu_install_signals(&oldmask);
	run(&g, &oldmask, &timed_out, &interrupted);

	now = nu_now_ns();
	status = coll_job_done(&g.job) && !g.job.verify_errors &&
				 !g.job.proto_errors
			 ? 0
			 : 1;
	if (g.o.job.kind == COLL_IDLE)
		status = 0;
	if (tl_close(&g.tl, &g.host, now))
		fprintf(stderr, PROG ": %s: write failed\n", g.o.timeline);
	meta.job = coll_kind_name(g.o.job.kind);
	meta.job_params = &g.o.job;
	meta.cfg = &g.host.cfg;
	meta.cc = g.o.cc;
	meta.dcqcn_profile = g.o.profile;
	meta.dscp = g.o.dscp;
	meta.prio = g.o.prio;
	meta.send_errors = g.send_errors;
	meta.icrc_bad = g.icrc_bad;
	meta.rx_other = g.rx_other;
	meta.timed_out = timed_out;
	meta.interrupted = interrupted;
	meta.exit_status = status;
	if (g.o.out && coll_write_json(g.o.out, &g.host, &g.job, &meta)) {
		fprintf(stderr, PROG ": %s: %s\n", g.o.out, strerror(errno));
		status = 1;
	}
	rc_host_stats(&g.host, &st);
	fprintf(stderr,
		PROG ": rank %d %s: %u/%u iterations, verify_errors %" PRIu64
		     ", retransmitted %" PRIu64 ", timeouts %" PRIu64
		     ", cnps in/out %" PRIu64 "/%" PRIu64 "%s%s\n",
		g.o.rank, meta.job, coll_job_completed(&g.job), g.o.job.iters,
		g.job.verify_errors, st.retransmitted_packets, st.timeouts,
		st.cnps_received, st.cnps_sent, timed_out ? ", TIMED OUT" : "",
		interrupted ? ", interrupted" : "");
	coll_job_free(&g.job);
	rc_host_free(&g.host);
	return status;
}
