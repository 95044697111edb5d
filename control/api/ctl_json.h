/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctl_json.h - JSON views of a stats snapshot: what the control protocol
 * returns (status, stats, classes) and the daemon prints in its final
 * report (one port object). Pure functions of the snapshot: they read it,
 * never the gateway, and return a new jansson value (the caller owns the
 * reference), or NULL when out of memory.
 *
 * Every counter below is a row of the gateway's counter schema
 * (dataplane/run/gw_counters.def: its group and key), written by one loop
 * over the rows in their order; the same rows make the /metrics families
 * (metrics.h) and the CLI's columns, and tests/unit/test_counters.c
 * checks that the objects hold the rows and nothing else besides the
 * settings named here.
 *
 * Port object (ctl_json_port):
 *   {"name","rate_bps","mtu","rx_packets","rx_bytes","tx_packets",
 *    "tx_bytes","tx_completed","tx_kicks","tx_kick_errors",
 *    "foreign_frames","fill_wakeups","rx_chains","tx_chains",
 *    "drops":{"handoff_full","invalid_desc","multibuf","chain_long",
 *             "chain_head","chain_room","chain_tx","malformed",
 *             "port_down"},
 *    "xsk":{"rx_dropped","rx_invalid_descs","tx_invalid_descs",
 *           "rx_ring_full","rx_fill_ring_empty_descs",
 *           "tx_ring_empty_descs"},
 *    "malformed":{<reason>:count...},
 *    "dcqcn":{<DCQCN counter>:count...},
 *    "pfc":{<PFC counter>:count or [8 counts, by priority]...},
 *    "xdp":{<verdict name>:count...},
 *    "queues":[{"queue","worker","cpu", and the keys above but "name",
 *               "rate_bps","mtu","xdp","queues","classes"}],
 *    "classes":[class object]}
 * Class object:
 *   {"name","level","quantum","ceil_bps","min_bps","limit_bytes",
 *    "limit_packets","ecn","lossless","pcp" (null: none),"set_dscp",
 *    "set_pcp" (null: not rewritten),"enq_packets",
 *    "enq_bytes","sent_packets","sent_bytes","depth_packets",
 *    "depth_bytes","drops":{<sched_drop_name() of each reason>:count...},
 *    "ecn_marks","dscp_rewritten","pcp_rewritten","pcp_untagged",
 *    "dscp_not_ip","remark_invalid",
 *    "sojourn_log2_us":[SCHED_HIST_BUCKETS counts]}
 *
 * Invariants: counters are JSON integers, exact up to 2^63 - 1 (larger
 * values, which no counter reaches, saturate there); "worker" and "cpu" are
 * null when unknown / not pinned; times and rates that are not finite are
 * null; text fields are bounded by their array size and bytes that are
 * not valid UTF-8 become '?', so any snapshot renders to valid JSON. Counts
 * beyond the array sizes (n_queues, n_classes) are clamped.
 */
#ifndef XDPLANE_CTL_JSON_H
#define XDPLANE_CTL_JSON_H

#include <sys/types.h>
#include <jansson.h>
#include "snapshot.h"

/* {"version","pid","start_unix","now_unix","uptime_s",
 *  "config":{"path","generation","reload":{"attempts_total",
 *            "failures_total","last_successful","last_success_unix",
 *            "last_attempt_unix" (null: never),"last_error" (null: none)}},
 *  "xdp_mode","bind_mode","failure_mode","workers","umem_frames",
 *  "max_frame","multibuf","max_frags","queues","mem_node","control_cpu",
 *  "placement_why","umem","ports":[{"name","rate_bps","mtu","queues",
 *  "classes"}],"placement":[{"port","queue","worker","cpu"}]} */
json_t *ctl_json_status(const struct stats_snapshot *s, pid_t pid);

/* {"now_unix","now_mono_ns","uptime_s","max_frame","multibuf","max_frags",
 *  "ports":[port object]}; only the
 * port named port_filter when it is not NULL (none if no port has it). */
json_t *ctl_json_stats(const struct stats_snapshot *s, const char *port_filter);

/* {"ports":[{"name","rate_bps","classes":[class object]}]} */
json_t *ctl_json_classes(const struct stats_snapshot *s);

json_t *ctl_json_port(const struct snap_port *p);

/* At most max bytes of s (up to a NUL) as a JSON string; if they are not
 * valid UTF-8, at most 512 of them with every byte above 0x7f replaced by
 * '?'. null if s is NULL; NULL when out of memory. For text that may come
 * from anywhere. */
json_t *ctl_json_text(const char *s, size_t max);

/* One DCQCN flow of gateway_flows() on egress port `port` (its name):
 * {"port","queue","class","dst" (null: none),"dst_qpn","sender_qpn"
 *  (null: not seen),"rc_bps","rt_bps","alpha","queued_packets",
 *  "sent_packets","sent_bytes","cnps_wire","cnps_internal","cnps_hint",
 *  "cnps_sent"} */
json_t *ctl_json_flow(const struct gw_flow *f, const char *port);

/* The frame census taken when the gateway closes (gateway.h):
 * {"total","found","driver","missing","doubles","strays"} */
json_t *ctl_json_census(const struct gw_census *c);

/* The job table of a snapshot (snapshot.h, struct snap_jobs):
 * {"mode","max_registered","max_passive","registered","passive","hosts",
 *  "edges","counters":{<struct job_table_stats' fields>},
 *  "jobs":[{"id","source":"registered"|"passive","prefixes":[...],
 *           "dscp" (null: any),"class" (null: none),"gpus" (null: not
 *           given),"hosts" (passive: its hosts; registered: null),
 *           "created_unix","last_seen_unix","flows_seen"}]} */
json_t *ctl_json_jobs(const struct snap_jobs *j);

/* The daemon's final report (the "final-stats:" line at exit) without its
 * census: {"xdp_mode","bind_mode","generation","ports":[port object]},
 * or {"ports":[]} when s is NULL (no snapshot could be taken). */
json_t *ctl_json_final(const struct stats_snapshot *s);

#endif
