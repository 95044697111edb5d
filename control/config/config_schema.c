// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_schema.c - the schema and its walk (config_schema.h). The keys
 * whose values are text - rates, sizes, shares, times, prefixes, port
 * ranges, booleans (true or false only) - are strings to the schema and
 * parsed by their section (units.h, prefix.h); pcp, dscp and ecn of a
 * rule's match (a number or a list) are the only CFG_ANY keys, read by
 * the QoS section from the nodes.
 */
#include "config_schema.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TXT 47 /* the longest text of a rate, size, time... */

/*
 * The schema. Keys in the order messages list them; string bounds are
 * what the keys' values can hold (names: QOS_NAME_MAX - 1, interfaces:
 * IFNAMSIZ - 1, socket paths: 255, the longest that the rule on
 * control.socket reports by length).
 */
#define FIELD(k, type, lo, hi, fields, entry, names)                           \
	{                                                                      \
		k,                                                             \
		{                                                              \
			type, lo, hi, fields, entry, names                     \
		}                                                              \
	}
#define F_UINT(k) FIELD(k, CFG_UINT, 0, 0, NULL, NULL, NULL)
#define F_RANGE(k, lo, hi) FIELD(k, CFG_UINT, lo, hi, NULL, NULL, NULL)
#define F_STR(k, lo, hi) FIELD(k, CFG_STRING, lo, hi, NULL, NULL, NULL)
#define F_TXT(k) F_STR(k, 1, TXT)
#define F_ENUM(k, t) FIELD(k, CFG_ENUM, 0, 0, NULL, NULL, t)
#define F_MAP(k, f) FIELD(k, CFG_MAP, 0, 0, f, NULL, NULL)
#define F_SEQ(k, e) FIELD(k, CFG_SEQ, 0, 0, NULL, e, NULL)
#define F_ANY(k) FIELD(k, CFG_ANY, 0, 0, NULL, NULL, NULL)
#define F_END F_ANY(NULL)

static const struct cfg_field adaptive_fields[] = {
	F_ENUM("mode", cfg_adaptive_modes),
	F_TXT("target"),
	F_TXT("floor"),
	F_TXT("probe_gain"),
	F_END,
};

static const struct cfg_field port_fields[] = {
	F_STR("interface", 1, CONFIG_IFNAME_MAX - 1),
	F_UINT("mtu"),
	F_TXT("rate"),
	F_TXT("burst"),
	F_TXT("link_speed"),
	F_ENUM("checksum", cfg_checksum_modes),
	F_MAP("adaptive", adaptive_fields),
	F_END,
};

static const struct cfg_field ecn_fields[] = {
	F_TXT("kmin"), F_TXT("kmax"),
	F_TXT("pmax"), F_ENUM("non_ect", cfg_nonect_modes),
	F_END,
};

static const struct cfg_field class_fields[] = {
	F_STR("name", 1, QOS_NAME_MAX - 1),
	F_UINT("level"),
	F_UINT("quantum"),
	F_TXT("ceil"),
	F_TXT("ceil_burst"),
	F_TXT("min"),
	F_TXT("min_burst"),
	F_TXT("limit_bytes"),
	F_UINT("limit_packets"),
	F_MAP("ecn", ecn_fields),
	F_TXT("dcqcn"),
	F_TXT("lossless"),
	F_UINT("pcp"),
	F_RANGE("set_dscp", 0, 63),
	F_RANGE("set_pcp", 0, 7),
	F_END,
};

static const struct cfg_field match_fields[] = {
	F_TXT("ethertype"),
	F_UINT("vlan"),
	F_ANY("pcp"),
	F_STR("src", 1, TXT + 16),
	F_STR("dst", 1, TXT + 16),
	F_TXT("proto"),
	F_ANY("dscp"),
	F_ANY("ecn"),
	F_TXT("sport"),
	F_TXT("dport"),
	F_TXT("bth_opcode"),
	F_END,
};

static const struct cfg_field rule_fields[] = {
	F_STR("class", 1, QOS_NAME_MAX - 1),
	F_MAP("match", match_fields),
	F_END,
};

static const struct cfg_field pfc_fields[] = {
	F_TXT("enabled"),
	F_TXT("xoff"),
	F_TXT("xon"),
	F_UINT("cable_length"),
	F_UINT("pause_quanta"),
	F_TXT("watchdog"),
	F_TXT("watchdog_restore"),
	F_END,
};

static const struct cfg_field np_fields[] = {
	F_TXT("enabled"),
	F_UINT("dscp"),
	F_UINT("pcp"),
	F_END,
};

static const struct cfg_field dcqcn_fields[] = {
	F_ENUM("profile", cfg_dcqcn_profiles),
	F_STR("line_rate", 0, TXT),
	F_TXT("min_rate"),
	F_TXT("rate_ai"),
	F_TXT("rate_hai"),
	F_TXT("g"),
	F_TXT("alpha_init"),
	F_TXT("alpha_timer"),
	F_TXT("increase_timer"),
	F_TXT("decrease_period"),
	F_TXT("byte_counter"),
	F_UINT("fast_recovery"),
	F_TXT("min_decrease"),
	F_ENUM("clamp", cfg_clamp_modes),
	F_STR("first_cnp_rate", 0, TXT),
	F_TXT("alpha_before_cut"),
	F_TXT("cnp_interval"),
	F_ENUM("flow_key", cfg_flow_keys),
	F_UINT("max_flows"),
	F_TXT("flow_idle"),
	F_ENUM("cnp", cfg_cnp_actions),
	F_TXT("cp_loop"),
	F_MAP("np", np_fields),
	F_END,
};

static const struct cfg_field rings_fields[] = {
	F_UINT("fill"), F_UINT("completion"), F_UINT("rx"),
	F_UINT("tx"),	F_UINT("handoff"),    F_END,
};

static const struct cfg_field umem_fields[] = {
	F_UINT("frames"),
	F_UINT("frame_size"),
	F_UINT("headroom"),
	F_TXT("hugepages"),
	F_END,
};

static const struct cfg_field poll_fields[] = {
	F_TXT("busy_us"),	 F_TXT("coalesce_us"),
	F_TXT("shaper_spin_us"), F_ENUM("shaper_wait", cfg_shaper_waits),
	F_UINT("batch"),	 F_END,
};

static const struct cfg_field control_fields[] = {
	F_STR("socket", 0, 255),
	F_STR("socket_group", 0, CONFIG_ACCOUNT_MAX - 1),
	F_STR("readonly_group", 0, CONFIG_ACCOUNT_MAX - 1),
	F_STR("metrics_listen", 0, CONFIG_LISTEN_MAX - 1),
	F_TXT("stats_interval_ms"),
	F_END,
};

static const struct cfg_field jobs_fields[] = {
	F_ENUM("mode", cfg_jobs_modes),
	F_RANGE("max_registered", 0, 4096),
	F_RANGE("max_passive", 0, 4096),
	F_RANGE("max_hosts", 2, 65536),
	F_RANGE("max_edges", 1, 262144),
	F_TXT("idle"),
	F_END,
};

static const struct cfg_schema uint_schema = {.type = CFG_UINT};
static const struct cfg_schema port_schema = {.type = CFG_MAP,
					      .fields = port_fields};
static const struct cfg_schema class_schema = {.type = CFG_MAP,
					       .fields = class_fields};
static const struct cfg_schema rule_schema = {.type = CFG_MAP,
					      .fields = rule_fields};

static const struct cfg_field workers_fields[] = {
	F_SEQ("cpus", &uint_schema),
	F_END,
};

static const struct cfg_field top_fields[] = {
	F_SEQ("ports", &port_schema),
	F_TXT("port_wait"),
	F_TXT("queues"),
	F_TXT("queues_set_channels"),
	F_ENUM("xdp_mode", cfg_xdp_modes),
	F_ENUM("bind_mode", cfg_bind_modes),
	F_ENUM("failure_mode", cfg_failure_modes),
	F_MAP("rings", rings_fields),
	F_MAP("umem", umem_fields),
	F_MAP("poll", poll_fields),
	F_MAP("workers", workers_fields),
	F_UINT("overhead"),
	F_SEQ("classes", &class_schema),
	F_SEQ("rules", &rule_schema),
	F_STR("default_class", 1, QOS_NAME_MAX - 1),
	F_ENUM("malformed", cfg_malformed_modes),
	F_MAP("dcqcn", dcqcn_fields),
	F_MAP("pfc", pfc_fields),
	F_MAP("control", control_fields),
	F_MAP("jobs", jobs_fields),
	F_STR("user", 0, CONFIG_ACCOUNT_MAX - 1),
	F_STR("group", 0, CONFIG_ACCOUNT_MAX - 1),
	F_ENUM("log_level", cfg_log_levels),
	F_END,
};

static const struct cfg_schema top_schema = {.type = CFG_MAP,
					     .fields = top_fields};

/* Where a node stands in the schema: its schema v, or, inside a value
 * the schema leaves to a loader (CFG_ANY), that value's node in `any`;
 * neither: a key its mapping does not have. */
struct place {
	const struct cfg_schema *v;
	const struct yaml_loc_node *any;
};

/* From the root down; every ancestor of n matched its schema already. */
static struct place place_of(const struct yaml_loc *loc,
			     const struct yaml_loc_node *n)
{
	const struct yaml_loc_node *parent;
	const struct cfg_field *f;
	struct place up;

	if (n->parent == YAML_LOC_ROOT)
		return (struct place){&top_schema, NULL};
	parent = &loc->nodes[n->parent];
	up = place_of(loc, parent);
	if (up.any || !up.v)
		return up;
	if (up.v->type == CFG_ANY)
		return (struct place){NULL, parent};
	if (up.v->type == CFG_SEQ)
		return (struct place){up.v->entry, NULL};
	for (f = up.v->fields; f->key && strcmp(f->key, n->name); f++)
		;
	return (struct place){f->key ? &f->value : NULL, NULL};
}

/* Plain decimal digits without a leading zero, at most UINT32_MAX. */
static bool is_uint(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > 10 || s[strspn(s, "0123456789")] ||
	    (s[0] == '0' && len > 1))
		return false;
	return strtoull(s, NULL, 10) <= UINT32_MAX;
}

static bool scalar_ok(const struct cfg_schema *v, const char *s)
{
	size_t len = strlen(s);

	switch (v->type) {
	case CFG_UINT:
		return is_uint(s);
	case CFG_STRING:
		return len >= v->min && len <= v->max;
	case CFG_ENUM:
		return cfg_find_name(v->names, s) != NULL;
	default:
		return false;
	}
}

static int alias_error(const struct load_ctx *c, const struct yaml_loc_node *n)
{
	return cfg_fail(c, n->val,
			"%s: aliases (*name) are not supported; write the "
			"value itself",
			*n->path ? n->path : "document");
}

enum cfg_schema_result cfg_check_schema(const struct load_ctx *c)
{
	enum cfg_schema_result res = CFG_SCHEMA_OK;
	const struct yaml_loc_node *n, *parent;
	bool *bad = calloc(c->loc.n ? c->loc.n : 1, sizeof(*bad));
	struct place at;
	bool ok;

	if (!bad) {
		cfg_fail(c, (struct yaml_loc_pos){1, 1}, "out of memory");
		return CFG_SCHEMA_BAD;
	}
	for (size_t i = 0; i < c->loc.n; i++) {
		n = &c->loc.nodes[i];
		if (n->parent != YAML_LOC_ROOT && bad[n->parent]) {
			bad[i] = true;
			continue;
		}
		at = place_of(&c->loc, n);
		if (at.any) {
			if (n->kind == YAML_LOC_ALIAS) {
				alias_error(c, at.any);
				res = CFG_SCHEMA_BAD;
				bad[i] = true;
			}
			continue;
		}
		if (!at.v) {
			parent = &c->loc.nodes[n->parent];
			cfg_unknown_key(c, n, place_of(&c->loc, parent).v,
					parent->path);
			if (res == CFG_SCHEMA_OK)
				res = CFG_SCHEMA_UNKNOWN;
			bad[i] = true;
			continue;
		}
		if (n->kind == YAML_LOC_ALIAS) {
			alias_error(c, n);
			res = CFG_SCHEMA_BAD;
			bad[i] = true;
			continue;
		}
		switch (at.v->type) {
		case CFG_ANY:
			continue;
		case CFG_MAP:
			ok = n->kind == YAML_LOC_MAPPING;
			break;
		case CFG_SEQ:
			ok = n->kind == YAML_LOC_SEQUENCE;
			break;
		default:
			ok = n->kind == YAML_LOC_SCALAR &&
			     scalar_ok(at.v, n->text);
			break;
		}
		if (!ok) {
			cfg_type_error(c, n, at.v);
			res = CFG_SCHEMA_BAD;
			bad[i] = true;
		}
	}
	free(bad);
	return res;
}
