// SPDX-License-Identifier: GPL-2.0
/*
 * storgen_udp.c - storgen's UDP burst sender (storgen udp): bursts of
 * --burst-bytes every --period-ms, paced at --rate inside a burst, then
 * three FINs carrying the count; the JSON (storgen.c says what it holds).
 * The socket is connected and non-blocking; a full socket buffer is waited
 * for (counted).
 *
 * Invariants: seq counts data datagrams handed to the kernel
 * (sent_datagrams); a drop in a local qdisc counts as sent and shows up as
 * lost at the receiver. Datagram k of a burst leaves no earlier than
 * burst_start + k * size * 8 / rate.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stor_proto.h"
#include "storgen.h"

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
	h.send_ns = nu_now_ns();
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
				wait_until(nu_now_ns() + 100000000ull, tx->fd,
					   POLLOUT);
			} else {
				tx->nobufs++;
				wait_until(nu_now_ns() + 1000000ull, -1, 0);
			}
			if (nu_stop_requested)
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

int run_udp(const struct opts *o)
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
	int rc = 0;

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
		tx.sender_id = (uint32_t)nu_now_ns() ^ (uint32_t)getpid();
	for (k = 0; k < sizeof(sbody); k++)
		sbody[k] = (uint8_t)(k * 131 + 7);

	tx.fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0);
	if (tx.fd < 0) {
		fprintf(stderr, "storgen: socket: %s\n", strerror(errno));
		return 1;
	}
	/* A burst must fit in the socket buffer to reach the qdisc whole. */
	nu_set_sockbuf(tx.fd, SO_SNDBUF, (int)o->sndbuf, NULL);
	set_marks(tx.fd, ss.ss_family, o);
	if (connect(tx.fd, (struct sockaddr *)&ss, len)) {
		fprintf(stderr, "storgen: connect %s: %s\n", a,
			strerror(errno));
		return 1;
	}
	if (!wait_start(o))
		goto done;
	t0 = nu_now_ns();
	b_start = t0;
	while (!nu_stop_requested && !tx.err && b_start < t0 + dur) {
		uint64_t i = 0, due;
		bool overrun;

		last_burst_start = b_start;
		while (i < per_burst && !nu_stop_requested && !tx.err) {
			uint64_t now = nu_now_ns();

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
		t_last = nu_now_ns();
		bursts++;
		b_start = stor_next_burst(t0, bursts, period, t_last, &overrun);
		overruns += overrun;
		if (b_start < t0 + dur && !nu_stop_requested)
			wait_until(b_start, -1, 0);
	}
done:
	/* End of stream: after the queue of the last burst had a period to
	 * drain (unless interrupted), three FINs carrying the count. */
	fin_at = last_burst_start + period;
	if (!nu_stop_requested && !tx.err && fin_at > nu_now_ns())
		wait_until(fin_at, -1, 0);
	for (k = 0; k < 3 && !tx.err; k++) {
		sig_atomic_t saved = nu_stop_requested;

		nu_stop_requested =
			0; /* a signal must not stop the FINs themselves */
		fins += udp_send(&tx, 1, bursts, true);
		nu_stop_requested = saved;
		if (k < 2)
			wait_until(nu_now_ns() + 1000000ull, -1, 0);
	}
	t_end = nu_now_ns();
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
		tx.err ? strerror(tx.err) : "",
		nu_stop_requested ? "true" : "false");
	if (close_out(out, o->out))
		rc = 1;
	if (tx.err)
		rc = 1;
	return rc;
}
