/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * metrics.h - a stats_snapshot rendered in the Prometheus text exposition
 * format 0.0.4 (what GET /metrics answers).
 *
 * A pure renderer: it reads the snapshot and writes text, nothing else
 * (uname(2) for the kernel release is its only system call). Any thread
 * may call it on a snapshot it holds; the snapshot is not modified.
 *
 * Naming (prometheus.io/docs/practices/naming): prefix xdplane_, base
 * units only, so rates are bytes per second even though the configuration
 * speaks bits (`*_bytes_per_second` = configured bit/s / 8, printed
 * exactly: 8 divides into at most three decimals); times in seconds;
 * accumulating counts end in _total; metadata as `*_info` gauges of value
 * 1. Every family has # HELP and # TYPE and its samples are contiguous.
 * Packet and byte rates are not exported: use rate() on the counters.
 *
 * Labels (bounded sets): port (interface name; for class metrics the
 * egress port), queue (RX/TX queue index), class (class name), reason,
 * verdict, direction ("rx" | "tx"), priority (802.1p, "0".."7"). Label
 * values are escaped (\\, \", \n); bytes that are not valid UTF-8 are
 * replaced by U+FFFD. Fixed-size name arrays in the snapshot are read up
 * to their size even when not NUL-terminated; counts (n_queues,
 * n_classes) are clamped to the array sizes. NULL strings render as "".
 *
 * The counter families are the rows of the gateway's counter schema
 * (dataplane/run/gw_counters.def): name, type, HELP, labels and unit come
 * from there, and every row is also in the JSON of the control API
 * (ctl_json.h, the same key) -- tests/unit/test_counters.c checks both
 * ways. Per-queue families (rx/tx, drops, malformed, xsk_*, dcqcn_*) are
 * per (port, queue) only, never also per port, so sum() over any label
 * is meaningful. XDP verdicts and PFC (whose pause counters are the
 * largest over the queues, not their sum) exist per port only.
 *
 * The job table (snapshot's jobs, present with jobs.mode not off):
 * xdplane_job_info{job,source,class} 1 per job (job: its id, bounded by
 * the table's slots, at most 4096), xdplane_jobs{source},
 * xdplane_job_slots{source}, xdplane_job_hosts and the table's counters
 * (struct job_table_stats) as xdplane_job_registrations_total{result},
 * _unregistrations_total, _passive_total{event}, _table_full_total{table},
 * _flows_total{job_source}. Without a table no job family is written.
 *
 * Special values: xdplane_port_rate_bytes_per_second and
 * xdplane_class_ceil_bytes_per_second are +Inf when unlimited (snapshot 0);
 * xdplane_class_min_bytes_per_second is 0 when there is no guarantee.
 *
 * xdplane_class_sojourn_seconds is the scheduler's log2 histogram (see
 * tc_sched.h): bucket k's upper bound 2^k us becomes le="<2^k * 1e-6>"
 * (k = 0..30), the last (open) bucket only feeds le="+Inf". The
 * scheduler's buckets are [lo, hi) and Prometheus' are (.., le]: a value
 * exactly on a bound is counted one bucket up. Buckets are cumulative
 * (saturating at 2^64 - 1). _sum is an ESTIMATE, the scheduler keeps no
 * sum: each packet counts at its bucket's midpoint (0.5 us for [0, 1 us),
 * 1.5 * 2^(k-1) us for [2^(k-1), 2^k) us) and at 2^30 us for the open
 * bucket. _count equals the +Inf bucket.
 *
 * Numbers: u64 counters print as exact integers; other values use the
 * shortest %g form that reads back to the same double (NaN, +Inf, -Inf
 * spelled as Prometheus wants). Needs the "C" LC_NUMERIC locale (the
 * daemon never calls setlocale).
 */
#ifndef XDPLANE_METRICS_H
#define XDPLANE_METRICS_H

#include <stdio.h>

struct stats_snapshot;

/* Write the exposition of `s` to `out` (callers typically use
 * open_memstream). Returns 0, -EINVAL for a NULL argument, or -EIO if
 * writing failed; on failure `out` may hold a partial document. */
int metrics_render(const struct stats_snapshot *s, FILE *out);

#endif
