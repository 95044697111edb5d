// SPDX-License-Identifier: BSD-2-Clause
/*
 * flowgen.c - paced UDP flows with sequence numbers and send timestamps,
 * optionally formatted as RoCEv2 (a BTH after the UDP header), and a
 * receiver that reports loss, reordering, throughput and one-way latency.
 *
 *   flowgen send --to ADDR:PORT --rate BITS/S --size FRAME_BYTES
 *                --duration SEC [--roce] [--opcode N] [--qpn N]
 *                [--tos N] [--flow ID]
 *   flowgen recv --bind ADDR:PORT [--duration SEC] [--idle-ms MS] [--json]
 *
 * Rates and sizes are Ethernet frame bytes (without FCS): size 1042 means
 * a 1000-byte UDP payload over IPv4. One-way latency uses CLOCK_MONOTONIC,
 * which every network namespace of one host shares: sender and receiver
 * must run on the same machine.
 *
 * Payload: [BTH, 12 bytes, with --roce] then a header of magic, flow id,
 * sequence number and send time, then filler. The BTH carries the opcode
 * (default 0x04, RC SEND only), the destination QP and the sequence number
 * as PSN; its ICRC is not computed (the receiver does not check it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FG_MAGIC 0x58444650u /* "XDFP" */
#define FG_BTH_LEN 12
#define FG_L2_L4 42 /* Ethernet 14 + IPv4 20 + UDP 8 */
#define FG_MAX_PAYLOAD 9000
#define FG_BATCH 32
#define FG_MAX_LAT (1u << 22)

struct fg_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;
	uint64_t t_ns;
} __attribute__((packed));

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int parse_addr(const char *s, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(s, ':');

	if (!colon || colon - s >= (long)sizeof(host))
		return -1;
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(atoi(colon + 1));
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: flowgen send --to ADDR:PORT --rate BITS/S --size "
		"FRAME_BYTES --duration SEC\n"
		"                    [--roce] [--opcode N] [--qpn N] [--tos N] "
		"[--flow ID]\n"
		"       flowgen recv --bind ADDR:PORT [--duration SEC] "
		"[--idle-ms MS] [--json]\n");
	exit(2);
}

struct opts {
	const char *addr;
	double rate, duration;
	unsigned size, opcode, qpn, tos, flow, idle_ms;
	bool roce, json;
};

static int do_send(const struct opts *o)
{
	uint8_t buf[FG_BATCH][FG_MAX_PAYLOAD];
	struct mmsghdr msgs[FG_BATCH];
	struct iovec iov[FG_BATCH];
	struct sockaddr_in sa;
	unsigned payload, off = o->roce ? FG_BTH_LEN : 0;
	uint64_t seq = 0, start, end, gap_ns, next, sent_bytes = 0;
	int fd, tos = o->tos, sndbuf = 16 << 20;

	if (parse_addr(o->addr, &sa) || o->size < FG_L2_L4 + off + 24 ||
	    o->size - FG_L2_L4 > FG_MAX_PAYLOAD || o->rate <= 0)
		usage();
	payload = o->size - FG_L2_L4;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("flowgen: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (tos && setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
		perror("flowgen: IP_TOS");
	memset(buf, 0xa5, sizeof(buf));
	for (int i = 0; i < FG_BATCH; i++) {
		if (o->roce) {
			uint8_t *b = buf[i];

			memset(b, 0, FG_BTH_LEN);
			b[0] = o->opcode;
			b[1] = 0x40; /* M=1, pad 0, TVer 0 */
			b[2] = 0xff; /* P_Key 0xffff */
			b[3] = 0xff;
			b[5] = o->qpn >> 16;
			b[6] = o->qpn >> 8;
			b[7] = o->qpn;
		}
		iov[i].iov_base = buf[i];
		iov[i].iov_len = payload;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	gap_ns = (uint64_t)(o->size * 8.0 * 1e9 / o->rate);
	start = next = now_ns();
	end = start + (uint64_t)(o->duration * 1e9);
	while (!stop) {
		uint64_t t = now_ns();
		unsigned n = 0;
		struct timespec ts;

		if (t >= end)
			break;
		/* Send what is due, at most a batch; then sleep until the
		 * next one is due. */
		while (n < FG_BATCH && next <= t) {
			struct fg_hdr h = {FG_MAGIC, o->flow, seq + n, t};

			if (o->roce) {
				uint32_t psn = (uint32_t)(seq + n) & 0xffffff;

				buf[n][9] = psn >> 16;
				buf[n][10] = psn >> 8;
				buf[n][11] = psn;
			}
			memcpy(buf[n] + off, &h, sizeof(h));
			n++;
			next += gap_ns;
		}
		if (n) {
			int k = sendmmsg(fd, msgs, n, 0);

			if (k < 0 && errno != ENOBUFS && errno != EAGAIN &&
			    errno != ECONNREFUSED) {
				perror("flowgen: sendmmsg");
				return 1;
			}
			/* Sequence numbers advance even for refused
			 * datagrams: the receiver counts them as lost. */
			seq += n;
			sent_bytes += (uint64_t)(k > 0 ? k : 0) * o->size;
		}
		if (next > t + 20000) {
			ts.tv_sec = next / 1000000000ull;
			ts.tv_nsec = next % 1000000000ull;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
		}
	}
	fprintf(stderr,
		"flowgen: sent=%" PRIu64 " bytes=%" PRIu64 " rate_mbit=%.2f\n",
		seq, sent_bytes,
		sent_bytes * 8.0 / ((now_ns() - start) / 1e9) / 1e6);
	printf("{\"sent\":%" PRIu64 ",\"frame_bytes\":%" PRIu64 "}\n", seq,
	       sent_bytes);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return -1;
	i = (size_t)(p / 100.0 * n);
	return v[i < n ? i : n - 1] / 1000.0;
}

static int do_recv(const struct opts *o)
{
	static uint8_t buf[FG_BATCH][FG_MAX_PAYLOAD + 64];
	struct mmsghdr msgs[FG_BATCH];
	struct iovec iov[FG_BATCH];
	struct sockaddr_in sa;
	uint64_t *lat, n_lat = 0, received = 0, bytes = 0, max_seq = 0;
	uint64_t reordered = 0, first = 0, last = 0, deadline, next_seq = 0;
	int fd, rcvbuf = 32 << 20;
	bool any = false;

	if (parse_addr(o->addr, &sa))
		usage();
	lat = malloc(sizeof(*lat) * FG_MAX_LAT);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!lat || fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("flowgen: bind");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	for (int i = 0; i < FG_BATCH; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	fprintf(stderr, "flowgen: ready\n");
	deadline = o->duration > 0 ? now_ns() + (uint64_t)(o->duration * 1e9)
				   : UINT64_MAX;
	while (!stop && now_ns() < deadline) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int k, r = poll(&pfd, 1, any ? (int)o->idle_ms : 100);

		if (r == 0 && any)
			break; /* idle after traffic: the flow is over */
		if (r <= 0)
			continue;
		k = recvmmsg(fd, msgs, FG_BATCH, MSG_DONTWAIT, NULL);
		for (int i = 0; i < k; i++) {
			uint64_t t = now_ns();
			unsigned len = msgs[i].msg_len;
			struct fg_hdr h;
			unsigned off;

			/* Find the header: after a BTH or at the start. */
			off = len >= FG_BTH_LEN + sizeof(h) &&
					      !memcmp(buf[i] + FG_BTH_LEN,
						      &(uint32_t){FG_MAGIC}, 4)
				      ? FG_BTH_LEN
				      : 0;
			if (len < off + sizeof(h))
				continue;
			memcpy(&h, buf[i] + off, sizeof(h));
			if (h.magic != FG_MAGIC)
				continue;
			if (!any)
				first = t;
			any = true;
			last = t;
			received++;
			bytes += len + FG_L2_L4;
			if (h.seq < next_seq)
				reordered++;
			else
				next_seq = h.seq + 1;
			if (h.seq + 1 > max_seq)
				max_seq = h.seq + 1;
			if (n_lat < FG_MAX_LAT && t >= h.t_ns)
				lat[n_lat++] = t - h.t_ns;
		}
	}
	qsort(lat, n_lat, sizeof(*lat), cmp_u64);
	{
		double secs = last > first ? (last - first) / 1e9 : 0;
		double mbit = secs > 0 ? bytes * 8.0 / secs / 1e6 : 0;
		uint64_t lost = max_seq > received ? max_seq - received : 0;

		fprintf(stderr,
			"flowgen: received=%" PRIu64 " lost=%" PRIu64
			" reordered=%" PRIu64 " rate_mbit=%.2f p50_us=%.1f "
			"p99_us=%.1f max_us=%.1f\n",
			received, lost, reordered, mbit, pct(lat, n_lat, 50),
			pct(lat, n_lat, 99), pct(lat, n_lat, 100));
		if (o->json)
			printf("{\"received\":%" PRIu64 ",\"lost\":%" PRIu64
			       ",\"highest_seq\":%" PRIu64
			       ",\"reordered\":%" PRIu64
			       ",\"frame_bytes\":%" PRIu64 ",\"seconds\":%.6f"
			       ",\"rate_mbit\":%.3f,\"p50_us\":%.1f"
			       ",\"p99_us\":%.1f,\"max_us\":%.1f}\n",
			       received, lost, max_seq, reordered, bytes, secs,
			       mbit, pct(lat, n_lat, 50), pct(lat, n_lat, 99),
			       pct(lat, n_lat, 100));
	}
	free(lat);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"to", required_argument, NULL, 't'},
		{"bind", required_argument, NULL, 'b'},
		{"rate", required_argument, NULL, 'r'},
		{"size", required_argument, NULL, 's'},
		{"duration", required_argument, NULL, 'd'},
		{"roce", no_argument, NULL, 'R'},
		{"opcode", required_argument, NULL, 'o'},
		{"qpn", required_argument, NULL, 'q'},
		{"tos", required_argument, NULL, 'T'},
		{"flow", required_argument, NULL, 'f'},
		{"idle-ms", required_argument, NULL, 'i'},
		{"json", no_argument, NULL, 'j'},
		{0},
	};
	struct opts o = {
		.size = 1042, .opcode = 0x04, .qpn = 0x11, .idle_ms = 2000};
	struct sigaction sa = {.sa_handler = on_signal};
	int c;

	if (argc < 2)
		usage();
	while ((c = getopt_long(argc - 1, argv + 1, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'b':
			o.addr = optarg;
			break;
		case 'r':
			o.rate = strtod(optarg, NULL);
			break;
		case 's':
			o.size = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			o.duration = strtod(optarg, NULL);
			break;
		case 'R':
			o.roce = true;
			break;
		case 'o':
			o.opcode = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			o.qpn = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			o.tos = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			o.flow = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			o.idle_ms = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			o.json = true;
			break;
		default:
			usage();
		}
	}
	if (!o.addr)
		usage();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!strcmp(argv[1], "send"))
		return do_send(&o);
	if (!strcmp(argv[1], "recv"))
		return do_recv(&o);
	usage();
	return 2;
}
