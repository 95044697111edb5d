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
 * ADDR:PORT is numeric, IPv4 or bracketed IPv6: 10.0.0.2:4791,
 * [fd77::2]:4791, [fe80::2%eth0]:4791. The socket takes the family of the
 * address; a receiver bound to [::]:PORT takes IPv4 too. --tos sets the
 * IPv4 TOS byte or the IPv6 traffic class.
 *
 * Rates and sizes are Ethernet frame bytes (without FCS): the UDP payload
 * plus the L2+L3+L4 headers, 42 bytes over IPv4 (Ethernet 14 + IPv4 20 +
 * UDP 8) and 62 over IPv6 (Ethernet 14 + IPv6 40 + UDP 8). Size 1042 means
 * a 1000-byte UDP payload over IPv4, size 1062 the same payload over IPv6.
 * The sender uses the family of --to; the receiver that of each datagram's
 * source (an IPv4 datagram on a [::] socket counts 42). One-way latency
 * uses CLOCK_MONOTONIC, which every network namespace of one host shares:
 * sender and receiver must run on the same machine.
 *
 * Payload: [BTH, 12 bytes, with --roce] then a header of magic, flow id,
 * sequence number and send time, then filler. The BTH carries the opcode
 * (default 0x04, RC SEND only), the destination QP and the sequence number
 * as PSN; its ICRC is not computed (the receiver does not check it).
 */
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
#include "netutil.h"

#define FG_MAGIC 0x58444650u /* "XDFP" */
#define FG_BTH_LEN 12
#define FG_L2_L4_V4 42 /* Ethernet 14 + IPv4 20 + UDP 8 */
#define FG_L2_L4_V6 62 /* Ethernet 14 + IPv6 40 + UDP 8 */
#define FG_MAX_PAYLOAD 9000
#define FG_BATCH 32
#define FG_MAX_LAT (1u << 22)

struct fg_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;
	uint64_t t_ns;
} __attribute__((packed));

/* Frame bytes around the UDP payload for a datagram of this family. */
static unsigned l2_l4_len(int family)
{
	return family == AF_INET6 ? FG_L2_L4_V6 : FG_L2_L4_V4;
}

/* The same for a received datagram: IPv4-mapped sources came over IPv4. */
static unsigned src_l2_l4_len(const struct sockaddr_storage *src)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)src;

	if (src->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		return FG_L2_L4_V4;
	return l2_l4_len(src->ss_family);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: flowgen send --to ADDR:PORT --rate BITS/S --size "
		"FRAME_BYTES --duration SEC\n"
		"                    [--roce] [--opcode N] [--qpn N] [--tos N] "
		"[--flow ID]\n"
		"       flowgen recv --bind ADDR:PORT [--duration SEC] "
		"[--idle-ms MS] [--json]\n"
		"ADDR:PORT is numeric: 10.0.0.2:4791 or [fd77::2]:4791\n"
		"FRAME_BYTES = UDP payload + 42 over IPv4 "
		"(Ethernet 14 + IPv4 20 + UDP 8),\n"
		"              UDP payload + 62 over IPv6 "
		"(Ethernet 14 + IPv6 40 + UDP 8)\n");
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
	struct sockaddr_storage sa;
	socklen_t salen;
	unsigned hdr, payload, off = o->roce ? FG_BTH_LEN : 0;
	uint64_t seq = 0, start, end, gap_ns, next, sent_bytes = 0;
	int fd, tos = o->tos, sndbuf = 16 << 20;
	bool v6;

	if (!nu_parse_addr("flowgen", o->addr, &sa, &salen))
		usage();
	v6 = sa.ss_family == AF_INET6;
	hdr = l2_l4_len(sa.ss_family);
	if (o->size < hdr + off + 24 || o->size - hdr > FG_MAX_PAYLOAD ||
	    o->rate <= 0)
		usage();
	payload = o->size - hdr;
	fd = socket(sa.ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, salen)) {
		perror("flowgen: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (tos && setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			      v6 ? IPV6_TCLASS : IP_TOS, &tos, sizeof(tos)))
		perror(v6 ? "flowgen: IPV6_TCLASS" : "flowgen: IP_TOS");
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
	start = next = nu_now_ns();
	end = start + (uint64_t)(o->duration * 1e9);
	while (!nu_stop_requested) {
		uint64_t t = nu_now_ns();
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
			ts = nu_ns_to_ts(next);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
		}
	}
	fprintf(stderr,
		"flowgen: sent=%" PRIu64 " bytes=%" PRIu64 " rate_mbit=%.2f\n",
		seq, sent_bytes,
		sent_bytes * 8.0 / ((nu_now_ns() - start) / 1e9) / 1e6);
	printf("{\"sent\":%" PRIu64 ",\"frame_bytes\":%" PRIu64 "}\n", seq,
	       sent_bytes);
	return 0;
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
	struct sockaddr_storage sa, src[FG_BATCH];
	socklen_t salen;
	uint64_t *lat, n_lat = 0, received = 0, bytes = 0, max_seq = 0;
	uint64_t reordered = 0, first = 0, last = 0, deadline, next_seq = 0;
	int fd, rcvbuf = 32 << 20;
	bool any = false;

	if (!nu_parse_addr("flowgen", o->addr, &sa, &salen))
		usage();
	lat = malloc(sizeof(*lat) * FG_MAX_LAT);
	fd = socket(sa.ss_family, SOCK_DGRAM, 0);
	if (!lat || fd < 0 || bind(fd, (struct sockaddr *)&sa, salen)) {
		perror("flowgen: bind");
		return 1;
	}
	nu_set_sockbuf(fd, SO_RCVBUF, rcvbuf, NULL);
	for (int i = 0; i < FG_BATCH; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &src[i];
	}
	fprintf(stderr, "flowgen: ready\n");
	deadline = o->duration > 0 ? nu_now_ns() + (uint64_t)(o->duration * 1e9)
				   : UINT64_MAX;
	while (!nu_stop_requested && nu_now_ns() < deadline) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int k, r = poll(&pfd, 1, any ? (int)o->idle_ms : 100);

		if (r == 0 && any)
			break; /* idle after traffic: the flow is over */
		if (r <= 0)
			continue;
		for (int i = 0; i < FG_BATCH; i++)
			msgs[i].msg_hdr.msg_namelen = sizeof(src[i]);
		k = recvmmsg(fd, msgs, FG_BATCH, MSG_DONTWAIT, NULL);
		for (int i = 0; i < k; i++) {
			uint64_t t = nu_now_ns();
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
			bytes += len + src_l2_l4_len(&src[i]);
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
	qsort(lat, n_lat, sizeof(*lat), nu_cmp_u64);
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
	nu_install_signals(NULL);
	if (!strcmp(argv[1], "send"))
		return do_send(&o);
	if (!strcmp(argv[1], "recv"))
		return do_recv(&o);
	usage();
	return 2;
}
