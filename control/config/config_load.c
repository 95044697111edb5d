// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_load.c - the schema and the pipeline of config_load() (parts of
 * the loader: config_priv.h). The text is read once, into a yaml_loc tree
 * (libyaml: syntax errors, duplicate keys, every node with its key path,
 * its parent and the line/column of its key and value); the schema below
 * is walked down that tree in document order, and every node that is not
 * what its key wants is reported, at its own line and column: an unknown
 * key (with the nearest known one), a wrong type, a number that is not
 * plain decimal digits ("1.5", "010", "0x10", "-1"), a word that is none
 * of an enum's names, a string too long, an alias. Then, unless a known
 * key had a value of the wrong type (the sections read the nodes as the
 * schema promises), the sections read what was written from the nodes,
 * give the defaults to what was not, and check the rules between keys.
 *
 * Errors: every independent one is reported (config.h, struct
 * config_error), like a compiler's, in the order of the file: a YAML
 * syntax error alone (nothing after it can be located); else each schema
 * error; then each section's first error, each number key's own, and none
 * from a section that reads what a refused one left half built (build()).
 * Unknown keys do not stop the sections: no section reads them.
 *
 * The keys whose values are text - rates, sizes, shares, times, prefixes,
 * port ranges, booleans (true or false only) - are strings to the schema
 * and parsed by their section (control/config/units.h, prefix.h); pcp, dscp and
 * ecn of a rule's match (a number or a list) are the only CFG_ANY keys,
 * read by the QoS section from the nodes.
 *
 * With check_system, the interfaces must exist (here) and the user and
 * the groups must resolve by the daemon's rule (config_daemon.c).
 */
#include "config_priv.h"
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XDP_HEADROOM 256 /* the kernel's XDP_PACKET_HEADROOM */
#define MIN_PACKET_ROOM 1518 /* a full-size Ethernet frame */
#define QOS_DEF_OVERHEAD 24 /* preamble 8 + IFG 12 + FCS 4 */
#define QOS_MAX_OVERHEAD 256
#define TXT 47 /* the longest text of a rate, size, time... */

const struct cfg_name cfg_xdp_modes[] = {
	{"native", XDP_ATTACH_NATIVE},
	{"generic", XDP_ATTACH_GENERIC},
	{"auto", XDP_ATTACH_AUTO},
	{NULL, 0},
};

const struct cfg_name cfg_bind_modes[] = {
	{"zerocopy", XSK_BIND_ZEROCOPY},
	{"copy", XSK_BIND_COPY},
	{"auto", XSK_BIND_AUTO},
	{NULL, 0},
};

const struct cfg_name cfg_failure_modes[] = {
	{"open", FAILURE_OPEN},
	{"closed", FAILURE_CLOSED},
	{NULL, 0},
};

const struct cfg_name cfg_shaper_waits[] = {
	{"sleep", 0},
	{"spin", 1},
	{NULL, 0},
};

const struct cfg_name cfg_checksum_modes[] = {
	{"auto", PORT_CSUM_AUTO},
	{"complete", PORT_CSUM_COMPLETE},
	{"trust", PORT_CSUM_TRUST},
	{NULL, 0},
};

const struct cfg_name cfg_nonect_modes[] = {
	{"drop", QOS_NONECT_DROP},
	{"pass", QOS_NONECT_PASS},
	{NULL, 0},
};

const struct cfg_name cfg_malformed_modes[] = {
	{"default", QOS_MALFORMED_DEFAULT},
	{"drop", QOS_MALFORMED_DROP},
	{NULL, 0},
};

const struct cfg_name cfg_dcqcn_profiles[] = {
	{"paper", DCQCN_PAPER},
	{"connectx", DCQCN_CONNECTX},
	{NULL, 0},
};

/* clamp: absent (0) keeps the profile's own */
const struct cfg_name cfg_clamp_modes[] = {
	{"always", CFG_CLAMP_ALWAYS},
	{"after_increase", CFG_CLAMP_AFTER_INC},
	{"never", CFG_CLAMP_NEVER},
	{NULL, 0},
};

const struct cfg_name cfg_flow_keys[] = {
	{"host", QOS_FLOW_HOST},
	{"qp", QOS_FLOW_QP},
	{NULL, 0},
};

const struct cfg_name cfg_cnp_actions[] = {
	{"forward", QOS_CNP_FORWARD},
	{"absorb", QOS_CNP_ABSORB},
	{NULL, 0},
};

const struct cfg_name cfg_log_levels[] = {
	{"err", LOG_LVL_ERR},	    {"warn", LOG_LVL_WARN},
	{"notice", LOG_LVL_NOTICE}, {"info", LOG_LVL_INFO},
	{"debug", LOG_LVL_DEBUG},   {NULL, 0},
};

/* rules[].match.proto by name (not a schema enum: numbers too) */
const struct cfg_name cfg_protos[] = {
	{"udp", 17}, {"tcp", 6}, {"icmp", 1}, {"icmpv6", 58}, {NULL, 0},
};

const char *cfg_name(const struct cfg_name *t, int v)
{
	for (; t->str; t++)
		if (t->val == v)
			return t->str;
	return "invalid";
}

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

static const struct cfg_name *find_name(const struct cfg_name *t, const char *s)
{
	for (; t->str; t++)
		if (!strcmp(t->str, s))
			return t;
	return NULL;
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
		return find_name(v->names, s) != NULL;
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

/* What check_schema() found. */
enum schema_result {
	SCHEMA_OK,
	SCHEMA_UNKNOWN, /* unknown keys only: no loader reads them */
	SCHEMA_BAD, /* a known key of the wrong type, or an alias */
};

/* Every node against its key's schema, in document order: each one that
 * does not fit is reported, and nothing under it (an unknown key's or a
 * wrong value's own keys are not checked, nor reported again). */
static enum schema_result check_schema(const struct load_ctx *c)
{
	enum schema_result res = SCHEMA_OK;
	const struct yaml_loc_node *n, *parent;
	bool *bad = calloc(c->loc.n ? c->loc.n : 1, sizeof(*bad));
	struct place at;
	bool ok;

	if (!bad) {
		cfg_fail(c, (struct yaml_loc_pos){1, 1}, "out of memory");
		return SCHEMA_BAD;
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
				res = SCHEMA_BAD;
				bad[i] = true;
			}
			continue;
		}
		if (!at.v) {
			parent = &c->loc.nodes[n->parent];
			cfg_unknown_key(c, n, place_of(&c->loc, parent).v,
					parent->path);
			if (res == SCHEMA_OK)
				res = SCHEMA_UNKNOWN;
			bad[i] = true;
			continue;
		}
		if (n->kind == YAML_LOC_ALIAS) {
			alias_error(c, n);
			res = SCHEMA_BAD;
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
			res = SCHEMA_BAD;
			bad[i] = true;
		}
	}
	free(bad);
	return res;
}

bool cfg_key_at(const struct load_ctx *c, struct key *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->path, sizeof(k->path), fmt, ap);
	va_end(ap);
	k->n = yaml_loc_find(&c->loc, k->path);
	return k->n != NULL;
}

uint32_t cfg_key_uint(const struct key *k)
{
	return (uint32_t)strtoul(k->n->text, NULL, 10);
}

int cfg_enum_at(const struct load_ctx *c, const char *path,
		const struct cfg_name *t, int def)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);
	const struct cfg_name *name = n ? find_name(t, n->text) : NULL;

	return name ? name->val : def;
}

unsigned int cfg_count_at(const struct load_ctx *c, const char *path)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);
	unsigned int count = 0;
	size_t at;

	if (!n)
		return 0;
	at = (size_t)(n - c->loc.nodes);
	for (size_t i = at + 1; i < c->loc.n; i++)
		count += c->loc.nodes[i].parent == at;
	return count;
}

/* Defaults and plain range rules of the numeric keys. */
struct uint_key {
	const char *path;
	size_t offset; /* in struct xdplane_config */
	uint32_t def;
	uint32_t min;
	uint32_t max;
	bool pow2;
	const char *unit;
};

#define UKEY(p, member, d, lo, hi, p2, u)                                      \
	{                                                                      \
		.path = p, .offset = offsetof(struct xdplane_config, member),  \
		.def = d, .min = lo, .max = hi, .pow2 = p2, .unit = u          \
	}
#define RING(p, member, d) UKEY(p, member, d, 64, 65536, true, " descriptors")

static const struct uint_key uint_keys[] = {
	RING("rings.fill", rings.fill, 4096),
	RING("rings.completion", rings.completion, 2048),
	RING("rings.rx", rings.rx, 2048),
	RING("rings.tx", rings.tx, 2048),
	RING("rings.handoff", rings.handoff, 4096),
	UKEY("umem.frames", umem.frames, 32768, 64, 1u << 31, true, " frames"),
	UKEY("umem.frame_size", umem.frame_size, 4096, 2048, 4096, true,
	     " bytes"),
	UKEY("umem.headroom", umem.headroom, 0, 0, UINT32_MAX, false, " bytes"),
	UKEY("poll.batch", poll.batch, 64, 1, 256, false, " descriptors"),
	UKEY("overhead", qos.port[0].overhead, QOS_DEF_OVERHEAD, 0,
	     QOS_MAX_OVERHEAD, false, " bytes"),
};

/* The time keys named for their unit: a time with a unit, or a bare
 * number of that unit. */
struct time_key {
	const char *path;
	size_t offset; /* of a uint32_t in struct xdplane_config */
	uint32_t def, min, max; /* in units */
	uint64_t unit_ns;
	const char *unit;
};

#define TKEY(p, member, d, lo, hi, ns, u)                                      \
	{                                                                      \
		.path = p, .offset = offsetof(struct xdplane_config, member),  \
		.def = d, .min = lo, .max = hi, .unit_ns = ns, .unit = u       \
	}

static const struct time_key time_keys[] = {
	TKEY("poll.busy_us", poll.busy_us, 20, 0, 10000, 1000, "microseconds"),
	TKEY("poll.coalesce_us", poll.coalesce_us, 50, 0, 1000, 1000,
	     "microseconds"),
	TKEY("poll.shaper_spin_us", poll.shaper_spin_us, 500, 0, 100000, 1000,
	     "microseconds"),
	TKEY("control.stats_interval_ms", control.stats_interval_ms, 1000, 100,
	     60000, 1000000, "milliseconds"),
};

/* Linux's dev_valid_name(), plus no control characters. */
static bool valid_ifname(const char *s)
{
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || (unsigned char)*s <= ' ' ||
		    *s == 0x7f)
			return false;
	return true;
}

/* port_wait: a time from 0 to 1 h, in whole ms; default
 * CONFIG_PORT_WAIT_DEF_MS. */
static int load_port_wait(const struct load_ctx *c, struct xdplane_config *cfg)
{
	uint64_t ns;
	struct key k;

	cfg->port_wait_ms = CONFIG_PORT_WAIT_DEF_MS;
	if (!cfg_key_at(c, &k, "port_wait"))
		return 0;
	if (cfg_get_time(c, &k, 0, CONFIG_PORT_WAIT_MAX_MS * 1000000ull, &ns))
		return -1;
	cfg->port_wait_ms = (uint32_t)(ns / 1000000);
	return 0;
}

static int load_ports(const struct load_ctx *c, struct xdplane_config *cfg,
		      bool check_system)
{
	unsigned int count = cfg_count_at(c, "ports");
	const char *name;
	struct key k;
	char path[32];

	if (!yaml_loc_find(&c->loc, "ports"))
		return cfg_fail(
			c, cfg_val_pos(c, ""),
			"ports: required key is missing; add the pair, e.g. "
			"'ports: [{interface: eth1}, {interface: eth2}]'");
	if (count != CONFIG_PORTS)
		return cfg_fail(
			c, cfg_val_pos(c, "ports"),
			"ports: must list exactly %d ports, the pair (got %u); "
			"write one '- interface: NAME' for each side",
			CONFIG_PORTS, count);
	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		if (!cfg_key_at(c, &k, "ports[%u].interface", i)) {
			snprintf(path, sizeof(path), "ports[%u]", i);
			return cfg_fail(c, cfg_val_pos(c, path),
					"%s.interface: required key is "
					"missing; add 'interface: NAME' to "
					"this entry",
					path);
		}
		name = k.n->text;
		if (!valid_ifname(name))
			return cfg_fail(
				c, k.n->val,
				"%s: not a valid interface name (got '%s'); "
				"names have no '/', ':', spaces or control "
				"characters",
				k.path, name);
		if (i && !strcmp(name, cfg->ports[0].interface))
			return cfg_fail(
				c, k.n->val,
				"%s: same interface as ports[0] (got '%s'); "
				"the two ports must be different interfaces",
				k.path, name);
		if (check_system && !if_nametoindex(name))
			return cfg_fail(c, k.n->val,
					"%s: no such interface '%s'; "
					"check the name with 'ip link'",
					k.path, name);
		snprintf(cfg->ports[i].interface,
			 sizeof(cfg->ports[i].interface), "%s", name);
		snprintf(path, sizeof(path), "ports[%u].checksum", i);
		cfg->ports[i].checksum = cfg_enum_at(
			c, path, cfg_checksum_modes, PORT_CSUM_AUTO);
		if (!cfg_key_at(c, &k, "ports[%u].mtu", i))
			continue;
		cfg->ports[i].mtu = cfg_key_uint(&k);
		if (cfg->ports[i].mtu < CONFIG_MTU_MIN ||
		    cfg->ports[i].mtu > CONFIG_MTU_MAX)
			return cfg_fail(c, k.n->val,
					"%s: must be between %d and %d bytes "
					"(got %u); leave it out to keep the "
					"interface's MTU",
					k.path, CONFIG_MTU_MIN, CONFIG_MTU_MAX,
					cfg->ports[i].mtu);
	}
	return load_port_wait(c, cfg);
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static uint32_t pow2_floor(uint32_t v) /* v > 0 */
{
	return 1u << (31 - __builtin_clz(v));
}

uint32_t cfg_pow2_ceil(uint32_t v) /* 0 < v <= 1u << 31 */
{
	return is_pow2(v) ? v : pow2_floor(v) << 1;
}

static int check_uint(const struct load_ctx *c, const struct uint_key *k,
		      uint32_t v)
{
	struct yaml_loc_pos at = cfg_val_pos(c, k->path);
	uint32_t in, lo, hi;

	if (v >= k->min && v <= k->max && (!k->pow2 || is_pow2(v)))
		return 0;
	if (!k->pow2)
		return cfg_fail(c, at,
				"%s: must be between %u and %u%s (got %u)",
				k->path, k->min, k->max, k->unit, v);
	if (k->max == 2 * k->min)
		return cfg_fail(c, at, "%s: must be %u or %u%s (got %u)",
				k->path, k->min, k->max, k->unit, v);
	in = v < k->min ? k->min : v > k->max ? k->max : v;
	lo = pow2_floor(in);
	hi = cfg_pow2_ceil(in);
	if (lo == hi)
		return cfg_fail(c, at,
				"%s: must be a power of two from %u to %u%s "
				"(got %u); try %u",
				k->path, k->min, k->max, k->unit, v, lo);
	return cfg_fail(c, at,
			"%s: must be a power of two from %u to %u%s (got %u); "
			"try %u or %u",
			k->path, k->min, k->max, k->unit, v, lo, hi);
}

/* A fill ring, a TX ring and a handoff ring of frames for each of the
 * 2 * queues sockets. */
uint64_t cfg_frames_needed(const struct xdplane_config *cfg, uint32_t queues)
{
	const struct config_rings *r = &cfg->rings;

	return 2ull * queues * (r->fill + r->tx + r->handoff);
}

/* queues: a plain decimal 1..CONFIG_MAX_QUEUES, or auto; default auto.
 * queues_set_channels: a bool, default false. */
static int load_queues(const struct load_ctx *c, struct xdplane_config *cfg)
{
	unsigned long v;
	const char *s;
	struct key k;

	cfg->queues = CONFIG_QUEUES_AUTO;
	cfg->queues_set_channels = false;
	if (cfg_key_at(c, &k, "queues_set_channels") &&
	    cfg_get_bool(c, &k, &cfg->queues_set_channels))
		return -1;
	if (!cfg_key_at(c, &k, "queues"))
		return 0;
	s = k.n->text;
	if (!strcmp(s, "auto")) {
		cfg->queues = CONFIG_QUEUES_AUTO;
		return 0;
	}
	if (!*s || s[strspn(s, "0123456789")] || (s[0] == '0' && s[1]))
		return cfg_bad_value(c, &k, SYN_QUEUES);
	v = strlen(s) > 9 ? ULONG_MAX : strtoul(s, NULL, 10);
	if (v < 1 || v > CONFIG_MAX_QUEUES)
		return cfg_fail(c, k.n->val,
				"queues: must be between 1 and %d, or auto "
				"(got %s)",
				CONFIG_MAX_QUEUES, s);
	cfg->queues = (uint32_t)v;
	return 0;
}

/* Defaults for what was not written, then the rules on numbers. */
static int load_numbers(const struct load_ctx *c, struct xdplane_config *cfg)
{
	static const char *const frame_keys[] = {
		"umem.frames", "queues",	"rings.fill",
		"rings.tx",    "rings.handoff",
	};
	const struct config_umem *u = &cfg->umem;
	const struct config_rings *r = &cfg->rings;
	const char *at = "";
	uint32_t *v, room;
	bool bad = false;
	uint64_t need;
	struct key k;

	/* each key on its own: a refused one keeps its default, so that
	 * the sections after this one check their keys against valid
	 * numbers */
	for (size_t i = 0; i < CFG_ARRAY_LEN(uint_keys); i++) {
		v = (uint32_t *)((char *)cfg + uint_keys[i].offset);
		*v = cfg_key_at(c, &k, "%s", uint_keys[i].path)
			     ? cfg_key_uint(&k)
			     : uint_keys[i].def;
		if (check_uint(c, &uint_keys[i], *v)) {
			*v = uint_keys[i].def;
			bad = true;
		}
	}
	for (size_t i = 0; i < CFG_ARRAY_LEN(time_keys); i++) {
		v = (uint32_t *)((char *)cfg + time_keys[i].offset);
		*v = time_keys[i].def;
		if (cfg_key_at(c, &k, "%s", time_keys[i].path) &&
		    cfg_get_time_in(c, &k, time_keys[i].unit_ns,
				    time_keys[i].unit, time_keys[i].min,
				    time_keys[i].max, v)) {
			*v = time_keys[i].def;
			bad = true;
		}
	}
	if (bad)
		return -1;
	room = u->frame_size - XDP_HEADROOM - MIN_PACKET_ROOM;
	if (u->headroom > room)
		return cfg_fail(c, cfg_val_pos(c, "umem.headroom"),
				"umem.headroom: leaves less than %d bytes of "
				"the %u-byte frame after the kernel's %d bytes "
				"(got %u); use at most %u, or a larger "
				"umem.frame_size",
				MIN_PACKET_ROOM, u->frame_size, XDP_HEADROOM,
				u->headroom, room);
	/* with queues auto, or umem.frames not written (raised to what the
	 * queues need), checked at start */
	cfg->umem.frames_auto = !yaml_loc_find(&c->loc, "umem.frames");
	if (cfg->queues == CONFIG_QUEUES_AUTO || cfg->umem.frames_auto)
		return 0;
	need = cfg_frames_needed(cfg, cfg->queues);
	if (u->frames >= need)
		return 0;
	/* point at whichever of the keys involved was written */
	for (size_t i = 0; i < CFG_ARRAY_LEN(frame_keys) && !*at; i++)
		if (yaml_loc_find(&c->loc, frame_keys[i]))
			at = frame_keys[i];
	return cfg_fail(
		c, cfg_val_pos(c, at),
		"umem.frames: need at least 2 * queues %u * (rings.fill %u + "
		"rings.tx %u + rings.handoff %u) = %" PRIu64 " (got %u); "
		"set umem.frames to %u, or lower queues or those rings",
		cfg->queues, r->fill, r->tx, r->handoff, need, u->frames,
		cfg_pow2_ceil((uint32_t)need));
}

/* workers.cpus: ids below CONFIG_MAX_CPUS, each once (so at most that
 * many). */
static int load_cpus(const struct load_ctx *c, struct xdplane_config *cfg)
{
	const struct yaml_loc_node *list = yaml_loc_find(&c->loc,
							 "workers.cpus"),
				   *n;
	unsigned int first[CONFIG_MAX_CPUS] = {0}; /* index + 1 */
	size_t at = list ? (size_t)(list - c->loc.nodes) : 0;
	unsigned int i = 0;
	uint32_t cpu;

	for (size_t j = at + 1; list && j < c->loc.n; j++) {
		n = &c->loc.nodes[j];
		if (n->parent != at)
			continue;
		cpu = (uint32_t)strtoul(n->text, NULL, 10);
		if (cpu >= CONFIG_MAX_CPUS)
			return cfg_fail(c, n->val,
					"%s: CPU ids must be below %d (got %u)",
					n->path, CONFIG_MAX_CPUS, cpu);
		if (first[cpu])
			return cfg_fail(c, n->val,
					"%s: CPU %u is listed twice (got it at "
					"workers.cpus[%u] too); list each CPU "
					"once",
					n->path, cpu, first[cpu] - 1);
		first[cpu] = i + 1;
		cfg->cpus[i++] = cpu;
	}
	cfg->n_cpus = i;
	return 0;
}

/* The umem mapping's flag (its numbers are checked with the others). */
static int load_umem(const struct load_ctx *c, struct xdplane_config *cfg)
{
	struct key k;

	cfg->umem.hugepages = false;
	if (cfg_key_at(c, &k, "umem.hugepages") &&
	    cfg_get_bool(c, &k, &cfg->umem.hugepages))
		return -1;
	return 0;
}

/* The config from the checked document: defaults, then the rules. Every
 * section runs and reports its first error, but those that read what a
 * refused one left half built (the classes, for dcqcn, pfc and adaptive;
 * the ports' MTUs, for pfc): each independent error is reported once,
 * and none that only follows from another. NULL if any was found. */
static struct xdplane_config *build(const struct load_ctx *c, bool check_system)
{
	struct xdplane_config *cfg = calloc(1, sizeof(*cfg));
	bool ports_bad, qos_bad;

	if (!cfg) {
		cfg_fail(c, (struct yaml_loc_pos){1, 1}, "out of memory");
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", c->name);
	cfg->xdp_mode = cfg_enum_at(c, "xdp_mode", cfg_xdp_modes, 0);
	cfg->bind_mode = cfg_enum_at(c, "bind_mode", cfg_bind_modes, 0);
	cfg->failure_mode =
		cfg_enum_at(c, "failure_mode", cfg_failure_modes, 0);
	cfg->poll.shaper_wait_spin =
		cfg_enum_at(c, "poll.shaper_wait", cfg_shaper_waits, 0) == 1;
	/* a refused queues stays auto, numbers their defaults: no section
	 * depends on those having loaded */
	ports_bad = load_ports(c, cfg, check_system) != 0;
	load_queues(c, cfg);
	load_umem(c, cfg);
	load_numbers(c, cfg);
	load_cpus(c, cfg);
	qos_bad = cfg_load_qos(c, cfg) != 0;
	if (!qos_bad) {
		cfg_load_dcqcn(c, cfg);
		if (!ports_bad)
			cfg_load_pfc(c, cfg);
		cfg_load_adaptive(c, cfg);
	}
	cfg_load_daemon(c, cfg, check_system);
	if (c->err->found) {
		free(cfg);
		return NULL;
	}
	return cfg;
}

/* Where message m ("name:line:col: ...") points, as line << 32 | col. */
static uint64_t msg_pos(const char *name, const char *m)
{
	size_t len = strlen(name);
	unsigned long line, col;
	char *end;

	if (strncmp(m, name, len) || m[len] != ':')
		return 0;
	line = strtoul(m + len + 1, &end, 10);
	col = *end == ':' ? strtoul(end + 1, NULL, 10) : 0;
	return (uint64_t)line << 32 | (uint32_t)col;
}

/* The kept messages in the order of the file (stable: one place's
 * messages stay in the order of the checks). */
static void sort_errors(const char *name, struct config_error *err)
{
	char tmp[CONFIG_ERROR_LEN], *a, *b;

	for (unsigned int i = 1; i < err->n; i++)
		for (unsigned int j = i; j > 0; j--) {
			a = j > 1 ? err->more[j - 2] : err->msg;
			b = err->more[j - 1];
			if (msg_pos(name, a) <= msg_pos(name, b))
				break;
			memcpy(tmp, a, sizeof(tmp));
			memcpy(a, b, sizeof(tmp));
			memcpy(b, tmp, sizeof(tmp));
		}
}

static struct xdplane_config *load(const char *name, const char *buf,
				   size_t len, bool check_system,
				   struct config_error *err)
{
	struct load_ctx c = {.name = name, .err = err};
	struct xdplane_config *cfg = NULL;
	struct yaml_loc_error lerr;

	cfg_error_reset(err);
	if (yaml_loc_parse(&c.loc, buf, len, &lerr))
		cfg_fail(&c, lerr.pos, "%s%s%s", lerr.path,
			 *lerr.path ? ": " : "", lerr.what);
	else if (check_schema(&c) != SCHEMA_BAD)
		cfg = build(&c, check_system);
	sort_errors(name, err);
	yaml_loc_free(&c.loc);
	return cfg;
}

/* The whole stream, or NULL with errno set. */
static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 0;
	char *buf = NULL, *grown;

	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? 2 * cap : 4096;
			grown = realloc(buf, cap);
			if (!grown)
				break;
			buf = grown;
		}
		*len += fread(buf + *len, 1, cap - *len, f);
	} while (!feof(f) && !ferror(f));
	if (!feof(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct xdplane_config *config_load(const char *path, bool check_system,
				   struct config_error *err)
{
	struct xdplane_config *cfg = NULL;
	FILE *f = fopen(path, "r");
	size_t len;
	char *buf = f ? read_all(f, &len) : NULL;
	char msg[CONFIG_ERROR_LEN];

	if (!buf) {
		snprintf(msg, sizeof(msg), "%s: cannot read: %s", path,
			 strerror(errno));
		cfg_error_reset(err);
		cfg_error_add(err, msg);
	} else
		cfg = load(path, buf, len, check_system, err);
	if (f)
		fclose(f);
	free(buf);
	return cfg;
}

struct xdplane_config *config_load_string(const char *name, const char *yaml,
					  bool check_system,
					  struct config_error *err)
{
	return load(name, yaml, strlen(yaml), check_system, err);
}

void config_free(struct xdplane_config *cfg)
{
	free(cfg);
}

int config_check_queues(const struct xdplane_config *cfg, uint32_t queues,
			char *msg, size_t len)
{
	const struct config_rings *r = &cfg->rings;
	uint64_t need;

	if (queues < 1 || queues > CONFIG_MAX_QUEUES) {
		snprintf(msg, len, "queues: must be between 1 and %d (got %u)",
			 CONFIG_MAX_QUEUES, queues);
		return -1;
	}
	need = cfg_frames_needed(cfg, queues);
	if (cfg->umem.frames >= need)
		return 0;
	snprintf(msg, len,
		 "umem.frames: need at least 2 * queues %u * (rings.fill %u + "
		 "rings.tx %u + rings.handoff %u) = %" PRIu64 " (got %u); "
		 "set umem.frames to %u, or lower queues or those rings",
		 queues, r->fill, r->tx, r->handoff, need, cfg->umem.frames,
		 cfg_pow2_ceil((uint32_t)need));
	return -1;
}

const char *xdp_attach_mode_name(enum xdp_attach_mode m)
{
	return cfg_name(cfg_xdp_modes, m);
}

const char *xsk_bind_mode_name(enum xsk_bind_mode m)
{
	return cfg_name(cfg_bind_modes, m);
}

const char *failure_mode_name(enum failure_mode m)
{
	return cfg_name(cfg_failure_modes, m);
}

const char *port_checksum_name(enum port_checksum m)
{
	return cfg_name(cfg_checksum_modes, m);
}

const char *config_log_level_name(int level)
{
	return cfg_name(cfg_log_levels, level);
}

int config_log_level_parse(const char *name)
{
	const struct cfg_name *n = find_name(cfg_log_levels, name);

	return n ? n->val : -1;
}
