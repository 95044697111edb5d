/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scenario_load.h - what the parts of the scenario loader share, private
 * to them (scenario.c: the passes over the document, messages, defaults,
 * load and free; scenario_keys.c: the key table and storing each value;
 * scenario_check.c: required keys, cross-key rules and the work
 * estimate). The loader's context (struct ctx) lives for one
 * scenario_load_buf() call; its error buffer is the caller's.
 */
#ifndef XDPLANE_SCENARIO_LOAD_H
#define XDPLANE_SCENARIO_LOAD_H

#include "scenario.h"
#include "units.h"
#include "yaml_loc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH 192
#define MAX_IDX 3
#define MAX_RING (1u << 22) /* bottleneck buffer / packet */
#define DEF_PACKET 1000
#define DEF_BUFFER (64ull << 20)
#define DEF_BIN_NS 100000ull
#define DEF_WINDOW_NS 40000000ull
#define DEF_BAND 0.1
#define DEF_AVG_NS 1000000ull
#define DEF_HOLD_NS 5000000ull
#define DEF_UTIL_TARGET 0.95
#define MAX_F 1000
#define DEF_GW_POLL_NS 10000ull
#define MAX_GW_GAPS 100000.0 /* expected seeded gaps of a run */

enum key_id {
	K_ROOT,
	K_PROFILE,
	K_LINE_RATE,
	K_DURATION,
	K_SEED,
	K_PACKET,
	K_PARAMS,
	K_BOTTLENECK,
	K_BN_RATE,
	K_BN_KMIN,
	K_BN_KMAX,
	K_BN_PMAX,
	K_BN_DELAY,
	K_BN_BUFFER,
	K_BN_MARK,
	K_FLOWS,
	K_FLOW,
	K_FLOW_START,
	K_FLOW_COUNT,
	K_CNP,
	K_CNP_AT,
	K_MARKED,
	K_MARKED_AT,
	K_SENT,
	K_SENT_ENTRY,
	K_SENT_AT,
	K_SENT_BYTES,
	K_SUMMARY,
	K_SUM_WINDOW,
	K_SUM_BIN,
	K_SUM_BAND,
	K_SUM_UTIL,
	K_SUM_FAIR,
	K_SUM_AVG,
	K_SUM_HOLD,
	K_SUM_TARGET,
	K_GATEWAY,
	K_GW_PORT,
	K_GW_POLL,
	K_GW_KMIN,
	K_GW_KMAX,
	K_GW_PMAX,
	K_GW_BUFFER,
	K_GW_GAPS,
	K_GW_GAP_LEN,
	K_GW_GAP_MEAN,
	K_GW_GAP_AT,
	K_GW_GAP_AT_ENTRY,
	K_PARAM, /* params.<field>: matched by prefix */
};

enum key_mode { M_ANY, M_CLOSED, M_SCRIPTED };

#define E_TIME "a time such as 55us, 1.5ms or 300ns"
#define E_RATE "a rate such as 40Gbit, 2.5Gbit or 100Mbit"
#define E_SIZE "a size such as 5KB, 10MB, 64KiB or 1000 (bytes)"
#define E_PROB "a probability such as 1% or 0.01"

struct key {
	const char *pattern;
	enum yaml_loc_kind kind;
	enum key_id id;
	enum key_mode mode;
	const char *expect;
};

/* The dcqcn_params fields a scenario may set under params:, by name. */
enum param_kind {
	P_RATE,
	P_RATE0, /* a rate or 0 */
	P_TIME,
	P_SIZE,
	P_REAL,
	P_FACTOR,
	P_COUNT,
	P_BOOL,
};

struct param_field {
	const char *name;
	enum param_kind kind;
	size_t off;
};

/* A flow entry as written (closed loop: count flows each). */
struct entry {
	uint64_t start_ns;
	uint64_t count;
	const struct yaml_loc_node *node;
};

/* Where each input came from, for messages and the sent[] children. */
struct input_src {
	const struct yaml_loc_node *node;
	uint32_t idx[2]; /* flows[i], sent[j] */
	unsigned int have; /* sent: 1 = at, 2 = bytes */
};

struct ctx {
	const char *name;
	char *err;
	size_t errlen;
	struct scenario *sc;
	struct yaml_loc loc;
	size_t n_entries;
	struct entry *entries;
	size_t n_inputs;
	struct input_src *srcs;
	const struct yaml_loc_node *window, *util_after, *fair_after, *bin;
	const struct yaml_loc_node *avg, *hold;
	const struct yaml_loc_node *kmin, *kmax;
	const struct yaml_loc_node *gw_kmax, *gw_poll, *gw_gaps;
	const struct yaml_loc_node *gw_at[SCN_MAX_GAPS];
};

/* scenario.c */
/* "FILE:LINE:COL: PATH: message", at the node's key or value (n may be
 * NULL: the top of the file). Returns -1. */
__attribute__((format(printf, 4, 5))) int fail(struct ctx *c,
					       const struct yaml_loc_node *n,
					       bool at_key, const char *fmt,
					       ...);
int bad_value(struct ctx *c, const struct yaml_loc_node *n, const char *what,
	      const char *detail);
int unit_fail(struct ctx *c, const struct yaml_loc_node *n, const char *what,
	      int rc);
int normalise(const char *path, char *out, size_t size, uint32_t *idx);

/* scenario_keys.c: the key table, keys[0] the document's root */
extern const struct key keys[];
int get_rate(struct ctx *c, const struct yaml_loc_node *n, double *bps);
int visit(struct ctx *c, const struct yaml_loc_node *n);

/* scenario_check.c */
int need(struct ctx *c, const char *path, const char *what);
int check_params(struct ctx *c);
int check_summary(struct ctx *c);
int check_bottleneck(struct ctx *c);
int check_gateway(struct ctx *c);
int make_flows(struct ctx *c);
int check_inputs(struct ctx *c);
int check_work(struct ctx *c);

#endif
