// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_qos.c - the QoS keys (parts of the loader: config_sections.h): port
 * shapers (ports[].rate, .burst, overhead), classes, rules and
 * default_class. Rates are exact integers of bits/s, sizes of bytes;
 * shares and probabilities are parts of QOS_PROB_ONE, rounded to the
 * nearest, halves up (control/config/units.h). The rules between keys: a class
 * cannot send faster than its port nor be guaranteed more than it may
 * send, the minimums fit in every port rate, ECN marks before the queue
 * drops, rules name classes that exist.
 */
#include "config_sections.h"
#include "prefix.h"
#include "suggest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define QOS_BURST_MIN 32768
#define QOS_DEF_QUANTUM 9000
#define QOS_MIN_QUANTUM 64
#define QOS_MAX_QUANTUM (1u << 20)
#define QOS_DEF_LIMIT_BYTES (4u << 20)
#define QOS_DEF_LIMIT_PACKETS 2048
#define QOS_MAX_LIMIT_PACKETS 65536
#define QOS_MAX_LEVEL 7
#define QOS_DEFAULT_NAME "default"

static int load_port_shapers(const struct load_ctx *c,
			     struct xdplane_config *cfg)
{
	struct qos_port *p;
	struct key k;

	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		p = &cfg->qos.port[i];
		p->overhead = cfg->qos.port[0].overhead;
		if (cfg_key_at(c, &k, "ports[%u].rate", i) &&
		    cfg_get_rate(c, &k, &cfg->qos, &p->rate_bps, NULL,
				 "an unshaped port"))
			return -1;
		p->burst = cfg_default_burst(p->rate_bps);
		if (cfg_key_at(c, &k, "ports[%u].burst", i) &&
		    cfg_get_frame_size(c, &k, cfg, &p->burst))
			return -1;
	}
	return 0;
}

static bool valid_class_name(const char *s)
{
	size_t len = strlen(s);

	return len && len < QOS_NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_-") == len;
}

static uint64_t max_port_rate(const struct qos_policy *q)
{
	return q->port[0].rate_bps > q->port[1].rate_bps ? q->port[0].rate_bps
							 : q->port[1].rate_bps;
}

/* A ceiling or minimum (bps) against the port rates. */
static int check_vs_ports(const struct load_ctx *c, const struct key *k,
			  const struct qos_policy *q, uint64_t bps)
{
	char want[32], port[32];

	for (unsigned int p = 0; p < CONFIG_PORTS; p++) {
		if (!q->port[p].rate_bps || bps <= q->port[p].rate_bps)
			continue;
		units_rate_text(want, sizeof(want), bps);
		units_rate_text(port, sizeof(port), q->port[p].rate_bps);
		return cfg_fail(c, k->n->val,
				"%s: %s is above ports[%u].rate %s; a class "
				"cannot send faster than its port",
				k->path, want, p, port);
	}
	return 0;
}

/* min <= ceil, on every port where they can be compared; k is the min,
 * ceil the class's ceil key. */
static int check_min_ceil(const struct load_ctx *c, const struct key *k,
			  const struct key *ceil, const struct qos_class *q,
			  const struct qos_policy *pol)
{
	bool same = !q->min_bps == !q->ceil_bps;
	char port[32];

	if (!(q->ceil_bps || q->ceil_share) || !(q->min_bps || q->min_share))
		return 0;
	if (same) {
		if (q->min_bps > q->ceil_bps || q->min_share > q->ceil_share)
			return cfg_fail(c, k->n->val,
					"%s: the minimum %s is above the ceil "
					"%s; a class cannot be guaranteed more "
					"than it may send",
					k->path, k->n->text, ceil->n->text);
		return 0;
	}
	for (unsigned int p = 0; p < CONFIG_PORTS; p++) {
		uint64_t rate = pol->port[p].rate_bps;

		if (!rate ||
		    cfg_scaled(q->min_bps, q->min_share, rate) <=
			    cfg_scaled(q->ceil_bps, q->ceil_share, rate))
			continue;
		units_rate_text(port, sizeof(port), rate);
		return cfg_fail(c, k->n->val,
				"%s: the minimum %s is above the ceil %s on "
				"ports[%u] (rate %s); a class cannot be "
				"guaranteed more than it may send",
				k->path, k->n->text, ceil->n->text, p, port);
	}
	return 0;
}

/* The minimums of classes[0..last] fit in every port rate. */
static int check_min_sum(const struct load_ctx *c, const struct key *k,
			 const struct qos_policy *q, unsigned int last)
{
	char pct[32], port[32];
	units_u128 sum, cap;
	uint64_t rate;

	for (unsigned int p = 0; p < CONFIG_PORTS; p++) {
		rate = q->port[p].rate_bps;
		sum = 0;
		for (unsigned int i = 0; i <= last; i++)
			sum += cfg_scaled(q->classes[i].min_bps,
					  q->classes[i].min_share, rate);
		cap = (units_u128)rate * QOS_PROB_ONE;
		if (!rate || sum <= cap)
			continue;
		/* tenths of a percent, rounded */
		units_fixed_text(pct, sizeof(pct),
				 (uint64_t)((sum * 2000 + cap) / (2 * cap)), 1);
		units_rate_text(port, sizeof(port), rate);
		return cfg_fail(c, k->n->val,
				"%s: the minimums of classes[0] to classes[%u] "
				"add up to %s%% of ports[%u].rate %s; together "
				"they must fit in it",
				k->path, last, pct, p, port);
	}
	return 0;
}

static int load_ecn(const struct load_ctx *c, unsigned int i,
		    struct qos_class *q)
{
	static const char *const example[] = {"kmin: 30KB", "kmax: 300KB",
					      "pmax: 1%"};
	static const char *const names[] = {"kmin", "kmax", "pmax"};
	struct qos_ecn *e = &q->ecn;
	struct key k, at, kmin;
	char path[64], text[32];

	for (unsigned int j = 0; j < 3; j++)
		if (!cfg_key_at(c, &k, "classes[%u].ecn.%s", i, names[j])) {
			cfg_key_at(c, &at, "classes[%u].ecn", i);
			return cfg_fail(c, at.n->val,
					"%s: required key is missing; add e.g. "
					"'%s'",
					k.path, example[j]);
		}
	cfg_key_at(c, &kmin, "classes[%u].ecn.kmin", i);
	if (cfg_get_size(c, &kmin, 0, "", &e->kmin))
		return -1;
	cfg_key_at(c, &k, "classes[%u].ecn.kmax", i);
	if (cfg_get_size(c, &k, 0, "", &e->kmax))
		return -1;
	if (e->kmax <= e->kmin)
		return cfg_fail(c, k.n->val,
				"%s: must be above kmin %s (got '%s'); marking "
				"rises from 0 at kmin to pmax at kmax",
				k.path, kmin.n->text, k.n->text);
	if (e->kmax > q->limit_bytes) {
		units_size_text(text, sizeof(text), q->limit_bytes);
		return cfg_fail(c, k.n->val,
				"%s: above the class's limit_bytes %s (got "
				"'%s'); the queue would drop before marking "
				"reached pmax",
				k.path, text, k.n->text);
	}
	cfg_key_at(c, &k, "classes[%u].ecn.pmax", i);
	switch (units_prob(k.n->text, &e->pmax)) {
	case UNITS_OK:
		break;
	case UNITS_ESYNTAX:
		return cfg_bad_value(c, &k, SYN_PROB);
	case UNITS_EZERO:
		return cfg_fail(c, k.n->val,
				"%s: '%s' is less than one part in %u; use at "
				"least 0.0008%%",
				k.path, k.n->text, QOS_PROB_ONE);
	default:
		return cfg_fail(c, k.n->val,
				"%s: must be above 0 and at most 1 (100%%) "
				"(got '%s')",
				k.path, k.n->text);
	}
	snprintf(path, sizeof(path), "classes[%u].ecn.non_ect", i);
	e->nonect = cfg_enum_at(c, path, cfg_nonect_modes, QOS_NONECT_DROP);
	e->enabled = true;
	return 0;
}

/* ceil_burst or min_burst: written, or max(32 KiB, rate * 200 us), where a
 * share is taken of the faster port. */
static int get_class_burst(const struct load_ctx *c, const char *path,
			   uint64_t bps, uint32_t share,
			   const struct xdplane_config *cfg, uint32_t *burst)
{
	struct key k;

	if (!cfg_key_at(c, &k, "%s", path)) {
		if (!bps)
			bps = (uint64_t)((units_u128)share *
					 max_port_rate(&cfg->qos) /
					 QOS_PROB_ONE);
		*burst = cfg_default_burst(bps);
		return 0;
	}
	return cfg_get_frame_size(c, &k, cfg, burst);
}

static void class_defaults(struct qos_class *q)
{
	q->quantum = QOS_DEF_QUANTUM;
	q->ceil_burst = QOS_BURST_MIN;
	q->min_burst = QOS_BURST_MIN;
	q->limit_bytes = QOS_DEF_LIMIT_BYTES;
	q->limit_packets = QOS_DEF_LIMIT_PACKETS;
}

/* A class's rates: ceil, min and their buckets. */
static int load_class_rates(const struct load_ctx *c, unsigned int i,
			    struct xdplane_config *cfg)
{
	struct qos_class *q = &cfg->qos.classes[i];
	struct key k, ceil;
	char path[64];

	if (cfg_key_at(c, &ceil, "classes[%u].ceil", i) &&
	    (cfg_get_rate(c, &ceil, &cfg->qos, &q->ceil_bps, &q->ceil_share,
			  "no ceiling") ||
	     check_vs_ports(c, &ceil, &cfg->qos, q->ceil_bps)))
		return -1;
	if (cfg_key_at(c, &k, "classes[%u].min", i) &&
	    (cfg_get_rate(c, &k, &cfg->qos, &q->min_bps, &q->min_share,
			  "no minimum") ||
	     check_vs_ports(c, &k, &cfg->qos, q->min_bps) ||
	     check_min_ceil(c, &k, &ceil, q, &cfg->qos) ||
	     check_min_sum(c, &k, &cfg->qos, i)))
		return -1;
	snprintf(path, sizeof(path), "classes[%u].ceil_burst", i);
	if (get_class_burst(c, path, q->ceil_bps, q->ceil_share, cfg,
			    &q->ceil_burst))
		return -1;
	snprintf(path, sizeof(path), "classes[%u].min_burst", i);
	return get_class_burst(c, path, q->min_bps, q->min_share, cfg,
			       &q->min_burst);
}

static int load_class(const struct load_ctx *c, unsigned int i,
		      struct xdplane_config *cfg)
{
	struct qos_class *q = &cfg->qos.classes[i];
	struct key k, first;
	const char *name;
	char path[64];
	uint32_t v;

	class_defaults(q);
	if (!cfg_key_at(c, &k, "classes[%u].name", i)) {
		snprintf(path, sizeof(path), "classes[%u]", i);
		return cfg_fail(c, cfg_val_pos(c, path),
				"%s.name: required key is missing; add "
				"'name: NAME' to this entry",
				path);
	}
	name = k.n->text;
	if (!valid_class_name(name))
		return cfg_bad_value(c, &k, SYN_NAME);
	for (unsigned int j = 0; j < i; j++)
		if (!strcmp(cfg->qos.classes[j].name, name)) {
			cfg_key_at(c, &first, "classes[%u].name", j);
			return cfg_fail(c, k.n->val,
					"%s: '%s' is already the name of "
					"classes[%u] (at %u:%u); names must be "
					"unique",
					k.path, name, j, first.n->val.line,
					first.n->val.col);
		}
	snprintf(q->name, sizeof(q->name), "%s", name);
	if (cfg_key_at(c, &k, "classes[%u].level", i)) {
		if (cfg_get_uint(c, &k, 0, QOS_MAX_LEVEL, "", &v))
			return -1;
		q->level = (uint8_t)v;
	}
	if (cfg_key_at(c, &k, "classes[%u].quantum", i)) {
		if (!cfg_key_uint(&k))
			return cfg_fail(c, k.n->val,
					"%s: must be between %u and %u bytes "
					"(got 0); a class with quantum 0 would "
					"never be served",
					k.path, QOS_MIN_QUANTUM,
					QOS_MAX_QUANTUM);
		if (cfg_get_uint(c, &k, QOS_MIN_QUANTUM, QOS_MAX_QUANTUM,
				 " bytes", &q->quantum))
			return -1;
	}
	if (load_class_rates(c, i, cfg))
		return -1;
	if (cfg_key_at(c, &k, "classes[%u].limit_bytes", i) &&
	    cfg_get_frame_size(c, &k, cfg, &q->limit_bytes))
		return -1;
	if (cfg_key_at(c, &k, "classes[%u].limit_packets", i) &&
	    cfg_get_uint(c, &k, 1, QOS_MAX_LIMIT_PACKETS, " packets",
			 &q->limit_packets))
		return -1;
	if (cfg_key_at(c, &k, "classes[%u].dcqcn", i) &&
	    cfg_get_bool(c, &k, &q->dcqcn))
		return -1;
	if (cfg_key_at(c, &k, "classes[%u].lossless", i) &&
	    cfg_get_bool(c, &k, &q->lossless))
		return -1;
	if (cfg_key_at(c, &k, "classes[%u].pcp", i)) {
		if (cfg_get_uint(c, &k, 0, 7, "", &v))
			return -1;
		q->has_pcp = true;
		q->pcp = (uint8_t)v;
	}
	if (cfg_key_at(c, &k, "classes[%u].set_dscp", i)) {
		if (cfg_get_uint(c, &k, 0, 63, "", &v))
			return -1;
		q->has_set_dscp = true;
		q->set_dscp = (uint8_t)v;
	}
	if (cfg_key_at(c, &k, "classes[%u].set_pcp", i)) {
		if (cfg_get_uint(c, &k, 0, 7, "", &v))
			return -1;
		q->has_set_pcp = true;
		q->set_pcp = (uint8_t)v;
	}
	if (cfg_key_at(c, &k, "classes[%u].ecn", i))
		return load_ecn(c, i, q);
	return 0;
}

static int load_classes(const struct load_ctx *c, unsigned int count,
			struct xdplane_config *cfg)
{
	struct qos_policy *q = &cfg->qos;
	struct key k;

	if (!cfg_key_at(c, &k, "classes")) {
		/* one class: a plain FIFO */
		snprintf(q->classes[0].name, sizeof(q->classes[0].name), "%s",
			 QOS_DEFAULT_NAME);
		class_defaults(&q->classes[0]);
		q->n_classes = 1;
		return 0;
	}
	if (!count)
		return cfg_fail(c, k.n->val,
				"classes: an empty list; list at least one "
				"class, or leave the key out for a single FIFO "
				"class");
	if (count > QOS_MAX_CLASSES) {
		cfg_key_at(c, &k, "classes[%d]", QOS_MAX_CLASSES);
		return cfg_fail(c, k.n->val,
				"classes: at most %d classes (got %u)",
				QOS_MAX_CLASSES, count);
	}
	for (unsigned int i = 0; i < count; i++)
		if (load_class(c, i, cfg))
			return -1;
	q->n_classes = count;
	return 0;
}

/* The index of the class named name; or an error at k, with a suggestion
 * or the list of names. */
static int find_class(const struct load_ctx *c, const struct key *k,
		      const struct qos_policy *q, uint8_t *id)
{
	char names[QOS_MAX_CLASSES * (QOS_NAME_MAX + 2)] = "";
	const char *name = k->n->text, *best;
	struct suggest s;
	size_t len;

	suggest_init(&s, name);
	for (unsigned int i = 0; i < q->n_classes; i++) {
		if (!strcmp(q->classes[i].name, name)) {
			*id = (uint8_t)i;
			return 0;
		}
		suggest_offer(&s, q->classes[i].name);
		len = strlen(names);
		snprintf(names + len, sizeof(names) - len, "%s%s",
			 i ? ", " : "", q->classes[i].name);
	}
	best = suggest_best(&s);
	if (best)
		return cfg_fail(c, k->n->val,
				"%s: no class named '%s' (did you mean '%s'?)",
				k->path, name, best);
	return cfg_fail(c, k->n->val,
			"%s: no class named '%s'; the classes are: %s", k->path,
			name, names);
}

/* "0x88b5" or "34997" (decimal without a leading zero), up to max. */
static bool parse_number(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!strchr("0123456789abcdefABCDEF", s[2]) || !s[2])
			return false;
		v = strtoul(s + 2, &end, 16);
	} else {
		if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1]))
			return false;
		v = strtoul(s, &end, 10);
	}
	if (*end || errno || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int get_set_entry(const struct load_ctx *c, const char *path,
			 const struct yaml_loc_node *n, unsigned int max,
			 uint64_t *mask)
{
	uint32_t v;
	char got[64];

	if (n->kind == YAML_LOC_SCALAR && parse_number(n->text, max, &v)) {
		*mask |= 1ull << v;
		return 0;
	}
	cfg_got_text(n, got, sizeof(got));
	return cfg_fail(c, n->val, "%s: expected a number 0..%u (got %s)", path,
			max, got);
}

/* pcp, dscp, ecn: a number or a list of numbers 0..max, as a bit mask. */
static int get_set(const struct load_ctx *c, const struct key *k,
		   unsigned int max, const char *syntax, uint64_t *mask)
{
	const struct yaml_loc_node *e;
	char path[128];
	unsigned int i;

	if (k->n->kind == YAML_LOC_SCALAR)
		return get_set_entry(c, k->path, k->n, max, mask);
	if (k->n->kind != YAML_LOC_SEQUENCE)
		return cfg_bad_value(c, k, syntax);
	for (i = 0;; i++) {
		snprintf(path, sizeof(path), "%s[%u]", k->path, i);
		e = yaml_loc_find(&c->loc, path);
		if (!e)
			break;
		if (get_set_entry(c, path, e, max, mask))
			return -1;
	}
	if (!i)
		return cfg_fail(c, k->n->val,
				"%s: an empty list matches no frame; leave the "
				"key out to match any value",
				k->path);
	return 0;
}

static int get_prefix(const struct load_ctx *c, const struct key *k,
		      struct qos_prefix *p)
{
	char why[256];

	if (!prefix_check(k->n->text, p, why, sizeof(why)))
		return 0;
	return cfg_fail(c, k->n->val, "%s: %s", k->path, why);
}

/* "2049" or "1000-2000". */
static int get_ports(const struct load_ctx *c, const struct key *k,
		     uint16_t *lo, uint16_t *hi)
{
	char buf[64], *dash;
	uint32_t a, b;

	snprintf(buf, sizeof(buf), "%s", k->n->text);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (!parse_number(buf, UINT16_MAX, &a) ||
	    (dash && !parse_number(dash, UINT16_MAX, &b)))
		return cfg_bad_value(c, k, SYN_PORT);
	*lo = (uint16_t)a;
	*hi = (uint16_t)(dash ? b : a);
	if (*lo <= *hi)
		return 0;
	return cfg_fail(c, k->n->val,
			"%s: the range %s runs backwards; write %u-%u", k->path,
			k->n->text, *hi, *lo);
}

/* The addresses and protocol of a match. */
static int load_match_ip(const struct load_ctx *c, unsigned int i,
			 struct qos_rule *r)
{
	const struct cfg_name *p;
	struct key k;
	uint32_t v;

	if (cfg_key_at(c, &k, "rules[%u].match.src", i)) {
		if (get_prefix(c, &k, &r->src))
			return -1;
		r->fields |= QOS_M_SRC;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.dst", i)) {
		if (get_prefix(c, &k, &r->dst))
			return -1;
		if ((r->fields & QOS_M_SRC) && r->src.family != r->dst.family)
			return cfg_fail(
				c, k.n->val,
				"%s: an IPv%u prefix, but src is IPv%u; "
				"no frame matches both",
				k.path, r->dst.family, r->src.family);
		r->fields |= QOS_M_DST;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.proto", i)) {
		for (p = cfg_protos; p->str && strcasecmp(p->str, k.n->text);
		     p++)
			;
		if (p->str)
			v = (uint32_t)p->val;
		else if (!parse_number(k.n->text, UINT8_MAX, &v))
			return cfg_bad_value(c, &k, SYN_PROTO);
		r->proto = (uint8_t)v;
		r->fields |= QOS_M_PROTO;
	}
	return 0;
}

static int load_match(const struct load_ctx *c, unsigned int i,
		      struct qos_rule *r)
{
	uint64_t mask;
	uint32_t v;
	struct key k;

	if (cfg_key_at(c, &k, "rules[%u].match.ethertype", i)) {
		if (!parse_number(k.n->text, UINT16_MAX, &v))
			return cfg_bad_value(c, &k, SYN_ETHERTYPE);
		if (v < 0x0600)
			return cfg_fail(c, k.n->val,
					"%s: 0x%04x is a frame length, not an "
					"EtherType (those start at 0x0600)",
					k.path, v);
		r->ethertype = (uint16_t)v;
		r->fields |= QOS_M_ETHERTYPE;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.vlan", i)) {
		if (cfg_get_uint(c, &k, 0, 4095, "", &v))
			return -1;
		r->vlan_id = (uint16_t)v;
		r->fields |= QOS_M_VLAN;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.pcp", i)) {
		mask = 0;
		if (get_set(c, &k, 7, SYN_SET(7), &mask))
			return -1;
		r->pcp_mask = (uint8_t)mask;
		r->fields |= QOS_M_PCP;
	}
	if (load_match_ip(c, i, r))
		return -1;
	if (cfg_key_at(c, &k, "rules[%u].match.dscp", i)) {
		if (get_set(c, &k, 63, SYN_SET(63), &r->dscp_mask))
			return -1;
		r->fields |= QOS_M_DSCP;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.ecn", i)) {
		mask = 0;
		if (get_set(c, &k, 3, SYN_SET(3), &mask))
			return -1;
		r->ecn_mask = (uint8_t)mask;
		r->fields |= QOS_M_ECN;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.sport", i)) {
		if (get_ports(c, &k, &r->sport_lo, &r->sport_hi))
			return -1;
		r->fields |= QOS_M_SPORT;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.dport", i)) {
		if (get_ports(c, &k, &r->dport_lo, &r->dport_hi))
			return -1;
		r->fields |= QOS_M_DPORT;
	}
	if (cfg_key_at(c, &k, "rules[%u].match.bth_opcode", i)) {
		if (!parse_number(k.n->text, UINT8_MAX, &v))
			return cfg_bad_value(c, &k, SYN_OPCODE);
		if (((r->fields & QOS_M_PROTO) && r->proto != 17) ||
		    ((r->fields & QOS_M_DPORT) &&
		     (r->dport_lo > 4791 || r->dport_hi < 4791)))
			return cfg_fail(c, k.n->val,
					"%s: only UDP frames to port 4791 "
					"carry a BTH, and this rule's proto or "
					"dport excludes them",
					k.path);
		r->bth_opcode = (uint8_t)v;
		r->fields |= QOS_M_BTH_OPCODE;
	}
	return 0;
}

static int load_rules(const struct load_ctx *c, unsigned int count,
		      struct qos_policy *q)
{
	struct key k;
	char path[32];
	int bad = 0;

	if (count > QOS_MAX_RULES) {
		cfg_key_at(c, &k, "rules[%d]", QOS_MAX_RULES);
		return cfg_fail(c, k.n->val, "rules: at most %d rules (got %u)",
				QOS_MAX_RULES, count);
	}
	/* each rule on its own: its first error */
	for (unsigned int i = 0; i < count; i++) {
		if (!cfg_key_at(c, &k, "rules[%u].class", i)) {
			snprintf(path, sizeof(path), "rules[%u]", i);
			bad = cfg_fail(c, cfg_val_pos(c, path),
				       "%s.class: required key is missing; "
				       "add 'class: NAME' to this rule",
				       path);
			continue;
		}
		if (find_class(c, &k, q, &q->rules[i].class_id) ||
		    load_match(c, i, &q->rules[i]))
			bad = -1;
	}
	q->n_rules = count;
	return bad;
}

int cfg_load_qos(const struct load_ctx *c, struct xdplane_config *cfg)
{
	struct qos_policy *q = &cfg->qos;
	struct key k;
	int bad;

	/* the classes need the port rates (shares), the rules and
	 * default_class the classes; the rules and default_class are
	 * independent of each other */
	if (load_port_shapers(c, cfg) ||
	    load_classes(c, cfg_count_at(c, "classes"), cfg))
		return -1;
	bad = load_rules(c, cfg_count_at(c, "rules"), q);
	q->malformed = cfg_enum_at(c, "malformed", cfg_malformed_modes,
				   QOS_MALFORMED_DEFAULT);
	if (cfg_key_at(c, &k, "default_class"))
		return find_class(c, &k, q, &q->default_class) | bad;
	for (unsigned int i = 0; i < q->n_classes; i++)
		if (!strcmp(q->classes[i].name, QOS_DEFAULT_NAME)) {
			q->default_class = (uint8_t)i;
			return bad;
		}
	cfg_key_at(c, &k, "classes");
	return cfg_fail(c, k.n->key,
			"default_class: required key is missing, as no class "
			"is named '%s'; add 'default_class: NAME' naming the "
			"class of frames no rule matches",
			QOS_DEFAULT_NAME);
}
