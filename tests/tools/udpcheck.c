// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpcheck.c - byte-exact UDP delivery check, used by the integration tests
 * and the benchmarks to prove that the gateway delivers every datagram
 * unchanged (no loss, no corruption, no duplication; reordering is counted
 * but tolerated).
 *
 *   udpcheck send --to ADDR:PORT --count N [--min 18] [--max BYTES] ...
 *   udpcheck recv --bind ADDR:PORT --expect N [--timeout-ms 3000] ...
 *   udpcheck selftest
 *
 * Protocol. Sender and receiver share a seed (--seed, default 1). Datagram i
 * (0 <= i < N) is a UDP payload of len(i) bytes, min <= len(i) <= max:
 * len(0) = min, len(1) = max, otherwise min + H(seed, i) mod (max - min + 1);
 * with --sweep (both sides) len(i) = min + i mod (max - min + 1): every
 * size in turn.
 * Its content is fully determined by (seed, i, len):
 *
 *   offset  size  field (network byte order)
 *        0     4  magic 0x55445043 ("UDPC")
 *        4     4  sequence number i
 *        8     2  length of the whole UDP payload (len)
 *       10     8  checksum: keyed 64-bit hash of (seed, i, len, bytes 18..len)
 *       18   len-18  pseudo-random bytes, xorshift64* seeded from
 *                 splitmix64(seed, i, len), each 64-bit output stored
 *                 little-endian
 *
 * The receiver takes seq and len from the header, regenerates the datagram
 * and compares all len bytes; any difference (or a datagram whose size does
 * not match its length field, a bad magic, a seq >= N) counts as corrupt.
 * A seq that already arrived intact counts as a duplicate; an intact
 * datagram whose seq is below the highest seq seen so far counts as
 * reordered. missing = N - (distinct seqs received intact).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
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

#define UC_MAGIC 0x55445043u /* "UDPC" */
#define UC_HDR_LEN 18u
#define UC_MAX_V4 65507u /* 65535 - 20 (IPv4) - 8 (UDP) */
#define UC_MAX_V6 65527u /* 65535 - 8 (UDP); IPv6 payload length excl. hdr */
#define UC_DEF_MAX_V4 1472u /* MTU 1500 - 28 */
#define UC_DEF_MAX_V6 1452u /* MTU 1500 - 48 */
#define UC_DEF_SEED 1u
#define UC_DEF_RATE 20000u
#define UC_DEF_TIMEOUT_MS 3000u
#define UC_BATCH 64
#define UC_MAX_DEBT 256 /* paced: largest catch-up burst, datagrams */
#define UC_RXBUF 65536u /* > largest UDP payload: MSG_TRUNC never expected */
#define UC_SOCKBUF (32 << 20)
#define UC_MAX_REPORTS 10 /* corrupt datagrams described on stderr */

#define SALT_LEN 0x6c656e6774685f5full
#define SALT_DATA 0x646174615f5f5f5full
#define SALT_CSUM 0x63686b73756d5f5full

static bool quiet_reports; /* selftest: no stderr report per corrupt one */

/* ---- deterministic content ---------------------------------------------- */

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rotl64(uint64_t x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	nu_put_be32(p, (uint32_t)(v >> 32));
	nu_put_be32(p + 4, (uint32_t)v);
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned int)p[0] << 8 | p[1]);
}

static uint64_t get_le64(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t k = 0; k < n && k < 8; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

static bool sweep_sizes; /* --sweep: len(i) = min + i mod span */

/* Payload length of datagram i; min <= result <= max. */
static uint32_t pkt_len(uint64_t seed, uint64_t i, uint32_t min, uint32_t max)
{
	uint64_t span = (uint64_t)max - min + 1;

	if (sweep_sizes)
		return min + (uint32_t)(i % span);

	if (i == 0 || min == max)
		return min;
	if (i == 1)
		return max;
	return min +
	       (uint32_t)(splitmix64(seed ^ splitmix64(i ^ SALT_LEN)) % span);
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed, uint32_t seq,
			uint32_t len)
{
	uint64_t x =
		splitmix64(seed ^ splitmix64((uint64_t)seq ^
					     (uint64_t)len << 32 ^ SALT_DATA));

	if (x == 0)
		x = SALT_DATA;
	while (n > 0) {
		uint64_t r;
		size_t k = n < 8 ? n : 8;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		r = x * 0x2545f4914f6cdd1dull;
		for (size_t b = 0; b < k; b++)
			p[b] = (uint8_t)(r >> (8 * b));
		p += k;
		n -= k;
	}
}

/*
 * Each step h = rotl(h ^ w, 31) * K is a bijection of h and of w, so any
 * change confined to one 64-bit word always changes the result.
 */
static uint64_t payload_csum(uint64_t seed, uint32_t seq, uint32_t len,
			     const uint8_t *p, size_t n)
{
	const uint64_t k = 0x9fb21c651e98df25ull;
	uint64_t h = splitmix64(seed ^ SALT_CSUM) ^ ((uint64_t)seq << 16) ^ len;

	for (size_t off = 0; off < n; off += 8) {
		size_t w = n - off < 8 ? n - off : 8;

		h = rotl64(h ^ get_le64(p + off, w), 31) * k;
	}
	return splitmix64(h ^ n);
}

/* buf must hold len bytes, UC_HDR_LEN <= len <= 65535. */
static void build_pkt(uint8_t *buf, uint64_t seed, uint32_t seq, uint32_t len)
{
	size_t n = len - UC_HDR_LEN;

	fill_random(buf + UC_HDR_LEN, n, seed, seq, len);
	nu_put_be32(buf, UC_MAGIC);
	nu_put_be32(buf + 4, seq);
	put_be16(buf + 8, (uint16_t)len);
	put_be64(buf + 10, payload_csum(seed, seq, len, buf + UC_HDR_LEN, n));
}

/* ---- verification ------------------------------------------------------- */

enum verdict {
	V_OK,
	V_SHORT, /* shorter than the header */
	V_TRUNC, /* larger than the receive buffer */
	V_MAGIC,
	V_LENFIELD, /* size differs from the length field */
	V_SEQ, /* seq >= expected count */
	V_POLICY, /* length is not len(seq) for --min/--max */
	V_DATA, /* content differs */
};

static const char *const verdict_str[] = {
	[V_OK] = "ok",
	[V_SHORT] = "shorter than header",
	[V_TRUNC] = "truncated",
	[V_MAGIC] = "bad magic",
	[V_LENFIELD] = "size does not match length field",
	[V_SEQ] = "seq out of range",
	[V_POLICY] = "length differs from len(seq) for --min/--max",
	[V_DATA] = "content mismatch",
};

struct verifier {
	uint64_t seed;
	uint64_t expect; /* valid seqs are 0..expect-1 */
	uint32_t min, max; /* max == 0: length policy not checked */
	uint8_t *scratch; /* UC_RXBUF bytes */
};

static enum verdict verify_pkt(const struct verifier *v, const uint8_t *p,
			       size_t n, bool trunc, uint32_t *seqp,
			       size_t *diffp)
{
	uint32_t seq, len;

	*seqp = UINT32_MAX;
	*diffp = 0;
	if (trunc)
		return V_TRUNC;
	if (n < UC_HDR_LEN)
		return V_SHORT;
	if (nu_get_be32(p) != UC_MAGIC)
		return V_MAGIC;
	seq = nu_get_be32(p + 4);
	len = get_be16(p + 8);
	*seqp = seq;
	if (len != n)
		return V_LENFIELD;
	if (seq >= v->expect)
		return V_SEQ;
	if (v->max && len != pkt_len(v->seed, seq, v->min, v->max))
		return V_POLICY;
	build_pkt(v->scratch, v->seed, seq, len);
	if (memcmp(v->scratch, p, n) != 0) {
		size_t d = 0;

		while (d < n && v->scratch[d] == p[d])
			d++;
		*diffp = d;
		return V_DATA;
	}
	return V_OK;
}

/* ---- usage -------------------------------------------------------------- */

/* printf format; at most 68 columns per line */
static const char usage_fmt[] =
	"usage: udpcheck send --to ADDR:PORT --count N [--min BYTES]\n"
	"                     [--max BYTES] [--rate PPS] [--seed S] [--frag]\n"
	"       udpcheck recv --bind ADDR:PORT --expect N [--timeout-ms MS]\n"
	"                     [--seed S] [--min BYTES --max BYTES]\n"
	"                     [--linger-ms MS] [--json]\n"
	"       udpcheck selftest\n"
	"\n"
	"Byte-exact UDP delivery check. The sender emits N datagrams of\n"
	"mixed sizes whose content is a function of (seed, seq, length);\n"
	"the receiver regenerates each one and compares every byte.\n"
	"\n"
	"ADDR:PORT  numeric: 10.0.0.1:9000, [fd00::1]:9000, [fe80::1%%eth0]:9\n"
	"send:\n"
	"  --to ADDR:PORT    destination\n"
	"  --count N         datagrams to send (seq 0..N-1)\n"
	"  --min BYTES       smallest UDP payload, >= %u (default %u)\n"
	"  --max BYTES       largest UDP payload (default %u for IPv4, %u\n"
	"                    for IPv6): payload = MTU - 28 (IPv4) or\n"
	"                    MTU - 48 (IPv6). Datagram 0 has --min bytes,\n"
	"                    datagram 1 --max bytes, the rest are uniform\n"
	"                    in [min, max]\n"
	"  --sweep           every size in turn: min, min + 1, ..., max,\n"
	"                    min, ... (the receiver needs it too)\n"
	"  --rate PPS        pacing in packets/s (default %u), with bursts\n"
	"                    of at most 256 when the sender falls behind;\n"
	"                    0 = unpaced, as fast as the socket takes\n"
	"                    them: this may overrun the receiver, whose\n"
	"                    drops then count as missing\n"
	"  --seed S          content seed, must match the receiver's\n"
	"                    (default %u)\n"
	"  --frag            allow IP fragmentation (default: DF set, and a\n"
	"                    datagram above the path MTU fails: EMSGSIZE)\n"
	"recv:\n"
	"  --bind ADDR:PORT  local address ([::]:PORT takes IPv4 too)\n"
	"  --expect N        datagrams expected (seq 0..N-1)\n"
	"  --timeout-ms MS   stop after MS without a datagram (default %u;\n"
	"                    0 = never)\n"
	"  --seed S          content seed (default %u)\n"
	"  --min/--max BYTES also check every length against the sender's\n"
	"                    size choice for these bounds (default: off)\n"
	"  --linger-ms MS    keep listening MS after the last expected\n"
	"                    datagram, to catch late duplicates (default 0)\n"
	"  --json            print the result as one JSON object on stdout\n"
	"                    (the summary line then goes to stderr)\n"
	"  Prints \"udpcheck: ready\" on stderr once bound. Stops after N\n"
	"  distinct intact datagrams, the idle timeout or SIGINT/SIGTERM,\n"
	"  then prints the line\n"
	"  udpcheck: received=R ok=K corrupt=C duplicate=D reordered=O\n"
	"  missing=M\n"
	"  (one line). Exit 0 iff ok == N, corrupt == 0, duplicate == 0.\n"
	"selftest: checks the generator, and that the verifier catches\n"
	"  corrupted, truncated, extended and misattributed datagrams.\n"
	"\n"
	"Exit status: 0 success, 1 check failed or error, 2 bad usage.\n";

static void usage(FILE *f)
{
	fprintf(f, usage_fmt, UC_HDR_LEN, UC_HDR_LEN, UC_DEF_MAX_V4,
		UC_DEF_MAX_V6, UC_DEF_RATE, UC_DEF_SEED, UC_DEF_TIMEOUT_MS,
		UC_DEF_SEED);
}

__attribute__((noreturn)) static void bad_usage(const char *msg,
						const char *arg)
{
	if (msg)
		fprintf(stderr, "udpcheck: %s%s%s\n", msg, arg ? ": " : "",
			arg ? arg : "");
	usage(stderr);
	exit(2);
}

/* ---- send --------------------------------------------------------------- */

struct send_opts {
	struct sockaddr_storage to;
	socklen_t tolen;
	bool have_to;
	uint64_t count;
	uint64_t min, max, rate, seed;
	bool frag;
};

/* ceil(i * 1e9 / rate): the send deadline of datagram i relative to start. */
static uint64_t pace_offset(uint64_t i, uint64_t rate)
{
	unsigned __int128 t = (unsigned __int128)i * NU_NSEC_PER_SEC;

	return (uint64_t)((t + rate - 1) / rate);
}

static int do_send(const struct send_opts *o)
{
	int fam = o->to.ss_family;
	struct mmsghdr msgs[UC_BATCH];
	struct iovec iov[UC_BATCH];
	uint8_t *bufs;
	uint64_t i = 0, base = 0, built = 0, bytes = 0, refused = 0, nobufs = 0;
	uint64_t t_begin, start, elapsed, slips = 0;
	int fd, rc = 0;

	fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udpcheck: socket");
		return 1;
	}
	nu_set_sockbuf(fd, SO_SNDBUF, UC_SOCKBUF, "udpcheck");
	if (!o->frag) {
		int pmtu = fam == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO;

		if (setsockopt(fd, fam == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
			       fam == AF_INET ? IP_MTU_DISCOVER
					      : IPV6_MTU_DISCOVER,
			       &pmtu, sizeof(pmtu)) < 0)
			perror("udpcheck: setsockopt(MTU_DISCOVER)");
	}
	if (connect(fd, (const struct sockaddr *)&o->to, o->tolen) < 0) {
		perror("udpcheck: connect");
		close(fd);
		return 1;
	}
	bufs = malloc((size_t)UC_BATCH * o->max);
	if (!bufs) {
		perror("udpcheck: malloc");
		close(fd);
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (int k = 0; k < UC_BATCH; k++) {
		iov[k].iov_base = bufs + (size_t)k * o->max;
		msgs[k].msg_hdr.msg_iov = &iov[k];
		msgs[k].msg_hdr.msg_iovlen = 1;
	}
	nu_install_signals(NULL);

	t_begin = start = nu_now_ns(); /* start moves when debt is forgiven */
	/*
	 * msgs[0..built) hold datagrams base..base+built-1, of which those
	 * before i are sent. A batch is generated once and sent in as many
	 * sendmmsg calls as pacing (or partial sends) require.
	 */
	while (i < o->count && !nu_stop_requested) {
		uint64_t n, off = i - base;
		int r;

		if (off == built) {
			base = i;
			off = 0;
			built = o->count - i < UC_BATCH ? o->count - i
							: UC_BATCH;
			for (uint64_t k = 0; k < built; k++) {
				uint32_t seq = (uint32_t)(i + k);
				uint32_t len =
					pkt_len(o->seed, seq, (uint32_t)o->min,
						(uint32_t)o->max);

				build_pkt(iov[k].iov_base, o->seed, seq, len);
				iov[k].iov_len = len;
			}
		}
		n = built - off;
		if (o->rate) {
			uint64_t el = nu_now_ns() - start;
			uint64_t due = (uint64_t)((unsigned __int128)el *
						  o->rate / NU_NSEC_PER_SEC) +
				       1;

			if (due <= i) {
				struct timespec ts = nu_ns_to_ts(
					start + pace_offset(i, o->rate));

				/* EINTR on SIGINT/SIGTERM: loop re-checks. */
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&ts, NULL);
				continue;
			}
			if (due - i > UC_MAX_DEBT) {
				/* Descheduled: forgive the debt beyond
				 * UC_MAX_DEBT instead of bursting it out. */
				start += pace_offset(due - i - UC_MAX_DEBT,
						     o->rate);
				due = i + UC_MAX_DEBT;
				slips++;
			}
			if (due - i < n)
				n = due - i;
		}
		r = sendmmsg(fd, msgs + off, (unsigned int)n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECONNREFUSED) {
				/* ICMP unreachable from an earlier datagram:
				 * nothing was sent, just retry. */
				refused++;
				continue;
			}
			if (errno == ENOBUFS || errno == EAGAIN) {
				struct timespec ts = {0, 100000};

				nobufs++;
				nanosleep(&ts, NULL);
				continue;
			}
			if (errno == EMSGSIZE)
				fprintf(stderr,
					"udpcheck: datagram seq %" PRIu64
					" (%zu bytes) exceeds the path MTU: "
					"lower --max (payload = MTU - 28 for "
					"IPv4, MTU - 48 for IPv6) or pass "
					"--frag\n",
					i, iov[off].iov_len);
			else
				perror("udpcheck: sendmmsg");
			rc = 1;
			break;
		}
		for (int k = 0; k < r; k++)
			bytes += iov[off + (uint64_t)k].iov_len;
		i += (uint64_t)r;
	}
	elapsed = nu_now_ns() - t_begin;
	if (nu_stop_requested)
		fprintf(stderr, "udpcheck: interrupted\n");
	if (refused)
		fprintf(stderr,
			"udpcheck: warning: %" PRIu64
			" sends refused (ICMP port unreachable: is the "
			"receiver up?)\n",
			refused);
	if (slips)
		fprintf(stderr,
			"udpcheck: note: fell behind the pacing schedule "
			"%" PRIu64
			" times (CPU contention?); bursts were capped at %d\n",
			slips, UC_MAX_DEBT);
	if (nobufs)
		fprintf(stderr,
			"udpcheck: warning: %" PRIu64
			" sends hit ENOBUFS/EAGAIN\n",
			nobufs);
	printf("udpcheck: sent=%" PRIu64 " bytes=%" PRIu64
	       " elapsed_ms=%.1f rate_pps=%.0f\n",
	       i, bytes, (double)elapsed / 1e6,
	       elapsed ? (double)i * 1e9 / (double)elapsed : 0.0);
	fflush(stdout);
	free(bufs);
	close(fd);
	if (i < o->count)
		rc = 1;
	return rc;
}

/* ---- recv --------------------------------------------------------------- */

struct recv_opts {
	struct sockaddr_storage bind;
	socklen_t bindlen;
	bool have_bind;
	uint64_t expect;
	uint64_t timeout_ms, linger_ms, seed, min, max;
	bool json;
};

struct recv_stats {
	uint64_t received, ok, corrupt, duplicate, reordered;
	uint64_t content_mismatch; /* corrupt ones with a valid header */
	uint64_t min_size, max_size, first_ns, last_ns;
	uint64_t highest; /* highest intact seq + 1; 0 = none yet */
};

static void account(struct recv_stats *st, const struct verifier *v,
		    uint8_t *bitmap, const uint8_t *p, size_t n, bool trunc)
{
	enum verdict vd;
	uint32_t seq;
	size_t diff;

	st->received++;
	if (st->received == 1 || n < st->min_size)
		st->min_size = n;
	if (n > st->max_size)
		st->max_size = n;
	vd = verify_pkt(v, p, n, trunc, &seq, &diff);
	if (vd != V_OK) {
		if (st->corrupt < UC_MAX_REPORTS && !quiet_reports) {
			fprintf(stderr,
				"udpcheck: corrupt datagram: %s (size=%zu",
				verdict_str[vd], n);
			if (seq != UINT32_MAX)
				fprintf(stderr, " seq=%" PRIu32 " lenfield=%u",
					seq, get_be16(p + 8));
			if (vd == V_DATA)
				fprintf(stderr, " first-diff-offset=%zu", diff);
			fprintf(stderr, ")\n");
		}
		st->corrupt++;
		if (vd == V_DATA)
			st->content_mismatch++;
		return;
	}
	if (bitmap[seq / 8] & (1u << (seq % 8))) {
		st->duplicate++;
		return;
	}
	bitmap[seq / 8] |= (uint8_t)(1u << (seq % 8));
	st->ok++;
	if ((uint64_t)seq + 1 < st->highest)
		st->reordered++;
	else
		st->highest = (uint64_t)seq + 1;
}

static int do_recv(const struct recv_opts *o)
{
	struct verifier v = {
		.seed = o->seed,
		.expect = o->expect,
		.min = (uint32_t)o->min,
		.max = (uint32_t)o->max,
	};
	struct recv_stats st = {0};
	struct mmsghdr msgs[UC_BATCH];
	struct iovec iov[UC_BATCH];
	uint8_t *bufs = NULL, *bitmap = NULL;
	uint64_t deadline = 0, missing;
	bool done = false;
	sigset_t oldmask;
	FILE *sum;
	int fd, rc = 1;

	fd = socket(o->bind.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("udpcheck: socket");
		return 1;
	}
	nu_set_sockbuf(fd, SO_RCVBUF, UC_SOCKBUF, "udpcheck");
	if (bind(fd, (const struct sockaddr *)&o->bind, o->bindlen) < 0) {
		perror("udpcheck: bind");
		goto out;
	}
	bufs = malloc((size_t)UC_BATCH * UC_RXBUF);
	v.scratch = malloc(UC_RXBUF);
	bitmap = calloc((size_t)(o->expect / 8 + 1), 1);
	if (!bufs || !v.scratch || !bitmap) {
		perror("udpcheck: malloc");
		goto out;
	}
	memset(msgs, 0, sizeof(msgs));
	for (int k = 0; k < UC_BATCH; k++) {
		iov[k].iov_base = bufs + (size_t)k * UC_RXBUF;
		iov[k].iov_len = UC_RXBUF;
		msgs[k].msg_hdr.msg_iov = &iov[k];
		msgs[k].msg_hdr.msg_iovlen = 1;
	}
	nu_install_signals(&oldmask);
	fprintf(stderr, "udpcheck: ready\n");

	if (o->timeout_ms)
		deadline = nu_now_ns() + o->timeout_ms * 1000000;
	while (!nu_stop_requested) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		struct timespec ts, *tsp = NULL;
		uint64_t t;
		int r;

		if (deadline) {
			t = nu_now_ns();
			if (t >= deadline)
				break;
			ts = nu_ns_to_ts(deadline - t);
			tsp = &ts;
		}
		r = ppoll(&pfd, 1, tsp, &oldmask);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			perror("udpcheck: ppoll");
			goto out;
		}
		if (r == 0)
			break;
		for (;;) {
			r = recvmmsg(fd, msgs, UC_BATCH, MSG_DONTWAIT, NULL);
			if (r < 0) {
				if (errno == EAGAIN || errno == EWOULDBLOCK)
					break;
				if (errno == EINTR)
					continue;
				perror("udpcheck: recvmmsg");
				goto out;
			}
			t = nu_now_ns();
			if (!st.first_ns)
				st.first_ns = t;
			st.last_ns = t;
			for (int k = 0; k < r; k++)
				account(&st, &v, bitmap, iov[k].iov_base,
					msgs[k].msg_len,
					msgs[k].msg_hdr.msg_flags & MSG_TRUNC);
			if (!done && st.ok == o->expect) {
				done = true;
				if (!o->linger_ms)
					goto finish;
				deadline = t + o->linger_ms * 1000000;
			} else if (!done && o->timeout_ms) {
				deadline = t + o->timeout_ms * 1000000;
			}
			if (r < UC_BATCH)
				break;
		}
	}
finish:
	missing = o->expect - st.ok;
	if (nu_stop_requested)
		fprintf(stderr, "udpcheck: interrupted\n");
	else if (!done)
		fprintf(stderr, "udpcheck: idle timeout\n");
	if (st.ok == 0 && st.corrupt && st.content_mismatch == st.corrupt)
		fprintf(stderr,
			"udpcheck: every datagram failed the content check: "
			"does the sender use the same --seed?\n");
	sum = o->json ? stderr : stdout;
	fprintf(sum,
		"udpcheck: received=%" PRIu64 " ok=%" PRIu64 " corrupt=%" PRIu64
		" duplicate=%" PRIu64 " reordered=%" PRIu64 " missing=%" PRIu64
		"\n",
		st.received, st.ok, st.corrupt, st.duplicate, st.reordered,
		missing);
	if (o->json)
		printf("{\"expect\":%" PRIu64 ",\"received\":%" PRIu64
		       ",\"ok\":%" PRIu64 ",\"corrupt\":%" PRIu64
		       ",\"duplicate\":%" PRIu64 ",\"reordered\":%" PRIu64
		       ",\"missing\":%" PRIu64 ",\"min_size\":%" PRIu64
		       ",\"max_size\":%" PRIu64 ",\"elapsed_ms\":%.1f}\n",
		       o->expect, st.received, st.ok, st.corrupt, st.duplicate,
		       st.reordered, missing, st.min_size, st.max_size,
		       (double)(st.last_ns - st.first_ns) / 1e6);
	fflush(stdout);
	rc = (st.ok == o->expect && st.corrupt == 0 && st.duplicate == 0) ? 0
									  : 1;
out:
	free(bitmap);
	free(v.scratch);
	free(bufs);
	close(fd);
	return rc;
}

/* ---- selftest ----------------------------------------------------------- */

static int st_fail;
static unsigned int st_checks;

static void st_expect(bool cond, const char *what, uint64_t a, uint64_t b)
{
	st_checks++;
	if (!cond) {
		st_fail++;
		if (st_fail <= 20)
			fprintf(stderr,
				"udpcheck: selftest FAIL: %s (%" PRIu64
				", %" PRIu64 ")\n",
				what, a, b);
	}
}

static int do_selftest(void)
{
	/* 0, 1, 8 and 9 bytes after the header; MTU-sized; largest */
	static const uint32_t lens[] = {18, 19, 26, 27, 64, 1472, UC_MAX_V4};
	uint8_t *pkt = malloc(UC_RXBUF), *pkt2 = malloc(UC_RXBUF);
	struct verifier v = {
		.seed = 42, .expect = 1000, .min = 18, .max = 1472};
	enum verdict vd;
	uint32_t seq;
	size_t diff;

	v.scratch = malloc(UC_RXBUF);
	if (!pkt || !pkt2 || !v.scratch) {
		perror("udpcheck: malloc");
		return 1;
	}

	/* Size policy: deterministic, in range, seq 0 = min, seq 1 = max. */
	{
		uint32_t lo = UINT32_MAX, hi = 0;

		st_expect(pkt_len(7, 0, 18, 1472) == 18, "len(0) == min", 0, 0);
		st_expect(pkt_len(7, 1, 18, 1472) == 1472, "len(1) == max", 0,
			  0);
		for (uint64_t i = 2; i < 100000; i++) {
			uint32_t l = pkt_len(7, i, 18, 1472);

			lo = l < lo ? l : lo;
			hi = l > hi ? l : hi;
			if (l < 18 || l > 1472 || l != pkt_len(7, i, 18, 1472))
				st_expect(false, "len in range", i, l);
		}
		st_expect(lo == 18 && hi == 1472, "len spans [min, max]", lo,
			  hi);
		st_expect(pkt_len(7, 5, 100, 100) == 100, "min == max", 0, 0);
	}

	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		uint32_t len = lens[li];

		v.expect = 1000;
		v.max = 0; /* policy off: arbitrary lengths */
		build_pkt(pkt, 42, 999, len);
		vd = verify_pkt(&v, pkt, len, false, &seq, &diff);
		st_expect(vd == V_OK && seq == 999, "intact verifies", len, vd);
		build_pkt(pkt2, 42, 999, len);
		st_expect(memcmp(pkt, pkt2, len) == 0, "deterministic", len, 0);

		/* Every single-bit flip at every offset is caught. */
		for (size_t off = 0; off < len; off++) {
			for (unsigned int bit = 0; bit < 8; bit++) {
				pkt[off] ^= (uint8_t)(1u << bit);
				vd = verify_pkt(&v, pkt, len, false, &seq,
						&diff);
				st_expect(vd != V_OK, "bit flip caught", off,
					  bit);
				pkt[off] ^= (uint8_t)(1u << bit);
			}
			if (len > 1472 && off > 64)
				off += 97; /* sample the jumbo one */
		}
		/* The checksum alone catches payload changes too. */
		if (len > UC_HDR_LEN) {
			uint64_t c0 =
				payload_csum(42, 999, len, pkt + UC_HDR_LEN,
					     len - UC_HDR_LEN);

			pkt[len - 1] ^= 0x80;
			st_expect(c0 != payload_csum(42, 999, len,
						     pkt + UC_HDR_LEN,
						     len - UC_HDR_LEN),
				  "checksum sees last byte", len, 0);
			pkt[len - 1] ^= 0x80;
		}
		/* Truncated by one byte, and extended by one byte. */
		vd = verify_pkt(&v, pkt, len - 1, false, &seq, &diff);
		st_expect(vd != V_OK, "truncation caught", len, vd);
		pkt[len] = 0;
		vd = verify_pkt(&v, pkt, len + 1, false, &seq, &diff);
		st_expect(vd != V_OK, "extension caught", len, vd);
		vd = verify_pkt(&v, pkt, len, true, &seq, &diff);
		st_expect(vd == V_TRUNC, "MSG_TRUNC caught", len, vd);

		/* Wrong seed (sender/receiver mismatch) is caught. */
		v.seed = 43;
		vd = verify_pkt(&v, pkt, len, false, &seq, &diff);
		st_expect(vd == V_DATA, "wrong seed caught", len, vd);
		v.seed = 42;

		/* Out of range seq. */
		v.expect = 999;
		vd = verify_pkt(&v, pkt, len, false, &seq, &diff);
		st_expect(vd == V_SEQ, "seq range caught", len, vd);
		v.expect = 1000;

		/* A well-formed datagram for another seq/len pair whose header
		 * was rewritten to claim this seq is caught. */
		build_pkt(pkt2, 42, 998, len);
		nu_put_be32(pkt2 + 4, 999);
		vd = verify_pkt(&v, pkt2, len, false, &seq, &diff);
		st_expect(vd == V_DATA, "seq swap caught", len, vd);
	}

	/* Length policy: a seq whose size is not len(seq) is caught. */
	{
		uint32_t l5 = pkt_len(42, 5, 18, 1472);
		uint32_t other = l5 == 18 ? 19 : l5 - 1;

		v.min = 18;
		v.max = 1472;
		build_pkt(pkt, 42, 5, l5);
		vd = verify_pkt(&v, pkt, l5, false, &seq, &diff);
		st_expect(vd == V_OK, "policy ok", l5, vd);
		build_pkt(pkt, 42, 5, other);
		vd = verify_pkt(&v, pkt, other, false, &seq, &diff);
		st_expect(vd == V_POLICY, "policy mismatch caught", other, vd);
	}

	/* Accounting: duplicates, reordering. */
	{
		struct recv_stats s = {0};
		uint8_t bm[2] = {0};
		static const uint32_t order[] = {0, 2, 1, 2, 3, 5, 4};

		v.expect = 6;
		v.max = 0;
		for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
			uint32_t l = 18 + 7 * order[k];

			build_pkt(pkt, 42, order[k], l);
			account(&s, &v, bm, pkt, l, false);
		}
		pkt[20] ^= 1;
		quiet_reports = true;
		account(&s, &v, bm, pkt, 18 + 7 * 4, false);
		quiet_reports = false;
		st_expect(s.received == 8 && s.ok == 6 && s.duplicate == 1 &&
				  s.reordered == 2 && s.corrupt == 1,
			  "accounting", s.duplicate, s.reordered);
		st_expect(s.min_size == 18 && s.max_size == 18 + 35, "sizes",
			  s.min_size, s.max_size);
	}

	free(v.scratch);
	free(pkt2);
	free(pkt);
	if (st_fail) {
		fprintf(stderr, "udpcheck: selftest FAILED: %d of %u checks\n",
			st_fail, st_checks);
		return 1;
	}
	printf("udpcheck: selftest ok (%u checks)\n", st_checks);
	return 0;
}

/* ---- main --------------------------------------------------------------- */

enum {
	OPT_TO = 256,
	OPT_COUNT,
	OPT_MIN,
	OPT_MAX,
	OPT_RATE,
	OPT_SEED,
	OPT_FRAG,
	OPT_BIND,
	OPT_EXPECT,
	OPT_TIMEOUT,
	OPT_LINGER,
	OPT_JSON,
	OPT_SWEEP,
};

int main(int argc, char **argv)
{
	static const struct option send_lo[] = {
		{"to", required_argument, NULL, OPT_TO},
		{"count", required_argument, NULL, OPT_COUNT},
		{"min", required_argument, NULL, OPT_MIN},
		{"max", required_argument, NULL, OPT_MAX},
		{"rate", required_argument, NULL, OPT_RATE},
		{"seed", required_argument, NULL, OPT_SEED},
		{"frag", no_argument, NULL, OPT_FRAG},
		{"sweep", no_argument, NULL, OPT_SWEEP},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct option recv_lo[] = {
		{"bind", required_argument, NULL, OPT_BIND},
		{"expect", required_argument, NULL, OPT_EXPECT},
		{"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
		{"linger-ms", required_argument, NULL, OPT_LINGER},
		{"seed", required_argument, NULL, OPT_SEED},
		{"min", required_argument, NULL, OPT_MIN},
		{"max", required_argument, NULL, OPT_MAX},
		{"json", no_argument, NULL, OPT_JSON},
		{"sweep", no_argument, NULL, OPT_SWEEP},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct send_opts so = {
		.min = UC_HDR_LEN, .rate = UC_DEF_RATE, .seed = UC_DEF_SEED};
	struct recv_opts ro = {.timeout_ms = UC_DEF_TIMEOUT_MS,
			       .seed = UC_DEF_SEED,
			       .min = UC_HDR_LEN};
	const struct option *lo;
	const char *cmd;
	bool is_send, have_count = false, have_min = false;
	int c;

	if (argc < 2)
		bad_usage(NULL, NULL);
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "selftest")) {
		if (argc != 2)
			bad_usage("selftest takes no arguments", NULL);
		return do_selftest();
	}
	if (!strcmp(cmd, "send"))
		is_send = true;
	else if (!strcmp(cmd, "recv"))
		is_send = false;
	else
		bad_usage("unknown command", cmd);
	lo = is_send ? send_lo : recv_lo;

	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case OPT_TO:
			ok = so.have_to = nu_parse_addr("udpcheck", optarg,
							&so.to, &so.tolen);
			break;
		case OPT_BIND:
			ok = ro.have_bind = nu_parse_addr(
				"udpcheck", optarg, &ro.bind, &ro.bindlen);
			break;
		case OPT_COUNT:
			ok = have_count =
				nu_parse_u64(optarg, 1, UINT32_MAX, &so.count);
			break;
		case OPT_EXPECT:
			ok = have_count =
				nu_parse_u64(optarg, 1, UINT32_MAX, &ro.expect);
			break;
		case OPT_MIN:
			ok = have_min =
				nu_parse_u64(optarg, UC_HDR_LEN, UC_MAX_V6,
					     is_send ? &so.min : &ro.min);
			break;
		case OPT_MAX:
			ok = nu_parse_u64(optarg, UC_HDR_LEN, UC_MAX_V6,
					  is_send ? &so.max : &ro.max);
			break;
		case OPT_RATE:
			ok = nu_parse_u64(optarg, 0, 100000000, &so.rate);
			break;
		case OPT_SEED:
			ok = nu_parse_u64(optarg, 0, UINT64_MAX,
					  is_send ? &so.seed : &ro.seed);
			break;
		case OPT_FRAG:
			so.frag = true;
			break;
		case OPT_TIMEOUT:
			ok = nu_parse_u64(optarg, 0, 86400000, &ro.timeout_ms);
			break;
		case OPT_LINGER:
			ok = nu_parse_u64(optarg, 0, 86400000, &ro.linger_ms);
			break;
		case OPT_JSON:
			ro.json = true;
			break;
		case OPT_SWEEP:
			sweep_sizes = true;
			break;
		default:
			bad_usage(NULL, NULL);
		}
		if (!ok)
			bad_usage("invalid value", optarg);
	}
	if (optind != argc)
		bad_usage("unexpected argument", argv[optind]);

	if (is_send) {
		uint64_t cap =
			so.to.ss_family == AF_INET ? UC_MAX_V4 : UC_MAX_V6;

		if (!so.have_to || !have_count)
			bad_usage("send needs --to and --count", NULL);
		if (!so.max)
			so.max = so.to.ss_family == AF_INET ? UC_DEF_MAX_V4
							    : UC_DEF_MAX_V6;
		if (so.max > cap)
			bad_usage("--max exceeds the largest UDP payload",
				  NULL);
		if (so.min > so.max)
			bad_usage("--min is larger than --max", NULL);
		return do_send(&so);
	}
	if (!ro.have_bind || !have_count)
		bad_usage("recv needs --bind and --expect", NULL);
	if (have_min && !ro.max)
		bad_usage("recv: --min needs --max", NULL);
	if (ro.max && ro.min > ro.max)
		bad_usage("--min is larger than --max", NULL);
	return do_recv(&ro);
}
