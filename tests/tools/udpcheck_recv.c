// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpcheck_recv.c - udpcheck recv: every datagram verified and counted
 * (ok, corrupt, duplicate, reordered, missing) until --expect arrived or
 * --timeout-ms passed without one, then the summary.
 */
#include "udpcheck.h"

bool quiet_reports; /* selftest: no stderr report per corrupt one */

/* ---- recv --------------------------------------------------------------- */

void account(struct recv_stats *st, const struct verifier *v, uint8_t *bitmap,
	     const uint8_t *p, size_t n, bool trunc)
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

int do_recv(const struct recv_opts *o)
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
