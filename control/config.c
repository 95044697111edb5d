/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * config.c - everything declared in config.h. The text is read once; a
 * yaml_loc pass locates every key (and catches syntax errors and duplicate
 * keys); libcyaml loads it through the schema below into struct raw_config;
 * keys that were not written get their defaults; then the rules are checked.
 * Every failure becomes one "file:line:col: key: problem (got x); fix"
 * message, libcyaml's own errors included: they arrive only through its log
 * callback, whose backtrace gives the key path, which yaml_loc turns into a
 * position and the schema into a description of what was expected.
 */
#include "config.h"
#include "yaml_loc.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define XDP_HEADROOM 256 /* the kernel's XDP_PACKET_HEADROOM */
#define MIN_PACKET_ROOM 1518 /* a full-size Ethernet frame */

/* The file's shape, as libcyaml fills it; absent keys are left 0. */
struct raw_workers {
	uint32_t *cpus;
	unsigned int cpus_count;
};

struct raw_config {
	struct config_port *ports;
	unsigned int ports_count;
	uint32_t queues;
	enum xdp_attach_mode xdp_mode;
	enum xsk_bind_mode bind_mode;
	enum failure_mode failure_mode;
	struct config_rings rings;
	struct config_umem umem;
	struct config_poll poll;
	struct raw_workers workers;
};

static const cyaml_strval_t xdp_modes[] = {
	{"native", XDP_ATTACH_NATIVE},
	{"generic", XDP_ATTACH_GENERIC},
	{"auto", XDP_ATTACH_AUTO},
};

static const cyaml_strval_t bind_modes[] = {
	{"zerocopy", XSK_BIND_ZEROCOPY},
	{"copy", XSK_BIND_COPY},
	{"auto", XSK_BIND_AUTO},
};

static const cyaml_strval_t failure_modes[] = {
	{"open", FAILURE_OPEN},
	{"closed", FAILURE_CLOSED},
};

#define OPT CYAML_FLAG_OPTIONAL
#define OPT_ENUM (CYAML_FLAG_OPTIONAL | CYAML_FLAG_STRICT)

/* Arrays, not pointers, inside sequence entries: libcyaml 1.3.1 frees
 * uninitialised pointers when an entry after the first fails to load. */
static const cyaml_schema_field_t port_fields[] = {
	CYAML_FIELD_STRING("interface", OPT, struct config_port, interface, 1),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t port_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct config_port,
			    port_fields),
};

static const cyaml_schema_field_t rings_fields[] = {
	CYAML_FIELD_UINT("fill", OPT, struct config_rings, fill),
	CYAML_FIELD_UINT("completion", OPT, struct config_rings, completion),
	CYAML_FIELD_UINT("rx", OPT, struct config_rings, rx),
	CYAML_FIELD_UINT("tx", OPT, struct config_rings, tx),
	CYAML_FIELD_UINT("handoff", OPT, struct config_rings, handoff),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t umem_fields[] = {
	CYAML_FIELD_UINT("frames", OPT, struct config_umem, frames),
	CYAML_FIELD_UINT("frame_size", OPT, struct config_umem, frame_size),
	CYAML_FIELD_UINT("headroom", OPT, struct config_umem, headroom),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t poll_fields[] = {
	CYAML_FIELD_UINT("busy_us", OPT, struct config_poll, busy_us),
	CYAML_FIELD_UINT("batch", OPT, struct config_poll, batch),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t cpu_schema = {
	CYAML_VALUE_UINT(CYAML_FLAG_DEFAULT, uint32_t),
};

static const cyaml_schema_field_t workers_fields[] = {
	CYAML_FIELD_SEQUENCE("cpus", OPT | CYAML_FLAG_POINTER,
			     struct raw_workers, cpus, &cpu_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t top_fields[] = {
	CYAML_FIELD_SEQUENCE("ports", OPT | CYAML_FLAG_POINTER,
			     struct raw_config, ports, &port_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_UINT("queues", OPT, struct raw_config, queues),
	CYAML_FIELD_ENUM("xdp_mode", OPT_ENUM, struct raw_config, xdp_mode,
			 xdp_modes, CYAML_ARRAY_LEN(xdp_modes)),
	CYAML_FIELD_ENUM("bind_mode", OPT_ENUM, struct raw_config, bind_mode,
			 bind_modes, CYAML_ARRAY_LEN(bind_modes)),
	CYAML_FIELD_ENUM("failure_mode", OPT_ENUM, struct raw_config,
			 failure_mode, failure_modes,
			 CYAML_ARRAY_LEN(failure_modes)),
	CYAML_FIELD_MAPPING("rings", OPT, struct raw_config, rings,
			    rings_fields),
	CYAML_FIELD_MAPPING("umem", OPT, struct raw_config, umem, umem_fields),
	CYAML_FIELD_MAPPING("poll", OPT, struct raw_config, poll, poll_fields),
	CYAML_FIELD_MAPPING("workers", OPT, struct raw_config, workers,
			    workers_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t top_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct raw_config, top_fields),
};

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
	UKEY("queues", queues, 1, 1, CONFIG_MAX_QUEUES, false, ""),
	RING("rings.fill", rings.fill, 4096),
	RING("rings.completion", rings.completion, 2048),
	RING("rings.rx", rings.rx, 2048),
	RING("rings.tx", rings.tx, 2048),
	RING("rings.handoff", rings.handoff, 4096),
	UKEY("umem.frames", umem.frames, 32768, 64, 1u << 31, true, " frames"),
	UKEY("umem.frame_size", umem.frame_size, 4096, 2048, 4096, true,
	     " bytes"),
	UKEY("umem.headroom", umem.headroom, 0, 0, UINT32_MAX, false, " bytes"),
	UKEY("poll.busy_us", poll.busy_us, 20, 0, 10000, false,
	     " microseconds"),
	UKEY("poll.batch", poll.batch, 64, 1, 256, false, " descriptors"),
};

#define CYAML_UNKNOWN_KEY "Unexpected key: " /* libcyaml's words, + key */

/* What libcyaml logged about its first error. */
struct cyaml_report {
	char reason[256]; /* "Unexpected key: qeues" */
	char path[256]; /* from the backtrace: "ports[1].interface" */
	enum { BT_NONE, BT_IN, BT_DONE } bt;
};

struct load_ctx {
	const char *name;
	struct config_error *err;
	struct yaml_loc loc;
};

__attribute__((format(printf, 3, 4))) static int
fail(const struct load_ctx *c, struct yaml_loc_pos pos, const char *fmt, ...)
{
	char *msg = c->err->msg;
	size_t size = sizeof(c->err->msg);
	int len = snprintf(msg, size, "%s:%u:%u: ", c->name, pos.line, pos.col);
	va_list ap;

	if (len < 0 || (size_t)len >= size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg + len, size - (size_t)len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Where the value at path is; if it was not written, the document's top. */
static struct yaml_loc_pos val_pos(const struct load_ctx *c, const char *path)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);

	if (!n)
		n = yaml_loc_find(&c->loc, "");
	return n ? n->val : (struct yaml_loc_pos){1, 1};
}

static const char *name_of(const char *path)
{
	return *path ? path : "document";
}

/* The schema of the value at a key path, or NULL if there is none. */
static const cyaml_schema_value_t *schema_at(const char *path)
{
	const cyaml_schema_value_t *v = &top_schema;
	const cyaml_schema_field_t *f;
	size_t len;

	while (*path) {
		if (*path == '[') {
			path = strchr(path, ']');
			if (v->type != CYAML_SEQUENCE || !path)
				return NULL;
			path++;
			v = v->sequence.entry;
			continue;
		}
		if (*path == '.')
			path++;
		if (v->type != CYAML_MAPPING)
			return NULL;
		len = strcspn(path, ".[");
		for (f = v->mapping.fields; f->key; f++)
			if (strlen(f->key) == len &&
			    !strncmp(f->key, path, len))
				break;
		if (!f->key)
			return NULL;
		v = &f->value;
		path += len;
	}
	return v;
}

/* The i-th name a mapping (its keys) or an enum (its strings) accepts. */
static const char *name_at(const cyaml_schema_value_t *v, unsigned int i)
{
	if (v->type == CYAML_MAPPING)
		return v->mapping.fields[i].key;
	return i < v->enumeration.count ? v->enumeration.strings[i].str : NULL;
}

static void list_names(const cyaml_schema_value_t *v, char *buf, size_t size)
{
	const char *name;
	size_t len;

	for (unsigned int i = 0; (name = name_at(v, i)); i++) {
		len = strlen(buf);
		if (len < size)
			snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				 name);
	}
}

/* Levenshtein distance, capped: anything above 2 is just "far". */
static unsigned int distance(const char *a, const char *b)
{
	enum { FAR = 3, MAX = 32 };
	unsigned int row[MAX + 1], diag, up, j, i;
	size_t la = strlen(a), lb = strlen(b);

	if (la > MAX || lb > MAX)
		return FAR;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

/* The accepted name closest to got, within an edit distance of 2. */
static const char *suggest(const cyaml_schema_value_t *v, const char *got)
{
	const char *best = NULL, *name;
	unsigned int best_d = 3, d;

	for (unsigned int i = 0; (name = name_at(v, i)); i++) {
		d = distance(got, name);
		if (d < best_d) {
			best = name;
			best_d = d;
		}
	}
	return best;
}

static void describe(const cyaml_schema_value_t *v, char *buf, size_t size)
{
	switch (v->type) {
	case CYAML_UINT:
		snprintf(buf, size, "a plain decimal number from 0 to %" PRIu64,
			 UINT64_MAX >> (64 - 8 * v->data_size));
		break;
	case CYAML_STRING:
		snprintf(buf, size, "a string of %u to %u characters",
			 v->string.min, v->string.max);
		break;
	case CYAML_ENUM:
		snprintf(buf, size, "one of ");
		list_names(v, buf, size);
		break;
	case CYAML_MAPPING:
		snprintf(buf, size, "a mapping with the keys ");
		list_names(v, buf, size);
		break;
	default: /* CYAML_SEQUENCE */
		snprintf(buf, size, "a list");
		break;
	}
}

/* The value at node n is not what schema v wants. */
static int type_error(const struct load_ctx *c, const struct yaml_loc_node *n,
		      const cyaml_schema_value_t *v)
{
	static const char *const kinds[] = {
		[YAML_LOC_SEQUENCE] = "a list",
		[YAML_LOC_MAPPING] = "a mapping",
		[YAML_LOC_ALIAS] = "an alias",
	};
	const char *near = NULL;
	char want[256], got[64];

	describe(v, want, sizeof(want));
	if (n->kind == YAML_LOC_SCALAR && !n->text[0]) {
		snprintf(got, sizeof(got), "nothing");
	} else if (n->kind == YAML_LOC_SCALAR) {
		snprintf(got, sizeof(got), "'%.40s%s'", n->text,
			 strlen(n->text) > 40 ? "..." : "");
		if (v->type == CYAML_ENUM)
			near = suggest(v, n->text);
	} else {
		snprintf(got, sizeof(got), "%s", kinds[n->kind]);
	}
	if (near)
		return fail(c, n->val,
			    "%s: expected %s (got %s); did you mean '%s'?",
			    name_of(n->path), want, got, near);
	return fail(c, n->val, "%s: expected %s (got %s)", name_of(n->path),
		    want, got);
}

static int unknown_key(const struct load_ctx *c, const struct cyaml_report *r)
{
	const cyaml_schema_value_t *v = schema_at(r->path);
	const char *key = r->reason + strlen(CYAML_UNKNOWN_KEY), *near;
	const char *dot = *r->path ? "." : "";
	const struct yaml_loc_node *n;
	char path[300], names[256] = "";
	struct yaml_loc_pos pos;

	snprintf(path, sizeof(path), "%s%s%s", r->path, dot, key);
	n = yaml_loc_find(&c->loc, path);
	pos = n ? n->key : val_pos(c, r->path);
	near = suggest(v, key);
	if (near)
		return fail(c, pos, "unknown key '%s' (did you mean '%s%s%s'?)",
			    path, r->path, dot, near);
	list_names(v, names, sizeof(names));
	return fail(c, pos, "unknown key '%s'; the keys %s%s are: %s", path,
		    *r->path ? "under " : "at the top", r->path, names);
}

/* libcyaml's error, as one message located by the backtrace's key path. */
static int cyaml_error(const struct load_ctx *c, cyaml_err_t e,
		       const struct cyaml_report *r)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, r->path);
	const cyaml_schema_value_t *v = schema_at(r->path);

	switch (e) {
	case CYAML_ERR_INVALID_KEY:
		if (v && v->type == CYAML_MAPPING &&
		    !strncmp(r->reason, CYAML_UNKNOWN_KEY,
			     strlen(CYAML_UNKNOWN_KEY)))
			return unknown_key(c, r);
		break;
	case CYAML_ERR_INVALID_VALUE:
	case CYAML_ERR_STRING_LENGTH_MIN:
	case CYAML_ERR_STRING_LENGTH_MAX:
		if (n && v)
			return type_error(c, n, v);
		break;
	case CYAML_ERR_ALIAS:
		return fail(c, val_pos(c, r->path),
			    "%s: aliases (*name) are not supported; write the "
			    "value itself",
			    name_of(r->path));
	default:
		break;
	}
	return fail(c, val_pos(c, r->path), "%s: %s", name_of(r->path),
		    r->reason[0] ? r->reason : cyaml_strerror(e));
}

/* libcyaml's log callback: keep the first error line and its backtrace,
 * whose lines run innermost first ("in mapping field 'x'", "in sequence
 * entry 'n'", n counted from 1), as a key path. */
static void cyaml_log_line(cyaml_log_t level, void *ctx, const char *fmt,
			   va_list args)
{
	struct cyaml_report *r = ctx;
	char line[256], comp[80], tmp[sizeof(r->path)];
	const char *s = line;
	unsigned int entry;

	(void)level; /* log_level lets only errors through */
	vsnprintf(line, sizeof(line), fmt, args);
	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(s, "Load: ", 6))
		s += 6;
	if (!strcmp(s, "Backtrace:")) {
		if (r->bt == BT_NONE)
			r->bt = BT_IN;
		return;
	}
	if (r->bt == BT_IN && !strncmp(s, "  in ", 5)) {
		if (sscanf(s, "  in sequence entry '%u'", &entry) == 1)
			snprintf(comp, sizeof(comp), "[%u]",
				 entry ? entry - 1 : 0);
		else if (sscanf(s, "  in mapping field '%79[^']'", comp) != 1)
			return; /* "in mapping": the one its field named */
		if (snprintf(tmp, sizeof(tmp), "%s%s%s", comp,
			     r->path[0] && r->path[0] != '[' ? "." : "",
			     r->path) < (int)sizeof(tmp))
			memcpy(r->path, tmp, sizeof(tmp));
		return;
	}
	if (r->bt == BT_IN)
		r->bt = BT_DONE;
	if (!r->reason[0])
		snprintf(r->reason, sizeof(r->reason), "%s", s);
}

/* libcyaml reads "1.5" as 1 and "010" as 8 (strtoll, base 0): only plain
 * decimal digits are numbers here. */
static int check_numbers(const struct load_ctx *c)
{
	const struct yaml_loc_node *n;
	const cyaml_schema_value_t *v;

	for (size_t i = 0; i < c->loc.n; i++) {
		n = &c->loc.nodes[i];
		v = schema_at(n->path);
		if (!v || v->type != CYAML_UINT)
			continue;
		if (!n->text || !n->text[0] ||
		    n->text[strspn(n->text, "0123456789")] ||
		    (n->text[0] == '0' && n->text[1]))
			return type_error(c, n, v);
	}
	return 0;
}

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

static int load_ports(const struct load_ctx *c, const struct raw_config *raw,
		      struct xdplane_config *cfg, bool check_system)
{
	const char *name;
	char path[32];

	if (!yaml_loc_find(&c->loc, "ports"))
		return fail(
			c, val_pos(c, ""),
			"ports: required key is missing; add the pair, e.g. "
			"'ports: [{interface: eth1}, {interface: eth2}]'");
	if (raw->ports_count != CONFIG_PORTS)
		return fail(
			c, val_pos(c, "ports"),
			"ports: must list exactly %d ports, the pair (got %u); "
			"write one '- interface: NAME' for each side",
			CONFIG_PORTS, raw->ports_count);
	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		name = raw->ports[i].interface;
		snprintf(path, sizeof(path), "ports[%u].interface", i);
		if (!yaml_loc_find(&c->loc, path)) {
			snprintf(path, sizeof(path), "ports[%u]", i);
			return fail(c, val_pos(c, path),
				    "%s.interface: required key is missing; "
				    "add 'interface: NAME' to this entry",
				    path);
		}
		if (!valid_ifname(name))
			return fail(
				c, val_pos(c, path),
				"%s: not a valid interface name (got '%s'); "
				"names have no '/', ':', spaces or control "
				"characters",
				path, name);
		if (i && !strcmp(name, raw->ports[0].interface))
			return fail(
				c, val_pos(c, path),
				"%s: same interface as ports[0] (got '%s'); "
				"the two ports must be different interfaces",
				path, name);
		if (check_system && !if_nametoindex(name))
			return fail(c, val_pos(c, path),
				    "%s: no such interface '%s'; "
				    "check the name with 'ip link'",
				    path, name);
		memcpy(cfg->ports[i].interface, name,
		       sizeof(cfg->ports[i].interface));
	}
	return 0;
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static uint32_t pow2_floor(uint32_t v) /* v > 0 */
{
	return 1u << (31 - __builtin_clz(v));
}

static uint32_t pow2_ceil(uint32_t v) /* 0 < v <= 1u << 31 */
{
	return is_pow2(v) ? v : pow2_floor(v) << 1;
}

static int check_uint(const struct load_ctx *c, const struct uint_key *k,
		      uint32_t v)
{
	uint32_t in, lo, hi;

	if (v >= k->min && v <= k->max && (!k->pow2 || is_pow2(v)))
		return 0;
	if (!k->pow2)
		return fail(c, val_pos(c, k->path),
			    "%s: must be between %u and %u%s (got %u)", k->path,
			    k->min, k->max, k->unit, v);
	if (k->max == 2 * k->min)
		return fail(c, val_pos(c, k->path),
			    "%s: must be %u or %u%s (got %u)", k->path, k->min,
			    k->max, k->unit, v);
	in = v < k->min ? k->min : v > k->max ? k->max : v;
	lo = pow2_floor(in);
	hi = pow2_ceil(in);
	if (lo == hi)
		return fail(
			c, val_pos(c, k->path),
			"%s: must be a power of two from %u to %u%s (got %u); "
			"try %u",
			k->path, k->min, k->max, k->unit, v, lo);
	return fail(c, val_pos(c, k->path),
		    "%s: must be a power of two from %u to %u%s (got %u); "
		    "try %u or %u",
		    k->path, k->min, k->max, k->unit, v, lo, hi);
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
	uint64_t need;

	for (size_t i = 0; i < CYAML_ARRAY_LEN(uint_keys); i++) {
		v = (uint32_t *)((char *)cfg + uint_keys[i].offset);
		if (!yaml_loc_find(&c->loc, uint_keys[i].path))
			*v = uint_keys[i].def;
		if (check_uint(c, &uint_keys[i], *v))
			return -1;
	}
	room = u->frame_size - XDP_HEADROOM - MIN_PACKET_ROOM;
	if (u->headroom > room)
		return fail(c, val_pos(c, "umem.headroom"),
			    "umem.headroom: leaves less than %d bytes of the "
			    "%u-byte frame after the kernel's %d bytes "
			    "(got %u); use at most %u, or a larger "
			    "umem.frame_size",
			    MIN_PACKET_ROOM, u->frame_size, XDP_HEADROOM,
			    u->headroom, room);
	need = 2ull * cfg->queues * (r->fill + r->tx + r->handoff);
	if (u->frames >= need)
		return 0;
	/* point at whichever of the keys involved was written */
	for (size_t i = 0; i < CYAML_ARRAY_LEN(frame_keys) && !*at; i++)
		if (yaml_loc_find(&c->loc, frame_keys[i]))
			at = frame_keys[i];
	return fail(
		c, val_pos(c, at),
		"umem.frames: need at least 2 * queues %u * (rings.fill %u + "
		"rings.tx %u + rings.handoff %u) = %" PRIu64 " (got %u); "
		"set umem.frames to %u, or lower queues or those rings",
		cfg->queues, r->fill, r->tx, r->handoff, need, u->frames,
		pow2_ceil((uint32_t)need));
}

static int load_cpus(const struct load_ctx *c, const struct raw_workers *w,
		     struct xdplane_config *cfg)
{
	unsigned int first[CONFIG_MAX_CPUS] = {0}; /* index + 1 */
	char path[48];
	uint32_t cpu;

	/* ids below CONFIG_MAX_CPUS without repeats: at most that many */
	for (unsigned int i = 0; i < w->cpus_count; i++) {
		cpu = w->cpus[i];
		snprintf(path, sizeof(path), "workers.cpus[%u]", i);
		if (cpu >= CONFIG_MAX_CPUS)
			return fail(c, val_pos(c, path),
				    "%s: CPU ids must be below %d (got %u)",
				    path, CONFIG_MAX_CPUS, cpu);
		if (first[cpu])
			return fail(c, val_pos(c, path),
				    "%s: CPU %u is listed twice (got it at "
				    "workers.cpus[%u] too); list each CPU once",
				    path, cpu, first[cpu] - 1);
		first[cpu] = i + 1;
		cfg->cpus[i] = cpu;
	}
	cfg->n_cpus = w->cpus_count;
	return 0;
}

/* The config from what libcyaml loaded: defaults, then the rules. */
static struct xdplane_config *
build(const struct load_ctx *c, const struct raw_config *r, bool check_system)
{
	struct xdplane_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg) {
		snprintf(c->err->msg, sizeof(c->err->msg), "%s: out of memory",
			 c->name);
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", c->name);
	cfg->queues = r->queues;
	cfg->xdp_mode = r->xdp_mode;
	cfg->bind_mode = r->bind_mode;
	cfg->failure_mode = r->failure_mode;
	cfg->rings = r->rings;
	cfg->umem = r->umem;
	cfg->poll = r->poll;
	if (load_ports(c, r, cfg, check_system) || load_numbers(c, cfg) ||
	    load_cpus(c, &r->workers, cfg)) {
		free(cfg);
		return NULL;
	}
	return cfg;
}

static struct xdplane_config *load(const char *name, const char *buf,
				   size_t len, bool check_system,
				   struct config_error *err)
{
	static const struct raw_config empty; /* "{}" or an empty file */
	struct load_ctx c = {.name = name, .err = err};
	struct cyaml_report report = {.bt = BT_NONE};
	const cyaml_config_t cc = {
		.log_fn = cyaml_log_line,
		.log_ctx = &report,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_NO_ALIAS,
	};
	struct raw_config *raw = NULL;
	struct xdplane_config *cfg = NULL;
	struct yaml_loc_error lerr;
	cyaml_err_t e;

	if (yaml_loc_parse(&c.loc, buf, len, &lerr))
		fail(&c, lerr.pos, "%s%s%s", lerr.path, *lerr.path ? ": " : "",
		     lerr.what);
	else if ((e = cyaml_load_data((const uint8_t *)buf, len, &cc,
				      &top_schema, (cyaml_data_t **)&raw,
				      NULL)) != CYAML_OK)
		cyaml_error(&c, e, &report);
	else if (!check_numbers(&c))
		cfg = build(&c, raw ? raw : &empty, check_system);
	cyaml_free(&cc, &top_schema, raw, 0);
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

	if (!buf)
		snprintf(err->msg, sizeof(err->msg), "%s: cannot read: %s",
			 path, strerror(errno));
	else
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

/* Single-quoted: only ' needs escaping (valid_ifname() keeps out the
 * control characters a quoted scalar cannot hold). */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', out);
		fputc(*s, out);
	}
	fputc('\'', out);
}

int config_dump(const struct xdplane_config *cfg, FILE *out)
{
	const struct config_rings *r = &cfg->rings;

	fputs("ports:\n", out);
	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		fputs("  - interface: ", out);
		put_quoted(out, cfg->ports[i].interface);
		fputc('\n', out);
	}
	fprintf(out,
		"queues: %u\nxdp_mode: %s\nbind_mode: %s\nfailure_mode: %s\n",
		cfg->queues, xdp_attach_mode_name(cfg->xdp_mode),
		xsk_bind_mode_name(cfg->bind_mode),
		failure_mode_name(cfg->failure_mode));
	fprintf(out,
		"rings:\n  fill: %u\n  completion: %u\n  rx: %u\n  tx: %u\n"
		"  handoff: %u\n",
		r->fill, r->completion, r->rx, r->tx, r->handoff);
	fprintf(out, "umem:\n  frames: %u\n  frame_size: %u\n  headroom: %u\n",
		cfg->umem.frames, cfg->umem.frame_size, cfg->umem.headroom);
	fprintf(out, "poll:\n  busy_us: %u\n  batch: %u\n", cfg->poll.busy_us,
		cfg->poll.batch);
	fputs("workers:\n  cpus: [", out);
	for (uint32_t i = 0; i < cfg->n_cpus; i++)
		fprintf(out, "%s%u", i ? ", " : "", cfg->cpus[i]);
	fputs("]\n", out);
	return ferror(out) ? -1 : 0;
}

static const char *strval_name(const cyaml_strval_t *t, size_t n, int64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].val == v)
			return t[i].str;
	return "invalid";
}

const char *xdp_attach_mode_name(enum xdp_attach_mode m)
{
	return strval_name(xdp_modes, CYAML_ARRAY_LEN(xdp_modes), m);
}

const char *xsk_bind_mode_name(enum xsk_bind_mode m)
{
	return strval_name(bind_modes, CYAML_ARRAY_LEN(bind_modes), m);
}

const char *failure_mode_name(enum failure_mode m)
{
	return strval_name(failure_modes, CYAML_ARRAY_LEN(failure_modes), m);
}
