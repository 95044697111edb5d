// SPDX-License-Identifier: BSD-2-Clause
/*
 * pfc_peer.c - the integration tests' PFC-aware host (t-pfc.sh). Three
 * modes; each prints one JSON line at the end.
 *
 *   pfc_peer send --ifname IF --src-mac M --dst-mac M --src-ip A --dst-ip B
 *                 --dport P [--dport2 P2 --rate2 BPS] --rate BPS --size N
 *                 --duration S [--prio 3] [--link-bps 1e9] [--pfc-log F]
 *                 [--no-honour] [--linger S]
 *     Sends UDP/IPv4 frames (raw, AF_PACKET) to dport P paced at --rate
 *     bit/s (frame bytes), payload: a 64-bit sequence number and the send
 *     time. On a second AF_PACKET socket (EtherType 0x8808) it receives
 *     every MAC control frame, writes it to --pfc-log as one line
 *     "<mono ns> <len> <hex bytes>", and -- unless --no-honour -- obeys
 *     PFC for --prio: a frame with that priority's bit set and time q stops
 *     the flow until q * 512 / link-bps seconds from its arrival (q = 0:
 *     resume at once), written independently of the gateway's pfc.c. An
 *     optional second flow (--dport2, --rate2) is never paused: it stands
 *     for another priority. --linger: after --duration, keep receiving
 *     (and logging) PFC frames for S seconds without sending.
 *     JSON: sent, sent2, pfc_frames, xoff, xon, pauses (not paused ->
 *     paused), resumes (paused -> sending), paused_ns, seconds.
 *
 *   pfc_peer recv --bind IP:PORT [--bind IP:PORT2] --idle-ms MS [--gap-ms G]
 *     Counts UDP datagrams per port until nothing came for --idle-ms after
 *     the first: received, lost (highest sequence + 1 - received), dups,
 *     the largest gap between two arrivals with its start time (mono ns),
 *     and every gap longer than G ms (default 20) as [start, length] in
 *     ns (the first 32), per port.
 *
 *   pfc_peer pfc --ifname IF --src-mac M --prio P --quanta Q[@MS] ...
 *     Sends one PFC frame per --quanta, each MS milliseconds after the
 *     previous (0 first); JSON: the mono ns at which each one left.
 *
 * Everything runs inside the test's namespaces; root (AF_PACKET).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
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
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#define MAX_BINDS 2
#define MIN(a, b) ((a) < (b) ? (a) : (b))

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
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "pfc_peer: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static bool parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return false;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			return false;
		mac[i] = (uint8_t)b[i];
	}
	return true;
}

static int raw_socket(const char *ifname, uint16_t proto, int *ifindex)
{
	struct sockaddr_ll sa = {.sll_family = AF_PACKET};
	int fd = socket(AF_PACKET, SOCK_RAW, htons(proto));

	if (fd < 0)
		die("socket(AF_PACKET): %s", strerror(errno));
	*ifindex = (int)if_nametoindex(ifname);
	if (!*ifindex)
		die("no interface %s", ifname);
	sa.sll_protocol = htons(proto);
	sa.sll_ifindex = *ifindex;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind(AF_PACKET): %s", strerror(errno));
	return fd;
}

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)(p[n - 1] << 8);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* An Ethernet/IPv4/UDP frame of `size` bytes (>= 60) to dport. */
static void build_udp(uint8_t *f, size_t size, const uint8_t *dmac,
		      const uint8_t *smac, struct in_addr src,
		      struct in_addr dst, uint16_t dport)
{
	uint16_t ip_len = (uint16_t)(size - 14),
		 udp_len = (uint16_t)(size - 34);
	uint16_t c;

	memset(f, 0, size);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(ip_len >> 8);
	f[17] = (uint8_t)ip_len;
	f[20] = 0x40; /* DF */
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, &src, 4);
	memcpy(f + 30, &dst, 4);
	c = csum(f + 14, 20);
	f[24] = (uint8_t)(c >> 8);
	f[25] = (uint8_t)c;
	f[34] = 0x9c; /* sport 40000 */
	f[35] = 0x40;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	f[38] = (uint8_t)(udp_len >> 8);
	f[39] = (uint8_t)udp_len;
	/* UDP checksum 0: none (IPv4) */
}

struct flow {
	uint16_t dport;
	double rate; /* bit/s */
	uint64_t next; /* ns */
	uint64_t seq;
	bool pausable;
};

static int cmd_send(int argc, char **argv)
{
	const char *ifname = NULL, *log_path = NULL;
	uint8_t smac[6] = {0}, dmac[6] = {0}, frame[9000], buf[2048];
	struct in_addr src = {0}, dst = {0};
	struct flow fl[2] = {{.pausable = true}, {.pausable = false}};
	unsigned int prio = 3, n_flows = 1;
	double link_bps = 1e9, duration = 1, linger = 0;
	size_t size = 1000;
	bool honour = true;
	uint64_t start, end, pause_until = 0, paused_since = 0, paused_ns = 0;
	uint64_t pfc_frames = 0, xoff = 0, xon = 0, pauses = 0, resumes = 0;
	bool paused = false;
	int tx, rx, ifindex;
	FILE *log = NULL;
	struct sockaddr_ll to = {.sll_family = AF_PACKET};

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--no-honour")) {
			honour = false;
			continue;
		}
		if (!v)
			die("%s: missing value", a);
		i++;
		if (!strcmp(a, "--ifname"))
			ifname = v;
		else if (!strcmp(a, "--src-mac") && parse_mac(v, smac))
			;
		else if (!strcmp(a, "--dst-mac") && parse_mac(v, dmac))
			;
		else if (!strcmp(a, "--src-ip") && inet_pton(AF_INET, v, &src))
			;
		else if (!strcmp(a, "--dst-ip") && inet_pton(AF_INET, v, &dst))
			;
		else if (!strcmp(a, "--dport"))
			fl[0].dport = (uint16_t)atoi(v);
		else if (!strcmp(a, "--dport2")) {
			fl[1].dport = (uint16_t)atoi(v);
			n_flows = 2;
		} else if (!strcmp(a, "--rate"))
			fl[0].rate = atof(v);
		else if (!strcmp(a, "--rate2"))
			fl[1].rate = atof(v);
		else if (!strcmp(a, "--size"))
			size = (size_t)atoi(v);
		else if (!strcmp(a, "--duration"))
			duration = atof(v);
		else if (!strcmp(a, "--prio"))
			prio = (unsigned int)atoi(v) & 7;
		else if (!strcmp(a, "--link-bps"))
			link_bps = atof(v);
		else if (!strcmp(a, "--pfc-log"))
			log_path = v;
		else if (!strcmp(a, "--linger"))
			linger = atof(v);
		else
			die("bad option or value: %s", a);
	}
	if (!ifname || size < 60 || size > sizeof(frame) || fl[0].rate <= 0 ||
	    (n_flows == 2 && fl[1].rate <= 0))
		die("send: need --ifname, --rate (and --rate2), size "
		    "60..9000%s",
		    "");
	if (log_path && !(log = fopen(log_path, "w")))
		die("cannot write %s", log_path);
	tx = raw_socket(ifname, 0, &ifindex);
	rx = raw_socket(ifname, 0x8808, &ifindex);
	to.sll_ifindex = ifindex;
	to.sll_halen = 6;
	memcpy(to.sll_addr, dmac, 6);
	start = now_ns();
	end = start + (uint64_t)(duration * 1e9);
	fl[0].next = fl[1].next = start;
	while (!stop) {
		uint64_t t = now_ns(),
			 wake = t < end ? end : end + (uint64_t)(linger * 1e9);
		struct pollfd pfd = {.fd = rx, .events = POLLIN};
		int timeout_ms;

		if (t >= end + (uint64_t)(linger * 1e9))
			break;
		/* pause expiry */
		if (paused && t >= pause_until) {
			paused = false;
			paused_ns += pause_until - paused_since;
			resumes++;
			fl[0].next = t; /* no catch-up burst */
		}
		for (unsigned int k = 0; k < n_flows; k++) {
			struct flow *f = &fl[k];

			if ((f->pausable && paused) || t >= end)
				continue;
			while (f->next <= t) {
				build_udp(frame, size, dmac, smac, src, dst,
					  f->dport);
				memcpy(frame + 42, &f->seq, 8);
				memcpy(frame + 50, &t, 8);
				if (sendto(tx, frame, size, 0,
					   (struct sockaddr *)&to,
					   sizeof(to)) == (ssize_t)size)
					f->seq++;
				else if (errno != ENOBUFS && errno != EAGAIN)
					die("sendto: %s", strerror(errno));
				f->next += (uint64_t)(size * 8 * 1e9 / f->rate);
			}
			if (f->next < wake)
				wake = f->next;
		}
		if (paused && pause_until < wake)
			wake = pause_until;
		timeout_ms = wake > t ? (int)((wake - t) / 1000000) : 0;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			continue;
		for (;;) {
			ssize_t n = recv(rx, buf, sizeof(buf), MSG_DONTWAIT);
			uint64_t at = now_ns();

			if (n < 0)
				break;
			pfc_frames++;
			if (log) {
				fprintf(log, "%" PRIu64 " %zd ", at, n);
				for (ssize_t i = 0; i < n; i++)
					fprintf(log, "%02x", buf[i]);
				fputc('\n', log);
			}
			/* PFC: DA 01:80:c2:00:00:01, 0x8808, opcode 0x0101 */
			if (n < 34 || buf[14] != 0x01 || buf[15] != 0x01 ||
			    !(buf[17] >> prio & 1))
				continue;
			uint16_t q = (uint16_t)(buf[18 + 2 * prio] << 8 |
						buf[19 + 2 * prio]);

			if (q)
				xoff++;
			else
				xon++;
			if (!honour)
				continue;
			if (q) {
				if (!paused) {
					paused = true;
					paused_since = at;
					pauses++;
				}
				pause_until = at + (uint64_t)(q * 512.0 * 1e9 /
							      link_bps);
			} else if (paused) {
				paused = false;
				paused_ns += at - paused_since;
				resumes++;
				fl[0].next = at;
			}
		}
	}
	if (paused) {
		uint64_t t = now_ns();

		paused_ns += (t < pause_until ? t : pause_until) - paused_since;
	}
	if (log)
		fclose(log);
	printf("{\"sent\": %" PRIu64 ", \"sent2\": %" PRIu64
	       ", \"pfc_frames\": %" PRIu64 ", \"xoff\": %" PRIu64
	       ", \"xon\": %" PRIu64 ", \"pauses\": %" PRIu64
	       ", \"resumes\": %" PRIu64 ", \"paused_ns\": %" PRIu64
	       ", \"seconds\": %.3f}\n",
	       fl[0].seq, fl[1].seq, pfc_frames, xoff, xon, pauses, resumes,
	       paused_ns, (MIN(now_ns(), end) - start) / 1e9);
	return 0;
}

struct port_rx {
	int fd;
	uint16_t port;
	uint64_t received, dups, max_seq, last, gap, gap_at;
	uint64_t gaps[32][2];
	unsigned int n_gaps;
	bool any;
	uint8_t *seen; /* bitmap of sequence numbers, 1 << 24 */
};

static int cmd_recv(int argc, char **argv)
{
	struct port_rx p[MAX_BINDS];
	struct pollfd pfd[MAX_BINDS];
	unsigned int n = 0;
	int idle_ms = 1000;
	uint64_t gap_min = 20000000;
	uint64_t first = 0, last_any = 0;
	uint8_t buf[9000];

	memset(p, 0, sizeof(p));
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--idle-ms")) {
			idle_ms = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--gap-ms")) {
			gap_min = (uint64_t)atoi(argv[i + 1]) * 1000000;
		} else if (!strcmp(argv[i], "--bind") && n < MAX_BINDS) {
			char host[64];
			struct sockaddr_in sa = {.sin_family = AF_INET};
			char *colon;
			int big = 8 << 20;

			snprintf(host, sizeof(host), "%s", argv[i + 1]);
			colon = strrchr(host, ':');
			if (!colon)
				die("--bind IP:PORT, got %s", argv[i + 1]);
			*colon = '\0';
			p[n].port = (uint16_t)atoi(colon + 1);
			sa.sin_port = htons(p[n].port);
			if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
				die("bad address %s", host);
			p[n].fd = socket(AF_INET, SOCK_DGRAM, 0);
			if (p[n].fd < 0 ||
			    bind(p[n].fd, (struct sockaddr *)&sa, sizeof(sa)))
				die("bind: %s", strerror(errno));
			setsockopt(p[n].fd, SOL_SOCKET, SO_RCVBUFFORCE, &big,
				   sizeof(big));
			p[n].seen = calloc(1, 1 << 21);
			if (!p[n].seen)
				die("%s", "out of memory");
			pfd[n].fd = p[n].fd;
			pfd[n].events = POLLIN;
			n++;
		} else {
			die("bad option %s", argv[i]);
		}
	}
	if (!n)
		die("%s", "recv: need --bind");
	printf("{\"ready\": true}\n");
	fflush(stdout);
	while (!stop) {
		int r = poll(pfd, n, 50);
		uint64_t t = now_ns();

		if (first && t - last_any > (uint64_t)idle_ms * 1000000)
			break;
		if (r <= 0)
			continue;
		for (unsigned int k = 0; k < n; k++) {
			ssize_t len;

			while ((len = recv(p[k].fd, buf, sizeof(buf),
					   MSG_DONTWAIT)) >= 8) {
				uint64_t seq, at = now_ns();

				memcpy(&seq, buf, 8);
				if (!first)
					first = at;
				last_any = at;
				if (p[k].any && at - p[k].last > p[k].gap) {
					p[k].gap = at - p[k].last;
					p[k].gap_at = p[k].last;
				}
				if (p[k].any && at - p[k].last > gap_min &&
				    p[k].n_gaps < 32) {
					p[k].gaps[p[k].n_gaps][0] = p[k].last;
					p[k].gaps[p[k].n_gaps][1] =
						at - p[k].last;
					p[k].n_gaps++;
				}
				p[k].any = true;
				p[k].last = at;
				if (seq < (1u << 24)) {
					if (p[k].seen[seq >> 3] >> (seq & 7) &
					    1) {
						p[k].dups++;
						continue;
					}
					p[k].seen[seq >> 3] |=
						(uint8_t)(1u << (seq & 7));
				}
				p[k].received++;
				if (seq > p[k].max_seq)
					p[k].max_seq = seq;
			}
		}
	}
	printf("{\"ports\": [");
	for (unsigned int k = 0; k < n; k++) {
		printf("%s{\"port\": %u, \"received\": %" PRIu64
		       ", \"lost\": %" PRIu64 ", \"dups\": %" PRIu64
		       ", \"max_gap_ns\": %" PRIu64 ", \"gap_at_ns\": %" PRIu64
		       ", \"gaps\": [",
		       k ? ", " : "", p[k].port, p[k].received,
		       p[k].received ? p[k].max_seq + 1 - p[k].received : 0,
		       p[k].dups, p[k].gap, p[k].gap_at);
		for (unsigned int g = 0; g < p[k].n_gaps; g++)
			printf("%s[%" PRIu64 ", %" PRIu64 "]", g ? ", " : "",
			       p[k].gaps[g][0], p[k].gaps[g][1]);
		printf("]}");
	}
	printf("]}\n");
	return 0;
}

static int cmd_pfc(int argc, char **argv)
{
	const char *ifname = NULL;
	uint8_t smac[6] = {0}, f[60];
	unsigned int prio = 3, n = 0;
	unsigned int quanta[128], delay_ms[128];
	struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_halen = 6};
	int fd, ifindex;

	for (int i = 2; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];

		if (!strcmp(a, "--ifname"))
			ifname = v;
		else if (!strcmp(a, "--src-mac") && parse_mac(v, smac))
			;
		else if (!strcmp(a, "--prio"))
			prio = (unsigned int)atoi(v) & 7;
		else if (!strcmp(a, "--quanta") && n < 128) {
			const char *at = strchr(v, '@');

			quanta[n] = (unsigned int)strtoul(v, NULL, 0) & 0xffff;
			delay_ms[n] = at ? (unsigned int)atoi(at + 1) : 0;
			n++;
		} else
			die("bad option or value: %s", a);
	}
	if (!ifname || !n)
		die("%s", "pfc: need --ifname and --quanta");
	fd = raw_socket(ifname, 0, &ifindex);
	to.sll_ifindex = ifindex;
	memcpy(to.sll_addr, "\x01\x80\xc2\x00\x00\x01", 6);
	printf("{\"sent_at_ns\": [");
	for (unsigned int k = 0; k < n; k++) {
		struct timespec d = {delay_ms[k] / 1000,
				     (long)(delay_ms[k] % 1000) * 1000000};
		uint64_t t;

		nanosleep(&d, NULL);
		memset(f, 0, sizeof(f));
		memcpy(f, "\x01\x80\xc2\x00\x00\x01", 6);
		memcpy(f + 6, smac, 6);
		f[12] = 0x88;
		f[13] = 0x08;
		f[14] = 0x01;
		f[15] = 0x01;
		f[17] = (uint8_t)(1u << prio);
		f[18 + 2 * prio] = (uint8_t)(quanta[k] >> 8);
		f[19 + 2 * prio] = (uint8_t)quanta[k];
		t = now_ns();
		if (sendto(fd, f, sizeof(f), 0, (struct sockaddr *)&to,
			   sizeof(to)) != sizeof(f))
			die("sendto: %s", strerror(errno));
		printf("%s%" PRIu64, k ? ", " : "", t);
	}
	printf("]}\n");
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return cmd_send(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "recv"))
		return cmd_recv(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "pfc"))
		return cmd_pfc(argc, argv);
	fprintf(stderr, "usage: pfc_peer send|recv|pfc ... (see the source "
			"header)\n");
	return 2;
}
