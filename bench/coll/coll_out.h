/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll_out.h - rocegen's outputs: the JSON summary written at exit and the
 * 10 ms timeline CSV written as the run goes (buffered stdio, bounded
 * memory: one snapshot of counters per peer).
 *
 * Timeline rows: t_ns,qp_peer,dir,bytes,packets,rate_bps,cnps,retrans, one
 * per interval (t_ns its end, absolute CLOCK_MONOTONIC) and per peer with
 * activity in it. tx: data frame bytes and packets sent (retransmissions
 * included), rate_bps the pacing rate at the interval's end (line rate, or
 * the RP's R_C with DCQCN), cnps received, packets retransmitted. rx: data
 * frame bytes and packets received, rate_bps their rate over the interval,
 * cnps sent, packets dropped out of order (which the peer resends).
 *
 * One thread; the caller owns the FILE streams through these functions.
 */
#ifndef COLL_OUT_H
#define COLL_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "coll_job.h"
#include "rc_host.h"

struct coll_timeline {
	FILE *f;
	uint64_t period_ns, next_ns;
	bool dirty; /* something happened since the last row */
	struct rc_qp_stats last[RC_MAX_RANKS];
};

/* Open path (NULL: a timeline that writes nothing) with intervals of
 * period_ns from start_ns. 0 or -errno. */
int tl_open(struct coll_timeline *tl, const char *path, uint64_t start_ns,
	    uint64_t period_ns);
/* Write the rows of every interval that ended at or before now. */
void tl_tick(struct coll_timeline *tl, struct rc_host *h, uint64_t now);
/* When tl_tick() has rows to write, UINT64_MAX: nothing happened. */
uint64_t tl_next_ns(const struct coll_timeline *tl);
/* Write the last (partial) interval and close. 0 or -errno. */
int tl_close(struct coll_timeline *tl, struct rc_host *h, uint64_t now);

/* What the JSON says beyond the host's and the job's own counters. */
struct coll_meta {
	const char *job;
	const struct coll_params *job_params;
	const struct rc_cfg *cfg;
	const char *cc, *dcqcn_profile;
	unsigned int dscp, prio;
	uint64_t send_errors, icrc_bad, rx_other;
	bool timed_out, interrupted;
	int exit_status;
};

/* Write the summary object to path. 0 or -errno. */
int coll_write_json(const char *path, const struct rc_host *h,
		    const struct coll_job *j, const struct coll_meta *m);

#endif
