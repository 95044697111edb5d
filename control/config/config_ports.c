// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_ports.c - the ports and what serves them (parts of the loader:
 * config_sections.h): the interfaces, their MTUs and port_wait; queues,
 * rings, the UMEM, poll and the workers' CPUs, with their defaults and
 * the rules between them (umem.frames against queues and rings); and
 * config_check_queues() for the queue count known at start. With
 * check_system, the interfaces must exist.
 */
#include "config_sections.h"

#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XDP_HEADROOM 256 /* the kernel's XDP_PACKET_HEADROOM */
#define MIN_PACKET_ROOM 1518 /* a full-size Ethernet frame */
#define QOS_DEF_OVERHEAD 24 /* preamble 8 + IFG 12 + FCS 4 */
#define QOS_MAX_OVERHEAD 256

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

int cfg_load_ports(const struct load_ctx *c, struct xdplane_config *cfg,
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

static uint32_t pow2_ceil(uint32_t v) /* 0 < v <= 1u << 31 */
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
	hi = pow2_ceil(in);
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
static uint64_t frames_needed(const struct xdplane_config *cfg, uint32_t queues)
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
	need = frames_needed(cfg, cfg->queues);
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
		pow2_ceil((uint32_t)need));
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

int cfg_load_resources(const struct load_ctx *c, struct xdplane_config *cfg)
{
	int bad = 0;

	bad |= load_queues(c, cfg);
	bad |= load_umem(c, cfg);
	bad |= load_numbers(c, cfg);
	bad |= load_cpus(c, cfg);
	return bad ? -1 : 0;
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
	need = frames_needed(cfg, queues);
	if (cfg->umem.frames >= need)
		return 0;
	snprintf(msg, len,
		 "umem.frames: need at least 2 * queues %u * (rings.fill %u + "
		 "rings.tx %u + rings.handoff %u) = %" PRIu64 " (got %u); "
		 "set umem.frames to %u, or lower queues or those rings",
		 queues, r->fill, r->tx, r->handoff, need, cfg->umem.frames,
		 pow2_ceil((uint32_t)need));
	return -1;
}
