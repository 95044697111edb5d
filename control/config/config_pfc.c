// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_pfc.c - PFC, IEEE 802.1Qbb (dataplane/sched/pfc.h), after the
 * classes, rules and ports (parts of the loader: config_sections.h).
 *
 * A lossless class's priority is its pcp key, else the PCP its first
 * PCP-matching rule names (the lowest), else DSCP >> 3 of the lowest DSCP
 * its first DSCP-matching rule names, else 3. Its thresholds on egress
 * port e are computed against the link the traffic comes from (port 1-e:
 * where the PFC frames go): headroom H = pfc_headroom_bytes(link speed,
 * cable_length, MTU of that port, or the largest frame one UMEM frame
 * holds when the MTU is left to the interface); xoff = limit_bytes - H
 * (or pfc.xoff), xon = xoff / 2 (or pfc.xon). The limit must hold
 * H + 2 MTU.
 */
#include "config_sections.h"
#include "pfc.h"

#include <string.h>

#define PFC_MAX_MS 600000

static uint8_t default_pcp(const struct qos_policy *q, uint8_t id)
{
	for (uint32_t i = 0; i < q->n_rules; i++) {
		const struct qos_rule *r = &q->rules[i];

		if (r->class_id != id)
			continue;
		if ((r->fields & QOS_M_PCP) && r->pcp_mask)
			return (uint8_t)__builtin_ctz(r->pcp_mask);
		if ((r->fields & QOS_M_DSCP) && r->dscp_mask)
			return (uint8_t)(__builtin_ctzll(r->dscp_mask) >> 3);
	}
	return 3;
}

static int get_pfc_size(const struct load_ctx *c, const char *path,
			uint32_t *bytes)
{
	struct key k;

	*bytes = 0;
	if (!cfg_key_at(c, &k, "%s", path) || !strcmp(k.n->text, "auto"))
		return 0;
	return cfg_get_size(c, &k, 1, "or auto", bytes);
}

/* The pfc mapping and ports[].link_speed; link[] and mtu[] of each port
 * for the thresholds. */
static int load_pfc_keys(const struct load_ctx *c, struct xdplane_config *cfg,
			 uint64_t *link, uint32_t *mtu)
{
	struct qos_policy *q = &cfg->qos;
	struct qos_pfc *p = &q->pfc;
	uint32_t wd = PFC_DEF_WATCHDOG_MS, rs = PFC_DEF_RESTORE_MS, v;
	struct key k;

	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		if (cfg_key_at(c, &k, "ports[%u].link_speed", i) &&
		    cfg_get_rate(c, &k, q, &q->port[i].link_bps, NULL,
				 "the port rate"))
			return -1;
		link[i] = q->port[i].link_bps ? q->port[i].link_bps
					      : q->port[i].rate_bps;
		mtu[i] = cfg->ports[i].mtu
				 ? cfg->ports[i].mtu
				 : cfg->umem.frame_size - cfg->umem.headroom;
	}
	p->cable_m = PFC_DEF_CABLE_M;
	p->quanta = PFC_MAX_QUANTA;
	if (cfg_key_at(c, &k, "pfc.enabled") &&
	    cfg_get_bool(c, &k, &p->enabled))
		return -1;
	if (cfg_key_at(c, &k, "pfc.cable_length") &&
	    cfg_get_uint(c, &k, 0, 100000, " m", &p->cable_m))
		return -1;
	if (cfg_key_at(c, &k, "pfc.pause_quanta")) {
		if (cfg_get_uint(c, &k, 1, PFC_MAX_QUANTA,
				 " quanta of 512 bit times", &v))
			return -1;
		p->quanta = (uint16_t)v;
	}
	if (cfg_key_at(c, &k, "pfc.watchdog") &&
	    cfg_get_time_in(c, &k, 1000000, "milliseconds", 0, PFC_MAX_MS, &wd))
		return -1;
	if (cfg_key_at(c, &k, "pfc.watchdog_restore") &&
	    cfg_get_time_in(c, &k, 1000000, "milliseconds", 0, PFC_MAX_MS, &rs))
		return -1;
	p->watchdog_ns = (uint64_t)wd * 1000000;
	p->restore_ns = (uint64_t)rs * 1000000;
	if (get_pfc_size(c, "pfc.xoff", &p->xoff) ||
	    get_pfc_size(c, "pfc.xon", &p->xon))
		return -1;
	if (p->xoff && p->xon && p->xon >= p->xoff) {
		cfg_key_at(c, &k, "pfc.xon");
		return cfg_fail(c, k.n->val,
				"pfc.xon: must be below pfc.xoff (%u bytes) "
				"(got %u bytes)",
				p->xoff, p->xon);
	}
	return 0;
}

/* Lossless class i's thresholds on egress port e, whose traffic and PFC
 * frames go to port in = 1 - e. */
static int class_thresholds(const struct load_ctx *c, struct qos_pfc *p,
			    struct qos_class *qc, uint32_t i, unsigned int e,
			    uint64_t link, uint32_t mtu)
{
	unsigned int in = 1 - e;
	uint32_t h, need;
	struct key k;

	if (!link) {
		cfg_key_at(c, &k, "classes[%u].lossless", i);
		return cfg_fail(c, k.n->val,
				"classes[%u].lossless: PFC needs the link "
				"speed of ports[%u] for its pause quanta and "
				"headroom; set ports[%u].link_speed (or "
				"ports[%u].rate)",
				i, in, in, in);
	}
	h = pfc_headroom_bytes(link, p->cable_m, mtu);
	need = h + 2 * mtu;
	if (qc->limit_bytes < need) {
		if (!cfg_key_at(c, &k, "classes[%u].limit_bytes", i))
			cfg_key_at(c, &k, "classes[%u].lossless", i);
		return cfg_fail(c, k.n->val,
				"classes[%u].limit_bytes: a lossless class "
				"needs at least headroom + 2 MTU = %u bytes "
				"(headroom %u bytes for %llu bit/s over %u m, "
				"MTU %u of ports[%u]) (got %u bytes); raise "
				"limit_bytes, or lower pfc.cable_length",
				i, need, h, (unsigned long long)link,
				p->cable_m, mtu, in, qc->limit_bytes);
	}
	qc->pfc_xoff[e] = qc->limit_bytes - h;
	if (p->xoff) {
		if (p->xoff > qc->pfc_xoff[e]) {
			cfg_key_at(c, &k, "pfc.xoff");
			return cfg_fail(c, k.n->val,
					"pfc.xoff: above the limit_bytes of "
					"lossless class '%s' less its headroom "
					"(%u - %u = %u bytes) (got %u bytes)",
					qc->name, qc->limit_bytes, h,
					qc->pfc_xoff[e], p->xoff);
		}
		qc->pfc_xoff[e] = p->xoff;
	}
	qc->pfc_xon[e] = p->xon ? p->xon : qc->pfc_xoff[e] / 2;
	if (qc->pfc_xon[e] >= qc->pfc_xoff[e]) {
		cfg_key_at(c, &k, "pfc.xon");
		return cfg_fail(c, k.n->val,
				"pfc.xon: must be below the xoff of lossless "
				"class '%s' (%u bytes) (got %u bytes)",
				qc->name, qc->pfc_xoff[e], qc->pfc_xon[e]);
	}
	return 0;
}

int cfg_load_pfc(const struct load_ctx *c, struct xdplane_config *cfg)
{
	struct qos_policy *q = &cfg->qos;
	uint64_t link[CONFIG_PORTS];
	uint32_t mtu[CONFIG_PORTS];

	if (load_pfc_keys(c, cfg, link, mtu))
		return -1;
	for (uint32_t i = 0; i < q->n_classes; i++) {
		struct qos_class *qc = &q->classes[i];

		if (!qc->lossless)
			continue;
		if (!qc->has_pcp) {
			qc->has_pcp = true;
			qc->pcp = default_pcp(q, (uint8_t)i);
		}
		for (unsigned int e = 0; e < CONFIG_PORTS && q->pfc.enabled;
		     e++)
			if (class_thresholds(c, &q->pfc, qc, i, e, link[1 - e],
					     mtu[1 - e]))
				return -1;
	}
	return 0;
}
