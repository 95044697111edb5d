// SPDX-License-Identifier: BSD-2-Clause
/*
 * config.c - everything declared in config.h. The text is read once; a
 * yaml_loc pass locates every key (and catches syntax errors and duplicate
 * keys); libcyaml loads it through the schema below into struct raw_config;
 * keys that were not written get their defaults; then the rules are checked.
 * Every failure becomes one "file:line:col: key: problem (got x); fix"
 * message, libcyaml's own errors included: they arrive only through its log
 * callback, whose backtrace gives the key path, which yaml_loc turns into a
 * position and the schema into a description of what was expected.
 *
 * The QoS keys (port rates, classes, rules) whose values are text - rates,
 * shares, sizes, prefixes, port ranges - are loaded as strings and parsed
 * here into exact integers; pcp/dscp/ecn, a number or a list, are ignored
 * by the schema and read from the yaml_loc nodes. So is the metrics
 * listener ("host:port", numeric only: no name is ever resolved).
 *
 * DCQCN (the dcqcn mapping, classes[].dcqcn): the profile's defaults come
 * from dcqcn_params_default() (dataplane/cc/dcqcn.c), then each written key
 * overrides one parameter. Times are text too ("55us": a unit is
 * required), as are the gains ("1/256", "0.00390625") and booleans (only
 * true and false: libcyaml would read any other word as true).
 *
 * Numbers with a fraction that end up as doubles (g, alpha_init,
 * min_decrease) are checked here as plain ASCII decimals and converted by
 * strtod(), which rounds correctly; the daemon never calls setlocale(), so
 * the decimal point is '.'.
 *
 * With check_system, the user and the groups named must resolve by the
 * daemon's rule (config_lookup_user/group(), config.h: names, then numeric
 * ids; reentrant NSS calls, in this thread).
 */
#include "config.h"
#include "pfc.h"
#include "log.h"
#include "yaml_loc.h"

#include <arpa/inet.h>
#include <cyaml/cyaml.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define XDP_HEADROOM 256 /* the kernel's XDP_PACKET_HEADROOM */
#define MIN_PACKET_ROOM 1518 /* a full-size Ethernet frame */

/* QoS defaults and limits (see xdplane.yaml(5)). */
#define QOS_DEF_OVERHEAD 24 /* preamble 8 + IFG 12 + FCS 4 */
#define QOS_MAX_OVERHEAD 256
#define QOS_MAX_RATE 10000000000000ull /* 10 Tbit/s */
#define QOS_BURST_MIN 32768 /* default bursts: at least 32 KiB... */
#define QOS_BURST_TIME 40000 /* ...or rate * 200 us / 8 = rate / 40000 */
#define QOS_DEF_QUANTUM 9000
#define QOS_MIN_QUANTUM 64
#define QOS_MAX_QUANTUM (1u << 20)
#define QOS_DEF_LIMIT_BYTES (4u << 20)
#define QOS_DEF_LIMIT_PACKETS 2048
#define QOS_MAX_LIMIT_PACKETS 65536
#define QOS_MAX_LEVEL 7
#define QOS_DEFAULT_NAME "default"

/* DCQCN limits and the defaults no profile sets (see xdplane.yaml(5)). */
#define DCQCN_DEF_MAX_FLOWS 1024
#define DCQCN_MAX_FLOWS 65536
#define DCQCN_DEF_FLOW_IDLE_NS 100000000ull /* 100ms */
#define DCQCN_DEF_NP_DSCP 48
#define DCQCN_DEF_NP_PCP 6
#define DCQCN_MAX_F 31 /* fast recovery stages, ConnectX's 5-bit field */
#define DCQCN_MIN_GAIN 0.000001 /* g and alpha_init: at least this... */
#define DCQCN_MIN_GAIN_TEXT "0.000001" /* ...written so */
#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

/* Daemon defaults (see xdplane.yaml(5)). */
#define DEF_CONTROL_SOCKET "/run/xdplane/control.sock"
#define DEF_METRICS_LISTEN "127.0.0.1:9470"
#define DEF_LOG_LEVEL LOG_LVL_INFO
#define RAW_PATH_MAX 256 /* longer socket paths: libcyaml's message */

/* What the text-valued QoS keys accept, for messages. */
#define SYN_RATE                                                               \
	"a rate in bits/s: a number with an optional unit bit, kbit, Mbit, "   \
	"Gbit or Tbit (also bps, kbps, Mbps, Gbps, Tbps), e.g. 100Gbit, "      \
	"1.5Gbit or 800Mbit"
#define SYN_RATE_PCT SYN_RATE ", or a percentage of the port rate, e.g. 5%"
#define SYN_SIZE                                                               \
	"a size in bytes: a number with an optional unit KB, MB, GB (1000s) "  \
	"or KiB, MiB, GiB (1024s), e.g. 64KB or 4MiB"
#define SYN_PROB                                                               \
	"a probability above 0 and at most 1: a percentage such as 1% or a "   \
	"fraction such as 0.01"
#define SYN_NAME "a name of 1 to 31 letters, digits, '_' or '-'"
#define SYN_PREFIX                                                             \
	"an IPv4 or IPv6 address or prefix, e.g. 10.1.0.0/16, fd00::/8 or "    \
	"10.1.2.3"
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

/* The file's shape, as libcyaml fills it; absent keys are left 0. */
struct raw_workers {
	uint32_t *cpus;
	unsigned int cpus_count;
};

/* QoS values that are written as text ("100Gbit", "5%", "64KiB",
 * "10.1.0.0/16") are loaded as strings and parsed here. */
#define TXT 48

struct raw_port {
	char interface[CONFIG_IFNAME_MAX];
	uint32_t mtu;
	char rate[TXT];
	char burst[TXT];
	char link_speed[TXT];
};

struct raw_ecn {
	char kmin[TXT];
	char kmax[TXT];
	char pmax[TXT];
	enum qos_nonect non_ect;
};

struct raw_class {
	char name[QOS_NAME_MAX];
	uint32_t level;
	uint32_t quantum;
	char ceil[TXT];
	char ceil_burst[TXT];
	char min[TXT];
	char min_burst[TXT];
	char limit_bytes[TXT];
	uint32_t limit_packets;
	struct raw_ecn ecn;
	char dcqcn[TXT];
	char lossless[TXT];
	uint32_t pcp;
};

/* The pfc mapping (PFC, IEEE 802.1Qbb; see load_pfc()). */
struct raw_pfc {
	char enabled[TXT];
	char xoff[TXT];
	char xon[TXT];
	uint32_t cable_length;
	uint32_t pause_quanta;
	uint32_t watchdog;
	uint32_t watchdog_restore;
};

/* pcp, dscp and ecn (a number or a list) are read from the yaml_loc. */
struct raw_match {
	char ethertype[TXT];
	uint32_t vlan;
	char src[TXT + 16];
	char dst[TXT + 16];
	char proto[TXT];
	char sport[TXT];
	char dport[TXT];
	char bth_opcode[TXT];
};

struct raw_rule {
	char class_name[QOS_NAME_MAX];
	struct raw_match match;
};

enum raw_clamp {
	CLAMP_DEFAULT = 0,
	CLAMP_ALWAYS,
	CLAMP_AFTER_INC,
	CLAMP_NEVER
};

struct raw_np {
	char enabled[TXT];
	uint32_t dscp;
	uint32_t pcp;
};

/* The dcqcn mapping; what was written is told by yaml_loc, not by these. */
struct raw_dcqcn {
	enum dcqcn_profile profile;
	char line_rate[TXT];
	char min_rate[TXT];
	char rate_ai[TXT];
	char rate_hai[TXT];
	char g[TXT];
	char alpha_init[TXT];
	char alpha_timer[TXT];
	char increase_timer[TXT];
	char decrease_period[TXT];
	char byte_counter[TXT];
	uint32_t fast_recovery;
	char min_decrease[TXT];
	enum raw_clamp clamp;
	char first_cnp_rate[TXT];
	char alpha_before_cut[TXT];
	char cnp_interval[TXT];
	enum qos_flow_key flow_key;
	uint32_t max_flows;
	char flow_idle[TXT];
	enum qos_cnp_action cnp;
	char cp_loop[TXT];
	struct raw_np np;
};

struct raw_umem {
	uint32_t frames;
	uint32_t frame_size;
	uint32_t headroom;
	char hugepages[TXT];
};

struct raw_control {
	char socket[RAW_PATH_MAX];
	char socket_group[CONFIG_ACCOUNT_MAX];
	char metrics_listen[CONFIG_LISTEN_MAX];
	uint32_t stats_interval_ms;
};

struct raw_config {
	struct raw_port *ports;
	unsigned int ports_count;
	uint32_t overhead;
	struct raw_class *classes;
	unsigned int classes_count;
	struct raw_rule *rules;
	unsigned int rules_count;
	char default_class[QOS_NAME_MAX];
	enum qos_malformed_policy malformed;
	struct raw_dcqcn dcqcn;
	struct raw_pfc pfc;
	char queues[TXT]; /* a number, or auto */
	enum xdp_attach_mode xdp_mode;
	enum xsk_bind_mode bind_mode;
	enum failure_mode failure_mode;
	struct config_rings rings;
	struct raw_umem umem;
	struct config_poll poll;
	struct raw_workers workers;
	struct raw_control control;
	char user[CONFIG_ACCOUNT_MAX];
	char group[CONFIG_ACCOUNT_MAX];
	int log_level;
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

static const cyaml_strval_t nonect_modes[] = {
	{"drop", QOS_NONECT_DROP},
	{"pass", QOS_NONECT_PASS},
};

static const cyaml_strval_t malformed_modes[] = {
	{"default", QOS_MALFORMED_DEFAULT},
	{"drop", QOS_MALFORMED_DROP},
};

static const cyaml_strval_t dcqcn_profiles[] = {
	{"paper", DCQCN_PAPER},
	{"connectx", DCQCN_CONNECTX},
};

static const cyaml_strval_t clamp_modes[] = {
	{"always", CLAMP_ALWAYS},
	{"after_increase", CLAMP_AFTER_INC},
	{"never", CLAMP_NEVER},
};

static const cyaml_strval_t flow_keys[] = {
	{"host", QOS_FLOW_HOST},
	{"qp", QOS_FLOW_QP},
};

static const cyaml_strval_t cnp_actions[] = {
	{"forward", QOS_CNP_FORWARD},
	{"absorb", QOS_CNP_ABSORB},
};

static const cyaml_strval_t log_levels[] = {
	{"err", LOG_LVL_ERR},	    {"warn", LOG_LVL_WARN},
	{"notice", LOG_LVL_NOTICE}, {"info", LOG_LVL_INFO},
	{"debug", LOG_LVL_DEBUG},
};

static const char *strval_name(const cyaml_strval_t *t, size_t n, int64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].val == v)
			return t[i].str;
	return "invalid";
}

#define OPT CYAML_FLAG_OPTIONAL
#define OPT_ENUM (CYAML_FLAG_OPTIONAL | CYAML_FLAG_STRICT)

/* Arrays, not pointers, inside sequence entries: libcyaml 1.3.1 frees
 * uninitialised pointers when an entry after the first fails to load. */
static const cyaml_schema_field_t port_fields[] = {
	CYAML_FIELD_STRING("interface", OPT, struct raw_port, interface, 1),
	CYAML_FIELD_UINT("mtu", OPT, struct raw_port, mtu),
	CYAML_FIELD_STRING("rate", OPT, struct raw_port, rate, 1),
	CYAML_FIELD_STRING("burst", OPT, struct raw_port, burst, 1),
	CYAML_FIELD_STRING("link_speed", OPT, struct raw_port, link_speed, 1),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t port_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_port, port_fields),
};

static const cyaml_schema_field_t ecn_fields[] = {
	CYAML_FIELD_STRING("kmin", OPT, struct raw_ecn, kmin, 1),
	CYAML_FIELD_STRING("kmax", OPT, struct raw_ecn, kmax, 1),
	CYAML_FIELD_STRING("pmax", OPT, struct raw_ecn, pmax, 1),
	CYAML_FIELD_ENUM("non_ect", OPT_ENUM, struct raw_ecn, non_ect,
			 nonect_modes, CYAML_ARRAY_LEN(nonect_modes)),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t class_fields[] = {
	CYAML_FIELD_STRING("name", OPT, struct raw_class, name, 1),
	CYAML_FIELD_UINT("level", OPT, struct raw_class, level),
	CYAML_FIELD_UINT("quantum", OPT, struct raw_class, quantum),
	CYAML_FIELD_STRING("ceil", OPT, struct raw_class, ceil, 1),
	CYAML_FIELD_STRING("ceil_burst", OPT, struct raw_class, ceil_burst, 1),
	CYAML_FIELD_STRING("min", OPT, struct raw_class, min, 1),
	CYAML_FIELD_STRING("min_burst", OPT, struct raw_class, min_burst, 1),
	CYAML_FIELD_STRING("limit_bytes", OPT, struct raw_class, limit_bytes,
			   1),
	CYAML_FIELD_UINT("limit_packets", OPT, struct raw_class, limit_packets),
	CYAML_FIELD_MAPPING("ecn", OPT, struct raw_class, ecn, ecn_fields),
	CYAML_FIELD_STRING("dcqcn", OPT, struct raw_class, dcqcn, 1),
	CYAML_FIELD_STRING("lossless", OPT, struct raw_class, lossless, 1),
	CYAML_FIELD_UINT("pcp", OPT, struct raw_class, pcp),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t class_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_class, class_fields),
};

static const cyaml_schema_field_t match_fields[] = {
	CYAML_FIELD_STRING("ethertype", OPT, struct raw_match, ethertype, 1),
	CYAML_FIELD_UINT("vlan", OPT, struct raw_match, vlan),
	CYAML_FIELD_IGNORE("pcp", OPT),
	CYAML_FIELD_STRING("src", OPT, struct raw_match, src, 1),
	CYAML_FIELD_STRING("dst", OPT, struct raw_match, dst, 1),
	CYAML_FIELD_STRING("proto", OPT, struct raw_match, proto, 1),
	CYAML_FIELD_IGNORE("dscp", OPT),
	CYAML_FIELD_IGNORE("ecn", OPT),
	CYAML_FIELD_STRING("sport", OPT, struct raw_match, sport, 1),
	CYAML_FIELD_STRING("dport", OPT, struct raw_match, dport, 1),
	CYAML_FIELD_STRING("bth_opcode", OPT, struct raw_match, bth_opcode, 1),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t rule_fields[] = {
	CYAML_FIELD_STRING("class", OPT, struct raw_rule, class_name, 1),
	CYAML_FIELD_MAPPING("match", OPT, struct raw_rule, match, match_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t rule_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_rule, rule_fields),
};

static const cyaml_schema_field_t pfc_fields[] = {
	CYAML_FIELD_STRING("enabled", OPT, struct raw_pfc, enabled, 1),
	CYAML_FIELD_STRING("xoff", OPT, struct raw_pfc, xoff, 1),
	CYAML_FIELD_STRING("xon", OPT, struct raw_pfc, xon, 1),
	CYAML_FIELD_UINT("cable_length", OPT, struct raw_pfc, cable_length),
	CYAML_FIELD_UINT("pause_quanta", OPT, struct raw_pfc, pause_quanta),
	CYAML_FIELD_UINT("watchdog", OPT, struct raw_pfc, watchdog),
	CYAML_FIELD_UINT("watchdog_restore", OPT, struct raw_pfc,
			 watchdog_restore),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t np_fields[] = {
	CYAML_FIELD_STRING("enabled", OPT, struct raw_np, enabled, 1),
	CYAML_FIELD_UINT("dscp", OPT, struct raw_np, dscp),
	CYAML_FIELD_UINT("pcp", OPT, struct raw_np, pcp),
	CYAML_FIELD_END,
};

#define DCQCN_TEXT(key, min)                                                   \
	CYAML_FIELD_STRING(#key, OPT, struct raw_dcqcn, key, min)

static const cyaml_schema_field_t dcqcn_fields[] = {
	CYAML_FIELD_ENUM("profile", OPT_ENUM, struct raw_dcqcn, profile,
			 dcqcn_profiles, CYAML_ARRAY_LEN(dcqcn_profiles)),
	DCQCN_TEXT(line_rate, 0),
	DCQCN_TEXT(min_rate, 1),
	DCQCN_TEXT(rate_ai, 1),
	DCQCN_TEXT(rate_hai, 1),
	DCQCN_TEXT(g, 1),
	DCQCN_TEXT(alpha_init, 1),
	DCQCN_TEXT(alpha_timer, 1),
	DCQCN_TEXT(increase_timer, 1),
	DCQCN_TEXT(decrease_period, 1),
	DCQCN_TEXT(byte_counter, 1),
	CYAML_FIELD_UINT("fast_recovery", OPT, struct raw_dcqcn, fast_recovery),
	DCQCN_TEXT(min_decrease, 1),
	CYAML_FIELD_ENUM("clamp", OPT_ENUM, struct raw_dcqcn, clamp,
			 clamp_modes, CYAML_ARRAY_LEN(clamp_modes)),
	DCQCN_TEXT(first_cnp_rate, 0),
	DCQCN_TEXT(alpha_before_cut, 1),
	DCQCN_TEXT(cnp_interval, 1),
	CYAML_FIELD_ENUM("flow_key", OPT_ENUM, struct raw_dcqcn, flow_key,
			 flow_keys, CYAML_ARRAY_LEN(flow_keys)),
	CYAML_FIELD_UINT("max_flows", OPT, struct raw_dcqcn, max_flows),
	DCQCN_TEXT(flow_idle, 1),
	CYAML_FIELD_ENUM("cnp", OPT_ENUM, struct raw_dcqcn, cnp, cnp_actions,
			 CYAML_ARRAY_LEN(cnp_actions)),
	DCQCN_TEXT(cp_loop, 1),
	CYAML_FIELD_MAPPING("np", OPT, struct raw_dcqcn, np, np_fields),
	CYAML_FIELD_END,
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
	CYAML_FIELD_UINT("frames", OPT, struct raw_umem, frames),
	CYAML_FIELD_UINT("frame_size", OPT, struct raw_umem, frame_size),
	CYAML_FIELD_UINT("headroom", OPT, struct raw_umem, headroom),
	CYAML_FIELD_STRING("hugepages", OPT, struct raw_umem, hugepages, 1),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t poll_fields[] = {
	CYAML_FIELD_UINT("busy_us", OPT, struct config_poll, busy_us),
	CYAML_FIELD_UINT("shaper_spin_us", OPT, struct config_poll,
			 shaper_spin_us),
	CYAML_FIELD_UINT("batch", OPT, struct config_poll, batch),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t control_fields[] = {
	CYAML_FIELD_STRING("socket", OPT, struct raw_control, socket, 0),
	CYAML_FIELD_STRING("socket_group", OPT, struct raw_control,
			   socket_group, 0),
	CYAML_FIELD_STRING("metrics_listen", OPT, struct raw_control,
			   metrics_listen, 0),
	CYAML_FIELD_UINT("stats_interval_ms", OPT, struct raw_control,
			 stats_interval_ms),
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
	CYAML_FIELD_STRING("queues", OPT, struct raw_config, queues, 1),
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
	CYAML_FIELD_UINT("overhead", OPT, struct raw_config, overhead),
	CYAML_FIELD_SEQUENCE("classes", OPT | CYAML_FLAG_POINTER,
			     struct raw_config, classes, &class_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("rules", OPT | CYAML_FLAG_POINTER,
			     struct raw_config, rules, &rule_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_STRING("default_class", OPT, struct raw_config,
			   default_class, 1),
	CYAML_FIELD_ENUM("malformed", OPT_ENUM, struct raw_config, malformed,
			 malformed_modes, CYAML_ARRAY_LEN(malformed_modes)),
	CYAML_FIELD_MAPPING("dcqcn", OPT, struct raw_config, dcqcn,
			    dcqcn_fields),
	CYAML_FIELD_MAPPING("pfc", OPT, struct raw_config, pfc, pfc_fields),
	CYAML_FIELD_MAPPING("control", OPT, struct raw_config, control,
			    control_fields),
	CYAML_FIELD_STRING("user", OPT, struct raw_config, user, 0),
	CYAML_FIELD_STRING("group", OPT, struct raw_config, group, 0),
	CYAML_FIELD_ENUM("log_level", OPT_ENUM, struct raw_config, log_level,
			 log_levels, CYAML_ARRAY_LEN(log_levels)),
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
	UKEY("poll.shaper_spin_us", poll.shaper_spin_us, 500, 0, 100000, false,
	     " microseconds"),
	UKEY("poll.batch", poll.batch, 64, 1, 256, false, " descriptors"),
	UKEY("overhead", qos.port[0].overhead, QOS_DEF_OVERHEAD, 0,
	     QOS_MAX_OVERHEAD, false, " bytes"),
	UKEY("control.stats_interval_ms", control.stats_interval_ms, 1000, 100,
	     60000, false, " milliseconds"),
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
	/* one line: text quoted from the file (a multi-line scalar, a key
	 * with a tab) must not start a line of its own in a log */
	for (char *p = msg + len; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
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

/* The syntax a text-valued QoS key accepts, by the last name in its path;
 * NULL for the keys whose schema describes them well enough. */
static const char *syntax_of(const char *path)
{
	static const struct {
		const char *key, *syntax;
	} keys[] = {
		{"rate", SYN_RATE},
		{"burst", SYN_SIZE},
		{"ceil", SYN_RATE_PCT},
		{"min", SYN_RATE_PCT},
		{"ceil_burst", SYN_SIZE},
		{"min_burst", SYN_SIZE},
		{"limit_bytes", SYN_SIZE},
		{"kmin", SYN_SIZE},
		{"kmax", SYN_SIZE},
		{"pmax", SYN_PROB},
		{"name", SYN_NAME},
		{"class", SYN_NAME},
		{"default_class", SYN_NAME},
		{"ethertype", SYN_ETHERTYPE},
		{"src", SYN_PREFIX},
		{"dst", SYN_PREFIX},
		{"proto", SYN_PROTO},
		{"sport", SYN_PORT},
		{"dport", SYN_PORT},
		{"bth_opcode", SYN_OPCODE},
		{"socket", SYN_SOCKET},
		{"metrics_listen", SYN_LISTEN},
		{"socket_group", SYN_ACCOUNT},
		{"user", SYN_ACCOUNT},
		{"group", SYN_ACCOUNT},
		{"dcqcn", SYN_BOOL}, /* classes[].dcqcn */
		{"line_rate", SYN_LINE},
		{"min_rate", SYN_RATE},
		{"rate_ai", SYN_RATE},
		{"rate_hai", SYN_RATE},
		{"g", SYN_GAIN},
		{"alpha_init", SYN_GAIN},
		{"alpha_timer", SYN_TIME},
		{"increase_timer", SYN_TIME},
		{"decrease_period", SYN_TIME},
		{"byte_counter", SYN_SIZE},
		{"min_decrease", SYN_DECREASE},
		{"cnp_interval", SYN_TIME},
		{"flow_idle", SYN_TIME},
		{"first_cnp_rate", SYN_FIRST_CNP},
		{"alpha_before_cut", SYN_BOOL},
		{"cp_loop", SYN_BOOL},
		{"enabled", SYN_BOOL},
		{"queues", SYN_QUEUES},
		{"hugepages", SYN_BOOL}, /* umem.hugepages */
		{"lossless", SYN_BOOL}, /* classes[].lossless */
		{"link_speed", SYN_RATE}, /* ports[].link_speed */
		{"xoff", SYN_PFC_SIZE}, /* pfc.xoff */
		{"xon", SYN_PFC_SIZE}, /* pfc.xon */
	};
	const char *key = strrchr(path, '.');

	if (strncmp(path, "ports", 5) && strncmp(path, "classes", 7) &&
	    strncmp(path, "rules", 5) && strcmp(path, "default_class") &&
	    strncmp(path, "control.", 8) && strcmp(path, "user") &&
	    strcmp(path, "group") && strncmp(path, "dcqcn.", 6) &&
	    strcmp(path, "queues") && strcmp(path, "umem.hugepages") &&
	    strncmp(path, "pfc.", 4))
		return NULL;
	key = key ? key + 1 : path;
	for (size_t i = 0; i < CYAML_ARRAY_LEN(keys); i++)
		if (!strcmp(keys[i].key, key))
			return keys[i].syntax;
	return NULL;
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
	const char *near = NULL, *syntax = syntax_of(n->path);
	char want[384], got[64];

	if (syntax)
		snprintf(want, sizeof(want), "%s", syntax);
	else
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
	char path[300], names[384] = "";
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
		snprintf(path, sizeof(path), "ports[%u].mtu", i);
		cfg->ports[i].mtu = 0;
		if (!yaml_loc_find(&c->loc, path))
			continue;
		if (raw->ports[i].mtu < CONFIG_MTU_MIN ||
		    raw->ports[i].mtu > CONFIG_MTU_MAX)
			return fail(c, val_pos(c, path),
				    "%s: must be between %d and %d bytes (got "
				    "%u); leave it out to keep the interface's "
				    "MTU",
				    path, CONFIG_MTU_MIN, CONFIG_MTU_MAX,
				    raw->ports[i].mtu);
		cfg->ports[i].mtu = raw->ports[i].mtu;
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

/* What umem.frames must be at least: a fill ring, a TX ring and a
 * handoff ring of frames for each of the 2 * queues sockets. */
static uint64_t frames_needed(const struct xdplane_config *cfg, uint32_t queues)
{
	const struct config_rings *r = &cfg->rings;

	return 2ull * queues * (r->fill + r->tx + r->handoff);
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
	if (cfg->queues == CONFIG_QUEUES_AUTO) /* checked at start */
		return 0;
	need = frames_needed(cfg, cfg->queues);
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

/*
 * QoS: port shapers, classes, rules. Rates are exact integers of bits/s,
 * sizes of bytes; shares and probabilities are parts of QOS_PROB_ONE,
 * rounded to the nearest, halves up.
 */
typedef unsigned __int128 u128;

#define DEC_DIGITS 30 /* at most, in one decimal number */
#define DEC_BIG 26 /* numbers above 10^26 are out of range anyway */

static u128 pow10_of(unsigned int n)
{
	u128 p = 1;

	while (n--)
		p *= 10;
	return p;
}

/* The decimal number at the start of s ("0", "25", "1.5": no sign, no
 * exponent, no leading zero); its value is *num / 10^*scale. Returns how
 * many characters it takes, 0 if s does not start with one. */
static size_t parse_decimal(const char *s, u128 *num, unsigned int *scale)
{
	size_t i, digits = 0;
	bool point = false;

	*num = 0;
	*scale = 0;
	if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		return 0;
	for (i = 0;; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (++digits > DEC_DIGITS)
				return 0;
			*num = *num * 10 + (unsigned int)(s[i] - '0');
			*scale += point;
		} else if (s[i] == '.' && !point && digits && s[i + 1] >= '0' &&
			   s[i + 1] <= '9') {
			point = true;
		} else {
			break;
		}
	}
	return digits ? i : 0;
}

struct unit {
	const char *name; /* compared without regard to case */
	uint64_t mult;
};

static const struct unit rate_units[] = {
	{"", 1},
	{"bit", 1},
	{"bps", 1},
	{"kbit", 1000},
	{"kbps", 1000},
	{"mbit", 1000000},
	{"mbps", 1000000},
	{"gbit", 1000000000},
	{"gbps", 1000000000},
	{"tbit", 1000000000000},
	{"tbps", 1000000000000},
};

static const struct unit size_units[] = {
	{"", 1},
	{"b", 1},
	{"kb", 1000},
	{"kib", 1024},
	{"mb", 1000000},
	{"mib", 1u << 20},
	{"gb", 1000000000},
	{"gib", 1u << 30},
};

enum num_rc { NUM_OK, NUM_SYNTAX, NUM_FRACTION, NUM_RANGE, NUM_ZERO };

/* A decimal number with a unit ("1.5Gbit", "64KiB") as an exact integer
 * up to max. */
static enum num_rc parse_unit(const char *s, const struct unit *units,
			      size_t n_units, uint64_t max, uint64_t *out)
{
	unsigned int scale;
	u128 num, v;
	size_t len = parse_decimal(s, &num, &scale), i;

	if (!len)
		return NUM_SYNTAX;
	for (i = 0; i < n_units && strcasecmp(s + len, units[i].name); i++)
		;
	if (i == n_units)
		return NUM_SYNTAX;
	if (num > pow10_of(DEC_BIG))
		return NUM_RANGE;
	v = num * units[i].mult; /* <= 10^26 * 10^12 < 2^128 */
	if (v % pow10_of(scale))
		return NUM_FRACTION;
	v /= pow10_of(scale);
	if (v > max)
		return NUM_RANGE;
	*out = (uint64_t)v;
	return NUM_OK;
}

/* num / den (<= 1) in parts of QOS_PROB_ONE, to the nearest, halves up. */
static uint32_t to_share(u128 num, u128 den)
{
	return (uint32_t)((2 * num * QOS_PROB_ONE + den) / (2 * den));
}

/* "N%", 0 < N <= 100, as parts of QOS_PROB_ONE. */
static enum num_rc parse_percent(const char *s, uint32_t *share)
{
	unsigned int scale;
	size_t len;
	u128 num, p;

	len = parse_decimal(s, &num, &scale);
	if (!len || strcmp(s + len, "%"))
		return NUM_SYNTAX;
	p = pow10_of(scale);
	if (!num || num > 100 * p)
		return NUM_RANGE;
	*share = to_share(num, 100 * p);
	return *share ? NUM_OK : NUM_ZERO;
}

/* "N%" or a fraction "0.01", in (0, 1], as parts of QOS_PROB_ONE. */
static enum num_rc parse_prob(const char *s, uint32_t *prob)
{
	unsigned int scale;
	size_t len;
	u128 num, p;

	if (*s && s[strlen(s) - 1] == '%')
		return parse_percent(s, prob);
	len = parse_decimal(s, &num, &scale);
	if (!len || s[len])
		return NUM_SYNTAX;
	p = pow10_of(scale);
	if (!num || num > p)
		return NUM_RANGE;
	*prob = to_share(num, p);
	return *prob ? NUM_OK : NUM_ZERO;
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

/* "2049" or "1000-2000". Returns false if unparsable; lo > hi is left to
 * the caller. */
static bool parse_ports(const char *s, uint16_t *lo, uint16_t *hi)
{
	char buf[TXT], *dash;
	uint32_t a, b;

	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (!parse_number(buf, UINT16_MAX, &a) ||
	    (dash && !parse_number(dash, UINT16_MAX, &b)))
		return false;
	*lo = (uint16_t)a;
	*hi = (uint16_t)(dash ? b : a);
	return true;
}

/* "10.1.0.0/16", "fd00::/8", "10.1.2.3" (= /32). Fills *p with the host
 * bits cleared and tells whether any were set. */
static bool parse_prefix(const char *s, struct qos_prefix *p, bool *host_bits)
{
	char buf[TXT + 16], *slash;
	uint32_t len;
	unsigned int max;
	int af;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	af = strchr(buf, ':') ? AF_INET6 : AF_INET;
	max = af == AF_INET ? 32 : 128;
	memset(p, 0, sizeof(*p));
	if (inet_pton(af, buf, p->addr) != 1)
		return false;
	if (slash && (!*slash || strchr(slash, 'x') || strchr(slash, 'X') ||
		      !parse_number(slash, max, &len)))
		return false;
	p->family = af == AF_INET ? 4 : 6;
	p->len = (uint8_t)(slash ? len : max);
	*host_bits = false;
	for (unsigned int bit = p->len; bit < max; bit++) {
		uint8_t m = (uint8_t)(0x80u >> (bit % 8));

		if (p->addr[bit / 8] & m)
			*host_bits = true;
		p->addr[bit / 8] &= (uint8_t)~m;
	}
	return true;
}

static void prefix_text(const struct qos_prefix *p, char *buf, size_t size)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 4 ? AF_INET : AF_INET6, p->addr, addr,
		  sizeof(addr));
	snprintf(buf, size, "%s/%u", addr, p->len);
}

static const cyaml_strval_t protos[] = {
	{"udp", 17},
	{"tcp", 6},
	{"icmp", 1},
	{"icmpv6", 58},
};

/* num / 10^scale without trailing zeros: "25", "1.5". */
static void fixed_text(char *buf, size_t size, uint64_t num, unsigned int scale)
{
	uint64_t p = (uint64_t)pow10_of(scale), frac = num % p;
	int digits = (int)scale;

	while (digits && !(frac % 10)) {
		frac /= 10;
		digits--;
	}
	if (digits)
		snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64, num / p, digits,
			 frac);
	else
		snprintf(buf, size, "%" PRIu64, num / p);
}

/* "100Gbit", "1.5Gbit", "800Mbit", "500bit": exact. */
static void rate_text(char *buf, size_t size, uint64_t bps)
{
	static const struct {
		const char *name;
		unsigned int scale;
	} units[] = {{"Tbit", 12}, {"Gbit", 9}, {"Mbit", 6}, {"kbit", 3}};
	size_t len;

	for (size_t i = 0; i < CYAML_ARRAY_LEN(units); i++)
		if (bps >= (uint64_t)pow10_of(units[i].scale)) {
			fixed_text(buf, size, bps, units[i].scale);
			len = strlen(buf);
			snprintf(buf + len, size - len, "%s", units[i].name);
			return;
		}
	snprintf(buf, size, "%" PRIu64 "bit", bps);
}

/* "4MiB", "2500KB", "1500": the largest unit that divides it. */
static void size_text(char *buf, size_t size, uint32_t bytes)
{
	static const struct unit units[] = {
		{"GiB", 1u << 30}, {"GB", 1000000000}, {"MiB", 1u << 20},
		{"MB", 1000000},   {"KiB", 1024},      {"KB", 1000},
	};

	for (size_t i = 0; bytes && i < CYAML_ARRAY_LEN(units); i++)
		if (!(bytes % units[i].mult)) {
			snprintf(buf, size, "%" PRIu64 "%s",
				 bytes / units[i].mult, units[i].name);
			return;
		}
	snprintf(buf, size, "%" PRIu32, bytes);
}

/* The shortest percentage (at most 4 decimals; 3 always suffice) that
 * parses back to the same share: 6554 -> "10%", 655 -> "1%". */
static void share_text(char *buf, size_t size, uint32_t share)
{
	size_t len;
	u128 p, n;

	for (unsigned int d = 0; d <= 4; d++) {
		p = pow10_of(d);
		n = (2 * (u128)share * 100 * p + QOS_PROB_ONE) /
		    (2 * QOS_PROB_ONE);
		if (to_share(n, 100 * p) == share || d == 4) {
			fixed_text(buf, size, (uint64_t)n, d);
			break;
		}
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, "%%");
}

/* Default bucket for a rate: max(32 KiB, rate * 200 us / 8, rounded up). */
static uint32_t default_burst(uint64_t bps)
{
	uint64_t b = (bps + QOS_BURST_TIME - 1) / QOS_BURST_TIME;

	return b < QOS_BURST_MIN ? QOS_BURST_MIN : (uint32_t)b;
}

/* A key being loaded: its path and, if it was written, its node. */
struct key {
	char path[96];
	const struct yaml_loc_node *n;
};

__attribute__((format(printf, 3, 4))) static bool
key_at(const struct load_ctx *c, struct key *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->path, sizeof(k->path), fmt, ap);
	va_end(ap);
	k->n = yaml_loc_find(&c->loc, k->path);
	return k->n != NULL;
}

static void got_text(const struct yaml_loc_node *n, char *buf, size_t size)
{
	static const char *const kinds[] = {
		[YAML_LOC_SEQUENCE] = "a list",
		[YAML_LOC_MAPPING] = "a mapping",
		[YAML_LOC_ALIAS] = "an alias",
	};

	if (n->kind == YAML_LOC_SCALAR && !n->text[0])
		snprintf(buf, size, "nothing");
	else if (n->kind == YAML_LOC_SCALAR)
		snprintf(buf, size, "'%.40s%s'", n->text,
			 strlen(n->text) > 40 ? "..." : "");
	else
		snprintf(buf, size, "%s", kinds[n->kind]);
}

/* "path: expected SYNTAX (got 'text')" at the value of k. */
static int bad_value(const struct load_ctx *c, const struct key *k,
		     const char *syntax)
{
	char got[64];

	got_text(k->n, got, sizeof(got));
	return fail(c, k->n->val, "%s: expected %s (got %s)", k->path, syntax,
		    got);
}

/* x (bps, or share of rate) times QOS_PROB_ONE, to compare exactly. */
static u128 scaled(uint64_t bps, uint32_t share, uint64_t rate)
{
	return bps ? (u128)bps * QOS_PROB_ONE : (u128)share * rate;
}

static bool has_port_rate(const struct qos_policy *q)
{
	return q->port[0].rate_bps || q->port[1].rate_bps;
}

/* A written rate into *bps; with share != NULL "N%" is also accepted
 * (into *share). `none` says what leaving the key out means. */
static int get_rate(const struct load_ctx *c, const struct key *k,
		    const struct qos_policy *q, uint64_t *bps, uint32_t *share,
		    const char *none)
{
	const char *s = k->n->text;
	uint64_t v = 0;

	if (share && *s && s[strlen(s) - 1] == '%') {
		switch (parse_percent(s, share)) {
		case NUM_SYNTAX:
			return bad_value(c, k, SYN_RATE_PCT);
		case NUM_RANGE:
			return fail(c, k->n->val,
				    "%s: a percentage must be above 0%% and at "
				    "most 100%% (got '%s')",
				    k->path, s);
		case NUM_ZERO:
			return fail(c, k->n->val,
				    "%s: '%s' is less than one part in %u of "
				    "the port rate; use at least 0.0008%%",
				    k->path, s, QOS_PROB_ONE);
		default:
			break;
		}
		if (!has_port_rate(q))
			return fail(c, k->n->val,
				    "%s: a percentage needs ports[].rate; set "
				    "the rate of the ports, or write a rate "
				    "such as 5Gbit",
				    k->path);
		for (unsigned int p = 0; p < CONFIG_PORTS; p++)
			if (q->port[p].rate_bps &&
			    !(scaled(0, *share, q->port[p].rate_bps) >> 16))
				return fail(c, k->n->val,
					    "%s: '%s' of ports[%u].rate is "
					    "less than 1 bit/s",
					    k->path, s, p);
		return 0;
	}
	switch (parse_unit(s, rate_units, CYAML_ARRAY_LEN(rate_units),
			   QOS_MAX_RATE, &v)) {
	case NUM_OK:
		break;
	case NUM_FRACTION:
		return fail(c, k->n->val,
			    "%s: not a whole number of bits/s (got '%s')",
			    k->path, s);
	case NUM_RANGE:
		return fail(c, k->n->val,
			    "%s: above the largest rate, 10Tbit (got '%s')",
			    k->path, s);
	default:
		return bad_value(c, k, share ? SYN_RATE_PCT : SYN_RATE);
	}
	if (!v)
		return fail(c, k->n->val,
			    "%s: a rate of 0 (got '%s'); leave the key out "
			    "for %s",
			    k->path, s, none);
	*bps = v;
	return 0;
}

/* A written size into *bytes, at least min (why: what needs it). */
static int get_size(const struct load_ctx *c, const struct key *k, uint32_t min,
		    const char *why, uint32_t *bytes)
{
	const char *s = k->n->text;
	uint64_t v = 0;

	switch (parse_unit(s, size_units, CYAML_ARRAY_LEN(size_units),
			   UINT32_MAX, &v)) {
	case NUM_OK:
		break;
	case NUM_FRACTION:
		return fail(c, k->n->val,
			    "%s: not a whole number of bytes (got '%s')",
			    k->path, s);
	case NUM_RANGE:
		return fail(c, k->n->val,
			    "%s: above the largest size, 4294967295 bytes "
			    "(got '%s')",
			    k->path, s);
	default:
		return bad_value(c, k, SYN_SIZE);
	}
	if (v < min)
		return fail(c, k->n->val,
			    "%s: must be at least %u bytes, %s (got '%s')",
			    k->path, min, why, s);
	*bytes = (uint32_t)v;
	return 0;
}

/* A bucket or queue: holds the largest frame the UMEM can carry. */
static int get_frame_size(const struct load_ctx *c, const struct key *k,
			  const struct xdplane_config *cfg, uint32_t *bytes)
{
	return get_size(c, k, cfg->umem.frame_size,
			"umem.frame_size, to hold the largest frame", bytes);
}

static int get_range(const struct load_ctx *c, const struct key *k, uint32_t v,
		     uint32_t min, uint32_t max, const char *unit)
{
	if (v >= min && v <= max)
		return 0;
	return fail(c, k->n->val, "%s: must be between %u and %u%s (got %u)",
		    k->path, min, max, unit, v);
}

/* true or false, any case (YAML 1.2's core schema). */
static int get_bool(const struct load_ctx *c, const struct key *k,
		    const char *s, bool *b)
{
	if (!strcasecmp(s, "true"))
		*b = true;
	else if (!strcasecmp(s, "false"))
		*b = false;
	else
		return bad_value(c, k, SYN_BOOL);
	return 0;
}

/* queues: a plain decimal 1..CONFIG_MAX_QUEUES, or auto; default 1. */
static int load_queues(const struct load_ctx *c, const struct raw_config *r,
		       struct xdplane_config *cfg)
{
	const char *s = r->queues;
	unsigned long v;
	struct key k;

	cfg->queues = 1;
	if (!key_at(c, &k, "queues"))
		return 0;
	if (!strcmp(s, "auto")) {
		cfg->queues = CONFIG_QUEUES_AUTO;
		return 0;
	}
	if (!*s || s[strspn(s, "0123456789")] || (s[0] == '0' && s[1]))
		return bad_value(c, &k, SYN_QUEUES);
	v = strlen(s) > 9 ? ULONG_MAX : strtoul(s, NULL, 10);
	if (v < 1 || v > CONFIG_MAX_QUEUES)
		return fail(c, k.n->val,
			    "queues: must be between 1 and %d, or auto (got "
			    "%s)",
			    CONFIG_MAX_QUEUES, s);
	cfg->queues = (uint32_t)v;
	return 0;
}

/* The umem mapping: numbers (checked with the others), hugepages. */
static int load_umem(const struct load_ctx *c, const struct raw_umem *r,
		     struct xdplane_config *cfg)
{
	struct key k;

	cfg->umem.frames = r->frames;
	cfg->umem.frame_size = r->frame_size;
	cfg->umem.headroom = r->headroom;
	cfg->umem.hugepages = false;
	if (key_at(c, &k, "umem.hugepages") &&
	    get_bool(c, &k, r->hugepages, &cfg->umem.hugepages))
		return -1;
	return 0;
}

static int load_port_shapers(const struct load_ctx *c,
			     struct xdplane_config *cfg)
{
	struct qos_port *p;
	struct key k;

	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		p = &cfg->qos.port[i];
		p->overhead = cfg->qos.port[0].overhead;
		if (key_at(c, &k, "ports[%u].rate", i) &&
		    get_rate(c, &k, &cfg->qos, &p->rate_bps, NULL,
			     "an unshaped port"))
			return -1;
		p->burst = default_burst(p->rate_bps);
		if (key_at(c, &k, "ports[%u].burst", i) &&
		    get_frame_size(c, &k, cfg, &p->burst))
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
		rate_text(want, sizeof(want), bps);
		rate_text(port, sizeof(port), q->port[p].rate_bps);
		return fail(c, k->n->val,
			    "%s: %s is above ports[%u].rate %s; a class "
			    "cannot send faster than its port",
			    k->path, want, p, port);
	}
	return 0;
}

/* min <= ceil, on every port where they can be compared. */
static int check_min_ceil(const struct load_ctx *c, const struct key *k,
			  const struct qos_class *q, const struct raw_class *r,
			  const struct qos_policy *pol)
{
	bool same = !q->min_bps == !q->ceil_bps;
	char port[32];

	if (!(q->ceil_bps || q->ceil_share) || !(q->min_bps || q->min_share))
		return 0;
	if (same) {
		if (q->min_bps > q->ceil_bps || q->min_share > q->ceil_share)
			return fail(c, k->n->val,
				    "%s: the minimum %s is above the ceil %s; "
				    "a class cannot be guaranteed more than "
				    "it may send",
				    k->path, r->min, r->ceil);
		return 0;
	}
	for (unsigned int p = 0; p < CONFIG_PORTS; p++) {
		uint64_t rate = pol->port[p].rate_bps;

		if (!rate || scaled(q->min_bps, q->min_share, rate) <=
				     scaled(q->ceil_bps, q->ceil_share, rate))
			continue;
		rate_text(port, sizeof(port), rate);
		return fail(c, k->n->val,
			    "%s: the minimum %s is above the ceil %s on "
			    "ports[%u] (rate %s); a class cannot be "
			    "guaranteed more than it may send",
			    k->path, r->min, r->ceil, p, port);
	}
	return 0;
}

/* The minimums of classes[0..last] fit in every port rate. */
static int check_min_sum(const struct load_ctx *c, const struct key *k,
			 const struct qos_policy *q, unsigned int last)
{
	char pct[32], port[32];
	uint64_t rate;
	u128 sum, cap;

	for (unsigned int p = 0; p < CONFIG_PORTS; p++) {
		rate = q->port[p].rate_bps;
		sum = 0;
		for (unsigned int i = 0; i <= last; i++)
			sum += scaled(q->classes[i].min_bps,
				      q->classes[i].min_share, rate);
		cap = (u128)rate * QOS_PROB_ONE;
		if (!rate || sum <= cap)
			continue;
		/* tenths of a percent, rounded */
		fixed_text(pct, sizeof(pct),
			   (uint64_t)((sum * 2000 + cap) / (2 * cap)), 1);
		rate_text(port, sizeof(port), rate);
		return fail(c, k->n->val,
			    "%s: the minimums of classes[0] to classes[%u] add "
			    "up to %s%% of ports[%u].rate %s; together they "
			    "must fit in it",
			    k->path, last, pct, p, port);
	}
	return 0;
}

static int load_ecn(const struct load_ctx *c, const struct raw_ecn *r,
		    unsigned int i, struct qos_class *q)
{
	static const char *const example[] = {"kmin: 30KB", "kmax: 300KB",
					      "pmax: 1%"};
	static const char *const names[] = {"kmin", "kmax", "pmax"};
	struct qos_ecn *e = &q->ecn;
	struct key k, at;
	char text[32];

	for (unsigned int j = 0; j < 3; j++)
		if (!key_at(c, &k, "classes[%u].ecn.%s", i, names[j])) {
			key_at(c, &at, "classes[%u].ecn", i);
			return fail(c, at.n->val,
				    "%s: required key is missing; add e.g. "
				    "'%s'",
				    k.path, example[j]);
		}
	key_at(c, &k, "classes[%u].ecn.kmin", i);
	if (get_size(c, &k, 0, "", &e->kmin))
		return -1;
	key_at(c, &k, "classes[%u].ecn.kmax", i);
	if (get_size(c, &k, 0, "", &e->kmax))
		return -1;
	if (e->kmax <= e->kmin)
		return fail(c, k.n->val,
			    "%s: must be above kmin %s (got '%s'); marking "
			    "rises from 0 at kmin to pmax at kmax",
			    k.path, r->kmin, r->kmax);
	if (e->kmax > q->limit_bytes) {
		size_text(text, sizeof(text), q->limit_bytes);
		return fail(c, k.n->val,
			    "%s: above the class's limit_bytes %s (got '%s'); "
			    "the queue would drop before marking reached pmax",
			    k.path, text, r->kmax);
	}
	key_at(c, &k, "classes[%u].ecn.pmax", i);
	switch (parse_prob(r->pmax, &e->pmax)) {
	case NUM_OK:
		break;
	case NUM_SYNTAX:
		return bad_value(c, &k, SYN_PROB);
	case NUM_ZERO:
		return fail(c, k.n->val,
			    "%s: '%s' is less than one part in %u; use at "
			    "least 0.0008%%",
			    k.path, r->pmax, QOS_PROB_ONE);
	default:
		return fail(c, k.n->val,
			    "%s: must be above 0 and at most 1 (100%%) "
			    "(got '%s')",
			    k.path, r->pmax);
	}
	e->nonect = r->non_ect;
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

	if (!key_at(c, &k, "%s", path)) {
		if (!bps)
			bps = (uint64_t)((u128)share *
					 max_port_rate(&cfg->qos) /
					 QOS_PROB_ONE);
		*burst = default_burst(bps);
		return 0;
	}
	return get_frame_size(c, &k, cfg, burst);
}

static void class_defaults(struct qos_class *q)
{
	q->quantum = QOS_DEF_QUANTUM;
	q->ceil_burst = QOS_BURST_MIN;
	q->min_burst = QOS_BURST_MIN;
	q->limit_bytes = QOS_DEF_LIMIT_BYTES;
	q->limit_packets = QOS_DEF_LIMIT_PACKETS;
}

static int load_class(const struct load_ctx *c, const struct raw_class *r,
		      unsigned int i, struct xdplane_config *cfg)
{
	struct qos_class *q = &cfg->qos.classes[i];
	struct key k, first;
	char path[64];

	class_defaults(q);
	if (!key_at(c, &k, "classes[%u].name", i)) {
		snprintf(path, sizeof(path), "classes[%u]", i);
		return fail(c, val_pos(c, path),
			    "%s.name: required key is missing; add "
			    "'name: NAME' to this entry",
			    path);
	}
	if (!valid_class_name(r->name))
		return bad_value(c, &k, SYN_NAME);
	for (unsigned int j = 0; j < i; j++)
		if (!strcmp(cfg->qos.classes[j].name, r->name)) {
			key_at(c, &first, "classes[%u].name", j);
			return fail(c, k.n->val,
				    "%s: '%s' is already the name of "
				    "classes[%u] (at %u:%u); names must be "
				    "unique",
				    k.path, r->name, j, first.n->val.line,
				    first.n->val.col);
		}
	snprintf(q->name, sizeof(q->name), "%s", r->name);
	if (key_at(c, &k, "classes[%u].level", i)) {
		if (get_range(c, &k, r->level, 0, QOS_MAX_LEVEL, ""))
			return -1;
		q->level = (uint8_t)r->level;
	}
	if (key_at(c, &k, "classes[%u].quantum", i)) {
		if (!r->quantum)
			return fail(c, k.n->val,
				    "%s: must be between %u and %u bytes (got "
				    "0); a class with quantum 0 would never be "
				    "served",
				    k.path, QOS_MIN_QUANTUM, QOS_MAX_QUANTUM);
		if (get_range(c, &k, r->quantum, QOS_MIN_QUANTUM,
			      QOS_MAX_QUANTUM, " bytes"))
			return -1;
		q->quantum = r->quantum;
	}
	if (key_at(c, &k, "classes[%u].ceil", i) &&
	    (get_rate(c, &k, &cfg->qos, &q->ceil_bps, &q->ceil_share,
		      "no ceiling") ||
	     check_vs_ports(c, &k, &cfg->qos, q->ceil_bps)))
		return -1;
	if (key_at(c, &k, "classes[%u].min", i) &&
	    (get_rate(c, &k, &cfg->qos, &q->min_bps, &q->min_share,
		      "no minimum") ||
	     check_vs_ports(c, &k, &cfg->qos, q->min_bps) ||
	     check_min_ceil(c, &k, q, r, &cfg->qos) ||
	     check_min_sum(c, &k, &cfg->qos, i)))
		return -1;
	snprintf(path, sizeof(path), "classes[%u].ceil_burst", i);
	if (get_class_burst(c, path, q->ceil_bps, q->ceil_share, cfg,
			    &q->ceil_burst))
		return -1;
	snprintf(path, sizeof(path), "classes[%u].min_burst", i);
	if (get_class_burst(c, path, q->min_bps, q->min_share, cfg,
			    &q->min_burst))
		return -1;
	if (key_at(c, &k, "classes[%u].limit_bytes", i) &&
	    get_frame_size(c, &k, cfg, &q->limit_bytes))
		return -1;
	if (key_at(c, &k, "classes[%u].limit_packets", i)) {
		if (get_range(c, &k, r->limit_packets, 1, QOS_MAX_LIMIT_PACKETS,
			      " packets"))
			return -1;
		q->limit_packets = r->limit_packets;
	}
	if (key_at(c, &k, "classes[%u].dcqcn", i) &&
	    get_bool(c, &k, r->dcqcn, &q->dcqcn))
		return -1;
	if (key_at(c, &k, "classes[%u].lossless", i) &&
	    get_bool(c, &k, r->lossless, &q->lossless))
		return -1;
	if (key_at(c, &k, "classes[%u].pcp", i)) {
		if (get_range(c, &k, r->pcp, 0, 7, ""))
			return -1;
		q->has_pcp = true;
		q->pcp = (uint8_t)r->pcp;
	}
	if (key_at(c, &k, "classes[%u].ecn", i))
		return load_ecn(c, &r->ecn, i, q);
	return 0;
}

static int load_classes(const struct load_ctx *c, const struct raw_config *raw,
			struct xdplane_config *cfg)
{
	struct qos_policy *q = &cfg->qos;
	struct key k;

	if (!key_at(c, &k, "classes")) {
		/* one class: a plain FIFO */
		snprintf(q->classes[0].name, sizeof(q->classes[0].name), "%s",
			 QOS_DEFAULT_NAME);
		class_defaults(&q->classes[0]);
		q->n_classes = 1;
		return 0;
	}
	if (!raw->classes_count)
		return fail(c, k.n->val,
			    "classes: an empty list; list at least one class, "
			    "or leave the key out for a single FIFO class");
	if (raw->classes_count > QOS_MAX_CLASSES) {
		key_at(c, &k, "classes[%d]", QOS_MAX_CLASSES);
		return fail(c, k.n->val, "classes: at most %d classes (got %u)",
			    QOS_MAX_CLASSES, raw->classes_count);
	}
	for (unsigned int i = 0; i < raw->classes_count; i++)
		if (load_class(c, &raw->classes[i], i, cfg))
			return -1;
	q->n_classes = raw->classes_count;
	return 0;
}

/* The index of the class named name; or an error at k, with a suggestion
 * or the list of names. */
static int find_class(const struct load_ctx *c, const struct key *k,
		      const struct qos_policy *q, const char *name, uint8_t *id)
{
	unsigned int best_d = 3, d;
	const char *best = NULL;
	char names[QOS_MAX_CLASSES * (QOS_NAME_MAX + 2)] = "";
	size_t len;

	for (unsigned int i = 0; i < q->n_classes; i++) {
		if (!strcmp(q->classes[i].name, name)) {
			*id = (uint8_t)i;
			return 0;
		}
		d = distance(name, q->classes[i].name);
		if (d < best_d) {
			best = q->classes[i].name;
			best_d = d;
		}
		len = strlen(names);
		snprintf(names + len, sizeof(names) - len, "%s%s",
			 i ? ", " : "", q->classes[i].name);
	}
	if (best)
		return fail(c, k->n->val,
			    "%s: no class named '%s' (did you mean '%s'?)",
			    k->path, name, best);
	return fail(c, k->n->val,
		    "%s: no class named '%s'; the classes are: %s", k->path,
		    name, names);
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
	got_text(n, got, sizeof(got));
	return fail(c, n->val, "%s: expected a number 0..%u (got %s)", path,
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
		return bad_value(c, k, syntax);
	for (i = 0;; i++) {
		snprintf(path, sizeof(path), "%s[%u]", k->path, i);
		e = yaml_loc_find(&c->loc, path);
		if (!e)
			break;
		if (get_set_entry(c, path, e, max, mask))
			return -1;
	}
	if (!i)
		return fail(c, k->n->val,
			    "%s: an empty list matches no frame; leave the key "
			    "out to match any value",
			    k->path);
	return 0;
}

static int get_prefix(const struct load_ctx *c, const struct key *k,
		      struct qos_prefix *p)
{
	char want[TXT + 16];
	bool host;

	if (!parse_prefix(k->n->text, p, &host))
		return bad_value(c, k, SYN_PREFIX);
	if (!host)
		return 0;
	prefix_text(p, want, sizeof(want));
	return fail(c, k->n->val, "%s: %s has host bits set; did you mean %s?",
		    k->path, k->n->text, want);
}

static int get_ports(const struct load_ctx *c, const struct key *k,
		     uint16_t *lo, uint16_t *hi)
{
	if (!parse_ports(k->n->text, lo, hi))
		return bad_value(c, k, SYN_PORT);
	if (*lo <= *hi)
		return 0;
	return fail(c, k->n->val,
		    "%s: the range %s runs backwards; write %u-%u", k->path,
		    k->n->text, *hi, *lo);
}

static int load_match(const struct load_ctx *c, const struct raw_match *m,
		      unsigned int i, struct qos_rule *r)
{
	uint64_t mask;
	uint32_t v;
	struct key k;

	if (key_at(c, &k, "rules[%u].match.ethertype", i)) {
		if (!parse_number(m->ethertype, UINT16_MAX, &v))
			return bad_value(c, &k, SYN_ETHERTYPE);
		if (v < 0x0600)
			return fail(c, k.n->val,
				    "%s: 0x%04x is a frame length, not an "
				    "EtherType (those start at 0x0600)",
				    k.path, v);
		r->ethertype = (uint16_t)v;
		r->fields |= QOS_M_ETHERTYPE;
	}
	if (key_at(c, &k, "rules[%u].match.vlan", i)) {
		if (get_range(c, &k, m->vlan, 0, 4095, ""))
			return -1;
		r->vlan_id = (uint16_t)m->vlan;
		r->fields |= QOS_M_VLAN;
	}
	if (key_at(c, &k, "rules[%u].match.pcp", i)) {
		mask = 0;
		if (get_set(c, &k, 7, SYN_SET(7), &mask))
			return -1;
		r->pcp_mask = (uint8_t)mask;
		r->fields |= QOS_M_PCP;
	}
	if (key_at(c, &k, "rules[%u].match.src", i)) {
		if (get_prefix(c, &k, &r->src))
			return -1;
		r->fields |= QOS_M_SRC;
	}
	if (key_at(c, &k, "rules[%u].match.dst", i)) {
		if (get_prefix(c, &k, &r->dst))
			return -1;
		if ((r->fields & QOS_M_SRC) && r->src.family != r->dst.family)
			return fail(c, k.n->val,
				    "%s: an IPv%u prefix, but src is IPv%u; no "
				    "frame matches both",
				    k.path, r->dst.family, r->src.family);
		r->fields |= QOS_M_DST;
	}
	if (key_at(c, &k, "rules[%u].match.proto", i)) {
		for (v = 0; v < CYAML_ARRAY_LEN(protos) &&
			    strcasecmp(protos[v].str, m->proto);
		     v++)
			;
		if (v < CYAML_ARRAY_LEN(protos))
			v = (uint32_t)protos[v].val;
		else if (!parse_number(m->proto, UINT8_MAX, &v))
			return bad_value(c, &k, SYN_PROTO);
		r->proto = (uint8_t)v;
		r->fields |= QOS_M_PROTO;
	}
	if (key_at(c, &k, "rules[%u].match.dscp", i)) {
		if (get_set(c, &k, 63, SYN_SET(63), &r->dscp_mask))
			return -1;
		r->fields |= QOS_M_DSCP;
	}
	if (key_at(c, &k, "rules[%u].match.ecn", i)) {
		mask = 0;
		if (get_set(c, &k, 3, SYN_SET(3), &mask))
			return -1;
		r->ecn_mask = (uint8_t)mask;
		r->fields |= QOS_M_ECN;
	}
	if (key_at(c, &k, "rules[%u].match.sport", i)) {
		if (get_ports(c, &k, &r->sport_lo, &r->sport_hi))
			return -1;
		r->fields |= QOS_M_SPORT;
	}
	if (key_at(c, &k, "rules[%u].match.dport", i)) {
		if (get_ports(c, &k, &r->dport_lo, &r->dport_hi))
			return -1;
		r->fields |= QOS_M_DPORT;
	}
	if (key_at(c, &k, "rules[%u].match.bth_opcode", i)) {
		if (!parse_number(m->bth_opcode, UINT8_MAX, &v))
			return bad_value(c, &k, SYN_OPCODE);
		if (((r->fields & QOS_M_PROTO) && r->proto != 17) ||
		    ((r->fields & QOS_M_DPORT) &&
		     (r->dport_lo > 4791 || r->dport_hi < 4791)))
			return fail(c, k.n->val,
				    "%s: only UDP frames to port 4791 carry a "
				    "BTH, and this rule's proto or dport "
				    "excludes them",
				    k.path);
		r->bth_opcode = (uint8_t)v;
		r->fields |= QOS_M_BTH_OPCODE;
	}
	return 0;
}

static int load_rules(const struct load_ctx *c, const struct raw_config *raw,
		      struct qos_policy *q)
{
	struct key k;
	char path[32];

	if (raw->rules_count > QOS_MAX_RULES) {
		key_at(c, &k, "rules[%d]", QOS_MAX_RULES);
		return fail(c, k.n->val, "rules: at most %d rules (got %u)",
			    QOS_MAX_RULES, raw->rules_count);
	}
	for (unsigned int i = 0; i < raw->rules_count; i++) {
		if (!key_at(c, &k, "rules[%u].class", i)) {
			snprintf(path, sizeof(path), "rules[%u]", i);
			return fail(c, val_pos(c, path),
				    "%s.class: required key is missing; add "
				    "'class: NAME' to this rule",
				    path);
		}
		if (find_class(c, &k, q, raw->rules[i].class_name,
			       &q->rules[i].class_id) ||
		    load_match(c, &raw->rules[i].match, i, &q->rules[i]))
			return -1;
	}
	q->n_rules = raw->rules_count;
	return 0;
}

static int load_qos(const struct load_ctx *c, const struct raw_config *raw,
		    struct xdplane_config *cfg)
{
	struct qos_policy *q = &cfg->qos;
	struct key k;

	if (load_port_shapers(c, cfg) || load_classes(c, raw, cfg) ||
	    load_rules(c, raw, q))
		return -1;
	q->malformed = raw->malformed;
	if (key_at(c, &k, "default_class"))
		return find_class(c, &k, q, raw->default_class,
				  &q->default_class);
	for (unsigned int i = 0; i < q->n_classes; i++)
		if (!strcmp(q->classes[i].name, QOS_DEFAULT_NAME)) {
			q->default_class = (uint8_t)i;
			return 0;
		}
	key_at(c, &k, "classes");
	return fail(c, k.n->key,
		    "default_class: required key is missing, as no class is "
		    "named '%s'; add 'default_class: NAME' naming the class "
		    "of frames no rule matches",
		    QOS_DEFAULT_NAME);
}

/*
 * DCQCN: the profile's defaults, then the written keys, then the rules
 * between them and the line rate.
 */
static const struct unit time_units[] = {
	{"ns", 1},
	{"us", NS_PER_US},
	{"ms", NS_PER_MS},
	{"s", NS_PER_S},
};

/* "55us", "100ms", "1s", "0": the largest unit that divides it. */
static void time_text(char *buf, size_t size, uint64_t ns)
{
	for (size_t i = CYAML_ARRAY_LEN(time_units); i-- > 0;)
		if (ns && !(ns % time_units[i].mult)) {
			snprintf(buf, size, "%" PRIu64 "%s",
				 ns / time_units[i].mult, time_units[i].name);
			return;
		}
	snprintf(buf, size, "0");
}

/* A written time into *ns, between min and max. */
static int get_time(const struct load_ctx *c, const struct key *k, uint64_t min,
		    uint64_t max, uint64_t *ns)
{
	const char *s = k->n->text;
	char lo[32], hi[32];
	uint64_t v = 0;
	enum num_rc rc = NUM_OK;

	if (strcmp(s, "0"))
		rc = parse_unit(s, time_units, CYAML_ARRAY_LEN(time_units),
				UINT64_MAX, &v);
	switch (rc) {
	case NUM_OK:
		break;
	case NUM_FRACTION:
		return fail(c, k->n->val,
			    "%s: not a whole number of nanoseconds (got '%s')",
			    k->path, s);
	case NUM_RANGE:
		v = UINT64_MAX;
		break;
	default:
		return bad_value(c, k, SYN_TIME);
	}
	if (v < min || v > max) {
		time_text(lo, sizeof(lo), min);
		time_text(hi, sizeof(hi), max);
		return fail(c, k->n->val,
			    "%s: must be between %s and %s (got '%s')", k->path,
			    lo, hi, s);
	}
	*ns = v;
	return 0;
}

/* Plain decimal digits without a leading zero, at most 2^53 (exact as a
 * double). */
static bool parse_exact_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 16 || (s[0] == '0' && len > 1))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > (1ull << 53))
		return false;
	*out = v;
	return true;
}

/* A decimal ("0.5") the whole of s: its value, correctly rounded. */
static enum num_rc parse_real(const char *s, double *out)
{
	unsigned int scale;
	u128 num;
	size_t len = parse_decimal(s, &num, &scale);

	if (!len || s[len])
		return NUM_SYNTAX;
	*out = strtod(s, NULL); /* digits and at most one '.' only */
	return NUM_OK;
}

/* g or alpha_init: "0.00390625" or "1/256", in [DCQCN_MIN_GAIN, 1]. */
static enum num_rc parse_gain(const char *s, double *out)
{
	const char *slash = strchr(s, '/');
	uint64_t a, b;

	if (slash) {
		if (!parse_exact_count(s, (size_t)(slash - s), &a) ||
		    !parse_exact_count(slash + 1, strlen(slash + 1), &b))
			return NUM_SYNTAX;
		if (!b || a > b)
			return NUM_RANGE;
		*out = (double)a / (double)b; /* both exact: rounded once */
	} else if (parse_real(s, out)) {
		return NUM_SYNTAX;
	}
	return *out >= DCQCN_MIN_GAIN && *out <= 1 ? NUM_OK : NUM_RANGE;
}

/* min_decrease: "50%" or "0.5", in [0, 1). A percentage is read as the
 * decimal it stands for ("12.5%" as "0.125"), so that it is rounded once. */
static enum num_rc parse_decrease(const char *s, double *out)
{
	char text[TXT + 8], digits[TXT];
	unsigned int scale;
	size_t len, n = 0, at = 0;
	u128 num;

	if (!*s || s[strlen(s) - 1] != '%') {
		if (parse_real(s, out))
			return NUM_SYNTAX;
		return *out < 1 ? NUM_OK : NUM_RANGE;
	}
	len = parse_decimal(s, &num, &scale);
	if (!len || strcmp(s + len, "%") || len >= sizeof(digits))
		return NUM_SYNTAX;
	if (num >= 100 * pow10_of(scale))
		return NUM_RANGE;
	for (size_t i = 0; i < len; i++)
		if (s[i] != '.')
			digits[n++] = s[i];
	/* the value is digits / 10^(scale + 2); below 100%, the integer
	 * part has at most 2 digits, so n <= scale + 2 */
	scale += 2;
	if (n > scale)
		return NUM_SYNTAX;
	text[at++] = '0';
	text[at++] = '.';
	for (size_t i = n; i < scale; i++)
		text[at++] = '0';
	memcpy(text + at, digits, n);
	text[at + n] = '\0';
	*out = strtod(text, NULL);
	return NUM_OK;
}

/* The shortest "%.Nf" of v * mult (N <= 30) that `parse` reads back as v,
 * with `suffix`; false if there is none. */
static bool real_text(char *buf, size_t size, double v, double mult,
		      const char *suffix,
		      enum num_rc (*parse)(const char *, double *))
{
	double back;

	for (int prec = 0; prec <= DEC_DIGITS; prec++) {
		snprintf(buf, size, "%.*f%s", prec, v * mult, suffix);
		if (parse(buf, &back) == NUM_OK && back == v)
			return true;
	}
	return false;
}

static int get_gain(const struct load_ctx *c, const struct key *k, double *out)
{
	switch (parse_gain(k->n->text, out)) {
	case NUM_OK:
		return 0;
	case NUM_RANGE:
		return fail(c, k->n->val,
			    "%s: must be between " DCQCN_MIN_GAIN_TEXT
			    " and 1 (got '%s')",
			    k->path, k->n->text);
	default:
		return bad_value(c, k, SYN_GAIN);
	}
}

static int get_decrease(const struct load_ctx *c, const struct key *k,
			double *out)
{
	switch (parse_decrease(k->n->text, out)) {
	case NUM_OK:
		return 0;
	case NUM_RANGE:
		return fail(c, k->n->val,
			    "%s: must be at least 0%% and below 100%% (got "
			    "'%s'); a cut may keep at most all but a part of "
			    "the rate",
			    k->path, k->n->text);
	default:
		return bad_value(c, k, SYN_DECREASE);
	}
}

/* A rate of the dcqcn mapping into *bps, if written (else *bps keeps the
 * profile's default). */
static int get_dcqcn_rate(const struct load_ctx *c, const char *name,
			  const struct qos_policy *q, double *bps)
{
	uint64_t v;
	struct key k;

	if (!key_at(c, &k, "dcqcn.%s", name))
		return 0;
	if (get_rate(c, &k, q, &v, NULL, "the profile's default"))
		return -1;
	*bps = (double)v; /* <= 10^13 < 2^53: exact */
	return 0;
}

static uint64_t rate_of(double bps)
{
	return bps >= 0 && bps <= (double)QOS_MAX_RATE ? (uint64_t)bps : 0;
}

/* The rates against one line rate (`line_key` names where it comes
 * from). A rate that was written is reported at its key; one left at the
 * profile's default at `at`, the key that brought the line rate in. */
static int check_vs_line(const struct load_ctx *c, const struct key *at,
			 const struct dcqcn_params *p, uint64_t line,
			 const char *line_key)
{
	const struct {
		const char *name;
		double bps;
		bool below; /* strictly below, else at most */
	} rates[] = {
		{"min_rate", p->min_bps, true},
		{"rate_ai", p->ai_bps, false},
		{"rate_hai", p->hai_bps, false},
		{"first_cnp_rate", p->first_cnp_bps, false}, /* 0: none */
	};
	const char *profile = strval_name(
		dcqcn_profiles, CYAML_ARRAY_LEN(dcqcn_profiles), p->profile);
	char got[32], line_text[32];
	struct key k;

	rate_text(line_text, sizeof(line_text), line);
	for (size_t i = 0; i < CYAML_ARRAY_LEN(rates); i++) {
		if (rates[i].below ? rates[i].bps < (double)line
				   : rates[i].bps <= (double)line)
			continue;
		/* first_cnp_rate: only written values get here */
		rate_text(got, sizeof(got), rate_of(rates[i].bps));
		if (key_at(c, &k, "dcqcn.%s", rates[i].name))
			return fail(c, k.n->val,
				    "%s: %s must be %s the line rate, %s (%s)",
				    k.path, got,
				    rates[i].below ? "below" : "at most",
				    line_text, line_key);
		return fail(c, at->n->val,
			    "%s: the line rate %s (%s) must be %s "
			    "dcqcn.%s, %s by default in the %s profile; set "
			    "a lower dcqcn.%s",
			    at->path, line_text, line_key,
			    rates[i].below ? "above" : "at least",
			    rates[i].name, got, profile, rates[i].name);
	}
	return 0;
}

/* What the dataplane will run, checked by the DCQCN module itself for one
 * line rate. The rules above catch everything it refuses, with better
 * messages: this is the last line of defence, should they drift apart. */
static int check_dcqcn_module(const struct load_ctx *c,
			      const struct dcqcn_params *p, uint64_t line)
{
	struct dcqcn_params run = *p;
	const char *why = NULL;

	run.line_bps = (double)line;
	if (!dcqcn_params_check(&run, &why))
		return 0;
	return fail(c, val_pos(c, "dcqcn"),
		    "dcqcn: the DCQCN module refuses these parameters: %s",
		    why ? why : "no reason given");
}

/* The line rate DCQCN works from: dcqcn.line_rate, or else the rate of
 * each port, which every DCQCN class then needs. */
static int check_dcqcn_line(const struct load_ctx *c,
			    const struct xdplane_config *cfg)
{
	const struct qos_policy *q = &cfg->qos;
	const struct dcqcn_params *p = &q->dcqcn.par;
	uint64_t line;
	char name[32];
	struct key at;
	uint32_t i;

	if (p->line_bps > 0) {
		key_at(c, &at, "dcqcn.line_rate");
		line = rate_of(p->line_bps);
		return check_vs_line(c, &at, p, line, "dcqcn.line_rate") ||
				       check_dcqcn_module(c, p, line)
			       ? -1
			       : 0;
	}
	for (i = 0; i < q->n_classes && !q->classes[i].dcqcn; i++)
		;
	if (i == q->n_classes) /* no class uses it: any line will do */
		return check_dcqcn_module(c, p, QOS_MAX_RATE);
	key_at(c, &at, "classes[%u].dcqcn", i);
	for (unsigned int port = 0; port < CONFIG_PORTS; port++) {
		line = q->port[port].rate_bps;
		if (!line)
			return fail(c, at.n->val,
				    "%s: DCQCN needs the line rate, and "
				    "ports[%u].rate is not set; set the rate "
				    "of both ports, or dcqcn.line_rate",
				    at.path, port);
		snprintf(name, sizeof(name), "ports[%u].rate", port);
		if (check_vs_line(c, &at, p, line, name) ||
		    check_dcqcn_module(c, p, line))
			return -1;
	}
	return 0;
}

/* A key the profile has no use for: an error if written with another
 * value than the profile's own (0, false). */
static int check_unused(const struct load_ctx *c, enum dcqcn_profile prof,
			const char *name, bool differs, const char *why)
{
	bool paper = prof == DCQCN_PAPER;
	struct key k;

	if (!differs || !key_at(c, &k, "dcqcn.%s", name))
		return 0;
	return fail(c, k.n->val,
		    "%s: the %s profile %s (got '%s'); leave the key out, or "
		    "use profile: %s",
		    k.path, paper ? "paper" : "connectx", why, k.n->text,
		    paper ? "connectx" : "paper");
}

/* The timers and counters: periods, byte counter, stages. */
static int load_dcqcn_timers(const struct load_ctx *c,
			     const struct raw_dcqcn *r, struct dcqcn_params *p)
{
	bool connectx = p->profile == DCQCN_CONNECTX;
	uint32_t bytes;
	struct key k;

	if ((key_at(c, &k, "dcqcn.alpha_timer") &&
	     get_time(c, &k, NS_PER_US, NS_PER_S, &p->alpha_ns)) ||
	    (key_at(c, &k, "dcqcn.increase_timer") &&
	     get_time(c, &k, NS_PER_US, NS_PER_S, &p->inc_ns)))
		return -1;
	if (key_at(c, &k, "dcqcn.decrease_period") &&
	    (get_time(c, &k, connectx ? NS_PER_US : 0, NS_PER_S, &p->dec_ns) ||
	     check_unused(c, p->profile, "decrease_period",
			  !connectx && p->dec_ns,
			  "cuts the rate on every CNP and has no decrease "
			  "period")))
		return -1;
	if (key_at(c, &k, "dcqcn.byte_counter")) {
		if (get_size(c, &k, 0, "", &bytes))
			return -1;
		p->byte_counter = bytes;
		if (check_unused(c, p->profile, "byte_counter",
				 connectx && bytes,
				 "has no byte counter, only the increase "
				 "timer"))
			return -1;
	}
	if (key_at(c, &k, "dcqcn.fast_recovery")) {
		if (get_range(c, &k, r->fast_recovery, 1, DCQCN_MAX_F, ""))
			return -1;
		p->f = r->fast_recovery;
	}
	if (key_at(c, &k, "dcqcn.cnp_interval") &&
	    get_time(c, &k, 0, NS_PER_S, &p->np_interval_ns))
		return -1;
	return 0;
}

/* The cut: its floor, clamping, the first CNP, alpha's order. */
static int load_dcqcn_cut(const struct load_ctx *c, const struct raw_dcqcn *r,
			  const struct qos_policy *q, struct dcqcn_params *p)
{
	bool connectx = p->profile == DCQCN_CONNECTX;
	char want[32], got[32];
	uint64_t v;
	struct key k;

	if (key_at(c, &k, "dcqcn.min_decrease") &&
	    get_decrease(c, &k, &p->min_dec_factor))
		return -1;
	if (r->clamp == CLAMP_ALWAYS) {
		p->clamp_always = true; /* clamp_after_inc is moot */
	} else if (r->clamp != CLAMP_DEFAULT) {
		p->clamp_always = false;
		p->clamp_after_inc = r->clamp == CLAMP_AFTER_INC;
	}
	if (key_at(c, &k, "dcqcn.first_cnp_rate") && r->first_cnp_rate[0]) {
		if (get_rate(c, &k, q, &v, NULL,
			     "the flow's own rate (or write '')") ||
		    check_unused(c, p->profile, "first_cnp_rate", !connectx,
				 "keeps the flow's rate on the first CNP"))
			return -1;
		p->first_cnp_bps = (double)v;
		if (p->first_cnp_bps < p->min_bps) {
			rate_text(want, sizeof(want), rate_of(p->min_bps));
			rate_text(got, sizeof(got), v);
			return fail(c, k.n->val,
				    "%s: %s must be at least dcqcn.min_rate, "
				    "%s",
				    k.path, got, want);
		}
	}
	if (key_at(c, &k, "dcqcn.alpha_before_cut") &&
	    (get_bool(c, &k, r->alpha_before_cut, &p->alpha_before_cut) ||
	     check_unused(c, p->profile, "alpha_before_cut",
			  connectx && p->alpha_before_cut,
			  "updates alpha on its own tick, never on a CNP")))
		return -1;
	return 0;
}

static int load_dcqcn_params(const struct load_ctx *c,
			     const struct raw_dcqcn *r,
			     const struct qos_policy *q, struct dcqcn_params *p)
{
	uint64_t line = 0;
	struct key k;

	if (key_at(c, &k, "dcqcn.line_rate") && r->line_rate[0] &&
	    get_rate(c, &k, q, &line, NULL,
		     "the egress port's rate (or write '')"))
		return -1;
	memset(p, 0, sizeof(*p)); /* the padding too: configs compare whole */
	dcqcn_params_default(p, r->profile, (double)line);
	p->line_bps = (double)line;
	if (get_dcqcn_rate(c, "min_rate", q, &p->min_bps) ||
	    get_dcqcn_rate(c, "rate_ai", q, &p->ai_bps) ||
	    get_dcqcn_rate(c, "rate_hai", q, &p->hai_bps))
		return -1;
	if ((key_at(c, &k, "dcqcn.g") && get_gain(c, &k, &p->g)) ||
	    (key_at(c, &k, "dcqcn.alpha_init") &&
	     get_gain(c, &k, &p->alpha_init)))
		return -1;
	return load_dcqcn_timers(c, r, p) || load_dcqcn_cut(c, r, q, p) ? -1
									: 0;
}

static int load_dcqcn(const struct load_ctx *c, const struct raw_dcqcn *r,
		      struct xdplane_config *cfg)
{
	struct qos_dcqcn *d = &cfg->qos.dcqcn;
	struct key k;

	if (load_dcqcn_params(c, r, &cfg->qos, &d->par))
		return -1;
	d->key = r->flow_key;
	d->cnp_action = r->cnp;
	d->max_flows = DCQCN_DEF_MAX_FLOWS;
	if (key_at(c, &k, "dcqcn.max_flows")) {
		if (get_range(c, &k, r->max_flows, 1, DCQCN_MAX_FLOWS,
			      " flows"))
			return -1;
		d->max_flows = r->max_flows;
	}
	d->flow_idle_ns = DCQCN_DEF_FLOW_IDLE_NS;
	if (key_at(c, &k, "dcqcn.flow_idle") &&
	    get_time(c, &k, NS_PER_MS, 3600 * NS_PER_S, &d->flow_idle_ns))
		return -1;
	d->cp_loop = true;
	if (key_at(c, &k, "dcqcn.cp_loop") &&
	    get_bool(c, &k, r->cp_loop, &d->cp_loop))
		return -1;
	if (key_at(c, &k, "dcqcn.np.enabled") &&
	    get_bool(c, &k, r->np.enabled, &d->np))
		return -1;
	if (d->np && d->key != QOS_FLOW_QP)
		return fail(
			c, k.n->val,
			"%s: a CNP goes to the sender's queue pair, so "
			"the flows must be queue pairs; set dcqcn.flow_key: "
			"qp, or leave np off",
			k.path);
	d->np_dscp = DCQCN_DEF_NP_DSCP;
	if (key_at(c, &k, "dcqcn.np.dscp")) {
		if (get_range(c, &k, r->np.dscp, 0, 63, ""))
			return -1;
		d->np_dscp = (uint8_t)r->np.dscp;
	}
	d->np_pcp = DCQCN_DEF_NP_PCP;
	if (key_at(c, &k, "dcqcn.np.pcp")) {
		if (get_range(c, &k, r->np.pcp, 0, 7, ""))
			return -1;
		d->np_pcp = (uint8_t)r->np.pcp;
	}
	return check_dcqcn_line(c, cfg);
}

/*
 * The daemon's keys: control socket, metrics listener, user and group,
 * log level.
 */

/* No control characters: dump_control() quotes these strings as they are. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return false;
	return true;
}

/* A user or group name as /etc/passwd and /etc/group can hold one. */
static bool valid_account(const char *s)
{
	return printable(s) && !strpbrk(s, " :,/");
}

/* Users and groups by the one rule of config.h (config_lookup_user/group),
 * shared with the daemon's privilege drop (privs.c). */

#define NSS_BUF_START 1024
#define NSS_BUF_MAX (1u << 20) /* bound on a passwd/group entry */

static void account_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void account_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* A decimal id: digits only, below 2^32 - 1 ((uid_t)-1 means "unchanged"
 * to the set*id calls). */
static bool parse_account_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* getpw*_r / getgr*_r report "not found" as 0 with a NULL result, or as
 * one of these (getpwnam_r(3)). */
static bool nss_not_found(int rc)
{
	return rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF ||
	       rc == EPERM;
}

/* Grow *buf (starting at NSS_BUF_START, at most NSS_BUF_MAX). 0, ERANGE
 * past the bound, or ENOMEM. */
static int grow_nss_buf(char **buf, size_t *len)
{
	size_t want = *len ? *len * 2 : NSS_BUF_START;
	char *nb;

	if (want > NSS_BUF_MAX)
		return ERANGE;
	nb = realloc(*buf, want);
	if (!nb)
		return ENOMEM;
	*buf = nb;
	*len = want;
	return 0;
}

/* The reasons of config.h, from the lookup's result code. */
static int lookup_error(const char *what, const char *db, const char *spec,
			int rc, char *err, size_t errlen)
{
	if (!nss_not_found(rc)) {
		account_err(err, errlen, "cannot look up the %s '%s': %s", what,
			    spec, strerror(rc));
		return -rc;
	}
	account_err(err, errlen,
		    "no such %s '%s'; check the name with 'getent %s %s'", what,
		    spec, db, spec);
	return -ENOENT;
}

int config_lookup_user(const char *spec, struct config_user *out, char *err,
		       size_t errlen)
{
	struct passwd pw, *res = NULL;
	bool numeric = false;
	char *buf = NULL;
	size_t len = 0;
	uint32_t id;
	int rc;

	if (!spec || !*spec) {
		account_err(err, errlen, "empty user name");
		return -EINVAL;
	}
	for (;;) {
		rc = grow_nss_buf(&buf, &len);
		if (rc)
			break;
		rc = getpwnam_r(spec, &pw, buf, len, &res);
		numeric = !res && nss_not_found(rc) &&
			  parse_account_id(spec, &id);
		if (numeric)
			rc = getpwuid_r(id, &pw, buf, len, &res);
		if (rc != ERANGE)
			break;
	}
	if (!res) {
		if (numeric && nss_not_found(rc)) {
			account_err(
				err, errlen,
				"no such user '%s': uid %s has no passwd "
				"entry, and the daemon takes the user's groups "
				"from it; check with 'getent passwd %s'",
				spec, spec, spec);
			rc = -ENOENT;
		} else {
			rc = lookup_error("user", "passwd", spec, rc, err,
					  errlen);
		}
		free(buf);
		return rc;
	}
	if (strlen(pw.pw_name) >= sizeof(out->name)) {
		account_err(err, errlen, "user '%s': name too long", spec);
		free(buf);
		return -ENAMETOOLONG;
	}
	out->uid = pw.pw_uid;
	out->gid = pw.pw_gid;
	strcpy(out->name, pw.pw_name);
	free(buf);
	return 0;
}

int config_lookup_group(const char *spec, gid_t *gid, char *err, size_t errlen)
{
	struct group gr, *res = NULL;
	char *buf = NULL;
	size_t len = 0;
	uint32_t id;
	int rc;

	if (!spec || !*spec) {
		account_err(err, errlen, "empty group name");
		return -EINVAL;
	}
	for (;;) {
		rc = grow_nss_buf(&buf, &len);
		if (rc)
			break;
		rc = getgrnam_r(spec, &gr, buf, len, &res);
		if (rc != ERANGE)
			break;
	}
	free(buf); /* gr_gid is in gr, not in buf */
	if (res) {
		*gid = gr.gr_gid;
		return 0;
	}
	if (nss_not_found(rc) && parse_account_id(spec, &id)) {
		*gid = id; /* a numeric gid needs no group entry */
		return 0;
	}
	return lookup_error("group", "group", spec, rc, err, errlen);
}

/* A user or group name at path, copied into dst (as large as the raw
 * field); "" or absent leaves dst "". */
static int load_account(const struct load_ctx *c, const char *path,
			const char *name, bool is_group, bool check_system,
			char *dst, size_t size)
{
	const char *what = is_group ? "group" : "user";
	struct config_user user;
	char got[64], why[320];
	struct key k;
	gid_t gid;

	if (!key_at(c, &k, "%s", path) || !*name)
		return 0;
	if (!valid_account(name)) {
		got_text(k.n, got, sizeof(got));
		return fail(c, k.n->val,
			    "%s: not a valid %s name (got %s); names have no "
			    "spaces, ':', ',', '/' or control characters",
			    path, what, got);
	}
	/* The daemon's rule (config.h), so that --check accepts what
	 * privs_drop() accepts: names, then numeric ids. */
	if (check_system &&
	    (is_group ? config_lookup_group(name, &gid, why, sizeof(why))
		      : config_lookup_user(name, &user, why, sizeof(why))))
		return fail(c, k.n->val, "%s: %s", path, why);
	snprintf(dst, size, "%s", name);
	return 0;
}

/* An absolute path without "." or ".." components and without "//": the
 * path names exactly the file the daemon creates (xdplane(8), FILES). */
static bool normal_path(const char *p)
{
	for (const char *s = p; *s; s++) {
		size_t n;

		if (*s != '/')
			continue;
		n = strcspn(s + 1, "/");
		if (n == 0 || (n == 1 && s[1] == '.') ||
		    (n == 2 && s[1] == '.' && s[2] == '.'))
			return false;
	}
	return true;
}

static int load_socket(const struct load_ctx *c, const struct raw_control *r,
		       struct config_control *ctl)
{
	size_t len = strlen(r->socket);
	char got[64];
	struct key k;

	if (!key_at(c, &k, "control.socket")) {
		snprintf(ctl->socket, sizeof(ctl->socket), "%s",
			 DEF_CONTROL_SOCKET);
		return 0;
	}
	if (!len)
		return 0; /* "": no control socket */
	if (r->socket[0] != '/' || r->socket[len - 1] == '/' ||
	    !printable(r->socket))
		return bad_value(c, &k, SYN_SOCKET);
	if (!normal_path(r->socket)) {
		got_text(k.n, got, sizeof(got));
		return fail(c, k.n->val,
			    "control.socket: a path with a '.' or '..' "
			    "component or '//' (got %s); write it without "
			    "them, e.g. /run/xdplane/control.sock",
			    got);
	}
	if (len >= sizeof(ctl->socket)) {
		got_text(k.n, got, sizeof(got));
		return fail(c, k.n->val,
			    "control.socket: a path of %zu bytes (got %s); a "
			    "Unix socket path has at most %zu",
			    len, got, sizeof(ctl->socket) - 1);
	}
	memcpy(ctl->socket, r->socket, len + 1);
	return 0;
}

enum listen_rc {
	LISTEN_OK,
	LISTEN_SYNTAX,
	LISTEN_BRACKETS, /* an IPv6 address without [] */
	LISTEN_V4, /* not a numeric IPv4 address */
	LISTEN_V6,
	LISTEN_NO_PORT,
	LISTEN_PORT, /* not 1..65535 */
};

/* A port 1..65535, plain decimal digits without a leading zero. */
static bool parse_listen_port(const char *s, uint16_t *port)
{
	uint32_t v = 0;
	size_t i;

	if (s[0] < '1' || s[0] > '9')
		return false;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 5)
			return false;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	if (v > UINT16_MAX)
		return false;
	*port = (uint16_t)v;
	return true;
}

/* "a.b.c.d:port" or "[v6addr]:port" into ctl->metrics_addr and, in
 * canonical form, ctl->metrics_listen. *host gets the address part, for
 * messages. */
static enum listen_rc parse_listen(const char *s, struct config_control *ctl,
				   char *host, size_t host_size)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ctl->metrics_addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ctl->metrics_addr;
	const char *start = s, *end, *port;
	bool six = s[0] == '[';
	char text[INET6_ADDRSTRLEN];
	uint16_t num;

	if (six) {
		start = s + 1;
		end = strchr(start, ']');
		if (!end)
			return LISTEN_SYNTAX;
		port = end + 1;
	} else {
		end = strchr(s, ':');
		if (end && strchr(end + 1, ':'))
			return LISTEN_BRACKETS;
		if (!end)
			end = s + strlen(s);
		port = end;
	}
	if ((size_t)(end - start) >= host_size)
		return LISTEN_SYNTAX;
	memcpy(host, start, (size_t)(end - start));
	host[end - start] = '\0';
	memset(&ctl->metrics_addr, 0, sizeof(ctl->metrics_addr));
	if (six ? inet_pton(AF_INET6, host, &v6->sin6_addr) != 1
		: inet_pton(AF_INET, host, &v4->sin_addr) != 1)
		return six ? LISTEN_V6 : LISTEN_V4;
	if (!port[0] || (port[0] == ':' && !port[1]))
		return LISTEN_NO_PORT;
	if (port[0] != ':')
		return LISTEN_SYNTAX;
	if (!parse_listen_port(port + 1, &num))
		return LISTEN_PORT;
	inet_ntop(six ? AF_INET6 : AF_INET,
		  six ? (void *)&v6->sin6_addr : (void *)&v4->sin_addr, text,
		  sizeof(text));
	if (six) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(num);
		ctl->metrics_addrlen = sizeof(*v6);
		snprintf(ctl->metrics_listen, sizeof(ctl->metrics_listen),
			 "[%s]:%u", text, num);
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(num);
		ctl->metrics_addrlen = sizeof(*v4);
		snprintf(ctl->metrics_listen, sizeof(ctl->metrics_listen),
			 "%s:%u", text, num);
	}
	return LISTEN_OK;
}

static int load_listen(const struct load_ctx *c, const struct raw_control *r,
		       struct config_control *ctl)
{
	char host[INET6_ADDRSTRLEN], got[64];
	struct key k;

	if (!key_at(c, &k, "control.metrics_listen"))
		return parse_listen(DEF_METRICS_LISTEN, ctl, host,
				    sizeof(host)) == LISTEN_OK
			       ? 0
			       : -1;
	if (!r->metrics_listen[0])
		return 0; /* "": no listener, AF_UNSPEC and length 0 */
	got_text(k.n, got, sizeof(got));
	switch (parse_listen(r->metrics_listen, ctl, host, sizeof(host))) {
	case LISTEN_OK:
		return 0;
	case LISTEN_BRACKETS:
		return fail(c, k.n->val,
			    "%s: an IPv6 address goes in brackets, e.g. "
			    "[::1]:9470 (got %s)",
			    k.path, got);
	case LISTEN_V4:
		return fail(c, k.n->val,
			    "%s: '%s' is not an IPv4 address (got %s); write "
			    "a numeric address such as 127.0.0.1, host names "
			    "are not resolved",
			    k.path, host, got);
	case LISTEN_V6:
		return fail(c, k.n->val,
			    "%s: '%s' is not an IPv6 address (got %s); write "
			    "a numeric address without a zone, e.g. [::1]",
			    k.path, host, got);
	case LISTEN_NO_PORT:
		return fail(c, k.n->val,
			    "%s: no port (got %s); write host:port, e.g. "
			    "127.0.0.1:9470 or [::1]:9470",
			    k.path, got);
	case LISTEN_PORT:
		return fail(c, k.n->val,
			    "%s: the port must be a number from 1 to 65535 "
			    "(got %s)",
			    k.path, got);
	default:
		return bad_value(c, &k, SYN_LISTEN);
	}
}

static int load_daemon(const struct load_ctx *c, const struct raw_config *r,
		       struct xdplane_config *cfg, bool check_system)
{
	struct config_control *ctl = &cfg->control;
	struct key k;

	if (load_socket(c, &r->control, ctl) ||
	    load_account(c, "control.socket_group", r->control.socket_group,
			 true, check_system, ctl->socket_group,
			 sizeof(ctl->socket_group)) ||
	    load_listen(c, &r->control, ctl) ||
	    load_account(c, "user", r->user, false, check_system, cfg->user,
			 sizeof(cfg->user)) ||
	    load_account(c, "group", r->group, true, check_system, cfg->group,
			 sizeof(cfg->group)))
		return -1;
	if (cfg->group[0] && !cfg->user[0]) {
		key_at(c, &k, "group");
		return fail(c, k.n->val,
			    "group: only used with user, as the group to run "
			    "as instead of the user's own; set user too, or "
			    "leave group out");
	}
	cfg->log_level =
		key_at(c, &k, "log_level") ? r->log_level : DEF_LOG_LEVEL;
	return 0;
}

/*
 * pfc (IEEE 802.1Qbb, dataplane/sched/pfc.h), after the classes, rules and ports:
 * a lossless class's priority is its pcp key, else the PCP its first
 * PCP-matching rule names (the lowest), else DSCP >> 3 of the lowest DSCP
 * its first DSCP-matching rule names, else 3. Its thresholds on egress
 * port e are computed against the link the traffic comes from (port 1-e:
 * where the PFC frames go): headroom H = pfc_headroom_bytes(link speed,
 * cable_length, MTU of that port, or the largest frame one UMEM frame
 * holds when the MTU is left to the interface); xoff = limit_bytes - H
 * (or pfc.xoff), xon = xoff / 2 (or pfc.xon). The limit must hold
 * H + 2 MTU.
 */
#define PFC_DEF_CABLE_M 100
#define PFC_DEF_WATCHDOG_MS 200
#define PFC_DEF_RESTORE_MS 200
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
	if (!key_at(c, &k, "%s", path) || !strcmp(k.n->text, "auto"))
		return 0;
	return get_size(c, &k, 1, "or auto", bytes);
}

static int load_pfc(const struct load_ctx *c, const struct raw_config *raw,
		    struct xdplane_config *cfg)
{
	const struct raw_pfc *r = &raw->pfc;
	struct qos_policy *q = &cfg->qos;
	struct qos_pfc *p = &q->pfc;
	uint32_t wd = PFC_DEF_WATCHDOG_MS, rs = PFC_DEF_RESTORE_MS;
	uint64_t link[CONFIG_PORTS];
	uint32_t mtu[CONFIG_PORTS];
	struct key k;

	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		if (key_at(c, &k, "ports[%u].link_speed", i) &&
		    get_rate(c, &k, q, &q->port[i].link_bps, NULL,
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
	if (key_at(c, &k, "pfc.enabled") &&
	    get_bool(c, &k, r->enabled, &p->enabled))
		return -1;
	if (key_at(c, &k, "pfc.cable_length")) {
		if (get_range(c, &k, r->cable_length, 0, 100000, " m"))
			return -1;
		p->cable_m = r->cable_length;
	}
	if (key_at(c, &k, "pfc.pause_quanta")) {
		if (get_range(c, &k, r->pause_quanta, 1, PFC_MAX_QUANTA,
			      " quanta of 512 bit times"))
			return -1;
		p->quanta = (uint16_t)r->pause_quanta;
	}
	if (key_at(c, &k, "pfc.watchdog")) {
		if (get_range(c, &k, r->watchdog, 0, PFC_MAX_MS,
			      " ms (0: no watchdog)"))
			return -1;
		wd = r->watchdog;
	}
	if (key_at(c, &k, "pfc.watchdog_restore")) {
		if (get_range(c, &k, r->watchdog_restore, 0, PFC_MAX_MS, " ms"))
			return -1;
		rs = r->watchdog_restore;
	}
	p->watchdog_ns = (uint64_t)wd * 1000000;
	p->restore_ns = (uint64_t)rs * 1000000;
	if (get_pfc_size(c, "pfc.xoff", &p->xoff) ||
	    get_pfc_size(c, "pfc.xon", &p->xon))
		return -1;
	if (p->xoff && p->xon && p->xon >= p->xoff) {
		key_at(c, &k, "pfc.xon");
		return fail(c, k.n->val,
			    "pfc.xon: must be below pfc.xoff (%u bytes) (got "
			    "%u bytes)",
			    p->xoff, p->xon);
	}
	for (uint32_t i = 0; i < q->n_classes; i++) {
		struct qos_class *qc = &q->classes[i];

		if (!qc->lossless)
			continue;
		if (!qc->has_pcp) {
			qc->has_pcp = true;
			qc->pcp = default_pcp(q, (uint8_t)i);
		}
		for (unsigned int e = 0; e < CONFIG_PORTS; e++) {
			unsigned int in = 1 - e; /* where the traffic and
						  * the PFC frames go */
			uint32_t h, need;

			if (!p->enabled)
				break;
			if (!link[in]) {
				key_at(c, &k, "classes[%u].lossless", i);
				return fail(c, k.n->val,
					    "classes[%u].lossless: PFC needs "
					    "the link speed of ports[%u] for "
					    "its pause quanta and headroom; "
					    "set ports[%u].link_speed (or "
					    "ports[%u].rate)",
					    i, in, in, in);
			}
			h = pfc_headroom_bytes(link[in], p->cable_m, mtu[in]);
			need = h + 2 * mtu[in];
			if (qc->limit_bytes < need) {
				if (!key_at(c, &k, "classes[%u].limit_bytes",
					    i))
					key_at(c, &k, "classes[%u].lossless",
					       i);
				return fail(c, k.n->val,
					    "classes[%u].limit_bytes: a "
					    "lossless class needs at least "
					    "headroom + 2 MTU = %u bytes "
					    "(headroom %u bytes for %llu bit/s "
					    "over %u m, MTU %u of ports[%u]) "
					    "(got %u bytes); raise "
					    "limit_bytes, or lower "
					    "pfc.cable_length",
					    i, need, h,
					    (unsigned long long)link[in],
					    p->cable_m, mtu[in], in,
					    qc->limit_bytes);
			}
			qc->pfc_xoff[e] = qc->limit_bytes - h;
			if (p->xoff) {
				if (p->xoff > qc->pfc_xoff[e]) {
					key_at(c, &k, "pfc.xoff");
					return fail(c, k.n->val,
						    "pfc.xoff: above the "
						    "limit_bytes of lossless "
						    "class '%s' less its "
						    "headroom (%u - %u = %u "
						    "bytes) (got %u bytes)",
						    qc->name, qc->limit_bytes,
						    h, qc->pfc_xoff[e],
						    p->xoff);
				}
				qc->pfc_xoff[e] = p->xoff;
			}
			qc->pfc_xon[e] = p->xon ? p->xon : qc->pfc_xoff[e] / 2;
			if (qc->pfc_xon[e] >= qc->pfc_xoff[e]) {
				key_at(c, &k, "pfc.xon");
				return fail(c, k.n->val,
					    "pfc.xon: must be below the xoff "
					    "of lossless class '%s' (%u "
					    "bytes) (got %u bytes)",
					    qc->name, qc->pfc_xoff[e],
					    qc->pfc_xon[e]);
			}
		}
	}
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
	cfg->xdp_mode = r->xdp_mode;
	cfg->bind_mode = r->bind_mode;
	cfg->failure_mode = r->failure_mode;
	cfg->rings = r->rings;
	cfg->poll = r->poll;
	cfg->qos.port[0].overhead = r->overhead;
	cfg->control.stats_interval_ms = r->control.stats_interval_ms;
	if (load_ports(c, r, cfg, check_system) || load_queues(c, r, cfg) ||
	    load_umem(c, &r->umem, cfg) || load_numbers(c, cfg) ||
	    load_cpus(c, &r->workers, cfg) || load_qos(c, r, cfg) ||
	    load_dcqcn(c, &r->dcqcn, cfg) || load_pfc(c, r, cfg) ||
	    load_daemon(c, r, cfg, check_system)) {
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

static void put_mask(FILE *out, const char *key, uint64_t mask)
{
	const char *sep = "";

	fprintf(out, "      %s: [", key);
	for (unsigned int b = 0; b < 64; b++)
		if (mask & (1ull << b)) {
			fprintf(out, "%s%u", sep, b);
			sep = ", ";
		}
	fputs("]\n", out);
}

static void put_range(FILE *out, const char *key, uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		fprintf(out, "      %s: %u\n", key, lo);
	else
		fprintf(out, "      %s: %u-%u\n", key, lo, hi);
}

/* A rate, or a share as a percentage; nothing if both are 0. */
static void put_rate(FILE *out, const char *key, uint64_t bps, uint32_t share)
{
	char text[32];

	if (bps)
		rate_text(text, sizeof(text), bps);
	else if (share)
		share_text(text, sizeof(text), share);
	else
		return;
	fprintf(out, "    %s: %s\n", key, text);
}

static void put_size(FILE *out, const char *indent, const char *key,
		     uint32_t bytes)
{
	char text[32];

	size_text(text, sizeof(text), bytes);
	fprintf(out, "%s%s: %s\n", indent, key, text);
}

static void dump_class(const struct qos_class *q, FILE *out)
{
	char text[32];

	fputs("  - name: ", out);
	put_quoted(out, q->name);
	fprintf(out, "\n    level: %u\n    quantum: %u\n", q->level,
		q->quantum);
	put_rate(out, "ceil", q->ceil_bps, q->ceil_share);
	put_size(out, "    ", "ceil_burst", q->ceil_burst);
	put_rate(out, "min", q->min_bps, q->min_share);
	put_size(out, "    ", "min_burst", q->min_burst);
	put_size(out, "    ", "limit_bytes", q->limit_bytes);
	fprintf(out, "    limit_packets: %u\n    dcqcn: %s\n", q->limit_packets,
		q->dcqcn ? "true" : "false");
	if (q->lossless)
		fputs("    lossless: true\n", out);
	if (q->has_pcp)
		fprintf(out, "    pcp: %u\n", q->pcp);
	if (!q->ecn.enabled)
		return;
	fputs("    ecn:\n", out);
	put_size(out, "      ", "kmin", q->ecn.kmin);
	put_size(out, "      ", "kmax", q->ecn.kmax);
	share_text(text, sizeof(text), q->ecn.pmax);
	fprintf(out, "      pmax: %s\n      non_ect: %s\n", text,
		strval_name(nonect_modes, CYAML_ARRAY_LEN(nonect_modes),
			    q->ecn.nonect));
}

static void dump_rule(const struct qos_rule *r, const struct qos_policy *q,
		      FILE *out)
{
	char text[TXT + 16];

	fputs("  - class: ", out);
	put_quoted(out, q->classes[r->class_id].name);
	fputs(r->fields ? "\n    match:\n" : "\n    match: {}\n", out);
	if (r->fields & QOS_M_ETHERTYPE)
		fprintf(out, "      ethertype: 0x%04x\n", r->ethertype);
	if (r->fields & QOS_M_VLAN)
		fprintf(out, "      vlan: %u\n", r->vlan_id);
	if (r->fields & QOS_M_PCP)
		put_mask(out, "pcp", r->pcp_mask);
	if (r->fields & QOS_M_SRC) {
		prefix_text(&r->src, text, sizeof(text));
		fprintf(out, "      src: '%s'\n", text);
	}
	if (r->fields & QOS_M_DST) {
		prefix_text(&r->dst, text, sizeof(text));
		fprintf(out, "      dst: '%s'\n", text);
	}
	if (r->fields & QOS_M_PROTO) {
		snprintf(text, sizeof(text), "%u", r->proto);
		for (size_t i = 0; i < CYAML_ARRAY_LEN(protos); i++)
			if (protos[i].val == r->proto)
				snprintf(text, sizeof(text), "%s",
					 protos[i].str);
		fprintf(out, "      proto: %s\n", text);
	}
	if (r->fields & QOS_M_DSCP)
		put_mask(out, "dscp", r->dscp_mask);
	if (r->fields & QOS_M_ECN)
		put_mask(out, "ecn", r->ecn_mask);
	if (r->fields & QOS_M_SPORT)
		put_range(out, "sport", r->sport_lo, r->sport_hi);
	if (r->fields & QOS_M_DPORT)
		put_range(out, "dport", r->dport_lo, r->dport_hi);
	if (r->fields & QOS_M_BTH_OPCODE)
		fprintf(out, "      bth_opcode: 0x%02x\n", r->bth_opcode);
}

static void put_dcqcn_rate(FILE *out, const char *key, double bps)
{
	char text[32];

	rate_text(text, sizeof(text), rate_of(bps));
	fprintf(out, "  %s: %s\n", key, text);
}

static void put_time(FILE *out, const char *indent, const char *key,
		     uint64_t ns)
{
	char text[32];

	time_text(text, sizeof(text), ns);
	fprintf(out, "%s%s: %s\n", indent, key, text);
}

/* A double as the shortest text its parser reads back the same. */
static void put_real(FILE *out, const char *key, double v, bool percent,
		     enum num_rc (*parse)(const char *, double *))
{
	char text[64];

	if ((!percent || !real_text(text, sizeof(text), v, 100, "%", parse)) &&
	    !real_text(text, sizeof(text), v, 1, "", parse))
		snprintf(text, sizeof(text), "%.17g", v); /* not from a file */
	fprintf(out, "  %s: %s\n", key, text);
}

static const char *clamp_name(const struct dcqcn_params *p)
{
	if (p->clamp_always)
		return "always";
	return p->clamp_after_inc ? "after_increase" : "never";
}

static void dump_dcqcn(const struct qos_dcqcn *d, FILE *out)
{
	const struct dcqcn_params *p = &d->par;
	char text[32];

	fprintf(out, "dcqcn:\n  profile: %s\n",
		strval_name(dcqcn_profiles, CYAML_ARRAY_LEN(dcqcn_profiles),
			    p->profile));
	if (p->line_bps > 0)
		put_dcqcn_rate(out, "line_rate", p->line_bps);
	else
		fputs("  line_rate: ''\n", out);
	put_dcqcn_rate(out, "min_rate", p->min_bps);
	put_dcqcn_rate(out, "rate_ai", p->ai_bps);
	put_dcqcn_rate(out, "rate_hai", p->hai_bps);
	put_real(out, "g", p->g, false, parse_gain);
	put_real(out, "alpha_init", p->alpha_init, false, parse_gain);
	put_time(out, "  ", "alpha_timer", p->alpha_ns);
	put_time(out, "  ", "increase_timer", p->inc_ns);
	put_time(out, "  ", "decrease_period", p->dec_ns);
	if (p->byte_counter <= UINT32_MAX)
		size_text(text, sizeof(text), (uint32_t)p->byte_counter);
	else
		snprintf(text, sizeof(text), "%" PRIu64, p->byte_counter);
	fprintf(out, "  byte_counter: %s\n  fast_recovery: %u\n", text, p->f);
	put_real(out, "min_decrease", p->min_dec_factor, true, parse_decrease);
	fprintf(out, "  clamp: %s\n", clamp_name(p));
	if (p->first_cnp_bps > 0)
		put_dcqcn_rate(out, "first_cnp_rate", p->first_cnp_bps);
	else
		fputs("  first_cnp_rate: ''\n", out);
	fprintf(out, "  alpha_before_cut: %s\n",
		p->alpha_before_cut ? "true" : "false");
	put_time(out, "  ", "cnp_interval", p->np_interval_ns);
	fprintf(out, "  flow_key: %s\n  max_flows: %u\n",
		strval_name(flow_keys, CYAML_ARRAY_LEN(flow_keys), d->key),
		d->max_flows);
	put_time(out, "  ", "flow_idle", d->flow_idle_ns);
	fprintf(out,
		"  cnp: %s\n  cp_loop: %s\n  np:\n    enabled: %s\n"
		"    dscp: %u\n    pcp: %u\n",
		strval_name(cnp_actions, CYAML_ARRAY_LEN(cnp_actions),
			    d->cnp_action),
		d->cp_loop ? "true" : "false", d->np ? "true" : "false",
		d->np_dscp, d->np_pcp);
}

/* The pfc mapping, when anything in it differs from the defaults (a file
 * without PFC dumps as it did before PFC existed). */
static void dump_pfc(const struct qos_pfc *p, FILE *out)
{
	if (!p->enabled && !p->xoff && !p->xon &&
	    p->cable_m == PFC_DEF_CABLE_M && p->quanta == PFC_MAX_QUANTA &&
	    p->watchdog_ns == PFC_DEF_WATCHDOG_MS * 1000000ull &&
	    p->restore_ns == PFC_DEF_RESTORE_MS * 1000000ull)
		return;
	fprintf(out, "pfc:\n  enabled: %s\n", p->enabled ? "true" : "false");
	if (p->xoff)
		put_size(out, "  ", "xoff", p->xoff);
	else
		fputs("  xoff: auto\n", out);
	if (p->xon)
		put_size(out, "  ", "xon", p->xon);
	else
		fputs("  xon: auto\n", out);
	fprintf(out,
		"  cable_length: %u\n  pause_quanta: %u\n  watchdog: %llu\n"
		"  watchdog_restore: %llu\n",
		p->cable_m, p->quanta,
		(unsigned long long)(p->watchdog_ns / 1000000),
		(unsigned long long)(p->restore_ns / 1000000));
}

static void dump_qos(const struct qos_policy *q, FILE *out)
{
	fprintf(out, "overhead: %u\nclasses:\n", q->port[0].overhead);
	for (uint32_t i = 0; i < q->n_classes; i++)
		dump_class(&q->classes[i], out);
	fputs(q->n_rules ? "rules:\n" : "rules: []\n", out);
	for (uint32_t i = 0; i < q->n_rules; i++)
		dump_rule(&q->rules[i], q, out);
	fputs("default_class: ", out);
	put_quoted(out, q->classes[q->default_class].name);
	fprintf(out, "\nmalformed: %s\n",
		strval_name(malformed_modes, CYAML_ARRAY_LEN(malformed_modes),
			    q->malformed));
	dump_dcqcn(&q->dcqcn, out);
	dump_pfc(&q->pfc, out);
}

static void dump_daemon(const struct xdplane_config *cfg, FILE *out)
{
	const struct config_control *ctl = &cfg->control;

	fputs("control:\n  socket: ", out);
	put_quoted(out, ctl->socket);
	fputs("\n  socket_group: ", out);
	put_quoted(out, ctl->socket_group);
	fputs("\n  metrics_listen: ", out);
	put_quoted(out, ctl->metrics_listen);
	fprintf(out,
		"\n  stats_interval_ms: %u\nuser: ", ctl->stats_interval_ms);
	put_quoted(out, cfg->user);
	fputs("\ngroup: ", out);
	put_quoted(out, cfg->group);
	fprintf(out, "\nlog_level: %s\n",
		config_log_level_name(cfg->log_level));
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

int config_dump(const struct xdplane_config *cfg, FILE *out)
{
	const struct config_rings *r = &cfg->rings;
	const struct qos_port *p;
	char text[32];

	fputs("ports:\n", out);
	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		p = &cfg->qos.port[i];
		fputs("  - interface: ", out);
		put_quoted(out, cfg->ports[i].interface);
		fputc('\n', out);
		if (cfg->ports[i].mtu)
			fprintf(out, "    mtu: %u\n", cfg->ports[i].mtu);
		if (p->rate_bps) {
			rate_text(text, sizeof(text), p->rate_bps);
			fprintf(out, "    rate: %s\n", text);
		}
		put_size(out, "    ", "burst", p->burst);
		if (p->link_bps) {
			rate_text(text, sizeof(text), p->link_bps);
			fprintf(out, "    link_speed: %s\n", text);
		}
	}
	if (cfg->queues == CONFIG_QUEUES_AUTO)
		fputs("queues: auto\n", out);
	else
		fprintf(out, "queues: %u\n", cfg->queues);
	fprintf(out, "xdp_mode: %s\nbind_mode: %s\nfailure_mode: %s\n",
		xdp_attach_mode_name(cfg->xdp_mode),
		xsk_bind_mode_name(cfg->bind_mode),
		failure_mode_name(cfg->failure_mode));
	fprintf(out,
		"rings:\n  fill: %u\n  completion: %u\n  rx: %u\n  tx: %u\n"
		"  handoff: %u\n",
		r->fill, r->completion, r->rx, r->tx, r->handoff);
	fprintf(out,
		"umem:\n  frames: %u\n  frame_size: %u\n  headroom: %u\n"
		"  hugepages: %s\n",
		cfg->umem.frames, cfg->umem.frame_size, cfg->umem.headroom,
		cfg->umem.hugepages ? "true" : "false");
	fprintf(out,
		"poll:\n  busy_us: %u\n  shaper_spin_us: %u\n  batch: %u\n",
		cfg->poll.busy_us, cfg->poll.shaper_spin_us, cfg->poll.batch);
	fputs("workers:\n  cpus: [", out);
	for (uint32_t i = 0; i < cfg->n_cpus; i++)
		fprintf(out, "%s%u", i ? ", " : "", cfg->cpus[i]);
	fputs("]\n", out);
	dump_qos(&cfg->qos, out);
	dump_daemon(cfg, out);
	return ferror(out) ? -1 : 0;
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

const char *config_log_level_name(int level)
{
	return strval_name(log_levels, CYAML_ARRAY_LEN(log_levels), level);
}

int config_log_level_parse(const char *name)
{
	for (size_t i = 0; i < CYAML_ARRAY_LEN(log_levels); i++)
		if (!strcmp(log_levels[i].str, name))
			return (int)log_levels[i].val;
	return -1;
}
