// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpcheck_send.c - udpcheck send: datagrams 0..N-1 paced at --rate (or
 * as fast as the socket takes them), in batches.
 */
#include "udpcheck.h"

/* ---- send --------------------------------------------------------------- */

/* ceil(i * 1e9 / rate): the send deadline of datagram i relative to start. */
static uint64_t pace_offset(uint64_t i, uint64_t rate)
{
	unsigned __int128 t = (unsigned __int128)i * NU_NSEC_PER_SEC;

	return (uint64_t)((t + rate - 1) / rate);
}

int do_send(const struct send_opts *o)
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
