// SPDX-License-Identifier: BSD-2-Clause
/*
 * pipeline_config.c - pipeline_bench's configurations (-C): 1 class (the
 * default config), 4 classes as the shipped config and 8 classes, their
 * rules, ceilings, minimum shares and ECN/RED, and the class each kind of
 * the mix must classify to.
 */
#include "pipeline_bench.h"

/* ---- policies ---- */

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

int config_build(struct config *cf, unsigned int n_classes, uint64_t rate_bps)
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
