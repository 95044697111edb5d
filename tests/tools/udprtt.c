// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udprtt.c - UDP round-trip latency through the gateway, for the benchmarks
 * and the integration tests.
 *
 *   udprtt echo --bind ADDR:PORT
 *   udprtt probe --to ADDR:PORT --count N [--interval-us 1000] [--size 64]
 *                [--warmup 100] [--timeout-ms 100] [--json]
 *
 * The echo side sends every datagram it receives back to its source,
 * unchanged, until SIGTERM/SIGINT (exit 0).
 *
 * The probe side keeps exactly one probe in flight. Probe payload (--size
 * bytes, >= 16, network byte order):
 *
 *   offset  size  field
 *        0     4  run id (random per probe process; filters stray replies)
 *        4     4  sequence number (0 .. warmup + N - 1)
 *        8     8  CLOCK_MONOTONIC send time, ns
 *       16     -  filler, a function of the sequence number
 *
 * A reply counts when it is byte-identical to the probe in flight; its RTT
 * is the receive time minus the send time in the payload. The next probe
 * goes out after the reply (or after the timeout, the probe counting as
 * lost) and no earlier than the previous send time + --interval-us. The
 * first --warmup probes are sent in addition to the N measured ones and
 * their RTTs are discarded; the ones that timed out are reported
 * (warmup_lost), and so is the wall time of the measured probes
 * (measured_us): each timeout stretches the run, so a caller that wants
 * its probes to fall in a window (under a load that lasts so long) must
 * check both -- a warmup that times out probe after probe can outlast the
 * load, and the measured probes then see none of it. Waiting is done in
 * ppoll(): no busy polling.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
#include <netinet/in.h>
#include <sys/socket.h>
#include "netutil.h"

#define RTT_HDR_LEN 16u
#define RTT_MAX_SIZE 65507u /* largest IPv4 UDP payload */
#define RTT_BATCH 32
#define RTT_RXBUF 65536u

/* printf format; at most 68 columns per line */
static const char usage_fmt[] =
	"usage: udprtt echo --bind ADDR:PORT\n"
	"       udprtt probe --to ADDR:PORT --count N [--interval-us US]\n"
	"                    [--size BYTES] [--warmup N] [--timeout-ms MS]\n"
	"                    [--json]\n"
	"\n"
	"UDP round-trip latency, one probe in flight at a time.\n"
	"\n"
	"ADDR:PORT  numeric: 10.0.0.1:9000, [fd00::1]:9000, [fe80::1%%eth0]:9\n"
	"echo:\n"
	"  --bind ADDR:PORT  local address ([::]:PORT takes IPv4 too)\n"
	"  Sends every datagram back to its source, unchanged, until\n"
	"  SIGTERM/SIGINT (exit 0). Prints \"udprtt: ready\" on stderr once\n"
	"  bound.\n"
	"probe:\n"
	"  --to ADDR:PORT    the echo\n"
	"  --count N         measured probes\n"
	"  --interval-us US  minimum gap between two sends (default 1000)\n"
	"  --size BYTES      UDP payload size, %u..%u (default 64)\n"
	"  --warmup N        probes sent before the measured ones, results\n"
	"                    discarded (default 100)\n"
	"  --timeout-ms MS   a probe without reply after MS is lost\n"
	"                    (default 100)\n"
	"  --json            print the result as one JSON object on stdout\n"
	"                    (the summary line then goes to stderr)\n"
	"  Prints the line\n"
	"  udprtt: sent=N received=R lost=L p50_us=.. p90_us=.. p99_us=..\n"
	"  max_us=.. mean_us=..\n"
	"  (one line; nearest-rank percentiles, n/a when nothing came back).\n"
	"  SIGINT/SIGTERM stop early and report the probes so far.\n"
	"  Exit 0 if at least 90%% of the measured probes got a reply.\n"
	"\n"
	"Exit status: 0 success, 1 too many lost or error, 2 bad usage.\n";

static void usage(FILE *f)
{
	fprintf(f, usage_fmt, RTT_HDR_LEN, RTT_MAX_SIZE);
}

__attribute__((noreturn)) static void bad_usage(const char *msg,
						const char *arg)
{
	if (msg)
		fprintf(stderr, "udprtt: %s%s%s\n", msg, arg ? ": " : "",
			arg ? arg : "");
	usage(stderr);
	exit(2);
}

/* ---- echo --------------------------------------------------------------- */

static int do_echo(const struct sockaddr_storage *addr, socklen_t addrlen)
{
	struct sockaddr_storage peers[RTT_BATCH];
	struct mmsghdr rx[RTT_BATCH], tx[RTT_BATCH];
	struct iovec riov[RTT_BATCH], tiov[RTT_BATCH];
	uint64_t echoed = 0, txerr = 0;
	uint8_t *bufs;
	sigset_t oldmask;
	int fd, rc = 1;

	fd = socket(addr->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udprtt: socket");
		return 1;
	}
	if (bind(fd, (const struct sockaddr *)addr, addrlen) < 0) {
		perror("udprtt: bind");
		close(fd);
		return 1;
	}
	bufs = malloc((size_t)RTT_BATCH * RTT_RXBUF);
	if (!bufs) {
		perror("udprtt: malloc");
		close(fd);
		return 1;
	}
	memset(rx, 0, sizeof(rx));
	memset(tx, 0, sizeof(tx));
	for (int k = 0; k < RTT_BATCH; k++) {
		riov[k].iov_base = tiov[k].iov_base =
			bufs + (size_t)k * RTT_RXBUF;
		rx[k].msg_hdr.msg_iov = &riov[k];
		rx[k].msg_hdr.msg_iovlen = 1;
		rx[k].msg_hdr.msg_name = &peers[k];
		tx[k].msg_hdr.msg_iov = &tiov[k];
		tx[k].msg_hdr.msg_iovlen = 1;
		tx[k].msg_hdr.msg_name = &peers[k];
	}
	nu_install_signals(&oldmask);
	fprintf(stderr, "udprtt: ready\n");

	while (!nu_stop_requested) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int r, sent;

		r = ppoll(&pfd, 1, NULL, &oldmask);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			perror("udprtt: ppoll");
			goto out;
		}
		for (;;) {
			for (int k = 0; k < RTT_BATCH; k++) {
				riov[k].iov_len = RTT_RXBUF;
				rx[k].msg_hdr.msg_namelen = sizeof(peers[k]);
			}
			r = recvmmsg(fd, rx, RTT_BATCH, MSG_DONTWAIT, NULL);
			if (r < 0) {
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					break;
				if (errno == EINTR)
					continue;
				perror("udprtt: recvmmsg");
				goto out;
			}
			for (int k = 0; k < r; k++) {
				tiov[k].iov_len = rx[k].msg_len;
				tx[k].msg_hdr.msg_namelen =
					rx[k].msg_hdr.msg_namelen;
			}
			/* A datagram that cannot be sent is skipped. */
			for (sent = 0; sent < r;) {
				int s = sendmmsg(fd, tx + sent,
						 (unsigned int)(r - sent), 0);

				if (s < 0) {
					if (errno == EINTR)
						continue;
					if (!txerr)
						perror("udprtt: sendmmsg");
					txerr++;
					sent++;
					continue;
				}
				sent += s;
				echoed += (uint64_t)s;
			}
			if (r < RTT_BATCH)
				break;
		}
	}
	rc = 0;
out:
	fprintf(stderr, "udprtt: echoed=%" PRIu64 " send_errors=%" PRIu64 "\n",
		echoed, txerr);
	free(bufs);
	close(fd);
	return rc;
}

/* ---- probe -------------------------------------------------------------- */

struct probe_opts {
	struct sockaddr_storage to;
	socklen_t tolen;
	uint64_t count, interval_us, size, warmup, timeout_ms;
	bool json;
};

struct probe_stats {
	uint64_t sent, received, lost; /* measured probes only */
	uint64_t warmup_lost; /* warmup probes that timed out */
	uint64_t measured_ns; /* first measured send to the last one's end */
	uint64_t late, stray, corrupt, unreachable; /* all probes */
};

static void fill_probe(uint8_t *p, size_t size, uint32_t run, uint32_t seq,
		       uint64_t t)
{
	nu_put_be32(p, run);
	nu_put_be32(p + 4, seq);
	nu_put_be32(p + 8, (uint32_t)(t >> 32));
	nu_put_be32(p + 12, (uint32_t)t);
	for (size_t k = RTT_HDR_LEN; k < size; k++)
		p[k] = (uint8_t)(seq * 31u + k);
}

/*
 * Wait until the reply to the probe in flight (pkt, size bytes, sequence
 * seq) arrives or deadline passes. Returns 1 and the receive time in *rx_ns
 * on a reply, 0 on timeout/unreachable/stop, -1 on error.
 */
static int wait_reply(int fd, const sigset_t *mask, const uint8_t *pkt,
		      size_t size, uint32_t run, uint32_t seq,
		      uint64_t deadline, uint8_t *rbuf, struct probe_stats *st,
		      uint64_t *rx_ns)
{
	while (!nu_stop_requested) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		struct timespec ts;
		uint64_t t = nu_now_ns();
		int r;

		if (t >= deadline)
			return 0;
		ts = nu_ns_to_ts(deadline - t);
		r = ppoll(&pfd, 1, &ts, mask);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			perror("udprtt: ppoll");
			return -1;
		}
		if (r == 0)
			return 0;
		for (;;) {
			ssize_t n = recv(fd, rbuf, RTT_RXBUF, MSG_DONTWAIT);

			t = nu_now_ns();
			if (n < 0) {
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					break;
				if (errno == EINTR)
					continue;
				if (errno == ECONNREFUSED) {
					/* ICMP port unreachable: no echo. */
					st->unreachable++;
					return 0;
				}
				perror("udprtt: recv");
				return -1;
			}
			if ((size_t)n < RTT_HDR_LEN ||
			    nu_get_be32(rbuf) != run ||
			    nu_get_be32(rbuf + 4) > seq) {
				st->stray++;
			} else if (nu_get_be32(rbuf + 4) < seq) {
				st->late++;
			} else if ((size_t)n != size ||
				   memcmp(rbuf, pkt, size) != 0) {
				st->corrupt++;
			} else {
				*rx_ns = t;
				return 1;
			}
		}
	}
	return 0;
}

/* Nearest-rank percentile of sorted v[0..n), n > 0, in microseconds. */
static double pct_us(const uint64_t *v, uint64_t n, unsigned int q)
{
	uint64_t rank = (q * n + 99) / 100;

	return (double)v[rank ? rank - 1 : 0] / 1e3;
}

static void fmt_us(char *buf, size_t len, bool have, double us, bool json)
{
	if (have)
		snprintf(buf, len, "%.1f", us);
	else
		snprintf(buf, len, "%s", json ? "null" : "n/a");
}

static void report(const struct probe_opts *o, const struct probe_stats *st,
		   uint64_t *rtt)
{
	double v[6] = {0}; /* p50 p90 p99 max mean min */
	static const char *const key[6] = {"p50_us", "p90_us",	"p99_us",
					   "max_us", "mean_us", "min_us"};
	char s[6][32], j[6][32];
	uint64_t n = st->received;
	FILE *sum = o->json ? stderr : stdout;

	if (n) {
		long double total = 0;

		qsort(rtt, n, sizeof(*rtt), nu_cmp_u64);
		for (uint64_t k = 0; k < n; k++)
			total += rtt[k];
		v[0] = pct_us(rtt, n, 50);
		v[1] = pct_us(rtt, n, 90);
		v[2] = pct_us(rtt, n, 99);
		v[3] = (double)rtt[n - 1] / 1e3;
		v[4] = (double)(total / n) / 1e3;
		v[5] = (double)rtt[0] / 1e3;
	}
	for (int k = 0; k < 6; k++) {
		fmt_us(s[k], sizeof(s[k]), n, v[k], false);
		fmt_us(j[k], sizeof(j[k]), n, v[k], true);
	}
	if (st->unreachable)
		fprintf(stderr,
			"udprtt: %" PRIu64 " probes answered by ICMP port "
			"unreachable: is the echo up?\n",
			st->unreachable);
	if (st->corrupt)
		fprintf(stderr,
			"udprtt: %" PRIu64 " replies differed from the probe\n",
			st->corrupt);
	fprintf(sum,
		"udprtt: sent=%" PRIu64 " received=%" PRIu64 " lost=%" PRIu64
		" %s=%s %s=%s %s=%s %s=%s %s=%s\n",
		st->sent, st->received, st->lost, key[0], s[0], key[1], s[1],
		key[2], s[2], key[3], s[3], key[4], s[4]);
	if (o->json) {
		printf("{\"sent\":%" PRIu64 ",\"received\":%" PRIu64
		       ",\"lost\":%" PRIu64,
		       st->sent, st->received, st->lost);
		for (int k = 0; k < 6; k++)
			printf(",\"%s\":%s", key[k], j[k]);
		printf(",\"warmup_lost\":%" PRIu64 ",\"measured_us\":%.1f",
		       st->warmup_lost, (double)st->measured_ns / 1e3);
		printf(",\"late\":%" PRIu64 ",\"stray\":%" PRIu64
		       ",\"corrupt\":%" PRIu64 ",\"unreachable\":%" PRIu64
		       ",\"warmup\":%" PRIu64 ",\"size\":%" PRIu64
		       ",\"interval_us\":%" PRIu64 "}\n",
		       st->late, st->stray, st->corrupt, st->unreachable,
		       o->warmup, o->size, o->interval_us);
	}
	fflush(stdout);
}

static int do_probe(const struct probe_opts *o)
{
	struct probe_stats st = {0};
	uint64_t *rtt = NULL, total = o->warmup + o->count, next, m0 = 0;
	uint8_t *pkt = NULL, *rbuf = NULL;
	uint32_t run;
	sigset_t oldmask;
	int fd, rc = 1;

	fd = socket(o->to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udprtt: socket");
		return 1;
	}
	if (connect(fd, (const struct sockaddr *)&o->to, o->tolen) < 0) {
		perror("udprtt: connect");
		goto out;
	}
	rtt = malloc(o->count * sizeof(*rtt));
	pkt = malloc(o->size);
	rbuf = malloc(RTT_RXBUF);
	if (!rtt || !pkt || !rbuf) {
		perror("udprtt: malloc");
		goto out;
	}
	run = (uint32_t)(nu_now_ns() ^ ((uint64_t)getpid() * 2654435761u)) | 1u;
	nu_install_signals(&oldmask);

	next = nu_now_ns();
	for (uint64_t k = 0; k < total && !nu_stop_requested; k++) {
		bool measured = k >= o->warmup;
		uint64_t t0, rx_ns = 0;
		int got, tries = 0;

		/* Honour the interval; SIGINT/SIGTERM cut the wait short. */
		for (uint64_t t = nu_now_ns(); t < next && !nu_stop_requested;
		     t = nu_now_ns()) {
			struct timespec ts = nu_ns_to_ts(next - t);

			ppoll(NULL, 0, &ts, &oldmask);
		}
		if (nu_stop_requested)
			break;
		t0 = nu_now_ns();
		if (measured && !m0)
			m0 = t0;
		fill_probe(pkt, o->size, run, (uint32_t)k, t0);
		while (send(fd, pkt, o->size, 0) < 0) {
			/* A pending ICMP error from an earlier probe fails
			 * this send without sending: retry once. */
			if ((errno == ECONNREFUSED && tries++ == 0) ||
			    errno == EINTR)
				continue;
			if (errno == ECONNREFUSED)
				break;
			perror("udprtt: send");
			goto out;
		}
		next = t0 + o->interval_us * 1000;
		got = wait_reply(fd, &oldmask, pkt, o->size, run, (uint32_t)k,
				 t0 + o->timeout_ms * 1000000, rbuf, &st,
				 &rx_ns);
		if (got < 0)
			goto out;
		if (m0)
			st.measured_ns = nu_now_ns() - m0;
		if (nu_stop_requested && !got)
			continue; /* an interrupted wait is not a loss */
		if (!measured) {
			st.warmup_lost += !got;
			continue;
		}
		st.sent++;
		if (got)
			rtt[st.received++] = rx_ns - t0;
		else
			st.lost++;
	}
	if (nu_stop_requested)
		fprintf(stderr, "udprtt: interrupted\n");
	report(o, &st, rtt);
	rc = st.sent && st.received * 10 >= st.sent * 9 ? 0 : 1;
out:
	free(rbuf);
	free(pkt);
	free(rtt);
	close(fd);
	return rc;
}

/* ---- main --------------------------------------------------------------- */

enum {
	OPT_BIND = 256,
	OPT_TO,
	OPT_COUNT,
	OPT_INTERVAL,
	OPT_SIZE,
	OPT_WARMUP,
	OPT_TIMEOUT,
	OPT_JSON,
};

int main(int argc, char **argv)
{
	static const struct option echo_lo[] = {
		{"bind", required_argument, NULL, OPT_BIND},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct option probe_lo[] = {
		{"to", required_argument, NULL, OPT_TO},
		{"count", required_argument, NULL, OPT_COUNT},
		{"interval-us", required_argument, NULL, OPT_INTERVAL},
		{"size", required_argument, NULL, OPT_SIZE},
		{"warmup", required_argument, NULL, OPT_WARMUP},
		{"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct probe_opts po = {.interval_us = 1000,
				.size = 64,
				.warmup = 100,
				.timeout_ms = 100};
	struct sockaddr_storage bind_addr;
	socklen_t bind_len = 0;
	bool is_echo, have_addr = false, have_count = false;
	int c;

	if (argc < 2)
		bad_usage(NULL, NULL);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "echo"))
		is_echo = true;
	else if (!strcmp(argv[1], "probe"))
		is_echo = false;
	else
		bad_usage("unknown command", argv[1]);

	optind = 2;
	while ((c = getopt_long(argc, argv, "h", is_echo ? echo_lo : probe_lo,
				NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case OPT_BIND:
			ok = have_addr = nu_parse_addr("udprtt", optarg,
						       &bind_addr, &bind_len);
			break;
		case OPT_TO:
			ok = have_addr = nu_parse_addr("udprtt", optarg, &po.to,
						       &po.tolen);
			break;
		case OPT_COUNT:
			ok = have_count =
				nu_parse_u64(optarg, 1, 100000000, &po.count);
			break;
		case OPT_INTERVAL:
			ok = nu_parse_u64(optarg, 0, 60000000, &po.interval_us);
			break;
		case OPT_SIZE:
			ok = nu_parse_u64(optarg, RTT_HDR_LEN, RTT_MAX_SIZE,
					  &po.size);
			break;
		case OPT_WARMUP:
			ok = nu_parse_u64(optarg, 0, 100000000, &po.warmup);
			break;
		case OPT_TIMEOUT:
			ok = nu_parse_u64(optarg, 1, 60000, &po.timeout_ms);
			break;
		case OPT_JSON:
			po.json = true;
			break;
		default:
			bad_usage(NULL, NULL);
		}
		if (!ok)
			bad_usage("invalid value", optarg);
	}
	if (optind != argc)
		bad_usage("unexpected argument", argv[optind]);
	if (is_echo) {
		if (!have_addr)
			bad_usage("echo needs --bind", NULL);
		return do_echo(&bind_addr, bind_len);
	}
	if (!have_addr || !have_count)
		bad_usage("probe needs --to and --count", NULL);
	return do_probe(&po);
}
