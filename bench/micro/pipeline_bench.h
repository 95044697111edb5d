/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pipeline_bench.h - what the parts of pipeline_bench share
 * (pipeline_bench.c: options, the table and main; pipeline_config.c: the
 * policies of 1, 4 and 8 classes; pipeline_frames.c: the traffic mix and
 * its frames; pipeline_run.c: the measured loops, their checks and the
 * frame pool). What is measured is described at the top of
 * pipeline_bench.c. One thread; the context (struct ctx) belongs to it.
 */
#ifndef XDPLANE_PIPELINE_BENCH_H
#define XDPLANE_PIPELINE_BENCH_H

#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "classify.h"
#include "frame.h"
#include "pkt_parse.h"
#include "qos.h"
#include "tc_sched.h"
#include "mono_clock.h"

#define BURST 32
#define OVERHEAD 24
#define HANDOFF_SLOTS 4096 /* rings.handoff default */
#define BURST_MIN 32768u /* config default bursts: max(32 KiB, ...) */
#define MAX_LIST 8
#define GOAL_NS 50.0
#define SHARE(pct) ((uint32_t)((uint64_t)QOS_PROB_ONE * (pct) / 100))

/* ---- the traffic mix ---- */

enum kind {
	K_CNP,
	K_ROCE,
	K_ROCE_TUN,
	K_UDP,
	K_UDP_ECT,
	K_NFS_REQ,
	K_NFS_REP,
	K_ISCSI,
	K_NVME,
	K_ICMP,
	K_N
};

struct config {
	unsigned int n_classes;
	uint8_t class_of[K_N]; /* expected class of each kind */
	struct qos_policy pol;
};

struct ctx {
	/* frames */
	uint8_t *base;
	uint32_t len;
	uint32_t stride_shift;
	uint32_t pool; /* frames, a power of two, >= 2 * BURST */
	const struct config *cf;
	struct classifier cls;
	struct frame_desc *pre; /* pool[i] as classified */
	/* the free list: frame indices, FIFO */
	uint32_t *free;
	uint32_t free_mask;
	uint32_t free_head, free_tail;
	/* pipeline */
	struct handoff_ring ring;
	struct sched s;
	bool real_clock;
	bool prefetch; /* -p: prefetch the burst's headers first */
	uint64_t now;
	uint64_t clk_q, clk_r, clk_acc, rate; /* fake clock per burst */
	/* counts */
	uint64_t generated;
	uint64_t tx_pkts, tx_bytes;
	uint64_t drop_handoff, drop_sched, malformed;
	uint64_t short_bursts; /* RX found fewer than 32 free frames */
	uint64_t sink;
	const char *stage;
};

enum stage { ST_PIPE, ST_PARSE, ST_RING, ST_SCHED, ST_N };

/* pipeline_config.c */
int config_build(struct config *cf, unsigned int n_classes, uint64_t rate_bps);

/* pipeline_frames.c: one burst's kinds, in arrival order */
extern const uint8_t mix[BURST];
void build_frame(uint8_t *f, uint32_t len, enum kind k, uint32_t flow);

/* pipeline_run.c: the stages' names, as -S takes them */
extern const char *const stage_name[ST_N];
double run_stage(struct ctx *x, enum stage st, uint64_t bursts);
void ctx_setup(struct ctx *x, const struct config *cf, uint32_t len);

#endif
