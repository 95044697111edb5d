// SPDX-License-Identifier: BSD-2-Clause
/*
 * pipeline_bench.c - the per-packet work of xdplane's forwarding path
 * without I/O, in one thread: ns per packet.
 *
 * What is measured, per burst of 32 frames (as rx_task_poll() and
 * egress_task_poll() do it, minus the AF_XDP rings):
 *  - RX: for each frame, pkt_parse() + classify() + frame_meta_pack() into a
 *    struct frame_desc; then handoff_ring_enqueue() of the burst;
 *  - egress: read the clock once; handoff_ring_dequeue() (up to 32);
 *    sched_enqueue() each; sched_dequeue() up to 32; "transmit" each frame
 *    dequeued: count it (packets, bytes) and put its frame back on the free
 *    list the RX side takes frames from (a plain FIFO array).
 * The frames are real Ethernet/IPv4 frames of one size (-s), built once in
 * a pool (-P, default 1024 frames, 2 KiB apart like a UMEM) with a fixed
 * mix per 32: 1 RoCEv2 CNP (UDP 4791, BTH opcode 0x81, DSCP 48), 12 RoCEv2
 * data (UDP 4791, DSCP 26, ECT(0)), 4 UDP 4789 with DSCP 26 and ECT(0)
 * (RoCE in a tunnel), 5 other UDP (2 ECT(0)), 4 NFS (TCP to and from port
 * 2049), 2 iSCSI (TCP 3260), 3 NVMe/TCP (TCP 4420), 1 ICMP echo. Every
 * burst carries exactly this mix (the scheduler drains each burst).
 *
 * Configurations (-C): 1 class (the default config: one FIFO, no rules);
 * 4 classes cnp/roce/default/storage with the shipped config's 10 rules,
 * ceilings (cnp 5 %, roce 90 %) and ECN/RED on roce, but default and
 * storage share a level (DWRR, quanta 9000/4500: the shipped file has
 * storage one level below); 8 classes: cnp + mgmt (ICMP) at level 0, roce
 * + roce_tunnel (DSCP 26) at 1 (DWRR), default at 2, nfs (min 10 %) +
 * iscsi + nvme at 3 (DWRR), 11 rules. Port 100 Gbit/s (-R), overhead 24,
 * bursts as the config's defaults (max(32 KiB, rate x 200 us)).
 *
 * Clock (-k): "fake" (default): a counter that advances, once per burst,
 * by the wire time of the 32 frames generated (len + 24 bytes each) at the
 * port rate, i.e. the input arrives at exactly line rate. Neither the port
 * shaper nor any ceiling (the mix keeps every class below its ceiling)
 * ever blocks, nothing is dropped, nothing is ECN-marked at the default
 * sizes (RED starts at 30 KB of RoCE queue; a burst carries at most
 * 16 x 1500 B of RoCE; above ~1900 B RED marks, still without drops: all
 * RoCE frames are ECT(0)), and the run is deterministic (callgrind). "real":
 * clock_gettime(CLOCK_MONOTONIC) once per burst, like the egress task (its
 * cost, ~30 ns per burst on the dev VM, is included); if the loop runs
 * faster than the port rate the shaper does block and queues build and
 * drop (reported), so use -R above the achieved rate to avoid that.
 *
 * Also measured, each alone on the same frames and configuration (the
 * "breakdown"; their sum is not the pipeline's time, see README.md):
 *  - parse+classify: pkt_parse + classify + frame_meta_pack, 32 per burst;
 *  - handoff ring: enqueue 32 pre-built descriptors, dequeue 32 (one
 *    thread: the ring's cache lines never move between cores);
 *  - scheduler: clock + sched_enqueue x 32 + sched_dequeue(32) on
 *    pre-built descriptors (each dequeued one is written back to the
 *    pre-built array: a frame RED marked CE keeps its CE meta).
 *
 * -p adds what rx_task.c does not do: prefetch the 32 frames' first cache
 * line before parsing the burst (to see what that would buy with a large,
 * cache-cold pool).
 *
 * What is not measured: the AF_XDP rings (RX peek/release, TX reserve/
 * submit, fill and completion rings), syscalls and kicks, the return ring
 * to the RX task, the frame pool's stack, the tasks' own counters, the
 * cross-core transfer of the handoff ring and of the frames (ring_bench
 * measures the former), frames arriving cache-cold from DMA (the default
 * pool is small enough for its headers to stay cache-resident: use -P to
 * grow it), multi-port and multi-queue polling, and queueing under
 * congestion (no backlog builds up in fake mode).
 *
 * Build: the numbers are meant for a release build (the default,
 * RelWithDebInfo, XDPLANE_ASSERTS off). A build with XDPLANE_ASSERTS (as
 * tests/run and CI configure theirs) checks the scheduler's invariants
 * after every call; the program prints a note before its table then.
 *
 * Checks (exit 1 on failure): every pool frame parses and classifies to the
 * class the mix says; after each run the scheduler is drained and every
 * frame must be back on the free list exactly once, the packets the
 * scheduler took plus its drops must equal the packets generated, its sent
 * counters must equal the transmit counts, and in fake mode nothing may be
 * dropped and each class must have received exactly its share of the mix.
 */
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

/* One burst, in arrival order: 1 cnp, 12 roce, 4 roce_tun, 3 + 2 udp, 2 + 2
 * nfs, 2 iscsi, 3 nvme, 1 icmp. */
static const uint8_t mix[BURST] = {
	K_ROCE,	    K_NFS_REQ,	K_ROCE,	   K_UDP,     K_ROCE_TUN, K_ROCE,
	K_NVME,	    K_ROCE,	K_CNP,	   K_UDP_ECT, K_ROCE,	  K_ISCSI,
	K_ROCE_TUN, K_ROCE,	K_NFS_REP, K_UDP,     K_ROCE,	  K_ICMP,
	K_NVME,	    K_ROCE_TUN, K_ROCE,	   K_NFS_REQ, K_UDP_ECT,  K_ROCE,
	K_ISCSI,    K_ROCE,	K_NVME,	   K_UDP,     K_ROCE_TUN, K_NFS_REP,
	K_ROCE,	    K_ROCE,
};

/* ---- policies ---- */

struct config {
	unsigned int n_classes;
	uint8_t class_of[K_N]; /* expected class of each kind */
	struct qos_policy pol;
};

static uint32_t default_burst(uint64_t bps)
{
	uint64_t b = bps / 8 / 5000; /* rate x 200 us, bytes */

	return (uint32_t)MIN(MAX(b, (uint64_t)BURST_MIN), (uint64_t)UINT32_MAX);
}

static struct qos_class *add_class(struct qos_policy *p, const char *name,
				   uint8_t level, uint32_t quantum)
{
	struct qos_class *c = &p->classes[p->n_classes++];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->level = level;
	c->quantum = quantum;
	c->limit_bytes = 4u << 20; /* config defaults */
	c->limit_packets = 2048;
	c->ceil_burst = BURST_MIN;
	c->min_burst = BURST_MIN;
	return c;
}

static void set_ceil(const struct qos_policy *p, struct qos_class *c,
		     unsigned int pct)
{
	c->ceil_share = SHARE(pct);
	c->ceil_burst = default_burst(p->port[0].rate_bps * pct / 100);
}

static void set_min(const struct qos_policy *p, struct qos_class *c,
		    unsigned int pct)
{
	c->min_share = SHARE(pct);
	c->min_burst = default_burst(p->port[0].rate_bps * pct / 100);
}

static void set_roce_ecn(struct qos_class *c)
{
	c->ecn.enabled = true;
	c->ecn.kmin = 30000; /* 30KB */
	c->ecn.kmax = 300000; /* 300KB */
	c->ecn.pmax = QOS_PROB_ONE / 100; /* 1% */
	c->ecn.nonect = QOS_NONECT_DROP;
}

static struct qos_rule *rule(struct qos_policy *p, uint8_t class_id,
			     uint32_t fields)
{
	struct qos_rule *r = &p->rules[p->n_rules++];

	memset(r, 0, sizeof(*r));
	r->fields = fields;
	r->class_id = class_id;
	return r;
}

static void rule_port(struct qos_policy *p, uint8_t class_id, int proto,
		      int sport, uint16_t port)
{
	struct qos_rule *r = rule(p, class_id,
				  (proto ? QOS_M_PROTO : 0) |
					  (sport ? QOS_M_SPORT : QOS_M_DPORT));

	r->proto = (uint8_t)proto;
	if (sport)
		r->sport_lo = r->sport_hi = port;
	else
		r->dport_lo = r->dport_hi = port;
}

static void rule_dscp(struct qos_policy *p, uint8_t class_id, unsigned int d)
{
	rule(p, class_id, QOS_M_DSCP)->dscp_mask = 1ull << d;
}

static void rule_cnp(struct qos_policy *p, uint8_t class_id)
{
	struct qos_rule *r =
		rule(p, class_id, QOS_M_PROTO | QOS_M_DPORT | QOS_M_BTH_OPCODE);

	r->proto = IPPROTO_UDP;
	r->dport_lo = r->dport_hi = ROCEV2_UDP_PORT;
	r->bth_opcode = BTH_OPCODE_CNP;
}

static void rule_storage(struct qos_policy *p, uint8_t nfs, uint8_t iscsi,
			 uint8_t nvme)
{
	rule_port(p, nfs, 0, 0, 2049);
	rule_port(p, nfs, 0, 1, 2049);
	rule_port(p, iscsi, IPPROTO_TCP, 0, 3260);
	rule_port(p, iscsi, IPPROTO_TCP, 1, 3260);
	rule_port(p, nvme, IPPROTO_TCP, 0, 4420);
	rule_port(p, nvme, IPPROTO_TCP, 1, 4420);
}

static int config_build(struct config *cf, unsigned int n_classes,
			uint64_t rate_bps)
{
	struct qos_policy *p = &cf->pol;
	struct qos_class *c;

	memset(cf, 0, sizeof(*cf));
	cf->n_classes = n_classes;
	p->port[0].rate_bps = rate_bps;
	p->port[0].burst = default_burst(rate_bps);
	p->port[0].overhead = OVERHEAD;
	p->port[1] = p->port[0];
	switch (n_classes) {
	case 1: /* the config's default: one FIFO, no rules */
		add_class(p, "default", 0, 9000);
		p->default_class = 0;
		return 0;
	case 4: { /* cnp 0, roce 1, default 2, storage 3 */
		static const uint8_t k4[K_N] = {
			[K_CNP] = 0,	 [K_ROCE] = 1,	  [K_ROCE_TUN] = 1,
			[K_UDP] = 2,	 [K_UDP_ECT] = 2, [K_NFS_REQ] = 3,
			[K_NFS_REP] = 3, [K_ISCSI] = 3,	  [K_NVME] = 3,
			[K_ICMP] = 2,
		};
		memcpy(cf->class_of, k4, sizeof(k4));
		c = add_class(p, "cnp", 0, 9000);
		set_ceil(p, c, 5);
		c = add_class(p, "roce", 1, 9000);
		set_ceil(p, c, 90);
		set_roce_ecn(c);
		add_class(p, "default", 2, 9000);
		add_class(p, "storage", 2, 4500);
		/* the shipped rules */
		rule_cnp(p, 0);
		rule_port(p, 1, IPPROTO_UDP, 0, ROCEV2_UDP_PORT);
		rule_dscp(p, 1, 26);
		rule_storage(p, 3, 3, 3);
		rule_dscp(p, 3, 10);
		p->default_class = 2;
		return 0;
	}
	case 8: { /* cnp 0, roce 1, roce_tunnel 2, default 3, nfs 4, iscsi 5,
		   * nvme 6, mgmt 7 */
		static const uint8_t k8[K_N] = {
			[K_CNP] = 0,	 [K_ROCE] = 1,	  [K_ROCE_TUN] = 2,
			[K_UDP] = 3,	 [K_UDP_ECT] = 3, [K_NFS_REQ] = 4,
			[K_NFS_REP] = 4, [K_ISCSI] = 5,	  [K_NVME] = 6,
			[K_ICMP] = 7,
		};
		memcpy(cf->class_of, k8, sizeof(k8));
		c = add_class(p, "cnp", 0, 9000);
		set_ceil(p, c, 5);
		c = add_class(p, "roce", 1, 9000);
		set_ceil(p, c, 90);
		set_roce_ecn(c);
		c = add_class(p, "roce_tunnel", 1, 9000);
		set_ceil(p, c, 90);
		set_roce_ecn(c);
		add_class(p, "default", 2, 9000);
		c = add_class(p, "nfs", 3, 9000);
		set_min(p, c, 10);
		add_class(p, "iscsi", 3, 4500);
		add_class(p, "nvme", 3, 9000);
		c = add_class(p, "mgmt", 0, 1500);
		set_ceil(p, c, 5);
		rule_cnp(p, 0);
		rule_port(p, 1, IPPROTO_UDP, 0, ROCEV2_UDP_PORT);
		rule_dscp(p, 2, 26);
		rule_storage(p, 4, 5, 6);
		rule_dscp(p, 4, 10);
		rule(p, 7, QOS_M_PROTO)->proto = IPPROTO_ICMP;
		p->default_class = 3;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/* ---- frames ---- */

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void ipv4_csum(uint8_t *h)
{
	uint32_t sum = 0;

	h[10] = h[11] = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	wr16(h + 10, ~sum & 0xffff);
}

/* An Ethernet/IPv4 frame of len bytes (>= 60) of the given kind; flow
 * varies addresses and ports. */
static void build_frame(uint8_t *f, uint32_t len, enum kind k, uint32_t flow)
{
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x02};
	static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x01};
	uint8_t *ip = f + 14, *l4 = f + 34;
	unsigned int dscp = 0, ecn = 0, proto = IPPROTO_UDP;
	uint16_t sport = (uint16_t)(49152 + (flow & 0x3fff)), dport = 0;

	memset(f, 0, len);
	for (uint32_t i = 34; i < len; i++)
		f[i] = (uint8_t)(i * 7 + flow);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	wr16(f + 12, ETHERTYPE_IPV4);
	switch (k) {
	case K_CNP:
		dscp = 48;
		dport = ROCEV2_UDP_PORT;
		break;
	case K_ROCE:
		dscp = 26;
		ecn = 2; /* ECT(0) */
		dport = ROCEV2_UDP_PORT;
		break;
	case K_ROCE_TUN:
		dscp = 26;
		ecn = 2;
		dport = 4789;
		break;
	case K_UDP:
		dport = (uint16_t)(5000 + (flow & 0xff));
		break;
	case K_UDP_ECT:
		ecn = 2;
		dport = (uint16_t)(5000 + (flow & 0xff));
		break;
	case K_NFS_REQ:
		proto = IPPROTO_TCP;
		sport = (uint16_t)(700 + (flow & 0xff));
		dport = 2049;
		break;
	case K_NFS_REP:
		proto = IPPROTO_TCP;
		dport = sport;
		sport = 2049;
		break;
	case K_ISCSI:
		proto = IPPROTO_TCP;
		dport = 3260;
		break;
	case K_NVME:
		proto = IPPROTO_TCP;
		dport = 4420;
		break;
	case K_ICMP:
	case K_N:
		proto = IPPROTO_ICMP;
		break;
	}
	ip[0] = 0x45;
	ip[1] = (uint8_t)(dscp << 2 | ecn);
	wr16(ip + 2, len - 14);
	wr16(ip + 4, flow & 0xffff);
	wr16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = (uint8_t)proto;
	ip[12] = 10;
	ip[13] = 1;
	ip[14] = (uint8_t)(flow >> 8);
	ip[15] = (uint8_t)flow;
	ip[16] = 10;
	ip[17] = 2;
	ip[18] = 0;
	ip[19] = (uint8_t)(1 + flow % 200);
	ipv4_csum(ip);
	if (proto == IPPROTO_UDP) {
		wr16(l4, sport);
		wr16(l4 + 2, dport);
		wr16(l4 + 4, len - 34);
		wr16(l4 + 6, 0);
		if (dport == ROCEV2_UDP_PORT) {
			uint8_t *bth = l4 + 8;

			/* CNP, or RC RDMA WRITE only */
			bth[0] = k == K_CNP ? BTH_OPCODE_CNP : 0x0a;
			bth[1] = 0;
			wr16(bth + 2, 0xffff); /* P_Key */
			bth[5] = (uint8_t)(flow >> 16); /* dest QP */
			wr16(bth + 6, flow & 0xffff);
			bth[8] = 0x80; /* AckReq */
			wr16(bth + 10, flow & 0xffff); /* PSN */
		}
	} else if (proto == IPPROTO_TCP) {
		wr16(l4, sport);
		wr16(l4 + 2, dport);
		wr16(l4 + 4, flow);
		l4[12] = 0x50; /* data offset 5 */
		l4[13] = 0x10; /* ACK */
		wr16(l4 + 14, 0xffff);
	} else {
		l4[0] = 8; /* echo request */
		wr16(l4 + 4, flow & 0xffff);
	}
}

/* ---- the benchmark context ---- */

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

/* The egress task's clock read, once per burst. */
static inline uint64_t clock_next(struct ctx *x)
{
	if (x->real_clock)
		return x->now = mono_ns();
	x->now += x->clk_q;
	x->clk_acc += x->clk_r;
	if (x->clk_acc >= x->rate) {
		x->clk_acc -= x->rate;
		x->now++;
	}
	return x->now;
}

/* rx_task.c's classify_frame(): the frame's meta. */
static inline uint32_t rx_meta(struct ctx *x, const uint8_t *f, uint32_t len)
{
	struct pkt_meta m;
	int bad = pkt_parse(f, len, &m);

	if (likely(!bad))
		return frame_meta_pack(classify(&x->cls, &m), m.ecn, m.l3,
				       m.l3_off);
	x->malformed++;
	return frame_meta_pack(x->cls.default_class, 0, 0, 0);
}

static inline void recycle(struct ctx *x, uint64_t addr)
{
	x->free[x->free_tail++ & x->free_mask] =
		(uint32_t)(addr >> x->stride_shift);
}

/* The whole pipeline, `bursts` times. */
static __attribute__((noinline)) void run_pipeline(struct ctx *x,
						   uint64_t bursts)
{
	struct frame_desc rx[BURST], eg[BURST], out[BURST];

	for (uint64_t it = 0; it < bursts; it++) {
		uint64_t now = clock_next(x), bytes = 0;
		uint32_t k, n, i, sent, got;

		/* RX task */
		k = MIN((uint32_t)BURST, x->free_tail - x->free_head);
		if (unlikely(k < BURST))
			x->short_bursts++;
		if (x->prefetch)
			for (i = 0; i < k; i++)
				__builtin_prefetch(
					x->base +
					((uint64_t)x->free[(x->free_head + i) &
							   x->free_mask]
					 << x->stride_shift));
		for (i = 0; i < k; i++) {
			uint64_t addr =
				(uint64_t)x->free[x->free_head++ & x->free_mask]
				<< x->stride_shift;

			rx[i].addr = addr;
			rx[i].len = x->len;
			rx[i].meta = rx_meta(x, x->base + addr, x->len);
		}
		x->generated += k;
		sent = handoff_ring_enqueue(&x->ring, rx, k);
		for (i = sent; unlikely(i < k); i++) {
			x->drop_handoff++;
			recycle(x, rx[i].addr);
		}

		/* egress task */
		n = handoff_ring_dequeue(&x->ring, eg, BURST);
		for (i = 0; i < n; i++) {
			if (unlikely(sched_enqueue(&x->s, &eg[i],
						   x->base + eg[i].addr,
						   now))) {
				x->drop_sched++;
				recycle(x, eg[i].addr);
			}
		}
		got = sched_dequeue(&x->s, out, BURST, now);
		for (i = 0; i < got; i++) {
			bytes += out[i].len;
			recycle(x, out[i].addr);
		}
		x->tx_pkts += got;
		x->tx_bytes += bytes;
	}
}

/* Parse + classify + pack alone, over the pool. */
static __attribute__((noinline)) void run_parse(struct ctx *x, uint64_t bursts)
{
	struct frame_desc rx[BURST];
	uint32_t pos = 0, mask = x->pool - 1;
	uint64_t sum = 0;

	for (uint64_t it = 0; it < bursts; it++) {
		if (x->prefetch)
			for (uint32_t i = 0; i < BURST; i++)
				__builtin_prefetch(x->base +
						   ((uint64_t)((pos + i) & mask)
						    << x->stride_shift));
		for (uint32_t i = 0; i < BURST; i++, pos++) {
			uint64_t addr = (uint64_t)(pos & mask)
					<< x->stride_shift;

			rx[i].addr = addr;
			rx[i].len = x->len;
			rx[i].meta = rx_meta(x, x->base + addr, x->len);
		}
		for (uint32_t i = 0; i < BURST; i++)
			sum += rx[i].meta;
	}
	x->generated += bursts * BURST;
	x->sink += sum;
}

/* The handoff ring alone: enqueue 32 pre-built descriptors, dequeue 32. */
static __attribute__((noinline)) void run_ring(struct ctx *x, uint64_t bursts)
{
	struct frame_desc out[BURST];
	uint32_t pos = 0, mask = x->pool - 1;
	uint64_t sum = 0, moved = 0;

	for (uint64_t it = 0; it < bursts; it++) {
		uint32_t n;

		n = handoff_ring_enqueue(&x->ring, &x->pre[pos & mask], BURST);
		pos += BURST;
		n = handoff_ring_dequeue(&x->ring, out, n);
		for (uint32_t i = 0; i < n; i++)
			sum += out[i].addr;
		moved += n;
	}
	x->generated += bursts * BURST;
	x->tx_pkts += moved;
	x->sink += sum;
}

/* The scheduler alone: clock, 32 sched_enqueue, one sched_dequeue(32). */
static __attribute__((noinline)) void run_sched(struct ctx *x, uint64_t bursts)
{
	struct frame_desc out[BURST];
	uint32_t pos = 0, mask = x->pool - 1;
	uint64_t bytes = 0, sent = 0;

	for (uint64_t it = 0; it < bursts; it++) {
		uint64_t now = clock_next(x);
		const struct frame_desc *d = &x->pre[pos & mask];
		uint32_t got;

		pos += BURST;
		for (uint32_t i = 0; i < BURST; i++)
			if (unlikely(sched_enqueue(&x->s, &d[i],
						   x->base + d[i].addr, now)))
				x->drop_sched++;
		got = sched_dequeue(&x->s, out, BURST, now);
		for (uint32_t i = 0; i < got; i++) {
			bytes += out[i].len;
			/* back to the pre-built array, with its meta as the
			 * scheduler left it (CE if RED marked the frame) */
			x->pre[out[i].addr >> x->stride_shift].meta =
				out[i].meta;
		}
		sent += got;
	}
	x->generated += bursts * BURST;
	x->tx_pkts += sent;
	x->tx_bytes += bytes;
}

enum stage { ST_PIPE, ST_PARSE, ST_RING, ST_SCHED, ST_N };

static const char *const stage_name[ST_N] = {"pipeline", "parse", "ring",
					     "sched"};

static void fail(const char *what, const struct ctx *x)
{
	fprintf(stderr,
		"pipeline_bench: FAIL (%u classes, %u B, stage %s): %s\n"
		"  generated %llu, transmitted %llu, dropped: handoff %llu, "
		"scheduler %llu; malformed %llu\n",
		x->cf->n_classes, x->len, x->stage, what,
		(unsigned long long)x->generated,
		(unsigned long long)x->tx_pkts,
		(unsigned long long)x->drop_handoff,
		(unsigned long long)x->drop_sched,
		(unsigned long long)x->malformed);
	exit(1);
}

static void sched_start(struct ctx *x)
{
	x->now = x->real_clock ? mono_ns() : 1000000000ull;
	x->clk_acc = 0;
	if (sched_init(&x->s, &x->cf->pol, 0, x->now)) {
		fprintf(stderr, "pipeline_bench: sched_init failed\n");
		exit(1);
	}
}

/* Drain the scheduler (for the frames it holds) and check the counts. */
static void sched_check(struct ctx *x, bool recycle_frames)
{
	struct frame_desc out[BURST];
	uint64_t enq = 0, drops = 0, sent = 0, sent_bytes = 0, got;
	uint64_t per_class[QOS_MAX_CLASSES] = {0};

	while (sched_backlog_packets(&x->s)) {
		x->now += 1000000000ull; /* a second later: all buckets full */
		got = sched_dequeue(&x->s, out, BURST, x->now);
		for (uint32_t i = 0; i < got; i++) {
			x->tx_bytes += out[i].len;
			if (recycle_frames)
				recycle(x, out[i].addr);
		}
		x->tx_pkts += got;
	}
	for (unsigned int c = 0; c < x->cf->n_classes; c++) {
		const struct sched_class_stats *st =
			sched_class_stats(&x->s, c);

		per_class[c] = ctr_read(&st->enq_packets);
		enq += per_class[c];
		for (int r = 1; r < SCHED_DROP_REASONS; r++)
			drops += ctr_read(&st->drops[r]);
		sent += ctr_read(&st->sent_packets);
		sent_bytes += ctr_read(&st->sent_bytes);
	}
	if (enq + drops + x->drop_handoff != x->generated)
		fail("scheduler received + dropped != generated", x);
	if (drops != x->drop_sched)
		fail("scheduler drop counters != drops seen", x);
	if (sent != x->tx_pkts || sent_bytes != x->tx_bytes)
		fail("scheduler sent counters != transmitted", x);
	if (sent != enq)
		fail("frames left in the scheduler", x);
	if (!x->real_clock) {
		uint64_t want[QOS_MAX_CLASSES] = {0};

		if (drops || x->drop_handoff)
			fail("drops with the fake clock (nothing should block)",
			     x);
		if (x->generated % BURST)
			fail("generated not a multiple of the burst", x);
		for (int i = 0; i < BURST; i++)
			want[x->cf->class_of[mix[i]]] += x->generated / BURST;
		for (unsigned int c = 0; c < x->cf->n_classes; c++)
			if (per_class[c] != want[c])
				fail("a class got other than its share of the "
				     "mix",
				     x);
	}
	sched_fini(&x->s);
}

/* Every frame on the free list exactly once. */
static void free_check(struct ctx *x)
{
	uint8_t *seen = calloc(x->pool, 1);

	if (!seen) {
		fprintf(stderr, "pipeline_bench: out of memory\n");
		exit(1);
	}
	if (x->free_tail - x->free_head != x->pool)
		fail("frames missing from the free list", x);
	for (uint32_t i = x->free_head; i != x->free_tail; i++) {
		uint32_t f = x->free[i & x->free_mask];

		if (f >= x->pool || seen[f]++)
			fail("a frame twice on the free list", x);
	}
	free(seen);
}

static void counts_reset(struct ctx *x)
{
	x->generated = x->tx_pkts = x->tx_bytes = 0;
	x->drop_handoff = x->drop_sched = x->malformed = 0;
	x->short_bursts = 0;
}

static void pool_reset(struct ctx *x);

/* One run of a stage: warm-up, then `bursts` timed. Returns ns/packet. */
static double run_stage(struct ctx *x, enum stage st, uint64_t bursts)
{
	uint64_t warm = MAX((uint64_t)x->pool / BURST * 2, (uint64_t)64);
	uint64_t t0, t1, g0;

	/* every run starts from the same frames (RED may have marked some
	 * CE) and a full free list */
	pool_reset(x);
	counts_reset(x);
	x->stage = stage_name[st];
	if (st == ST_PIPE || st == ST_SCHED)
		sched_start(x);
	switch (st) {
	case ST_PIPE:
		run_pipeline(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_pipeline(x, bursts);
		t1 = mono_ns();
		/* the handoff ring is empty: each burst was dequeued */
		if (handoff_ring_count(&x->ring))
			fail("handoff ring not empty", x);
		sched_check(x, true);
		free_check(x);
		break;
	case ST_PARSE:
		run_parse(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_parse(x, bursts);
		t1 = mono_ns();
		break;
	case ST_RING:
		run_ring(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_ring(x, bursts);
		t1 = mono_ns();
		if (x->tx_pkts != x->generated)
			fail("ring lost descriptors", x);
		break;
	case ST_SCHED:
	default:
		run_sched(x, warm);
		g0 = x->generated;
		t0 = mono_ns();
		run_sched(x, bursts);
		t1 = mono_ns();
		sched_check(x, false);
		break;
	}
	if (x->malformed)
		fail("malformed frames", x);
	if (x->drop_sched || x->drop_handoff || x->short_bursts)
		fprintf(stderr,
			"pipeline_bench: %u classes, %u B, %s: %llu dropped, "
			"%llu bursts short of free frames: the shaper blocked "
			"(the loop ran faster than the port rate; raise -R)\n",
			x->cf->n_classes, x->len, x->stage,
			(unsigned long long)(x->drop_sched + x->drop_handoff),
			(unsigned long long)x->short_bursts);
	if (x->generated == g0)
		fail("no packets in the timed part", x);
	return (double)(t1 - t0) / (double)(x->generated - g0);
}

/* (Re)build the pool's frames, their descriptors and the free list;
 * check every frame's class. */
static void pool_reset(struct ctx *x)
{
	const struct config *cf = x->cf;
	uint32_t len = x->len;

	x->malformed = 0;
	for (uint32_t i = 0; i < x->pool; i++) {
		uint64_t addr = (uint64_t)i << x->stride_shift;
		uint8_t *f = x->base + addr;
		enum kind k = (enum kind)mix[i % BURST];

		build_frame(f, len, k, i * 2654435761u >> 8);
		x->pre[i].addr = addr;
		x->pre[i].len = len;
		x->pre[i].meta = rx_meta(x, f, len);
		if (x->malformed ||
		    frame_meta_class(x->pre[i].meta) != cf->class_of[k]) {
			fprintf(stderr,
				"pipeline_bench: FAIL: frame %u (kind %d, %u "
				"B) "
				"classified %u, want %u%s\n",
				i, (int)k, len,
				frame_meta_class(x->pre[i].meta),
				cf->class_of[k],
				x->malformed ? " (malformed)" : "");
			exit(1);
		}
	}
	x->free_head = x->free_tail = 0;
	for (uint32_t i = 0; i < x->pool; i++)
		x->free[x->free_tail++ & x->free_mask] = i;
}

static void ctx_setup(struct ctx *x, const struct config *cf, uint32_t len)
{
	x->cf = cf;
	x->len = len;
	x->stage = "setup";
	if (classifier_build(&x->cls, &cf->pol)) {
		fprintf(stderr, "pipeline_bench: classifier_build: rule %d\n",
			x->cls.err_rule);
		exit(1);
	}
	pool_reset(x);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stat3 {
	double med, min, max;
};

static struct stat3 stats(double *v, int n)
{
	struct stat3 r;

	qsort(v, (size_t)n, sizeof(double), cmp_double);
	r.min = v[0];
	r.max = v[n - 1];
	r.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pipeline_bench [-n PACKETS] [-r REPS] [-C 1,4,8] "
		"[-s 64,1500] [-P FRAMES]\n"
		"                      [-k fake|real] [-R BPS] [-S STAGES] "
		"[-c CPU] [-p] [-h]\n"
		"ns per packet of parse + classify + handoff ring + egress "
		"scheduler, no I/O.\n"
		"  -n PACKETS  per run and stage, rounded up to a multiple of "
		"32 (default 4000000)\n"
		"  -r REPS     repetitions (default 5)\n"
		"  -C LIST     class configurations: 1, 4, 8 (default 1,4,8)\n"
		"  -s LIST     frame sizes, bytes, 60..9000 (default 64,1500)\n"
		"  -P FRAMES   frames in the pool, a power of two >= 64 "
		"(default 1024)\n"
		"  -k CLOCK    fake (default): advances by the wire time of "
		"each burst at the\n"
		"              port rate; real: CLOCK_MONOTONIC once per "
		"burst\n"
		"  -R BPS      port rate, bits/s, suffix k/M/G/T allowed "
		"(default 100G)\n"
		"  -S STAGES   which to run: pipeline,parse,ring,sched "
		"(default all)\n"
		"  -c CPU      pin the thread to CPU (default: not pinned)\n"
		"  -p          RX loops prefetch the burst's 32 frame headers "
		"before parsing\n"
		"              (an experiment: rx_task.c does not)\n"
		"  -h          this help\n"
		"Prints a markdown table; exits 1 if a check fails (lost or "
		"duplicated frames,\n"
		"wrong class, counters that disagree, drops with the fake "
		"clock).\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' ? -1 : 0;
}

static int parse_rate(const char *s, uint64_t *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || d <= 0)
		return -1;
	switch (*end) {
	case 'k':
		d *= 1e3;
		end++;
		break;
	case 'M':
		d *= 1e6;
		end++;
		break;
	case 'G':
		d *= 1e9;
		end++;
		break;
	case 'T':
		d *= 1e12;
		end++;
		break;
	}
	if (*end || d < 1e6 || d > (double)TB_MAX_RATE)
		return -1;
	*v = (uint64_t)d;
	return 0;
}

static int parse_list(const char *arg, uint64_t *out, int max, uint64_t lo,
		      uint64_t hi)
{
	char *s = strdup(arg), *tok, *save = NULL;
	int n = 0;

	if (!s)
		return -1;
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max || parse_u64(tok, &out[n]) || out[n] < lo ||
		    out[n] > hi) {
			free(s);
			return -1;
		}
		n++;
	}
	free(s);
	return n;
}

int main(int argc, char **argv)
{
	uint64_t npkts = 4000000, reps = 5, pool = 1024, rate = 100000000000ull;
	uint64_t classes[MAX_LIST] = {1, 4, 8}, sizes[MAX_LIST] = {64, 1500};
	int n_cls = 3, n_sz = 2, o, cpu = -1;
	bool stage_on[ST_N] = {true, true, true, true}, real = false;
	bool prefetch = false;
	uint64_t v, bursts, max_len = 0;
	struct ctx *x;

	while ((o = getopt(argc, argv, "n:r:C:s:P:k:R:S:c:ph")) != -1) {
		switch (o) {
		case 'n':
			if (parse_u64(optarg, &npkts) || !npkts ||
			    npkts > (1ull << 40))
				goto bad;
			break;
		case 'r':
			if (parse_u64(optarg, &reps) || !reps || reps > 1000)
				goto bad;
			break;
		case 'C':
			n_cls = parse_list(optarg, classes, MAX_LIST, 1, 8);
			if (n_cls <= 0)
				goto bad;
			for (int i = 0; i < n_cls; i++)
				if (classes[i] != 1 && classes[i] != 4 &&
				    classes[i] != 8)
					goto bad;
			break;
		case 's':
			n_sz = parse_list(optarg, sizes, MAX_LIST, 60, 9000);
			if (n_sz <= 0)
				goto bad;
			break;
		case 'P':
			if (parse_u64(optarg, &pool) || pool < 2 * BURST ||
			    pool > (1u << 20) || !is_pow2(pool))
				goto bad;
			break;
		case 'k':
			if (!strcmp(optarg, "real"))
				real = true;
			else if (!strcmp(optarg, "fake"))
				real = false;
			else
				goto bad;
			break;
		case 'R':
			if (parse_rate(optarg, &rate))
				goto bad;
			break;
		case 'S': {
			char *s = strdup(optarg), *tok, *save = NULL;

			memset(stage_on, 0, sizeof(stage_on));
			for (tok = strtok_r(s, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				int i;

				for (i = 0; i < ST_N; i++)
					if (!strcmp(tok, stage_name[i]))
						break;
				if (i == ST_N) {
					free(s);
					goto bad;
				}
				stage_on[i] = true;
			}
			free(s);
			break;
		}
		case 'c':
			if (parse_u64(optarg, &v) || v >= CPU_SETSIZE)
				goto bad;
			cpu = (int)v;
			break;
		case 'p':
			prefetch = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr,
				"pipeline_bench: cannot pin to CPU %d: %s\n",
				cpu, strerror(errno));
			return 1;
		}
	}
	bursts = (npkts + BURST - 1) / BURST;
	for (int i = 0; i < n_sz; i++)
		max_len = MAX(max_len, sizes[i]);

	x = aligned_alloc(CACHELINE,
			  (sizeof(*x) + CACHELINE - 1) / CACHELINE * CACHELINE);
	if (!x)
		goto oom;
	memset(x, 0, sizeof(*x));
	x->pool = (uint32_t)pool;
	x->stride_shift = 11; /* 2 KiB frames, or larger for jumbo sizes */
	while ((1ull << x->stride_shift) < max_len)
		x->stride_shift++;
	x->base = aligned_alloc(4096, pool << x->stride_shift);
	x->pre = calloc(pool, sizeof(*x->pre));
	x->free = calloc(pool, sizeof(*x->free));
	x->free_mask = (uint32_t)pool - 1;
	x->real_clock = real;
	x->prefetch = prefetch;
	x->rate = rate;
	if (!x->base || !x->pre || !x->free ||
	    handoff_ring_init(&x->ring, HANDOFF_SLOTS))
		goto oom;

	int n_rows = n_cls * n_sz;
	double *res = calloc((size_t)n_rows * ST_N * reps, sizeof(double));
	struct config *cf = malloc(sizeof(*cf));

	if (!res || !cf)
		goto oom;
#define RES(row, st, r) res[((size_t)(row)*ST_N + (st)) * reps + (r)]

	printf("pipeline_bench: %llu packets per run and stage, %llu "
	       "repetitions, bursts of %d, pool of %llu frames %u B apart, "
	       "port %.1f Gbit/s (overhead %d B), %s clock%s%s.\n\n",
	       (unsigned long long)(bursts * BURST), (unsigned long long)reps,
	       BURST, (unsigned long long)pool, 1u << x->stride_shift,
	       (double)rate / 1e9, OVERHEAD,
	       real ? "real (CLOCK_MONOTONIC once per burst)"
		    : "fake (advances by each burst's wire time)",
	       cpu >= 0 ? "" : ", thread not pinned",
	       prefetch ? ", RX prefetches headers (-p)" : "");
	if (DP_ASSERTS_ON)
		printf("NOTE: built with XDPLANE_ASSERTS (as tests/run and CI "
		       "configure it): the scheduler checks its invariants "
		       "after every call. Not release numbers: use a build "
		       "without it (the default) to compare with the "
		       "goal.\n\n");
	fflush(stdout);

	for (int ci = 0; ci < n_cls; ci++) {
		if (config_build(cf, (unsigned int)classes[ci], rate))
			goto bad;
		for (int si = 0; si < n_sz; si++) {
			int row = ci * n_sz + si;
			uint32_t len = (uint32_t)sizes[si];

			/* wire time of a burst: 32 (len + 24) * 8 bits */
			uint64_t bits_e9 = (uint64_t)BURST * (len + OVERHEAD) *
					   8 * 1000000000ull;

			x->clk_q = bits_e9 / rate;
			x->clk_r = bits_e9 % rate;
			ctx_setup(x, cf, len);
			for (uint64_t r = 0; r < reps; r++)
				for (int st = 0; st < ST_N; st++)
					if (stage_on[st])
						RES(row, st, r) = run_stage(
							x, (enum stage)st,
							bursts);
		}
	}

	printf("goal: < %.0f ns/packet on this machine (pipeline median; "
	       "no assertion, the machine is noisy)\n\n",
	       GOAL_NS);
	printf("| classes | frame B | pipeline ns/pkt (median [min-max]) | "
	       "Mpps | parse+classify ns/pkt | handoff ring ns/pkt | "
	       "scheduler ns/pkt | sum of parts | goal < %.0f ns |\n",
	       GOAL_NS);
	printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :-: "
	       "|\n");
	for (int ci = 0; ci < n_cls; ci++) {
		for (int si = 0; si < n_sz; si++) {
			int row = ci * n_sz + si;
			struct stat3 s[ST_N];
			char cell[ST_N][64];
			double sum = 0;

			for (int st = 0; st < ST_N; st++) {
				if (!stage_on[st]) {
					snprintf(cell[st], sizeof(cell[st]),
						 "-");
					continue;
				}
				s[st] = stats(&RES(row, st, 0), (int)reps);
				snprintf(cell[st], sizeof(cell[st]),
					 "%.1f [%.1f-%.1f]", s[st].med,
					 s[st].min, s[st].max);
				if (st != ST_PIPE)
					sum += s[st].med;
			}
			printf("| %llu | %llu | %s | ",
			       (unsigned long long)classes[ci],
			       (unsigned long long)sizes[si], cell[ST_PIPE]);
			if (stage_on[ST_PIPE])
				printf("%.1f | ", 1e3 / s[ST_PIPE].med);
			else
				printf("- | ");
			printf("%s | %s | %s | ", cell[ST_PARSE], cell[ST_RING],
			       cell[ST_SCHED]);
			if (stage_on[ST_PARSE] && stage_on[ST_RING] &&
			    stage_on[ST_SCHED])
				printf("%.1f | ", sum);
			else
				printf("- | ");
			if (stage_on[ST_PIPE])
				printf("%s |\n", s[ST_PIPE].med < GOAL_NS
							 ? "PASS"
							 : "MISS");
			else
				printf("- |\n");
		}
	}
	printf("\nAll checks passed (frames, classes, counters%s).\n",
	       real ? "" : ", no drops");
	handoff_ring_fini(&x->ring);
	free(res);
	free(cf);
	free(x->base);
	free(x->pre);
	free(x->free);
	free(x);
	return 0;
oom:
	fprintf(stderr, "pipeline_bench: out of memory\n");
	return 1;
bad:
	usage(stderr);
	return 2;
}
