/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * qos.h - the traffic-class policy of one gateway, as plain data: the
 * classes of an egress port, the port shaper, and the classification rules.
 * Built by the control plane from the configuration, read by the dataplane
 * (classifier in RX tasks, scheduler in egress tasks). Immutable once
 * published; a new policy is a new object.
 *
 * Units: rates in bits per second, sizes in bytes, probabilities in parts
 * per 2^16 (65536 = 1.0).
 */
#ifndef XDPLANE_QOS_H
#define XDPLANE_QOS_H

#include <stdbool.h>
#include <stdint.h>
#include "dcqcn.h"

#define QOS_MAX_CLASSES 8
#define QOS_MAX_RULES 64
#define QOS_NAME_MAX 32
#define QOS_PROB_ONE 65536u

enum qos_nonect {
	QOS_NONECT_DROP = 0, /* non-ECT frame over the marking threshold */
	QOS_NONECT_PASS, /* ...is queued unmarked */
};

struct qos_ecn {
	bool enabled;
	uint32_t kmin; /* bytes of queue: marking starts */
	uint32_t kmax; /* bytes of queue: probability pmax; above: always */
	uint32_t pmax; /* probability at kmax, parts of QOS_PROB_ONE */
	enum qos_nonect nonect;
};

struct qos_class {
	char name[QOS_NAME_MAX];
	uint8_t level; /* strict priority: 0 is served first */
	uint32_t quantum; /* DWRR quantum, bytes (> 0); all rate accounting
			   * charges len + qos_port.overhead per frame */
	uint64_t ceil_bps; /* rate ceiling; 0: see ceil_share */
	uint32_t ceil_share; /* ceiling as parts of QOS_PROB_ONE of the port
			      * rate, used when ceil_bps is 0; both 0, or a
			      * share of an unshaped port: none */
	uint32_t ceil_burst; /* bytes */
	uint64_t min_bps; /* guaranteed minimum; 0: see min_share */
	uint32_t min_share; /* as ceil_share; both 0: no minimum */
	uint32_t min_burst; /* bytes */
	uint32_t limit_bytes; /* queue limit, tail drop above */
	uint32_t limit_packets;
	struct qos_ecn ecn;
	bool dcqcn; /* per-flow queues gated by DCQCN rate limiters (RP) */
	/* PFC (pfc.h): a lossless class sends XOFF/XON for its pcp out of
	 * the port its traffic comes from, and never tail-drops (a frame
	 * over the limit is a lossless_overflow drop: PFC failed). Any class
	 * with a pcp is paused by PFC frames for that priority. */
	bool lossless;
	bool has_pcp; /* false: PFC frames never pause the class */
	uint8_t pcp; /* 0..7, the 802.1p priority of the class */
	uint32_t pfc_xoff[2]; /* bytes, by egress port (lossless) */
	uint32_t pfc_xon[2];
	/* Marking for the fabric beyond (remark.h): frames leaving in the
	 * class get this DSCP (ECN bits kept) and, when they carry an
	 * 802.1Q tag, this PCP in the outermost tag. false: left alone. */
	bool has_set_dscp;
	uint8_t set_dscp; /* 0..63 */
	bool has_set_pcp;
	uint8_t set_pcp; /* 0..7 */
};

/* Adaptive egress (run/adaptive.h, cc/edge_rate.h): the port shaper's
 * rate follows the measured path beyond the port, between floor_bps and
 * rate_bps. Needs a shaped port. */
struct qos_adaptive {
	bool on;
	uint64_t target_ns; /* queueing delay beyond the gateway tolerated */
	uint64_t floor_bps; /* never below; <= rate_bps */
	double probe_gain; /* increase per RTT when probing, (0, 1] */
};

struct qos_port {
	uint64_t rate_bps; /* egress shaper; 0: unshaped */
	uint32_t burst; /* bytes */
	uint32_t overhead; /* bytes charged per frame on top of its length */
	uint64_t link_bps; /* link speed for PFC quanta; 0: rate_bps */
	struct qos_adaptive adaptive;
};

/* PFC (IEEE 802.1Qbb, pfc.h). Times in ns. */
struct qos_pfc {
	bool enabled;
	uint16_t quanta; /* time in XOFF frames, 1..0xffff */
	uint32_t cable_m; /* for the headroom */
	uint32_t xoff, xon; /* bytes as written; 0: auto (per class) */
	uint64_t watchdog_ns; /* storm after this long paused; 0: off */
	uint64_t restore_ns; /* PFC ignored this long after a storm */
};

/* Which fields a rule matches on (a rule with none matches everything). */
enum qos_match_field {
	QOS_M_ETHERTYPE = 1u << 0,
	QOS_M_VLAN = 1u << 1,
	QOS_M_PCP = 1u << 2,
	QOS_M_SRC = 1u << 3,
	QOS_M_DST = 1u << 4,
	QOS_M_PROTO = 1u << 5,
	QOS_M_DSCP = 1u << 6,
	QOS_M_ECN = 1u << 7,
	QOS_M_SPORT = 1u << 8,
	QOS_M_DPORT = 1u << 9,
	QOS_M_BTH_OPCODE = 1u << 10,
};

struct qos_prefix {
	uint8_t family; /* 4 or 6 */
	uint8_t len; /* prefix length in bits */
	uint8_t addr[16]; /* IPv4 in the first 4 bytes; host bits zero */
};

struct qos_rule {
	uint32_t fields; /* enum qos_match_field bits */
	uint16_t ethertype; /* innermost, after VLAN tags */
	uint16_t vlan_id; /* outermost tag's VID */
	uint8_t pcp_mask; /* bit p set: PCP p matches */
	uint8_t proto; /* IP protocol / IPv6 next header (upper layer) */
	uint8_t ecn_mask; /* bit e set: ECN codepoint e matches */
	uint8_t bth_opcode; /* RoCEv2 BTH opcode (UDP dport 4791) */
	uint64_t dscp_mask; /* bit d set: DSCP d matches */
	struct qos_prefix src, dst;
	uint16_t sport_lo, sport_hi; /* inclusive ranges */
	uint16_t dport_lo, dport_hi;
	uint8_t class_id; /* index into qos_policy.classes */
};

enum qos_malformed_policy {
	QOS_MALFORMED_DEFAULT = 0, /* forward in the default class */
	QOS_MALFORMED_DROP,
};

/* How the RP tells flows apart inside a DCQCN class. */
enum qos_flow_key {
	QOS_FLOW_HOST = 0, /* destination IP address */
	QOS_FLOW_QP, /* destination IP + RoCE destination queue pair */
};

enum qos_cnp_action {
	QOS_CNP_FORWARD = 0, /* a CNP seen on the reverse path goes on to the
			      * sender too (its NIC reacts as well) */
	QOS_CNP_ABSORB, /* the gateway alone reacts; the CNP is dropped */
};

/* DCQCN for the classes with dcqcn set (see dcqcn.h for the parameters).
 * par.line_bps 0: the egress port's rate. */
struct qos_dcqcn {
	struct dcqcn_params par;
	enum qos_flow_key key;
	uint32_t max_flows; /* per DCQCN class and egress queue; cold */
	uint64_t flow_idle_ns; /* an empty flow idle this long is dropped */
	enum qos_cnp_action cnp_action;
	bool cp_loop; /* our own CE marks act as CNPs for the flow (via the
		       * NP rule, at most one per np_interval) */
	bool np; /* generate CNPs towards senders (NP) */
	uint8_t np_dscp; /* DSCP of generated CNPs, default 48 */
	uint8_t np_pcp; /* PCP when the frame has a VLAN tag, default 6 */
};

struct qos_policy {
	struct qos_port port[2]; /* egress shaper per port of the pair */
	struct qos_class classes[QOS_MAX_CLASSES];
	uint32_t n_classes;
	struct qos_rule rules[QOS_MAX_RULES]; /* first match wins */
	uint32_t n_rules;
	uint8_t default_class; /* when no rule matches */
	enum qos_malformed_policy malformed;
	struct qos_dcqcn dcqcn;
	struct qos_pfc pfc;
};

#endif
