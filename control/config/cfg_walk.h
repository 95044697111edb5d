/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cfg_walk.h - what the configuration loader's files share, below all of
 * them: the schema's types, the loader's context, the written keys read
 * by path, the messages and the values of text keys. Not for use outside
 * control/config/; nothing here includes a section (config_sections.h)
 * or the schema (config_schema.h).
 *
 * The loader, by file (control/config/), from the bottom:
 *   cfg_walk.c         the enum keys' names, the keys read by path
 *   config_errors.c    "file:line:col: key: problem" messages, the
 *                      description of what a key accepts, suggestions
 *   config_units.c     rates, sizes, times, booleans and ranges of written
 *                      keys, on units.h, with their messages
 *   the sections (config_sections.h):
 *   config_ports.c     ports, port_wait, queues, rings, umem, poll,
 *                      workers; config_check_queues()
 *   config_qos.c       port shapers, classes, rules, default_class
 *   config_dcqcn.c     the dcqcn mapping against the profile and line rate
 *   config_pfc.c       lossless classes, the pfc mapping and thresholds
 *   config_adaptive.c  ports[].adaptive
 *   config_jobs.c      jobs, the job table's mode and bounds
 *   config_daemon.c    control socket, metrics listener, user and group
 *                      (config_lookup_user/group()), log level
 *   config_schema.c    the schema and its walk (config_schema.h)
 *   config_load.c      the pipeline (read, yaml_loc, schema, sections);
 *                      config.h's load and name calls
 *   config_dump.c      config_dump()
 *
 * A section loader reads what was written straight from the yaml_loc
 * nodes (cfg_key_at()), after the schema walk has checked every node: a
 * node found at a known key's path has that key's type (a uint key's text
 * is plain decimal digits up to UINT32_MAX, an enum's one of its names, a
 * string's length within its bounds). Every loader returns 0, or -1 with
 * the message in c->err (cfg_fail()).
 */
#ifndef XDPLANE_CFG_WALK_H
#define XDPLANE_CFG_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "units.h"
#include "yaml_loc.h"

#define CFG_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What the text-valued keys accept, for messages. */
#define SYN_RATE                                                               \
	"a rate in bits/s: a number with an optional unit bit, kbit, Mbit, "   \
	"Gbit or Tbit (1000s) or Kibit, Mibit, Gibit, Tibit (1024s), as tc "   \
	"writes them, e.g. 100Gbit, 1.5Gbit or 800Mbit"
#define SYN_RATE_PCT SYN_RATE ", or a percentage of the port rate, e.g. 5%"
#define SYN_SIZE                                                               \
	"a size in bytes: a number with an optional unit B, KB, MB, GB "       \
	"(1000s) or KiB, MiB, GiB (1024s), e.g. 64KB or 4MiB"
#define SYN_PROB                                                               \
	"a probability above 0 and at most 1: a percentage such as 1% or a "   \
	"fraction such as 0.01"
#define SYN_NAME "a name of 1 to 31 letters, digits, '_' or '-'"
#define SYN_PROTO "udp, tcp, icmp, icmpv6 or a protocol number 0..255"
#define SYN_PORT                                                               \
	"a port number 0..65535 or an inclusive range lo-hi, e.g. 2049 or "    \
	"1000-2000"
#define SYN_ETHERTYPE "an EtherType 0x0600..0xffff, e.g. 0x88b5 or 0x0800"
#define SYN_OPCODE "a BTH opcode 0..255, e.g. 0x81 (decimal or 0x hex)"
#define SYN_SET(max) "a number 0.." #max " or a list of them, e.g. [1, 2]"
#define SYN_SOCKET                                                             \
	"an absolute path of at most 107 bytes, e.g. "                         \
	"/run/xdplane/control.sock, or '' for no control socket"
#define SYN_LISTEN                                                             \
	"a numeric address and port, host:port or [v6addr]:port, e.g. "        \
	"127.0.0.1:9470 or [::1]:9470, or '' for no listener"
#define SYN_ACCOUNT "a name of at most 63 characters, or ''"
#define SYN_LINE SYN_RATE ", or '' for the egress port's rate"
#define SYN_TIME                                                               \
	"a time: a number with a unit ns, us, ms or s, e.g. 55us, 0.5ms or "   \
	"1s (0 needs no unit)"
/* a time key named for its unit (poll.busy_us) or read in one when bare
 * (pfc.watchdog): SYN_TIME_IN("microseconds") */
#define SYN_TIME_IN(unit)                                                      \
	"a time: a number with a unit ns, us, ms or s, e.g. 55us, 0.5ms or "   \
	"1s, or a plain number of " unit
#define SYN_GAIN                                                               \
	"a number above 0 and at most 1: a decimal such as 0.00390625 or a "   \
	"fraction such as 1/256"
#define SYN_DECREASE                                                           \
	"a percentage from 0% to below 100%, e.g. 50%, or a decimal from 0 "   \
	"to below 1, e.g. 0.5"
#define SYN_BOOL "true or false"
#define SYN_PFC_SIZE SYN_SIZE ", or auto"
#define SYN_QUEUES                                                             \
	"a number of queues from 1 to 64, or auto for the NIC's channel count"
#define SYN_FIRST_CNP SYN_RATE ", or '' to keep the flow's rate"

/*
 * The schema (config_schema.c): the type of every key.
 */
enum cfg_type {
	CFG_UINT, /* plain decimal digits, no leading zero, <= UINT32_MAX */
	CFG_STRING, /* any scalar of min..max bytes */
	CFG_ENUM, /* one of names, exactly */
	CFG_MAP, /* a mapping of fields */
	CFG_SEQ, /* a list of entry */
	CFG_ANY, /* read by its loader from the nodes (pcp, dscp, ecn) */
};

struct cfg_name {
	const char *str; /* NULL ends a table */
	int val;
};

struct cfg_field;

struct cfg_schema {
	enum cfg_type type;
	unsigned int min, max; /* CFG_STRING: length in bytes; CFG_UINT:
				* the range its loader enforces, named in
				* type errors (max 0: none named) */
	const struct cfg_field *fields; /* CFG_MAP: ends with key NULL */
	const struct cfg_schema *entry; /* CFG_SEQ */
	const struct cfg_name *names; /* CFG_ENUM */
};

struct cfg_field {
	const char *key;
	struct cfg_schema value;
};

enum cfg_clamp { /* dcqcn.clamp; 0: not written */
		 CFG_CLAMP_ALWAYS = 1,
		 CFG_CLAMP_AFTER_INC,
		 CFG_CLAMP_NEVER,
};

/* The names of the enum keys, in the order messages list them
 * (cfg_walk.c). */
extern const struct cfg_name cfg_xdp_modes[], cfg_bind_modes[],
	cfg_failure_modes[], cfg_nonect_modes[], cfg_malformed_modes[],
	cfg_dcqcn_profiles[], cfg_clamp_modes[], cfg_flow_keys[],
	cfg_cnp_actions[], cfg_log_levels[], cfg_protos[], cfg_shaper_waits[],
	cfg_checksum_modes[], cfg_adaptive_modes[], cfg_jobs_modes[];

/* The name of v in t, or "invalid". */
const char *cfg_name(const struct cfg_name *t, int v);
/* The entry of t named s, or NULL. */
const struct cfg_name *cfg_find_name(const struct cfg_name *t, const char *s);

/* The loader's state: the file's name for messages, where the message
 * goes, and the located document. */
struct load_ctx {
	const char *name;
	struct config_error *err;
	struct yaml_loc loc;
};

/* A key being loaded: its path and, if it was written, its node. */
struct key {
	char path[96];
	const struct yaml_loc_node *n;
};

/* The written keys, by path (cfg_walk.c). */
/* Fill k for the path fmt; true if that key was written. */
__attribute__((format(printf, 3, 4))) bool
cfg_key_at(const struct load_ctx *c, struct key *k, const char *fmt, ...);
/* How many entries the list at path has (0 if it was not written). */
unsigned int cfg_count_at(const struct load_ctx *c, const char *path);
/* A written uint key's value (checked by the schema walk). */
uint32_t cfg_key_uint(const struct key *k);
/* A written enum key's value (a name in t), or def if it was not
 * written. */
int cfg_enum_at(const struct load_ctx *c, const char *path,
		const struct cfg_name *t, int def);

/*
 * Messages (config_errors.c).
 */
/* No messages yet. */
void cfg_error_reset(struct config_error *err);
/* One more message (the same text twice is kept once). */
void cfg_error_add(struct config_error *err, const char *msg);
/* "name:line:col: " and the message, control characters as '?', added to
 * c->err. -1. */
__attribute__((format(printf, 3, 4))) int cfg_fail(const struct load_ctx *c,
						   struct yaml_loc_pos pos,
						   const char *fmt, ...);
/* Where the value at path is; if it was not written, the document's top. */
struct yaml_loc_pos cfg_val_pos(const struct load_ctx *c, const char *path);
/* "'text'" (at most 40 characters, then "..."), "nothing", "a list"... */
void cfg_got_text(const struct yaml_loc_node *n, char *buf, size_t size);
/* "path: expected SYNTAX (got 'text')" at the value of k. -1. */
int cfg_bad_value(const struct load_ctx *c, const struct key *k,
		  const char *syntax);
/* Node n is not what schema v wants. -1. */
int cfg_type_error(const struct load_ctx *c, const struct yaml_loc_node *n,
		   const struct cfg_schema *v);
/* Node n is a key the mapping schema v at parent_path does not have. -1. */
int cfg_unknown_key(const struct load_ctx *c, const struct yaml_loc_node *n,
		    const struct cfg_schema *v, const char *parent_path);

/*
 * Values of written keys (config_units.c): each returns 0 with the value
 * stored, or -1 with a message at the key's value.
 */
/* A rate into *bps; with share != NULL "N%" is also accepted (into
 * *share, then needing a port rate). `none` says what leaving the key out
 * means. */
int cfg_get_rate(const struct load_ctx *c, const struct key *k,
		 const struct qos_policy *q, uint64_t *bps, uint32_t *share,
		 const char *none);
/* A size into *bytes, at least min (why: what needs it). */
int cfg_get_size(const struct load_ctx *c, const struct key *k, uint32_t min,
		 const char *why, uint32_t *bytes);
/* A bucket or queue: holds the largest frame the UMEM can carry. */
int cfg_get_frame_size(const struct load_ctx *c, const struct key *k,
		       const struct xdplane_config *cfg, uint32_t *bytes);
/* A time into *ns, between min and max. */
int cfg_get_time(const struct load_ctx *c, const struct key *k, uint64_t min,
		 uint64_t max, uint64_t *ns);
/* A time into *v in whole units of unit_ns (a bare number: that many
 * units; unit_name such as "microseconds"), between min and max units. */
int cfg_get_time_in(const struct load_ctx *c, const struct key *k,
		    uint64_t unit_ns, const char *unit_name, uint32_t min,
		    uint32_t max, uint32_t *v);
/* A uint key (the schema's) into *v, between min and max (unit: " bytes"). */
int cfg_get_uint(const struct load_ctx *c, const struct key *k, uint32_t min,
		 uint32_t max, const char *unit, uint32_t *v);
/* true or false. */
int cfg_get_bool(const struct load_ctx *c, const struct key *k, bool *b);
/* Default bucket for a rate: max(32 KiB, rate * 200 us / 8). */
uint32_t cfg_default_burst(uint64_t bps);
/* bps, or else share of rate, times QOS_PROB_ONE, to compare exactly. */
units_u128 cfg_scaled(uint64_t bps, uint32_t share, uint64_t rate);

#endif
