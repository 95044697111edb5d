/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scenario.h - a dcqcn-sim scenario: the YAML file, loaded, checked and
 * turned into one struct scenario. See bench/dcqcn-sim/README.md for the keys;
 * in short:
 *
 *   profile: paper | connectx        # dcqcn_params_default() of this...
 *   line_rate: 40Gbit                # ...line rate (required)
 *   params: {g: 1/256, ai_bps: 40Mbit, inc_ns: 55us, ...}
 *                                    # any dcqcn_params field by its name
 *   duration: 150ms                  # required
 *   seed: 1                          # the RED draw's PRNG
 *   packet: 1000                     # bytes per packet (closed loop)
 *   bottleneck: {rate: 40Gbit, kmin: 5KB, kmax: 200KB, pmax: 1%,
 *                feedback_delay: 50us, buffer: 64MB, mark: enqueue}
 *   flows:                           # closed loop (with bottleneck):
 *     - {start: 0ms, count: 1}       #   flows starting at line rate
 *                                    # scripted (without bottleneck):
 *     - {start: 0us, cnp: [0us], sent: [{at: 10us, bytes: 10MB}],
 *        marked: [5us, 20us]}
 *   summary: {window: 40ms, bin: 100us, avg: 1ms, band: 10%, hold: 5ms,
 *             util_after: 5ms, util_target: 95%, fair_after: 20ms}
 *   gateway: {port: 50Mbit, poll: 50us, kmin: 30KB, kmax: 300KB,
 *             pmax: 1%, buffer: 64MiB,  # closed loop: the gateway's
 *             gaps: {length: 5ms, mean_interval: 100ms}}  # flow queue
 *                                    # (or gaps: {length: 5ms, at: [..]})
 *
 * Errors: every problem becomes one message "FILE:LINE:COL: KEY: problem
 * (got 'text')" in the caller's buffer; syntax errors, duplicate keys,
 * unknown keys, keys in the wrong mode, values without or with a wrong
 * unit, and values out of range are all refused, so that everything the
 * simulator is given is in range. The limits also bound the work of a run
 * (flows, inputs, timer and packet events, summary bins).
 *
 * Ownership: struct scenario owns its arrays; scenario_free() releases
 * them (safe on a zeroed or failed scenario). Single-threaded; no global
 * state.
 */
#ifndef DCQCN_SIM_SCENARIO_H
#define DCQCN_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dcqcn.h"
#include "qos.h"

#define SCN_MAX_FLOWS 1024
#define SCN_MAX_INPUTS 1000000
#define SCN_MAX_BINS 4000000 /* summary bins x (flows + 1) */
#define SCN_MAX_WORK 5e8 /* timer + packet events of a run, estimated */
#define SCN_MIN_TIMER_NS 100 /* alpha, increase, decrease periods */
/* yaml_loc's duplicate-key check is linear per node (quadratic in all):
 * keep files small enough that this stays well under a second. */
#define SCN_MAX_FILE (64u << 10)
#define SCN_MAX_GAPS 256 /* gateway.gaps.at entries */

enum scn_input_kind {
	SCN_IN_CNP, /* a CNP arrives at the flow's RP */
	SCN_IN_SENT, /* the flow's RP sent bytes */
	SCN_IN_MARKED, /* a CE-marked packet arrives at the flow's NP */
};

/* A scripted input. */
struct scn_input {
	uint64_t at_ns;
	uint64_t bytes; /* SCN_IN_SENT */
	uint32_t flow; /* 0-based */
	uint32_t seq; /* position in the file: ties keep the written order */
	enum scn_input_kind kind;
};

struct scn_flow {
	uint64_t start_ns; /* the RP starts at line rate, the NP idle */
};

enum scn_mark_at {
	SCN_MARK_ENQUEUE =
		0, /* on the bytes a packet finds queued (tc_sched) */
	SCN_MARK_DEQUEUE, /* on the bytes still queued as it leaves (ns-3) */
};

struct scn_bottleneck {
	double rate_bps;
	struct qos_ecn ecn; /* kmin, kmax bytes; pmax in QOS_PROB_ONE parts */
	double pmax; /* as written, for reports */
	uint64_t delay_ns; /* marked packet leaves -> its CNP reaches the RP */
	uint64_t buffer_bytes; /* tail drop above */
	enum scn_mark_at mark_at;
};

struct scn_summary {
	uint64_t bin_ns; /* time series resolution (plots, convergence) */
	uint64_t window_ns; /* Jain, queue mean/max: the last window_ns */
	uint64_t util_after_ns; /* utilisation from here to the end */
	uint64_t fair_after_ns; /* per-flow min/max throughput from here */
	double band; /* convergence: |mean R_C - fair share| <= band * share */
	uint64_t avg_ns; /* convergence and per-interval utilisation: means
			  * over intervals of avg_ns (a multiple of bin_ns) */
	uint64_t hold_ns; /* converged: in the band this long (multiple of
			   * avg_ns) */
	double util_target; /* settled: every interval at least this busy */
};

/* The gateway between the senders and the bottleneck (gateway.h): its
 * DCQCN class's flow queue, port, CP and a worker that stops for gaps. */
struct scn_gateway {
	bool enabled;
	double port_bps; /* the gateway's port */
	uint64_t poll_ns; /* the worker looks this often when it runs */
	struct qos_ecn ecn; /* RED on flowq_vqueue(), as tc_sched */
	double pmax; /* as written, for reports */
	uint64_t buffer_bytes; /* the flow queue's tail drop above */
	uint64_t gap_ns; /* each stop of the worker, 0: none */
	uint64_t gap_mean_ns; /* seeded: mean time from a stop's end to the
			       * next start (exponential); 0: gap_at */
	uint32_t n_gaps;
	uint64_t gap_at[SCN_MAX_GAPS]; /* scripted starts, in order */
};

struct scenario {
	struct dcqcn_params params;
	uint64_t duration_ns;
	uint64_t seed;
	uint32_t packet_bytes;
	bool closed_loop; /* a bottleneck was given */
	struct scn_bottleneck bottleneck;
	struct scn_summary summary;
	struct scn_gateway gateway; /* closed loop only */
	uint32_t n_flows;
	struct scn_flow *flows;
	size_t n_inputs;
	struct scn_input *inputs; /* by time, then as written */
};

/* Load a scenario file. Returns 0, or -1 with a message in err. */
int scenario_load_file(struct scenario *sc, const char *path, char *err,
		       size_t errlen);
/* The same from memory; name stands for the file in messages. */
int scenario_load_buf(struct scenario *sc, const char *name, const char *buf,
		      size_t len, char *err, size_t errlen);
void scenario_free(struct scenario *sc);

/* About how many events a run of sc takes: timer periods x flows x
 * duration, packets (closed loop) or inputs (scripted), byte-counter
 * events. At most SCN_MAX_WORK for a loaded scenario. */
double scenario_work(const struct scenario *sc);

/* The name of a dcqcn_params field the scenario can set, in table order
 * (NULL past the end): for documentation and tests. */
const char *scenario_param_name(size_t i);

#endif
