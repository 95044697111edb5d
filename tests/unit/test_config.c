// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config.c - unit tests of control/config.c (and its yaml_loc pass):
 * values and defaults loaded, every rule rejected with the exact
 * "file:line:col:" of the offending key or value, libcyaml's and libyaml's
 * errors located, the dump loading back the same, the shipped config;
 * the daemon's keys (control socket, metrics listener, user and group, log
 * level), with check_system lookups of the user and groups; DCQCN: both
 * profiles' defaults, every key, units, the rules against the line rate.
 */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <cmocka.h>
#include "unused_ids.h"

#include "config.h"

#define PORTS "ports:\n  - interface: eth1\n  - interface: eth2\n"
/* Shaped ports (lines 1-5), then a class "a" at line 7 whose keys x
 * start at line 8, or a rule naming "default" whose match keys x start at
 * line 9. */
#define QPORTS                                                                 \
	"ports:\n  - interface: eth1\n    rate: 100Gbit\n"                     \
	"  - interface: eth2\n    rate: 100Gbit\n"
#define CLS(x) QPORTS "classes:\n  - name: a\n" x "  - name: default\n"
#define RULE(x) QPORTS "rules:\n  - class: default\n    match:\n" x
/* ecn at line 9, pmax (x) at line 11 col 13 */
#define ECN(x)                                                                 \
	"    ecn:\n      kmin: 30KB\n      kmax: 300KB\n      pmax: " x "\n"
#define PORT_RATE(x)                                                           \
	"ports:\n  - interface: eth1\n    rate: " x "\n  - interface: eth2\n"
#define PORT_BURST(x)                                                          \
	"ports:\n  - interface: eth1\n    burst: " x "\n  - interface: eth2\n"
/* control.<key> x at line 5, its value at column 5 + strlen(key) + 2 */
#define CONTROL(x) PORTS "control:\n  " x "\n"
#define LISTEN(x) CONTROL("metrics_listen: " x) /* value at 5:19 */
/* dcqcn.<key> x at line 7 (shaped ports), its value at column
 * 3 + strlen(key) + 2 */
#define DCQCN(x) QPORTS "dcqcn:\n  " x "\n"
#define CONNECTX(x) DCQCN("profile: connectx\n  " x) /* x at line 8 */
#define SOCKET_LONG                                                            \
	"/run/xdplane/0123456789012345678901234567890123456789"                \
	"01234567890123456789012345678901234567890123456789012345678901234567"

static struct xdplane_config *load(const char *yaml, struct config_error *err)
{
	return config_load_string("t.yaml", yaml, false, err);
}

static struct xdplane_config *load_ok(const char *yaml)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg = load(yaml, &err);

	if (!cfg)
		fail_msg("rejected: %s", err.msg);
	return cfg;
}

/* A rejected document: the message starts with `prefix` ("t.yaml:L:C: ")
 * and contains `text`. */
struct bad_case {
	const char *name;
	const char *yaml;
	const char *prefix;
	const char *text;
};

static const struct bad_case bad_cases[] = {
	/* ports */
	{"ports_missing", "queues: 1\n",
	 "t.yaml:1:1: ", "ports: required key is missing"},
	{"empty_document", "",
	 "t.yaml:1:1: ", "ports: required key is missing"},
	{"ports_one", "ports:\n  - interface: a\n",
	 "t.yaml:2:3: ", "ports: must list exactly 2 ports, the pair (got 1)"},
	{"ports_three",
	 "ports: [{interface: a}, {interface: b}, {interface: c}]\n",
	 "t.yaml:1:8: ", "ports: must list exactly 2 ports, the pair (got 3)"},
	{"interface_missing", "ports:\n  - interface: a\n  - {}\n",
	 "t.yaml:3:5: ", "ports[1].interface: required key is missing"},
	{"interface_empty", "ports:\n  - interface: a\n  - interface: ''\n",
	 "t.yaml:3:16: ",
	 "ports[1].interface: expected a string of 1 to 15 characters "
	 "(got nothing)"},
	{"interface_too_long",
	 "ports:\n  - interface: abcdefghijklmnop\n  - interface: b\n",
	 "t.yaml:2:16: ",
	 "ports[0].interface: expected a string of 1 to 15 characters "
	 "(got 'abcdefghijklmnop')"},
	{"interface_same", "ports:\n  - interface: a\n  - interface: a\n",
	 "t.yaml:3:16: ", "ports[1].interface: same interface as ports[0]"},
	{"interface_invalid", "ports:\n  - interface: a/b\n  - interface: c\n",
	 "t.yaml:2:16: ",
	 "ports[0].interface: not a valid interface name (got 'a/b')"},
	/* numbers */
	{"queues_zero", PORTS "queues: 0\n",
	 "t.yaml:4:9: ", "queues: must be between 1 and 64, or auto (got 0)"},
	{"queues_65", PORTS "queues: 65\n",
	 "t.yaml:4:9: ", "queues: must be between 1 and 64, or auto (got 65)"},
	{"queues_huge", PORTS "queues: 99999999999\n", "t.yaml:4:9: ",
	 "queues: must be between 1 and 64, or auto (got 99999999999)"},
	/* queues is a number or the word auto, nothing else */
	{"queues_word", PORTS "queues: two\n", "t.yaml:4:9: ",
	 "queues: expected a number of queues from 1 to 64, or auto for the "
	 "NIC's channel count (got 'two')"},
	{"queues_auto_case", PORTS "queues: Auto\n", "t.yaml:4:9: ",
	 "queues: expected a number of queues from 1 to 64, or auto for the "
	 "NIC's channel count (got 'Auto')"},
	{"queues_fraction", PORTS "queues: 1.5\n", "t.yaml:4:9: ",
	 "queues: expected a number of queues from 1 to 64, or auto"},
	{"queues_octal", PORTS "queues: 010\n", "t.yaml:4:9: ",
	 "queues: expected a number of queues from 1 to 64, or auto"},
	{"queues_negative", PORTS "queues: -2\n", "t.yaml:4:9: ",
	 "queues: expected a number of queues from 1 to 64, or auto"},
	{"queues_empty", PORTS "queues:\n", "t.yaml:4:8: ",
	 "queues: expected a number of queues from 1 to 64, or auto for the "
	 "NIC's channel count (got nothing)"},
	{"queues_list", PORTS "queues: [2]\n", "t.yaml:4:9: ",
	 "queues: expected a number of queues from 1 to 64, or auto for the "
	 "NIC's channel count (got a list)"},
	/* umem.hugepages: true or false */
	{"hugepages_word", PORTS "umem:\n  hugepages: yes\n",
	 "t.yaml:5:14: ", "umem.hugepages: expected true or false (got 'yes')"},
	{"hugepages_number", PORTS "umem: {frames: 32768, hugepages: 1}\n",
	 "t.yaml:4:34: ", "umem.hugepages: expected true or false (got '1')"},
	{"hugepages_empty", PORTS "umem:\n  hugepages:\n", "t.yaml:5:13: ",
	 "umem.hugepages: expected true or false (got nothing)"},
	{"ring_not_pow2", PORTS "rings:\n  fill: 3000\n", "t.yaml:5:9: ",
	 "rings.fill: must be a power of two from 64 to 65536 descriptors "
	 "(got 3000); try 2048 or 4096"},
	{"ring_too_small", PORTS "rings:\n  completion: 32\n", "t.yaml:5:15: ",
	 "rings.completion: must be a power of two from 64 to 65536 "
	 "descriptors (got 32); try 64"},
	{"ring_too_big", PORTS "rings:\n  handoff: 131072\n",
	 "t.yaml:5:12: ", "(got 131072); try 65536"},
	{"ring_rx", PORTS "rings: {rx: 100}\n",
	 "t.yaml:4:13: ", "rings.rx: must be a power of two"},
	{"ring_tx", PORTS "rings: {tx: 0}\n",
	 "t.yaml:4:13: ", "rings.tx: must be a power of two"},
	{"frame_size", PORTS "umem:\n  frame_size: 1000\n", "t.yaml:5:15: ",
	 "umem.frame_size: must be 2048 or 4096 bytes (got 1000)"},
	{"headroom", PORTS "umem:\n  frame_size: 2048\n  headroom: 275\n",
	 "t.yaml:6:13: ",
	 "umem.headroom: leaves less than 1518 bytes of the 2048-byte frame "
	 "after the kernel's 256 bytes (got 275); use at most 274"},
	{"frames_not_pow2", PORTS "umem:\n  frames: 30000\n", "t.yaml:5:11: ",
	 "umem.frames: must be a power of two from 64 to 2147483648 frames "
	 "(got 30000); try 16384 or 32768"},
	{"frames_too_few", PORTS "umem:\n  frames: 16384\n", "t.yaml:5:11: ",
	 "umem.frames: need at least 2 * queues 1 * (rings.fill 4096 + "
	 "rings.tx 2048 + rings.handoff 4096) = 20480 (got 16384); "
	 "set umem.frames to 32768"},
	{"frames_default_too_few", PORTS "queues: 2\n", "t.yaml:4:9: ",
	 "umem.frames: need at least 2 * queues 2 * (rings.fill 4096 + "
	 "rings.tx 2048 + rings.handoff 4096) = 40960 (got 32768); "
	 "set umem.frames to 65536"},
	{"busy_us", PORTS "poll:\n  busy_us: 10001\n", "t.yaml:5:12: ",
	 "poll.busy_us: must be between 0 and 10000 microseconds (got 10001)"},
	{"batch_zero", PORTS "poll:\n  batch: 0\n", "t.yaml:5:10: ",
	 "poll.batch: must be between 1 and 256 descriptors (got 0)"},
	{"batch_257", PORTS "poll:\n  batch: 257\n", "t.yaml:5:10: ",
	 "poll.batch: must be between 1 and 256 descriptors (got 257)"},
	{"cpu_too_big", PORTS "workers:\n  cpus: [1, 256]\n", "t.yaml:5:13: ",
	 "workers.cpus[1]: CPU ids must be below 256 (got 256)"},
	{"cpu_twice", PORTS "workers:\n  cpus: [1, 2, 1]\n",
	 "t.yaml:5:16: ", "workers.cpus[2]: CPU 1 is listed twice"},
	/* libcyaml: unknown keys, at the key itself */
	{"unknown_top", PORTS "qeues: 2\n",
	 "t.yaml:4:1: ", "unknown key 'qeues' (did you mean 'queues'?)"},
	{"unknown_nested", PORTS "rings:\n  fill: 4096\n  txx: 64\n",
	 "t.yaml:6:3: ", "unknown key 'rings.txx' (did you mean 'rings.tx'?)"},
	{"unknown_in_port", "ports:\n  - interface: a\n  - interfac: b\n",
	 "t.yaml:3:5: ",
	 "unknown key 'ports[1].interfac' (did you mean "
	 "'ports[1].interface'?)"},
	{"unknown_far", PORTS "colour: blue\n", "t.yaml:4:1: ",
	 "unknown key 'colour'; the keys at the top are: ports, queues,"},
	/* libcyaml: wrong types */
	{"type_word", PORTS "poll:\n  batch: two\n", "t.yaml:5:10: ",
	 "poll.batch: expected a plain decimal number from 0 to 4294967295 "
	 "(got 'two')"},
	{"type_fraction", PORTS "poll:\n  batch: 1.5\n",
	 "t.yaml:5:10: ", "poll.batch: expected a plain decimal number"},
	{"type_octal", PORTS "poll:\n  batch: 010\n",
	 "t.yaml:5:10: ", "poll.batch: expected a plain decimal number"},
	{"type_negative", PORTS "poll: {busy_us: -1}\n",
	 "t.yaml:4:17: ", "poll.busy_us: expected a plain decimal number"},
	{"type_empty", PORTS "poll:\n  batch:\n", "t.yaml:5:9: ",
	 "poll.batch: expected a plain decimal number from 0 to 4294967295 "
	 "(got nothing)"},
	{"type_scalar_for_mapping", PORTS "rings: 3\n", "t.yaml:4:8: ",
	 "rings: expected a mapping with the keys fill, completion, rx, tx, "
	 "handoff (got '3')"},
	{"port_mtu_range",
	 "ports:\n  - {interface: eth1, mtu: 67}\n  - interface: eth2\n",
	 "t.yaml:2:28: ", "ports[0].mtu: must be between 68 and 65535 bytes"},
	{"port_mtu_type",
	 "ports:\n  - interface: eth1\n  - {interface: eth2, mtu: big}\n",
	 "t.yaml:3:", "mtu"},
	{"type_scalar_entries", "ports: [a, b]\n", "t.yaml:1:9: ",
	 "ports[0]: expected a mapping with the keys interface, mtu, rate, "
	 "burst"},
	{"type_scalar_for_list", PORTS "workers:\n  cpus: 3\n",
	 "t.yaml:5:9: ", "workers.cpus: expected a list (got '3')"},
	{"type_cpu_entry", PORTS "workers:\n  cpus: [1, x]\n",
	 "t.yaml:5:13: ", "workers.cpus[1]: expected a plain decimal number"},
	{"type_top_list", "- a\n",
	 "t.yaml:1:1: ", "document: expected a mapping with the keys ports,"},
	/* libcyaml: enums */
	{"enum_typo", PORTS "xdp_mode: nativ\n", "t.yaml:4:11: ",
	 "xdp_mode: expected one of native, generic, auto (got 'nativ'); "
	 "did you mean 'native'?"},
	{"enum_far", PORTS "bind_mode: fast\n", "t.yaml:4:12: ",
	 "bind_mode: expected one of zerocopy, copy, auto (got 'fast')"},
	{"enum_number", PORTS "failure_mode: 1\n", "t.yaml:4:15: ",
	 "failure_mode: expected one of open, closed (got '1')"},
	{"alias", "ports:\n  - interface: &x a\n  - interface: *x\n",
	 "t.yaml:3:16: ", "ports[1].interface: aliases (*name) are not"},
	/* libyaml, and what yaml_loc adds */
	{"syntax_indent", PORTS "rings:\n  fill: 64\n   tx: 64\n",
	 "t.yaml:6:6: ",
	 "rings: YAML syntax error: mapping values are not allowed"},
	{"syntax_flow", "ports: [\n", "t.yaml:2:1: ", "YAML syntax error: "},
	{"duplicate", PORTS "queues: 1\nqueues: 2\n",
	 "t.yaml:5:1: ", "queues: duplicate key (first written at 4:1)"},
	{"two_documents", PORTS "---\nqueues: 2\n",
	 "t.yaml:4:1: ", "a second YAML document"},
	{"after_document_end", PORTS "...\nqueues: 2\n", "t.yaml:5:1: ",
	 "YAML syntax error: did not find expected <document start>"},
	{"too_deep", PORTS "x: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n",
	 "t.yaml:4:19: ", "nested more than 16 levels deep"},
	{"complex_key", PORTS "? [a]\n: 1\n",
	 "t.yaml:4:3: ", "a key must be a string"},
	/* QoS: port shapers */
	{"qos_rate_syntax", PORT_RATE("fast"), "t.yaml:3:11: ",
	 "ports[0].rate: expected a rate in bits/s: a number with an optional "
	 "unit bit, kbit, Mbit, Gbit or Tbit (also bps, kbps, Mbps, Gbps, "
	 "Tbps), e.g. 100Gbit, 1.5Gbit or 800Mbit (got 'fast')"},
	{"qos_rate_pct_on_port", PORT_RATE("50%"),
	 "t.yaml:3:11: ", "ports[0].rate: expected a rate in bits/s"},
	{"qos_rate_leading_zero", PORT_RATE("01Gbit"),
	 "t.yaml:3:11: ", "ports[0].rate: expected a rate in bits/s"},
	{"qos_rate_space", PORT_RATE("1 Gbit"),
	 "t.yaml:3:11: ", "ports[0].rate: expected a rate in bits/s"},
	{"qos_rate_zero", PORT_RATE("0Gbit"), "t.yaml:3:11: ",
	 "ports[0].rate: a rate of 0 (got '0Gbit'); leave the key out for an "
	 "unshaped port"},
	{"qos_rate_overflow", PORT_RATE("20Tbit"), "t.yaml:3:11: ",
	 "ports[0].rate: above the largest rate, 10Tbit (got '20Tbit')"},
	{"qos_rate_overflow_digits",
	 PORT_RATE("99999999999999999999999999999Gbit"),
	 "t.yaml:3:11: ", "ports[0].rate: above the largest rate, 10Tbit"},
	{"qos_rate_fraction", PORT_RATE("1.5bit"), "t.yaml:3:11: ",
	 "ports[0].rate: not a whole number of bits/s (got '1.5bit')"},
	{"qos_rate_list", PORT_RATE("[1]"), "t.yaml:3:11: ",
	 "ports[0].rate: expected a rate in bits/s: a number with an optional "
	 "unit"},
	{"qos_burst_small", PORT_BURST("1500"), "t.yaml:3:12: ",
	 "ports[0].burst: must be at least 4096 bytes, umem.frame_size, to "
	 "hold the largest frame (got '1500')"},
	{"qos_size_fraction", PORT_BURST("4096.5"), "t.yaml:3:12: ",
	 "ports[0].burst: not a whole number of bytes (got '4096.5')"},
	{"qos_size_overflow", PORT_BURST("5GB"), "t.yaml:3:12: ",
	 "ports[0].burst: above the largest size, 4294967295 bytes "
	 "(got '5GB')"},
	{"qos_size_syntax", PORT_BURST("64K"), "t.yaml:3:12: ",
	 "ports[0].burst: expected a size in bytes: a number with an optional "
	 "unit KB, MB, GB (1000s) or KiB, MiB, GiB (1024s), e.g. 64KB or 4MiB "
	 "(got '64K')"},
	{"qos_overhead", QPORTS "overhead: 257\n", "t.yaml:6:11: ",
	 "overhead: must be between 0 and 256 bytes (got 257)"},
	/* QoS: classes */
	{"qos_ceil_above_port", CLS("    ceil: 120Gbit\n"), "t.yaml:8:11: ",
	 "classes[0].ceil: 120Gbit is above ports[0].rate 100Gbit; a class "
	 "cannot send faster than its port"},
	{"qos_min_above_port", CLS("    min: 100.5Gbit\n"), "t.yaml:8:10: ",
	 "classes[0].min: 100.5Gbit is above ports[0].rate 100Gbit"},
	{"qos_ceil_above_port1",
	 "ports:\n  - interface: eth1\n    rate: 100Gbit\n"
	 "  - interface: eth2\n    rate: 10Gbit\n"
	 "classes:\n  - name: default\n    ceil: 25Gbit\n",
	 "t.yaml:8:11: ",
	 "classes[0].ceil: 25Gbit is above ports[1].rate 10Gbit"},
	{"qos_pct_needs_rate",
	 PORTS "classes:\n  - name: default\n    ceil: 5%\n", "t.yaml:6:11: ",
	 "classes[0].ceil: a percentage needs ports[].rate; set the rate of "
	 "the ports, or write a rate such as 5Gbit"},
	{"qos_min_pct_needs_rate",
	 PORTS "classes:\n  - name: a\n  - name: default\n    min: 10%\n",
	 "t.yaml:7:10: ", "classes[1].min: a percentage needs ports[].rate"},
	{"qos_pct_zero", CLS("    ceil: 0%\n"), "t.yaml:8:11: ",
	 "classes[0].ceil: a percentage must be above 0% and at most 100% "
	 "(got '0%')"},
	{"qos_pct_big", CLS("    ceil: 100.5%\n"), "t.yaml:8:11: ",
	 "classes[0].ceil: a percentage must be above 0% and at most 100% "
	 "(got '100.5%')"},
	{"qos_pct_tiny", CLS("    min: 0.0007%\n"), "t.yaml:8:10: ",
	 "classes[0].min: '0.0007%' is less than one part in 65536 of the "
	 "port rate; use at least 0.0008%"},
	{"qos_pct_below_1bit",
	 "ports:\n  - interface: eth1\n    rate: 100Gbit\n"
	 "  - interface: eth2\n    rate: 60000\n"
	 "classes:\n  - name: default\n    ceil: 0.001%\n",
	 "t.yaml:8:11: ",
	 "classes[0].ceil: '0.001%' of ports[1].rate is less than 1 bit/s"},
	{"qos_ceil_zero", CLS("    ceil: 0\n"), "t.yaml:8:11: ",
	 "classes[0].ceil: a rate of 0 (got '0'); leave the key out for no "
	 "ceiling"},
	{"qos_ceil_syntax", CLS("    ceil: 1.5Gbitz\n"), "t.yaml:8:11: ",
	 "classes[0].ceil: expected a rate in bits/s: a number with an "
	 "optional unit bit, kbit, Mbit, Gbit or Tbit (also bps, kbps, Mbps, "
	 "Gbps, Tbps), e.g. 100Gbit, 1.5Gbit or 800Mbit, or a percentage of "
	 "the port rate, e.g. 5% (got '1.5Gbitz')"},
	{"qos_min_above_ceil", CLS("    ceil: 20Gbit\n    min: 30Gbit\n"),
	 "t.yaml:9:10: ",
	 "classes[0].min: the minimum 30Gbit is above the ceil 20Gbit; a class "
	 "cannot be guaranteed more than it may send"},
	{"qos_min_above_ceil_pct", CLS("    ceil: 20%\n    min: 25%\n"),
	 "t.yaml:9:10: ",
	 "classes[0].min: the minimum 25% is above the ceil 20%;"},
	{"qos_min_above_ceil_mixed", CLS("    ceil: 20%\n    min: 30Gbit\n"),
	 "t.yaml:9:10: ",
	 "classes[0].min: the minimum 30Gbit is above the ceil 20% on "
	 "ports[0] (rate 100Gbit)"},
	{"qos_min_sum", CLS("    min: 60%\n  - name: b\n    min: 50Gbit\n"),
	 "t.yaml:10:10: ",
	 "classes[1].min: the minimums of classes[0] to classes[1] add up to "
	 "110% of ports[0].rate 100Gbit; together they must fit in it"},
	{"qos_min_sum_pct",
	 CLS("    min: 40%\n  - name: b\n  - name: c\n    min: 40%\n"
	     "  - name: d\n    min: 40%\n"),
	 "t.yaml:13:10: ",
	 "classes[3].min: the minimums of classes[0] to classes[3] add up to "
	 "120% of ports[0].rate 100Gbit"},
	{"qos_quantum_zero", CLS("    quantum: 0\n"), "t.yaml:8:14: ",
	 "classes[0].quantum: must be between 64 and 1048576 bytes (got 0); a "
	 "class with quantum 0 would never be served"},
	{"qos_quantum_small", CLS("    quantum: 63\n"), "t.yaml:8:14: ",
	 "classes[0].quantum: must be between 64 and 1048576 bytes (got 63)"},
	{"qos_quantum_big", CLS("    quantum: 1048577\n"), "t.yaml:8:14: ",
	 "classes[0].quantum: must be between 64 and 1048576 bytes "
	 "(got 1048577)"},
	{"qos_level", CLS("    level: 8\n"),
	 "t.yaml:8:12: ", "classes[0].level: must be between 0 and 7 (got 8)"},
	{"qos_limit_packets_zero", CLS("    limit_packets: 0\n"),
	 "t.yaml:8:20: ",
	 "classes[0].limit_packets: must be between 1 and 65536 packets "
	 "(got 0)"},
	{"qos_limit_packets_big", CLS("    limit_packets: 65537\n"),
	 "t.yaml:8:20: ",
	 "classes[0].limit_packets: must be between 1 and 65536 packets "
	 "(got 65537)"},
	{"qos_limit_bytes_small", CLS("    limit_bytes: 4KB\n"),
	 "t.yaml:8:18: ",
	 "classes[0].limit_bytes: must be at least 4096 bytes, "
	 "umem.frame_size, to hold the largest frame (got '4KB')"},
	{"qos_ceil_burst_small", CLS("    ceil_burst: 100\n"),
	 "t.yaml:8:17: ", "classes[0].ceil_burst: must be at least 4096 bytes"},
	{"qos_min_burst_syntax", CLS("    min_burst: 64K\n"),
	 "t.yaml:8:16: ", "classes[0].min_burst: expected a size in bytes"},
	{"qos_dup_name", CLS("  - name: b\n  - name: a\n"), "t.yaml:9:11: ",
	 "classes[2].name: 'a' is already the name of classes[0] (at 7:11); "
	 "names must be unique"},
	{"qos_name_chars", QPORTS "classes:\n  - name: a.b\n", "t.yaml:7:11: ",
	 "classes[0].name: expected a name of 1 to 31 letters, digits, '_' or "
	 "'-' (got 'a.b')"},
	{"qos_name_long",
	 QPORTS "classes:\n  - name: abcdefghijklmnopqrstuvwxyz012345\n",
	 "t.yaml:7:11: ",
	 "classes[0].name: expected a name of 1 to 31 letters, digits, '_' or "
	 "'-' (got 'abcdefghijklmnopqrstuvwxyz012345')"},
	{"qos_name_missing", QPORTS "classes:\n  - level: 1\n", "t.yaml:7:5: ",
	 "classes[0].name: required key is missing; add 'name: NAME' to this "
	 "entry"},
	{"qos_classes_empty", QPORTS "classes: []\n", "t.yaml:6:10: ",
	 "classes: an empty list; list at least one class, or leave the key "
	 "out for a single FIFO class"},
	{"qos_class_unknown_key", CLS("    cel: 5%\n"), "t.yaml:8:5: ",
	 "unknown key 'classes[0].cel' (did you mean 'classes[0].ceil'?)"},
	{"qos_kmax_below_kmin",
	 CLS("    ecn:\n      kmin: 300KB\n      kmax: 30KB\n      pmax: 1%\n"),
	 "t.yaml:10:13: ",
	 "classes[0].ecn.kmax: must be above kmin 300KB (got '30KB'); marking "
	 "rises from 0 at kmin to pmax at kmax"},
	{"qos_kmax_eq_kmin",
	 CLS("    ecn:\n      kmin: 30KB\n      kmax: 30000\n      pmax: 1%\n"),
	 "t.yaml:10:13: ",
	 "classes[0].ecn.kmax: must be above kmin 30KB (got '30000')"},
	{"qos_kmax_above_limit",
	 CLS("    limit_bytes: 1MiB\n    ecn:\n      kmin: 30KB\n"
	     "      kmax: 2MB\n      pmax: 1%\n"),
	 "t.yaml:11:13: ",
	 "classes[0].ecn.kmax: above the class's limit_bytes 1MiB (got '2MB'); "
	 "the queue would drop before marking reached pmax"},
	{"qos_ecn_missing",
	 CLS("    ecn:\n      kmin: 30KB\n      kmax: 300KB\n"), "t.yaml:9:7: ",
	 "classes[0].ecn.pmax: required key is missing; add e.g. 'pmax: 1%'"},
	{"qos_pmax_zero", CLS(ECN("0")), "t.yaml:11:13: ",
	 "classes[0].ecn.pmax: must be above 0 and at most 1 (100%) "
	 "(got '0')"},
	{"qos_pmax_big", CLS(ECN("100.1%")), "t.yaml:11:13: ",
	 "classes[0].ecn.pmax: must be above 0 and at most 1 (100%) "
	 "(got '100.1%')"},
	{"qos_pmax_fraction_big", CLS(ECN("1.01")), "t.yaml:11:13: ",
	 "classes[0].ecn.pmax: must be above 0 and at most 1 (100%)"},
	{"qos_pmax_tiny", CLS(ECN("0.000001")), "t.yaml:11:13: ",
	 "classes[0].ecn.pmax: '0.000001' is less than one part in 65536; use "
	 "at least 0.0008%"},
	{"qos_pmax_syntax", CLS(ECN("high")), "t.yaml:11:13: ",
	 "classes[0].ecn.pmax: expected a probability above 0 and at most 1: a "
	 "percentage such as 1% or a fraction such as 0.01 (got 'high')"},
	{"qos_non_ect_typo", CLS(ECN("1%") "      non_ect: dorp\n"),
	 "t.yaml:12:16: ",
	 "classes[0].ecn.non_ect: expected one of drop, pass (got 'dorp'); did "
	 "you mean 'drop'?"},
	/* QoS: rules, default_class, malformed */
	{"qos_rule_unknown_class",
	 QPORTS "classes:\n  - name: storage\n  - name: default\nrules:\n"
		"  - class: storage\n  - class: default\n  - class: storge\n",
	 "t.yaml:12:12: ",
	 "rules[2].class: no class named 'storge' (did you mean 'storage'?)"},
	{"qos_rule_unknown_far", QPORTS "rules:\n  - class: bulk\n",
	 "t.yaml:7:12: ",
	 "rules[0].class: no class named 'bulk'; the classes are: default"},
	{"qos_rule_class_missing", QPORTS "rules:\n  - match: {}\n",
	 "t.yaml:7:5: ",
	 "rules[0].class: required key is missing; add 'class: NAME' to this "
	 "rule"},
	{"qos_default_class_unknown",
	 QPORTS "classes:\n  - name: bulk\ndefault_class: blk\n",
	 "t.yaml:8:16: ",
	 "default_class: no class named 'blk' (did you mean 'bulk'?)"},
	{"qos_default_class_missing", QPORTS "classes:\n  - name: bulk\n",
	 "t.yaml:6:1: ",
	 "default_class: required key is missing, as no class is named "
	 "'default'; add 'default_class: NAME' naming the class of frames no "
	 "rule matches"},
	{"qos_malformed_typo", QPORTS "malformed: dorp\n", "t.yaml:6:12: ",
	 "malformed: expected one of default, drop (got 'dorp'); did you mean "
	 "'drop'?"},
	{"qos_src_host_bits", RULE("      src: 10.1.2.3/16\n"), "t.yaml:9:12: ",
	 "rules[0].match.src: 10.1.2.3/16 has host bits set; did you mean "
	 "10.1.0.0/16?"},
	{"qos_dst_host_bits6", RULE("      dst: fd00::1/8\n"), "t.yaml:9:12: ",
	 "rules[0].match.dst: fd00::1/8 has host bits set; did you mean "
	 "fd00::/8?"},
	{"qos_prefix_syntax", RULE("      src: 10.1/16\n"), "t.yaml:9:12: ",
	 "rules[0].match.src: expected an IPv4 or IPv6 address or prefix, e.g. "
	 "10.1.0.0/16, fd00::/8 or 10.1.2.3 (got '10.1/16')"},
	{"qos_prefix_len", RULE("      src: 10.0.0.0/33\n"), "t.yaml:9:12: ",
	 "rules[0].match.src: expected an IPv4 or IPv6 address or prefix"},
	{"qos_prefix_len6", RULE("      dst: 'fd00::/129'\n"), "t.yaml:9:12: ",
	 "rules[0].match.dst: expected an IPv4 or IPv6 address or prefix"},
	{"qos_family_mix", RULE("      src: 10.0.0.0/8\n      dst: fd00::/8\n"),
	 "t.yaml:10:12: ",
	 "rules[0].match.dst: an IPv6 prefix, but src is IPv4; no frame "
	 "matches both"},
	{"qos_port_backwards", RULE("      dport: 2000-1000\n"),
	 "t.yaml:9:14: ",
	 "rules[0].match.dport: the range 2000-1000 runs backwards; write "
	 "1000-2000"},
	{"qos_port_syntax", RULE("      sport: http\n"), "t.yaml:9:14: ",
	 "rules[0].match.sport: expected a port number 0..65535 or an "
	 "inclusive range lo-hi, e.g. 2049 or 1000-2000 (got 'http')"},
	{"qos_port_big", RULE("      dport: 65536\n"), "t.yaml:9:14: ",
	 "rules[0].match.dport: expected a port number 0..65535"},
	{"qos_port_half_range", RULE("      dport: 1000-\n"), "t.yaml:9:14: ",
	 "rules[0].match.dport: expected a port number 0..65535"},
	{"qos_proto_name", RULE("      proto: sctp\n"), "t.yaml:9:14: ",
	 "rules[0].match.proto: expected udp, tcp, icmp, icmpv6 or a protocol "
	 "number 0..255 (got 'sctp')"},
	{"qos_proto_big", RULE("      proto: 256\n"), "t.yaml:9:14: ",
	 "rules[0].match.proto: expected udp, tcp, icmp, icmpv6"},
	{"qos_ethertype_len", RULE("      ethertype: 0x0100\n"),
	 "t.yaml:9:18: ",
	 "rules[0].match.ethertype: 0x0100 is a frame length, not an "
	 "EtherType (those start at 0x0600)"},
	{"qos_ethertype_syntax", RULE("      ethertype: ipv4\n"),
	 "t.yaml:9:18: ",
	 "rules[0].match.ethertype: expected an EtherType 0x0600..0xffff, e.g. "
	 "0x88b5 or 0x0800 (got 'ipv4')"},
	{"qos_ethertype_big", RULE("      ethertype: 0x10000\n"),
	 "t.yaml:9:18: ", "rules[0].match.ethertype: expected an EtherType"},
	{"qos_vlan_big", RULE("      vlan: 4096\n"), "t.yaml:9:13: ",
	 "rules[0].match.vlan: must be between 0 and 4095 (got 4096)"},
	{"qos_vlan_hex", RULE("      vlan: 0x64\n"), "t.yaml:9:13: ",
	 "rules[0].match.vlan: expected a plain decimal number"},
	{"qos_pcp_list", RULE("      pcp: [1, 9]\n"), "t.yaml:9:16: ",
	 "rules[0].match.pcp[1]: expected a number 0..7 (got '9')"},
	{"qos_pcp_scalar", RULE("      pcp: 8\n"), "t.yaml:9:12: ",
	 "rules[0].match.pcp: expected a number 0..7 (got '8')"},
	{"qos_dscp_big", RULE("      dscp: 64\n"), "t.yaml:9:13: ",
	 "rules[0].match.dscp: expected a number 0..63 (got '64')"},
	{"qos_ecn_big", RULE("      ecn: [4]\n"), "t.yaml:9:13: ",
	 "rules[0].match.ecn[0]: expected a number 0..3 (got '4')"},
	{"qos_dscp_nested", RULE("      dscp: [[1]]\n"), "t.yaml:9:14: ",
	 "rules[0].match.dscp[0]: expected a number 0..63 (got a list)"},
	{"qos_dscp_empty", RULE("      dscp: []\n"), "t.yaml:9:13: ",
	 "rules[0].match.dscp: an empty list matches no frame; leave the key "
	 "out to match any value"},
	{"qos_dscp_mapping", RULE("      dscp: {a: 1}\n"), "t.yaml:9:13: ",
	 "rules[0].match.dscp: expected a number 0..63 or a list of them, e.g. "
	 "[1, 2] (got a mapping)"},
	{"qos_bth_tcp", RULE("      proto: tcp\n      bth_opcode: 0x81\n"),
	 "t.yaml:10:19: ",
	 "rules[0].match.bth_opcode: only UDP frames to port 4791 carry a BTH, "
	 "and this rule's proto or dport excludes them"},
	{"qos_bth_dport", RULE("      dport: 80\n      bth_opcode: 0x81\n"),
	 "t.yaml:10:19: ",
	 "rules[0].match.bth_opcode: only UDP frames to port 4791 carry a BTH"},
	{"qos_bth_syntax", RULE("      bth_opcode: 0x100\n"), "t.yaml:9:19: ",
	 "rules[0].match.bth_opcode: expected a BTH opcode 0..255, e.g. 0x81 "
	 "(decimal or 0x hex) (got '0x100')"},
	{"qos_match_unknown", RULE("      dscpp: 1\n"), "t.yaml:9:7: ",
	 "unknown key 'rules[0].match.dscpp' (did you mean "
	 "'rules[0].match.dscp'?)"},
	/* daemon: control socket, metrics listener, user, group, log level */
	{"socket_relative", CONTROL("socket: run/x.sock"), "t.yaml:5:11: ",
	 "control.socket: expected an absolute path of at most 107 bytes, e.g. "
	 "/run/xdplane/control.sock, or '' for no control socket "
	 "(got 'run/x.sock')"},
	{"socket_dir", CONTROL("socket: /run/xdplane/"),
	 "t.yaml:5:11: ", "control.socket: expected an absolute path"},
	{"socket_too_long", CONTROL("socket: " SOCKET_LONG), "t.yaml:5:11: ",
	 "control.socket: a path of 121 bytes (got "
	 "'/run/xdplane/012345678901234567890123456...'); a Unix socket path "
	 "has at most 107"},
	{"socket_list", CONTROL("socket: [a]"), "t.yaml:5:11: ",
	 "control.socket: expected an absolute path of at most 107 bytes"},
	{"socket_group_invalid", CONTROL("socket_group: 'a:b'"),
	 "t.yaml:5:17: ",
	 "control.socket_group: not a valid group name (got 'a:b'); names have "
	 "no spaces, ':', ',', '/' or control characters"},
	{"listen_v4_range", LISTEN("300.1.1.1:9470"), "t.yaml:5:19: ",
	 "control.metrics_listen: '300.1.1.1' is not an IPv4 address (got "
	 "'300.1.1.1:9470'); write a numeric address such as 127.0.0.1, host "
	 "names are not resolved"},
	{"listen_name", LISTEN("localhost:9470"), "t.yaml:5:19: ",
	 "control.metrics_listen: 'localhost' is not an IPv4 address"},
	{"listen_v4_short", LISTEN("127.1:9470"), "t.yaml:5:19: ",
	 "control.metrics_listen: '127.1' is not an IPv4 address"},
	{"listen_no_port6", LISTEN("'[::1]'"), "t.yaml:5:19: ",
	 "control.metrics_listen: no port (got '[::1]'); write host:port, "
	 "e.g. 127.0.0.1:9470 or [::1]:9470"},
	{"listen_no_port4", LISTEN("127.0.0.1"),
	 "t.yaml:5:19: ", "control.metrics_listen: no port (got '127.0.0.1')"},
	{"listen_empty_port", LISTEN("'127.0.0.1:'"),
	 "t.yaml:5:19: ", "control.metrics_listen: no port (got '127.0.0.1:')"},
	{"listen_port_zero", LISTEN("127.0.0.1:0"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535 "
	 "(got '127.0.0.1:0')"},
	{"listen_port_big", LISTEN("'[::1]:65536'"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535 "
	 "(got '[::1]:65536')"},
	{"listen_port_leading_zero", LISTEN("127.0.0.1:09470"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535"},
	{"listen_port_name", LISTEN("127.0.0.1:http"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535"},
	{"listen_v6_brackets", LISTEN("'::1:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: an IPv6 address goes in brackets, e.g. "
	 "[::1]:9470 (got '::1:9470')"},
	{"listen_v6_bad", LISTEN("'[fe80::1%eth0]:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: 'fe80::1%eth0' is not an IPv6 address (got "
	 "'[fe80::1%eth0]:9470'); write a numeric address without a zone, "
	 "e.g. [::1]"},
	{"listen_v4_in_brackets", LISTEN("'[127.0.0.1]:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: '127.0.0.1' is not an IPv6 address"},
	{"listen_unclosed", LISTEN("'[::1:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: expected a numeric address and port, "
	 "host:port or [v6addr]:port, e.g. 127.0.0.1:9470 or [::1]:9470, or '' "
	 "for no listener (got '[::1:9470')"},
	{"listen_junk_after", LISTEN("'[::1]x9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: expected a numeric address and port"},
	{"stats_interval_low", CONTROL("stats_interval_ms: 99"),
	 "t.yaml:5:22: ",
	 "control.stats_interval_ms: must be between 100 and 60000 "
	 "milliseconds (got 99)"},
	{"stats_interval_high", CONTROL("stats_interval_ms: 60001"),
	 "t.yaml:5:22: ",
	 "control.stats_interval_ms: must be between 100 and 60000 "
	 "milliseconds (got 60001)"},
	{"stats_interval_word", CONTROL("stats_interval_ms: 1s"),
	 "t.yaml:5:22: ",
	 "control.stats_interval_ms: expected a plain decimal number"},
	{"control_unknown", CONTROL("sockt: /x"), "t.yaml:5:3: ",
	 "unknown key 'control.sockt' (did you mean 'control.socket'?)"},
	{"control_scalar", PORTS "control: on\n", "t.yaml:4:10: ",
	 "control: expected a mapping with the keys socket, socket_group, "
	 "metrics_listen, stats_interval_ms (got 'on')"},
	{"user_invalid", PORTS "user: 'a b'\n", "t.yaml:4:7: ",
	 "user: not a valid user name (got 'a b'); names have no spaces, ':', "
	 "',', '/' or control characters"},
	{"user_too_long",
	 PORTS
	 "user: u123456789012345678901234567890123456789012345678901234567"
	 "890123\n",
	 "t.yaml:4:7: ",
	 "user: expected a name of at most 63 characters, or ''"},
	{"group_invalid", PORTS "user: nobody\ngroup: a/b\n",
	 "t.yaml:5:8: ", "group: not a valid group name (got 'a/b')"},
	{"group_without_user", PORTS "group: nogroup\n", "t.yaml:4:8: ",
	 "group: only used with user, as the group to run as instead of the "
	 "user's own; set user too, or leave group out"},
	{"log_level_unknown", PORTS "log_level: verbose\n", "t.yaml:4:12: ",
	 "log_level: expected one of err, warn, notice, info, debug "
	 "(got 'verbose')"},
	{"log_level_typo", PORTS "log_level: eror\n", "t.yaml:4:12: ",
	 "log_level: expected one of err, warn, notice, info, debug "
	 "(got 'eror'); did you mean 'err'?"},
	{"log_level_number", PORTS "log_level: 7\n", "t.yaml:4:12: ",
	 "log_level: expected one of err, warn, notice, info, debug (got '7')"},
	/* DCQCN */
	{"dcqcn_scalar", QPORTS "dcqcn: true\n", "t.yaml:6:8: ",
	 "dcqcn: expected a mapping with the keys profile, line_rate, "
	 "min_rate, rate_ai, rate_hai, g, alpha_init, alpha_timer, "
	 "increase_timer, decrease_period, byte_counter, fast_recovery, "
	 "min_decrease, clamp, first_cnp_rate, alpha_before_cut, cnp_interval, "
	 "flow_key, max_flows, flow_idle, cnp, cp_loop, np (got 'true')"},
	{"dcqcn_unknown", DCQCN("alpha_timr: 55us"), "t.yaml:7:3: ",
	 "unknown key 'dcqcn.alpha_timr' (did you mean 'dcqcn.alpha_timer'?)"},
	{"dcqcn_profile_typo", DCQCN("profile: papr"), "t.yaml:7:12: ",
	 "dcqcn.profile: expected one of paper, connectx (got 'papr'); did you "
	 "mean 'paper'?"},
	{"dcqcn_time_no_unit", DCQCN("alpha_timer: 55"), "t.yaml:7:16: ",
	 "dcqcn.alpha_timer: expected a time: a number with a unit ns, us, ms "
	 "or s, e.g. 55us, 0.5ms or 1s (0 needs no unit) (got '55')"},
	{"dcqcn_time_space", DCQCN("alpha_timer: 5 us"),
	 "t.yaml:7:16: ", "dcqcn.alpha_timer: expected a time"},
	{"dcqcn_time_minutes", DCQCN("flow_idle: 5min"),
	 "t.yaml:7:14: ", "dcqcn.flow_idle: expected a time"},
	{"dcqcn_time_negative", DCQCN("cnp_interval: -5us"),
	 "t.yaml:7:17: ", "dcqcn.cnp_interval: expected a time"},
	{"dcqcn_time_list", DCQCN("increase_timer: [55us]"), "t.yaml:7:19: ",
	 "dcqcn.increase_timer: expected a time: a number with a unit"},
	{"dcqcn_time_fraction", DCQCN("alpha_timer: 1.5ns"), "t.yaml:7:16: ",
	 "dcqcn.alpha_timer: not a whole number of nanoseconds (got '1.5ns')"},
	{"dcqcn_time_small", DCQCN("alpha_timer: 999ns"), "t.yaml:7:16: ",
	 "dcqcn.alpha_timer: must be between 1us and 1s (got '999ns')"},
	{"dcqcn_time_big", DCQCN("increase_timer: 1001ms"), "t.yaml:7:19: ",
	 "dcqcn.increase_timer: must be between 1us and 1s (got '1001ms')"},
	{"dcqcn_time_overflow", DCQCN("cnp_interval: 99999999999999999999s"),
	 "t.yaml:7:17: ",
	 "dcqcn.cnp_interval: must be between 0 and 1s (got "
	 "'99999999999999999999s')"},
	{"dcqcn_flow_idle_small", DCQCN("flow_idle: 999us"), "t.yaml:7:14: ",
	 "dcqcn.flow_idle: must be between 1ms and 3600s (got '999us')"},
	{"dcqcn_decrease_paper", DCQCN("decrease_period: 4us"), "t.yaml:7:20: ",
	 "dcqcn.decrease_period: the paper profile cuts the rate on every CNP "
	 "and has no decrease period (got '4us'); leave the key out, or use "
	 "profile: connectx"},
	{"dcqcn_decrease_zero", CONNECTX("decrease_period: 0"), "t.yaml:8:20: ",
	 "dcqcn.decrease_period: must be between 1us and 1s (got '0')"},
	{"dcqcn_decrease_small", CONNECTX("decrease_period: 500ns"),
	 "t.yaml:8:20: ",
	 "dcqcn.decrease_period: must be between 1us and 1s (got '500ns')"},
	{"dcqcn_byte_counter_connectx", CONNECTX("byte_counter: 10MB"),
	 "t.yaml:8:17: ",
	 "dcqcn.byte_counter: the connectx profile has no byte counter, only "
	 "the increase timer (got '10MB'); leave the key out, or use profile: "
	 "paper"},
	{"dcqcn_byte_counter_syntax", DCQCN("byte_counter: 10M"),
	 "t.yaml:7:17: ", "dcqcn.byte_counter: expected a size in bytes"},
	{"dcqcn_g_zero", DCQCN("g: 0"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '0')"},
	{"dcqcn_g_big", DCQCN("g: 1.5"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '1.5')"},
	{"dcqcn_g_fraction_big", DCQCN("g: 3/2"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '3/2')"},
	{"dcqcn_g_over_zero", DCQCN("g: 1/0"),
	 "t.yaml:7:6: ", "dcqcn.g: must be between 0.000001 and 1 (got '1/0')"},
	{"dcqcn_g_tiny", DCQCN("g: 1/2000000"), "t.yaml:7:6: ",
	 "dcqcn.g: must be between 0.000001 and 1 (got '1/2000000')"},
	{"dcqcn_g_exponent", DCQCN("g: 1e-3"), "t.yaml:7:6: ",
	 "dcqcn.g: expected a number above 0 and at most 1: a decimal such as "
	 "0.00390625 or a fraction such as 1/256 (got '1e-3')"},
	{"dcqcn_g_hex", DCQCN("g: 1/0x100"),
	 "t.yaml:7:6: ", "dcqcn.g: expected a number above 0 and at most 1"},
	{"dcqcn_g_negative", DCQCN("g: -0.5"),
	 "t.yaml:7:6: ", "dcqcn.g: expected a number above 0 and at most 1"},
	{"dcqcn_g_huge_denominator", DCQCN("g: 1/99999999999999999"),
	 "t.yaml:7:6: ", "dcqcn.g: expected a number above 0 and at most 1"},
	{"dcqcn_alpha_init_zero", DCQCN("alpha_init: 0.0"), "t.yaml:7:15: ",
	 "dcqcn.alpha_init: must be between 0.000001 and 1 (got '0.0')"},
	{"dcqcn_min_decrease_all", DCQCN("min_decrease: 100%"), "t.yaml:7:17: ",
	 "dcqcn.min_decrease: must be at least 0% and below 100% (got "
	 "'100%'); a cut may keep at most all but a part of the rate"},
	{"dcqcn_min_decrease_one", DCQCN("min_decrease: 1"), "t.yaml:7:17: ",
	 "dcqcn.min_decrease: must be at least 0% and below 100% (got '1')"},
	{"dcqcn_min_decrease_syntax", DCQCN("min_decrease: half"),
	 "t.yaml:7:17: ",
	 "dcqcn.min_decrease: expected a percentage from 0% to below 100%, "
	 "e.g. 50%, or a decimal from 0 to below 1, e.g. 0.5 (got 'half')"},
	{"dcqcn_min_decrease_negative", DCQCN("min_decrease: -5%"),
	 "t.yaml:7:17: ", "dcqcn.min_decrease: expected a percentage"},
	{"dcqcn_fast_recovery_zero", DCQCN("fast_recovery: 0"), "t.yaml:7:18: ",
	 "dcqcn.fast_recovery: must be between 1 and 31 (got 0)"},
	{"dcqcn_fast_recovery_big", DCQCN("fast_recovery: 32"), "t.yaml:7:18: ",
	 "dcqcn.fast_recovery: must be between 1 and 31 (got 32)"},
	{"dcqcn_fast_recovery_word", DCQCN("fast_recovery: five"),
	 "t.yaml:7:18: ",
	 "dcqcn.fast_recovery: expected a plain decimal number"},
	{"dcqcn_clamp_typo", DCQCN("clamp: alway"), "t.yaml:7:10: ",
	 "dcqcn.clamp: expected one of always, after_increase, never (got "
	 "'alway'); did you mean 'always'?"},
	{"dcqcn_first_cnp_paper", DCQCN("first_cnp_rate: 10Gbit"),
	 "t.yaml:7:19: ",
	 "dcqcn.first_cnp_rate: the paper profile keeps the flow's rate on the "
	 "first CNP (got '10Gbit'); leave the key out, or use profile: "
	 "connectx"},
	{"dcqcn_first_cnp_below_min", CONNECTX("first_cnp_rate: 500kbit"),
	 "t.yaml:8:19: ",
	 "dcqcn.first_cnp_rate: 500kbit must be at least dcqcn.min_rate, "
	 "1Mbit"},
	{"dcqcn_first_cnp_above_line",
	 CONNECTX("line_rate: 10Gbit\n  first_cnp_rate: 20Gbit"),
	 "t.yaml:9:19: ",
	 "dcqcn.first_cnp_rate: 20Gbit must be at most the line rate, 10Gbit "
	 "(dcqcn.line_rate)"},
	{"dcqcn_first_cnp_zero", CONNECTX("first_cnp_rate: 0"), "t.yaml:8:19: ",
	 "dcqcn.first_cnp_rate: a rate of 0 (got '0'); leave the key out for "
	 "the flow's own rate (or write '')"},
	{"dcqcn_alpha_before_cut_connectx", CONNECTX("alpha_before_cut: true"),
	 "t.yaml:8:21: ",
	 "dcqcn.alpha_before_cut: the connectx profile updates alpha on its "
	 "own tick, never on a CNP (got 'true'); leave the key out, or use "
	 "profile: paper"},
	{"dcqcn_bool_yes", DCQCN("cp_loop: yes"),
	 "t.yaml:7:12: ", "dcqcn.cp_loop: expected true or false (got 'yes')"},
	{"dcqcn_bool_number", DCQCN("alpha_before_cut: 1"), "t.yaml:7:21: ",
	 "dcqcn.alpha_before_cut: expected true or false (got '1')"},
	{"dcqcn_class_bool", CLS("    dcqcn: on\n"), "t.yaml:8:12: ",
	 "classes[0].dcqcn: expected true or false (got 'on')"},
	{"dcqcn_class_mapping", CLS("    dcqcn: {profile: paper}\n"),
	 "t.yaml:8:12: ",
	 "classes[0].dcqcn: expected true or false (got a mapping)"},
	{"dcqcn_flow_key_typo", DCQCN("flow_key: qpn"), "t.yaml:7:13: ",
	 "dcqcn.flow_key: expected one of host, qp (got 'qpn'); did you mean "
	 "'qp'?"},
	{"dcqcn_cnp_drop", DCQCN("cnp: drop"), "t.yaml:7:8: ",
	 "dcqcn.cnp: expected one of forward, absorb (got 'drop')"},
	{"dcqcn_max_flows_zero", DCQCN("max_flows: 0"), "t.yaml:7:14: ",
	 "dcqcn.max_flows: must be between 1 and 65536 flows (got 0)"},
	{"dcqcn_max_flows_big", DCQCN("max_flows: 65537"), "t.yaml:7:14: ",
	 "dcqcn.max_flows: must be between 1 and 65536 flows (got 65537)"},
	{"dcqcn_np_dscp", DCQCN("np:\n    dscp: 64"),
	 "t.yaml:8:11: ", "dcqcn.np.dscp: must be between 0 and 63 (got 64)"},
	{"dcqcn_np_pcp", DCQCN("np: {pcp: 8}"),
	 "t.yaml:7:13: ", "dcqcn.np.pcp: must be between 0 and 7 (got 8)"},
	{"dcqcn_np_enabled", DCQCN("np: {enabled: 1}"),
	 "t.yaml:7:17: ", "dcqcn.np.enabled: expected true or false (got '1')"},
	{"dcqcn_np_host", DCQCN("np: {enabled: true}"), "t.yaml:7:17: ",
	 "dcqcn.np.enabled: a CNP goes to the sender's queue pair, so the "
	 "flows must be queue pairs; set dcqcn.flow_key: qp, or leave np off"},
	{"dcqcn_np_unknown", DCQCN("np: {dcsp: 1}"), "t.yaml:7:8: ",
	 "unknown key 'dcqcn.np.dcsp' (did you mean 'dcqcn.np.dscp'?)"},
	{"dcqcn_line_zero", DCQCN("line_rate: 0"), "t.yaml:7:14: ",
	 "dcqcn.line_rate: a rate of 0 (got '0'); leave the key out for the "
	 "egress port's rate (or write '')"},
	{"dcqcn_line_share", DCQCN("line_rate: 90%"),
	 "t.yaml:7:14: ", "dcqcn.line_rate: expected a rate in bits/s"},
	{"dcqcn_min_rate_zero", DCQCN("min_rate: 0Mbit"), "t.yaml:7:13: ",
	 "dcqcn.min_rate: a rate of 0 (got '0Mbit'); leave the key out for the "
	 "profile's default"},
	{"dcqcn_min_rate_at_line",
	 DCQCN("line_rate: 40Gbit\n  min_rate: 40Gbit"), "t.yaml:8:13: ",
	 "dcqcn.min_rate: 40Gbit must be below the line rate, 40Gbit "
	 "(dcqcn.line_rate)"},
	{"dcqcn_ai_above_line", DCQCN("line_rate: 40Gbit\n  rate_ai: 50Gbit"),
	 "t.yaml:8:12: ",
	 "dcqcn.rate_ai: 50Gbit must be at most the line rate, 40Gbit "
	 "(dcqcn.line_rate)"},
	{"dcqcn_default_min_above_line", DCQCN("line_rate: 100Mbit"),
	 "t.yaml:7:14: ",
	 "dcqcn.line_rate: the line rate 100Mbit (dcqcn.line_rate) must be "
	 "above dcqcn.min_rate, 100Mbit by default in the paper profile; set "
	 "a lower dcqcn.min_rate"},
	{"dcqcn_default_hai_above_line", DCQCN("line_rate: 150Mbit"),
	 "t.yaml:7:14: ",
	 "dcqcn.line_rate: the line rate 150Mbit (dcqcn.line_rate) must be at "
	 "least dcqcn.rate_hai, 200Mbit by default in the paper profile; set "
	 "a lower dcqcn.rate_hai"},
	{"dcqcn_class_no_port_rate",
	 PORTS "classes:\n  - name: default\n    dcqcn: true\n",
	 "t.yaml:6:12: ",
	 "classes[0].dcqcn: DCQCN needs the line rate, and ports[0].rate is "
	 "not set; set the rate of both ports, or dcqcn.line_rate"},
	{"dcqcn_class_one_port_rate",
	 PORT_RATE("10Gbit") "classes:\n  - name: a\n  - name: default\n"
			     "    dcqcn: true\n",
	 "t.yaml:8:12: ",
	 "classes[1].dcqcn: DCQCN needs the line rate, and ports[1].rate is "
	 "not set"},
	{"dcqcn_class_port_below_min",
	 "ports:\n  - interface: eth1\n    rate: 1Gbit\n"
	 "  - interface: eth2\n    rate: 50Mbit\n"
	 "classes:\n  - name: default\n    dcqcn: true\n",
	 "t.yaml:8:12: ",
	 "classes[0].dcqcn: the line rate 50Mbit (ports[1].rate) must be "
	 "above dcqcn.min_rate, 100Mbit by default in the paper profile; set a "
	 "lower dcqcn.min_rate"},
	{"dcqcn_class_ai_above_port",
	 CLS("    dcqcn: true\n") "dcqcn: {rate_ai: 101Gbit}\n",
	 "t.yaml:10:18: ",
	 "dcqcn.rate_ai: 101Gbit must be at most the line rate, 100Gbit "
	 "(ports[0].rate)"},
	{"qos_match_scalar",
	 QPORTS "rules:\n  - class: default\n    match: udp\n", "t.yaml:8:12: ",
	 "rules[0].match: expected a mapping with the keys ethertype, vlan, "
	 "pcp, src, dst, proto, dscp, ecn, sport, dport, bth_opcode "
	 "(got 'udp')"},
};

static void test_bad(void **state)
{
	const struct bad_case *c = *state;
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg = load(c->yaml, &err);

	if (cfg) {
		config_free(cfg);
		fail_msg("%s: loaded, want an error at %s", c->name, c->prefix);
	}
	if (strncmp(err.msg, c->prefix, strlen(c->prefix)) ||
	    !strstr(err.msg, c->text))
		fail_msg("%s:\n got: %s\nwant: %s...%s", c->name, err.msg,
			 c->prefix, c->text);
}

static void test_full(void **state)
{
	static const char yaml[] = "ports:\n"
				   "  - interface: veth-a\n"
				   "  - interface: veth-b\n"
				   "queues: 2\n"
				   "xdp_mode: native\n"
				   "bind_mode: copy\n"
				   "failure_mode: closed\n"
				   "rings:\n"
				   "  fill: 2048\n"
				   "  completion: 1024\n"
				   "  rx: 512\n"
				   "  tx: 1024\n"
				   "  handoff: 256\n"
				   "umem:\n"
				   "  frames: 16384\n"
				   "  frame_size: 2048\n"
				   "  headroom: 128\n"
				   "  hugepages: true\n"
				   "poll:\n"
				   "  busy_us: 50\n"
				   "  batch: 32\n"
				   "workers:\n"
				   "  cpus: [3, 1, 2]\n";
	struct xdplane_config *cfg = load_ok(yaml);

	(void)state;
	assert_string_equal(cfg->path, "t.yaml");
	assert_string_equal(cfg->ports[0].interface, "veth-a");
	assert_string_equal(cfg->ports[1].interface, "veth-b");
	assert_int_equal(cfg->queues, 2);
	assert_int_equal(cfg->xdp_mode, XDP_ATTACH_NATIVE);
	assert_int_equal(cfg->bind_mode, XSK_BIND_COPY);
	assert_int_equal(cfg->failure_mode, FAILURE_CLOSED);
	assert_int_equal(cfg->rings.fill, 2048);
	assert_int_equal(cfg->rings.completion, 1024);
	assert_int_equal(cfg->rings.rx, 512);
	assert_int_equal(cfg->rings.tx, 1024);
	assert_int_equal(cfg->rings.handoff, 256);
	assert_int_equal(cfg->umem.frames, 16384);
	assert_int_equal(cfg->umem.frame_size, 2048);
	assert_int_equal(cfg->umem.headroom, 128);
	assert_true(cfg->umem.hugepages);
	assert_int_equal(cfg->poll.busy_us, 50);
	assert_int_equal(cfg->poll.batch, 32);
	assert_int_equal(cfg->n_cpus, 3);
	assert_int_equal(cfg->cpus[0], 3);
	assert_int_equal(cfg->cpus[1], 1);
	assert_int_equal(cfg->cpus[2], 2);
	config_free(cfg);
}

static void assert_listen4(const struct config_control *ctl, const char *addr,
			   uint16_t port)
{
	const struct sockaddr_in *sin =
		(const struct sockaddr_in *)&ctl->metrics_addr;
	char text[INET_ADDRSTRLEN];

	assert_int_equal(ctl->metrics_addrlen, sizeof(struct sockaddr_in));
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), port);
	assert_non_null(inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text)));
	assert_string_equal(text, addr);
}

static void assert_listen6(const struct config_control *ctl, const char *addr,
			   uint16_t port)
{
	const struct sockaddr_in6 *sin6 =
		(const struct sockaddr_in6 *)&ctl->metrics_addr;
	char text[INET6_ADDRSTRLEN];

	assert_int_equal(ctl->metrics_addrlen, sizeof(struct sockaddr_in6));
	assert_int_equal(sin6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(sin6->sin6_port), port);
	assert_int_equal(sin6->sin6_flowinfo, 0);
	assert_int_equal(sin6->sin6_scope_id, 0);
	assert_non_null(
		inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text)));
	assert_string_equal(text, addr);
}

static void assert_daemon_defaults(const struct xdplane_config *cfg)
{
	assert_string_equal(cfg->control.socket, "/run/xdplane/control.sock");
	assert_string_equal(cfg->control.socket_group, "");
	assert_string_equal(cfg->control.metrics_listen, "127.0.0.1:9470");
	assert_listen4(&cfg->control, "127.0.0.1", 9470);
	assert_int_equal(cfg->control.stats_interval_ms, 1000);
	assert_string_equal(cfg->user, "");
	assert_string_equal(cfg->group, "");
	assert_int_equal(cfg->log_level, 6); /* LOG_LVL_INFO */
}

static void assert_defaults(const struct xdplane_config *cfg)
{
	assert_int_equal(cfg->queues, 1);
	assert_int_equal(cfg->xdp_mode, XDP_ATTACH_AUTO);
	assert_int_equal(cfg->bind_mode, XSK_BIND_AUTO);
	assert_int_equal(cfg->failure_mode, FAILURE_OPEN);
	assert_int_equal(cfg->rings.fill, 4096);
	assert_int_equal(cfg->rings.completion, 2048);
	assert_int_equal(cfg->rings.rx, 2048);
	assert_int_equal(cfg->rings.tx, 2048);
	assert_int_equal(cfg->rings.handoff, 4096);
	assert_int_equal(cfg->umem.frames, 32768);
	assert_int_equal(cfg->umem.frame_size, 4096);
	assert_int_equal(cfg->umem.headroom, 0);
	assert_false(cfg->umem.hugepages);
	assert_int_equal(cfg->poll.busy_us, 20);
	assert_int_equal(cfg->poll.batch, 64);
	assert_int_equal(cfg->n_cpus, 0);
	assert_daemon_defaults(cfg);
}

static void test_defaults(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS);

	(void)state;
	assert_string_equal(cfg->ports[0].interface, "eth1");
	assert_string_equal(cfg->ports[1].interface, "eth2");
	assert_defaults(cfg);
	config_free(cfg);
	/* empty mappings and list: still the defaults */
	cfg = load_ok(PORTS "rings: {}\numem: {}\npoll: {}\n"
			    "workers: {cpus: []}\n");
	assert_defaults(cfg);
	config_free(cfg);
}

/* Written zeros are kept, not taken for absent keys. */
static void test_zeros_kept(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS "poll:\n  busy_us: 0\n");

	(void)state;
	assert_int_equal(cfg->poll.busy_us, 0);
	assert_int_equal(cfg->poll.batch, 64);
	config_free(cfg);
}

/* queues: auto is stored as CONFIG_QUEUES_AUTO (0); the rule that
 * umem.frames holds the rings of every queue waits for the channel count
 * (config_check_queues() at start), so frames: 64 loads here. */
static void test_queues_auto(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "queues: auto\numem: {frames: 64}\n");
	char msg[256] = "";

	(void)state;
	assert_int_equal(cfg->queues, CONFIG_QUEUES_AUTO);
	assert_int_equal(cfg->queues, 0);
	assert_int_equal(cfg->umem.frames, 64);
	assert_int_equal(config_check_queues(cfg, 1, msg, sizeof(msg)), -1);
	assert_string_equal(msg,
			    "umem.frames: need at least 2 * queues 1 * "
			    "(rings.fill 4096 + rings.tx 2048 + rings.handoff "
			    "4096) = 20480 (got 64); set umem.frames to "
			    "32768, or lower queues or those rings");
	assert_int_equal(config_check_queues(cfg, 0, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "queues: must be between 1 and 64 (got 0)");
	assert_int_equal(config_check_queues(cfg, 65, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "queues: must be between 1 and 64 (got 65)");
	config_free(cfg);

	/* the defaults hold one queue (20480 frames of 32768), not two */
	cfg = load_ok(PORTS "queues: 'auto'\n");
	assert_int_equal(cfg->queues, CONFIG_QUEUES_AUTO);
	msg[0] = '\0';
	assert_int_equal(config_check_queues(cfg, 1, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	assert_int_equal(config_check_queues(cfg, 2, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "= 40960 (got 32768); set umem.frames "
				    "to 65536"));
	config_free(cfg);

	/* a number is still checked at load */
	cfg = load_ok(PORTS "queues: 1\n");
	assert_int_equal(cfg->queues, 1);
	config_free(cfg);
}

/* The edges of the rules are accepted. */
static void test_limits(void **state)
{
	struct xdplane_config *cfg = load_ok(
		PORTS "queues: 64\n"
		      "rings: {fill: 64, completion: 65536, rx: 64, tx: 64, "
		      "handoff: 64}\n"
		      "umem: {frames: 32768, frame_size: 2048, headroom: 274}\n"
		      "poll: {busy_us: 10000, batch: 256}\n"
		      "workers: {cpus: [255, 0]}\n");

	(void)state;
	assert_int_equal(cfg->queues, 64);
	assert_int_equal(cfg->umem.frames, 32768); /* = 128 * 192, exactly */
	assert_int_equal(cfg->umem.headroom, 274);
	assert_int_equal(cfg->cpus[0], 255);
	config_free(cfg);
}

/* Every QoS key, with the exact values it loads to. */
static const char qos_full[] =
	"ports:\n"
	"  - interface: eth1\n"
	"    rate: 25Gbit\n"
	"    burst: 64KiB\n"
	"  - interface: eth2\n"
	"    rate: 1.5Gbit\n"
	"overhead: 20\n"
	"classes:\n"
	"  - name: cnp\n"
	"    level: 0\n"
	"    quantum: 64\n"
	"    ceil: 10%\n"
	"    ceil_burst: 64KB\n"
	"    limit_bytes: 1MiB\n"
	"    limit_packets: 1\n"
	"  - name: roce\n"
	"    level: 1\n"
	"    quantum: 1048576\n"
	"    ceil: 800Mbit\n"
	"    min: 100kbit\n"
	"    min_burst: 5000\n"
	"    limit_bytes: 1MB\n"
	"    limit_packets: 65536\n"
	"    ecn:\n"
	"      kmin: 30KB\n"
	"      kmax: 300KiB\n"
	"      pmax: 1%\n"
	"      non_ect: pass\n"
	"  - name: bulk-1_X\n"
	"    level: 7\n"
	"    ceil: 20%\n"
	"    min: 12.5%\n"
	"    ecn: {kmin: 0, kmax: 1.5KiB, pmax: 0.01}\n"
	"  - name: default\n"
	"    ceil: 2500000\n"
	"    min: 1mbps\n"
	"rules:\n"
	"  - class: cnp\n"
	"    match:\n"
	"      ethertype: 0x88b5\n"
	"      vlan: 100\n"
	"      pcp: [3, 4]\n"
	"      src: 10.1.0.0/16\n"
	"      dst: 10.2.3.4\n"
	"      proto: udp\n"
	"      dscp: [26, 46]\n"
	"      ecn: [1, 2]\n"
	"      sport: 2049\n"
	"      dport: 4000-5000\n"
	"      bth_opcode: 0x81\n"
	"  - class: roce\n"
	"    match: {src: 'fd00::/8', proto: icmpv6, dscp: 46, pcp: 7}\n"
	"  - class: default\n"
	"  - class: bulk-1_X\n"
	"    match: {}\n"
	"  - class: bulk-1_X\n"
	"    match: {dst: '2001:db8::1', proto: 6, ethertype: 2048, ecn: 3,\n"
	"            sport: 0-65535, vlan: 0}\n"
	"  - class: cnp\n"
	"    match: {proto: UDP, bth_opcode: 129, src: 0.0.0.0/0}\n"
	"malformed: drop\n";

static void test_qos_full(void **state)
{
	struct xdplane_config *cfg = load_ok(qos_full);
	const struct qos_policy *q = &cfg->qos;
	const struct qos_class *c;
	const struct qos_rule *r;
	static const uint8_t net10_1[4] = {10, 1, 0, 0};
	static const uint8_t host[4] = {10, 2, 3, 4};
	static const uint8_t fd00[16] = {0xfd};
	static const uint8_t db8[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t zero[16];

	(void)state;
	assert_int_equal(q->port[0].rate_bps, 25000000000ull);
	assert_int_equal(q->port[0].burst, 65536);
	assert_int_equal(q->port[0].overhead, 20);
	assert_int_equal(q->port[1].rate_bps, 1500000000ull);
	assert_int_equal(q->port[1].burst, 37500); /* 1.5e9 * 200us / 8 */
	assert_int_equal(q->port[1].overhead, 20);
	assert_int_equal(q->n_classes, 4);

	c = &q->classes[0];
	assert_string_equal(c->name, "cnp");
	assert_int_equal(c->level, 0);
	assert_int_equal(c->quantum, 64);
	assert_int_equal(c->ceil_bps, 0);
	assert_int_equal(c->ceil_share, 6554); /* 6553.6 */
	assert_int_equal(c->ceil_burst, 64000);
	assert_int_equal(c->min_bps, 0);
	assert_int_equal(c->min_share, 0);
	assert_int_equal(c->min_burst, 32768);
	assert_int_equal(c->limit_bytes, 1048576);
	assert_int_equal(c->limit_packets, 1);
	assert_false(c->ecn.enabled);

	c = &q->classes[1];
	assert_string_equal(c->name, "roce");
	assert_int_equal(c->level, 1);
	assert_int_equal(c->quantum, 1048576);
	assert_int_equal(c->ceil_bps, 800000000);
	assert_int_equal(c->ceil_share, 0);
	assert_int_equal(c->ceil_burst, 32768); /* 20000 < 32 KiB */
	assert_int_equal(c->min_bps, 100000);
	assert_int_equal(c->min_burst, 5000);
	assert_int_equal(c->limit_bytes, 1000000);
	assert_int_equal(c->limit_packets, 65536);
	assert_true(c->ecn.enabled);
	assert_int_equal(c->ecn.kmin, 30000);
	assert_int_equal(c->ecn.kmax, 307200);
	assert_int_equal(c->ecn.pmax, 655); /* 655.36 */
	assert_int_equal(c->ecn.nonect, QOS_NONECT_PASS);

	c = &q->classes[2];
	assert_string_equal(c->name, "bulk-1_X");
	assert_int_equal(c->level, 7);
	assert_int_equal(c->quantum, 9000);
	assert_int_equal(c->ceil_share, 13107); /* 13107.2 */
	/* 13107/65536 of the faster port, 25 Gbit/s: 4999923706 bit/s */
	assert_int_equal(c->ceil_burst, 124999);
	assert_int_equal(c->min_share, 8192);
	assert_int_equal(c->min_burst, 78125); /* 3.125 Gbit/s */
	assert_int_equal(c->limit_bytes, 4194304);
	assert_int_equal(c->limit_packets, 2048);
	assert_true(c->ecn.enabled);
	assert_int_equal(c->ecn.kmin, 0);
	assert_int_equal(c->ecn.kmax, 1536);
	assert_int_equal(c->ecn.pmax, 655);
	assert_int_equal(c->ecn.nonect, QOS_NONECT_DROP);

	c = &q->classes[3];
	assert_string_equal(c->name, "default");
	assert_int_equal(c->ceil_bps, 2500000);
	assert_int_equal(c->min_bps, 1000000);
	assert_int_equal(c->ceil_burst, 32768);

	assert_int_equal(q->n_rules, 6);
	r = &q->rules[0];
	assert_int_equal(r->class_id, 0);
	assert_int_equal(r->fields, 0x7ff);
	assert_int_equal(r->ethertype, 0x88b5);
	assert_int_equal(r->vlan_id, 100);
	assert_int_equal(r->pcp_mask, 0x18);
	assert_int_equal(r->src.family, 4);
	assert_int_equal(r->src.len, 16);
	assert_memory_equal(r->src.addr, net10_1, 4);
	assert_memory_equal(r->src.addr + 4, zero, 12);
	assert_int_equal(r->dst.family, 4);
	assert_int_equal(r->dst.len, 32);
	assert_memory_equal(r->dst.addr, host, 4);
	assert_int_equal(r->proto, 17);
	assert_true(r->dscp_mask == ((1ull << 26) | (1ull << 46)));
	assert_int_equal(r->ecn_mask, 0x6);
	assert_int_equal(r->sport_lo, 2049);
	assert_int_equal(r->sport_hi, 2049);
	assert_int_equal(r->dport_lo, 4000);
	assert_int_equal(r->dport_hi, 5000);
	assert_int_equal(r->bth_opcode, 0x81);

	r = &q->rules[1];
	assert_int_equal(r->class_id, 1);
	assert_int_equal(r->fields,
			 QOS_M_SRC | QOS_M_PROTO | QOS_M_DSCP | QOS_M_PCP);
	assert_int_equal(r->src.family, 6);
	assert_int_equal(r->src.len, 8);
	assert_memory_equal(r->src.addr, fd00, 16);
	assert_int_equal(r->proto, 58);
	assert_true(r->dscp_mask == 1ull << 46);
	assert_int_equal(r->pcp_mask, 0x80);

	assert_int_equal(q->rules[2].class_id, 3);
	assert_int_equal(q->rules[2].fields, 0);
	assert_int_equal(q->rules[3].class_id, 2);
	assert_int_equal(q->rules[3].fields, 0);

	r = &q->rules[4];
	assert_int_equal(r->class_id, 2);
	assert_int_equal(r->fields, QOS_M_DST | QOS_M_PROTO | QOS_M_ETHERTYPE |
					    QOS_M_ECN | QOS_M_SPORT |
					    QOS_M_VLAN);
	assert_int_equal(r->dst.family, 6);
	assert_int_equal(r->dst.len, 128);
	assert_memory_equal(r->dst.addr, db8, 16);
	assert_int_equal(r->proto, 6);
	assert_int_equal(r->ethertype, 0x0800);
	assert_int_equal(r->ecn_mask, 0x8);
	assert_int_equal(r->sport_lo, 0);
	assert_int_equal(r->sport_hi, 65535);
	assert_int_equal(r->vlan_id, 0);

	r = &q->rules[5];
	assert_int_equal(r->proto, 17); /* "UDP" */
	assert_int_equal(r->bth_opcode, 129);
	assert_int_equal(r->src.len, 0);

	assert_int_equal(q->default_class, 3);
	assert_int_equal(q->malformed, QOS_MALFORMED_DROP);
	config_free(cfg);
}

/* Without classes: one FIFO class "default", no rules, unshaped ports. */
static void assert_qos_fifo(const struct qos_policy *q)
{
	assert_int_equal(q->n_classes, 1);
	assert_string_equal(q->classes[0].name, "default");
	assert_int_equal(q->classes[0].level, 0);
	assert_int_equal(q->classes[0].quantum, 9000);
	assert_int_equal(q->classes[0].ceil_bps, 0);
	assert_int_equal(q->classes[0].ceil_share, 0);
	assert_int_equal(q->classes[0].min_bps, 0);
	assert_int_equal(q->classes[0].min_share, 0);
	assert_int_equal(q->classes[0].ceil_burst, 32768);
	assert_int_equal(q->classes[0].min_burst, 32768);
	assert_int_equal(q->classes[0].limit_bytes, 4194304);
	assert_int_equal(q->classes[0].limit_packets, 2048);
	assert_false(q->classes[0].ecn.enabled);
	assert_int_equal(q->n_rules, 0);
	assert_int_equal(q->default_class, 0);
	assert_int_equal(q->malformed, QOS_MALFORMED_DEFAULT);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(q->port[i].rate_bps, 0);
		assert_int_equal(q->port[i].burst, 32768);
		assert_int_equal(q->port[i].overhead, 24);
	}
}

static void test_qos_fifo(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS);

	(void)state;
	assert_qos_fifo(&cfg->qos);
	config_free(cfg);
	/* rules may name the implicit class */
	cfg = load_ok(PORTS "rules: [{class: default, match: {dscp: 8}}]\n"
			    "default_class: default\n");
	assert_int_equal(cfg->qos.n_classes, 1);
	assert_int_equal(cfg->qos.n_rules, 1);
	assert_int_equal(cfg->qos.rules[0].class_id, 0);
	config_free(cfg);
}

/* A class with only a name gets every default; the one named "default"
 * is the default class wherever it is. */
static void test_qos_class_defaults(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "classes:\n  - name: x\n  - name: default\n"
			      "    level: 3\n");
	const struct qos_class *c = &cfg->qos.classes[0];

	(void)state;
	assert_int_equal(cfg->qos.n_classes, 2);
	assert_string_equal(c->name, "x");
	assert_int_equal(c->level, 0);
	assert_int_equal(c->quantum, 9000);
	assert_int_equal(c->ceil_bps, 0);
	assert_int_equal(c->ceil_share, 0);
	assert_int_equal(c->ceil_burst, 32768);
	assert_int_equal(c->min_bps, 0);
	assert_int_equal(c->min_share, 0);
	assert_int_equal(c->min_burst, 32768);
	assert_int_equal(c->limit_bytes, 4194304);
	assert_int_equal(c->limit_packets, 2048);
	assert_false(c->ecn.enabled);
	assert_int_equal(cfg->qos.classes[1].level, 3);
	assert_int_equal(cfg->qos.default_class, 1);
	config_free(cfg);
	/* default_class names another class: no "default" needed */
	cfg = load_ok(PORTS "classes: [{name: a}, {name: b}]\n"
			    "default_class: b\n");
	assert_int_equal(cfg->qos.default_class, 1);
	config_free(cfg);
}

/* The value one written rate, size or share loads to. */
static uint64_t qos_value(const char *key, const char *text)
{
	char yaml[512];
	struct xdplane_config *cfg;
	uint64_t v = 0;

	if (!strcmp(key, "rate") || !strcmp(key, "burst"))
		snprintf(yaml, sizeof(yaml),
			 "ports:\n  - interface: a\n    %s: %s\n"
			 "  - interface: b\n",
			 key, text);
	else
		snprintf(yaml, sizeof(yaml),
			 QPORTS "classes:\n  - name: default\n    %s: %s\n",
			 key, text);
	cfg = load_ok(yaml);
	if (!strcmp(key, "rate"))
		v = cfg->qos.port[0].rate_bps;
	else if (!strcmp(key, "burst"))
		v = cfg->qos.port[0].burst;
	else if (!strcmp(key, "ceil"))
		v = cfg->qos.classes[0].ceil_bps
			    ? cfg->qos.classes[0].ceil_bps
			    : cfg->qos.classes[0].ceil_share;
	else if (!strcmp(key, "limit_bytes"))
		v = cfg->qos.classes[0].limit_bytes;
	config_free(cfg);
	return v;
}

static void test_qos_units(void **state)
{
	static const struct {
		const char *key, *text;
		uint64_t want;
	} cases[] = {
		{"rate", "25Gbit", 25000000000ull},
		{"rate", "1.5Gbit", 1500000000},
		{"rate", "800Mbit", 800000000},
		{"rate", "100kbit", 100000},
		{"rate", "999bit", 999},
		{"rate", "2500000", 2500000},
		{"rate", "1Gbps", 1000000000},
		{"rate", "10mbps", 10000000},
		{"rate", "5GBIT", 5000000000ull},
		{"rate", "0.5Gbit", 500000000},
		{"rate", "1.234567891Gbit", 1234567891},
		{"rate", "2.5kbps", 2500},
		{"rate", "10Tbit", 10000000000000ull},
		{"rate", "10000Gbit", 10000000000000ull},
		{"burst", "64KB", 64000},
		{"burst", "64KiB", 65536},
		{"burst", "64kb", 64000},
		{"burst", "1MB", 1000000},
		{"burst", "1MiB", 1048576},
		{"burst", "1GB", 1000000000},
		{"burst", "1GiB", 1073741824},
		{"burst", "4.5KiB", 4608},
		{"burst", "5000", 5000},
		{"burst", "5000B", 5000},
		{"burst", "4294967295", 4294967295u},
		{"limit_bytes", "1.5MB", 1500000},
		/* shares: round(N / 100 * 65536), halves up */
		{"ceil", "10%", 6554}, /* 6553.6 */
		{"ceil", "5%", 3277}, /* 3276.8 */
		{"ceil", "90%", 58982}, /* 58982.4 */
		{"ceil", "1%", 655}, /* 655.36 */
		{"ceil", "0.5%", 328}, /* 327.68 */
		{"ceil", "12.5%", 8192}, /* exact */
		{"ceil", "50%", 32768}, /* exact */
		{"ceil", "100%", 65536}, /* exact */
		{"ceil", "99.999%", 65535}, /* 65535.34 */
		{"ceil", "0.0008%", 1}, /* 0.52 */
		{"ceil", "33.333%", 21845}, /* 21845.1 */
		{"ceil", "25Gbit", 25000000000ull},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = qos_value(cases[i].key, cases[i].text);

		if (got != cases[i].want)
			fail_msg("%s: %s: got %" PRIu64 ", want %" PRIu64,
				 cases[i].key, cases[i].text, got,
				 cases[i].want);
	}
}

/* Default buckets: max(32 KiB, rate * 200 us / 8), rounded up. */
static void test_qos_default_bursts(void **state)
{
	static const struct {
		const char *rate;
		uint32_t burst;
	} cases[] = {
		{"100Gbit", 2500000},  {"10Gbit", 250000},
		{"1Gbit", 32768},      {"1.31072Gbit", 32768},
		{"1310720001", 32769}, {"10Tbit", 250000000},
	};
	char yaml[256];
	struct xdplane_config *cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 "ports:\n  - interface: a\n  - interface: b\n"
			 "    rate: %s\n",
			 cases[i].rate);
		cfg = load_ok(yaml);
		if (cfg->qos.port[1].burst != cases[i].burst)
			fail_msg("rate %s: burst %u, want %u", cases[i].rate,
				 cfg->qos.port[1].burst, cases[i].burst);
		assert_int_equal(cfg->qos.port[0].burst, 32768);
		config_free(cfg);
	}
}

/* 8 classes and 64 rules load; 9 and 65 are errors at the one too many. */
static void test_qos_counts(void **state)
{
	char *yaml = malloc(8192), *p;
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;

	(void)state;
	assert_non_null(yaml);
	for (int n = 8; n <= 9; n++) {
		p = yaml + sprintf(yaml, QPORTS "classes:\n");
		for (int i = 0; i < n; i++)
			p += sprintf(p, "  - name: c%d\n", i);
		sprintf(p, "default_class: c0\n");
		cfg = load(yaml, &err);
		if (n == 8) {
			assert_non_null(cfg);
			assert_int_equal(cfg->qos.n_classes, 8);
			config_free(cfg);
			continue;
		}
		assert_null(cfg);
		assert_string_equal(err.msg, "t.yaml:15:5: classes: at most 8 "
					     "classes (got 9)");
	}
	for (int n = 64; n <= 65; n++) {
		p = yaml + sprintf(yaml, QPORTS "rules:\n");
		for (int i = 0; i < n; i++)
			p += sprintf(p,
				     "  - {class: default, match: "
				     "{dscp: %d}}\n",
				     i % 64);
		cfg = load(yaml, &err);
		if (n == 64) {
			assert_non_null(cfg);
			assert_int_equal(cfg->qos.n_rules, 64);
			assert_true(cfg->qos.rules[63].dscp_mask == 1ull << 63);
			config_free(cfg);
			continue;
		}
		assert_null(cfg);
		assert_string_equal(err.msg,
				    "t.yaml:71:5: rules: at most 64 rules "
				    "(got 65)");
	}
	free(yaml);
}

/* Every key written, connectx: the values they load to. */
static const char dcqcn_connectx_full[] =
	QPORTS "classes:\n"
	       "  - name: roce\n"
	       "    dcqcn: true\n"
	       "  - name: default\n"
	       "    dcqcn: false\n"
	       "dcqcn:\n"
	       "  profile: connectx\n"
	       "  line_rate: 40Gbit\n"
	       "  min_rate: 10Mbit\n"
	       "  rate_ai: 20Mbit\n"
	       "  rate_hai: 100Mbit\n"
	       "  g: 1/128\n"
	       "  alpha_init: 0.75\n"
	       "  alpha_timer: 2us\n"
	       "  increase_timer: 0.1ms\n"
	       "  decrease_period: 8us\n"
	       "  byte_counter: 0\n"
	       "  fast_recovery: 3\n"
	       "  min_decrease: 25%\n"
	       "  clamp: always\n"
	       "  first_cnp_rate: 20Gbit\n"
	       "  alpha_before_cut: false\n"
	       "  cnp_interval: 20us\n"
	       "  flow_key: qp\n"
	       "  max_flows: 512\n"
	       "  flow_idle: 1s\n"
	       "  cnp: absorb\n"
	       "  cp_loop: false\n"
	       "  np: {enabled: true, dscp: 46, pcp: 5}\n";

/* ...and paper, with the keys only it uses. */
static const char dcqcn_paper_full[] = PORTS "classes:\n"
					     "  - name: default\n"
					     "    dcqcn: TRUE\n"
					     "dcqcn:\n"
					     "  profile: paper\n"
					     "  line_rate: 100Gbit\n"
					     "  min_rate: 1Gbit\n"
					     "  rate_ai: 100Mbit\n"
					     "  rate_hai: 1Gbit\n"
					     "  g: 0.0625\n"
					     "  alpha_init: 1/2\n"
					     "  alpha_timer: 50us\n"
					     "  increase_timer: 60us\n"
					     "  decrease_period: 0\n"
					     "  byte_counter: 1MiB\n"
					     "  fast_recovery: 31\n"
					     "  min_decrease: 0.1\n"
					     "  clamp: never\n"
					     "  first_cnp_rate: ''\n"
					     "  alpha_before_cut: true\n"
					     "  cnp_interval: 0\n"
					     "  flow_key: host\n"
					     "  max_flows: 65536\n"
					     "  flow_idle: 3600s\n"
					     "  cnp: forward\n"
					     "  cp_loop: True\n"
					     "  np:\n"
					     "    enabled: false\n"
					     "    dscp: 0\n"
					     "    pcp: 7\n";

static struct xdplane_config *dump_and_reload(const struct xdplane_config *in,
					      char **text)
{
	struct xdplane_config *out;
	size_t len;
	FILE *f = open_memstream(text, &len);

	assert_non_null(f);
	assert_int_equal(config_dump(in, f), 0);
	assert_int_equal(fclose(f), 0);
	out = config_load_string(in->path, *text, false,
				 &(struct config_error){.msg = ""});
	if (!out)
		fail_msg("dump does not load back:\n%s", *text);
	return out;
}

static void test_dump_round_trip(void **state)
{
	static const char *const docs[] = {
		PORTS,
		"ports: [{interface: \"it's\"}, {interface: '#x'}]\n"
		"queues: 3\nxdp_mode: generic\nbind_mode: zerocopy\n"
		"failure_mode: closed\n"
		"rings: {fill: 128, completion: 64, rx: 256, tx: 512, "
		"handoff: 1024}\n"
		"umem: {frames: 16384, frame_size: 2048, headroom: 64}\n"
		"poll: {busy_us: 0, batch: 1}\nworkers: {cpus: [7, 0, 200]}\n",
		PORTS "queues: auto\numem: {frames: 64, hugepages: true}\n",
		qos_full,
		PORTS
		"control: {socket: '', socket_group: adm, "
		"metrics_listen: '[fd00::1]:1', stats_interval_ms: 60000}\n"
		"user: nobody\ngroup: nogroup\nlog_level: err\n",
		PORTS "control: {metrics_listen: '', socket: '/a b/#c'}\n"
		      "log_level: notice\n",
		/* odd shares and rates: printed exactly, read back the same */
		"ports:\n  - interface: a\n    rate: 1234567891\n"
		"  - interface: b\n    rate: 65.536kbit\n"
		"classes:\n  - name: x\n    ceil: 33.333%\n    min: 0.0008%\n"
		"  - name: default\n    ceil: 99.999%\n    min: 0.5%\n"
		"    ecn: {kmin: 1, kmax: 4194304, pmax: 0.999999}\n"
		"rules:\n  - class: x\n    match: {proto: 200, dport: 7-7, "
		"dst: '::/0', pcp: [0, 7], ecn: 0}\n",
		dcqcn_connectx_full,
		dcqcn_paper_full,
		/* gains and percentages that print as long decimals */
		PORTS "dcqcn: {g: 1/3, alpha_init: 0.000001, "
		      "min_decrease: 33.333333%}\n",
		PORTS "dcqcn: {g: 999999/1000000, alpha_init: 2/3, "
		      "min_decrease: 0.0000000000000000000000001}\n",
		PORTS "dcqcn: {profile: connectx, min_decrease: 0.33%, "
		      "g: 1023/1024, first_cnp_rate: 1.5Gbit}\n",
	};
	struct xdplane_config *in, *out;
	char *text;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		in = load_ok(docs[i]);
		out = dump_and_reload(in, &text);
		if (memcmp(in, out, sizeof(*in)))
			fail_msg("round trip changed the config:\n%s", text);
		free(text);
		config_free(in);
		config_free(out);
	}
}

static void test_dump_text(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS "workers: {cpus: [1, 0]}\n");
	char *text;

	(void)state;
	config_free(dump_and_reload(cfg, &text));
	assert_non_null(strstr(text, "ports:\n  - interface: 'eth1'\n"
				     "    burst: 32KiB\n"
				     "  - interface: 'eth2'\n"
				     "    burst: 32KiB\nqueues: 1\n"
				     "xdp_mode: auto\nbind_mode: auto\n"
				     "failure_mode: open\nrings:\n"
				     "  fill: 4096\n"));
	assert_non_null(strstr(text, "umem:\n  frames: 32768\n"
				     "  frame_size: 4096\n  headroom: 0\n"
				     "  hugepages: false\n"));
	assert_non_null(strstr(text,
			       "workers:\n  cpus: [1, 0]\n"
			       "overhead: 24\nclasses:\n"
			       "  - name: 'default'\n    level: 0\n"
			       "    quantum: 9000\n    ceil_burst: 32KiB\n"
			       "    min_burst: 32KiB\n"
			       "    limit_bytes: 4MiB\n"
			       "    limit_packets: 2048\n    dcqcn: false\n"
			       "rules: []\n"
			       "default_class: 'default'\n"
			       "malformed: default\ndcqcn:\n"));
	free(text);
	config_free(cfg);
}

/* queues: auto and umem.hugepages are dumped as written. */
static void test_dump_queues_auto(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "queues: auto\numem: {hugepages: True}\n");
	struct xdplane_config *back;
	char *text;

	(void)state;
	back = dump_and_reload(cfg, &text);
	assert_non_null(strstr(text, "\nqueues: auto\n"));
	assert_non_null(strstr(text, "  headroom: 0\n  hugepages: true\n"));
	assert_int_equal(back->queues, CONFIG_QUEUES_AUTO);
	assert_true(back->umem.hugepages);
	free(text);
	config_free(back);
	config_free(cfg);
}

/* Rates, sizes and percentages are printed the way they are written. */
static void test_qos_dump_text(void **state)
{
	static const char *const want[] = {
		"  - interface: 'eth1'\n    rate: 25Gbit\n    burst: 64KiB\n",
		"  - interface: 'eth2'\n    rate: 1.5Gbit\n    burst: 37500\n",
		"workers:\n  cpus: []\noverhead: 20\nclasses:\n",
		"  - name: 'cnp'\n    level: 0\n    quantum: 64\n"
		"    ceil: 10%\n    ceil_burst: 64KB\n    min_burst: 32KiB\n"
		"    limit_bytes: 1MiB\n    limit_packets: 1\n",
		"    ceil: 800Mbit\n    ceil_burst: 32KiB\n    min: 100kbit\n"
		"    min_burst: 5KB\n    limit_bytes: 1MB\n",
		"    ecn:\n      kmin: 30KB\n      kmax: 300KiB\n"
		"      pmax: 1%\n      non_ect: pass\n",
		"    ceil: 20%\n    ceil_burst: 124999\n    min: 12.5%\n",
		"      kmin: 0\n      kmax: 1536\n      pmax: 1%\n"
		"      non_ect: drop\n",
		"    ceil: 2.5Mbit\n",
		"    min: 1Mbit\n",
		"rules:\n  - class: 'cnp'\n    match:\n      ethertype: "
		"0x88b5\n"
		"      vlan: 100\n      pcp: [3, 4]\n      src: '10.1.0.0/16'\n"
		"      dst: '10.2.3.4/32'\n      proto: udp\n"
		"      dscp: [26, 46]\n      ecn: [1, 2]\n      sport: 2049\n"
		"      dport: 4000-5000\n      bth_opcode: 0x81\n",
		"      src: 'fd00::/8'\n      proto: icmpv6\n",
		"  - class: 'default'\n    match: {}\n",
		"      dst: '2001:db8::1/128'\n",
		"      sport: 0-65535\n",
		"      src: '0.0.0.0/0'\n      proto: udp\n"
		"      bth_opcode: 0x81\n",
		"default_class: 'default'\nmalformed: drop\n",
	};
	struct xdplane_config *cfg = load_ok(qos_full);
	char *text;

	(void)state;
	config_free(dump_and_reload(cfg, &text));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i]))
			fail_msg("dump lacks:\n%s\nin:\n%s", want[i], text);
	free(text);
	config_free(cfg);
}

/*
 * DCQCN
 */

/* Both profiles' defaults: what dcqcn_params_default() gives, and the
 * values dcqcn.h and xdplane.yaml(5) document. */
static void assert_dcqcn_profile(const struct dcqcn_params *p,
				 enum dcqcn_profile prof, double line)
{
	struct dcqcn_params want;

	dcqcn_params_default(&want, prof, line);
	assert_memory_equal(p, &want, sizeof(want));
	assert_int_equal(p->profile, prof);
	assert_true(p->line_bps == line);
	assert_true(p->alpha_init == 1.0);
	assert_true(p->first_cnp_bps == 0);
	assert_false(p->alpha_before_cut);
	if (prof == DCQCN_PAPER) {
		assert_true(p->min_bps == 100e6);
		assert_true(p->ai_bps == 40e6);
		assert_true(p->hai_bps == 200e6);
		assert_true(p->g == 1.0 / 256);
		assert_int_equal(p->alpha_ns, 55000);
		assert_int_equal(p->inc_ns, 55000);
		assert_int_equal(p->dec_ns, 0);
		assert_int_equal(p->byte_counter, 10000000);
		assert_int_equal(p->f, 5);
		assert_true(p->min_dec_factor == 0);
		assert_true(p->clamp_always);
		assert_false(p->clamp_after_inc);
		assert_int_equal(p->np_interval_ns, 50000);
		return;
	}
	assert_true(p->min_bps == 1e6);
	assert_true(p->ai_bps == 5e6);
	assert_true(p->hai_bps == 50e6);
	assert_true(p->g == 5.0 / 1024);
	assert_int_equal(p->alpha_ns, 1000);
	assert_int_equal(p->inc_ns, 300000);
	assert_int_equal(p->dec_ns, 4000);
	assert_int_equal(p->byte_counter, 0);
	assert_int_equal(p->f, 1);
	assert_true(p->min_dec_factor == 0.5);
	assert_false(p->clamp_always);
	assert_true(p->clamp_after_inc);
	assert_int_equal(p->np_interval_ns, 4000);
}

/* The keys that are not DCQCN parameters: the same for both profiles. */
static void assert_dcqcn_flow_defaults(const struct qos_dcqcn *d)
{
	assert_int_equal(d->key, QOS_FLOW_HOST);
	assert_int_equal(d->max_flows, 1024);
	assert_int_equal(d->flow_idle_ns, 100000000);
	assert_int_equal(d->cnp_action, QOS_CNP_FORWARD);
	assert_true(d->cp_loop);
	assert_false(d->np);
	assert_int_equal(d->np_dscp, 48);
	assert_int_equal(d->np_pcp, 6);
}

static void test_dcqcn_defaults(void **state)
{
	static const struct {
		const char *yaml;
		enum dcqcn_profile prof;
		double line;
	} cases[] = {
		{PORTS, DCQCN_PAPER, 0},
		{PORTS "dcqcn: {}\n", DCQCN_PAPER, 0},
		{PORTS "dcqcn: {profile: paper, line_rate: ''}\n", DCQCN_PAPER,
		 0},
		{PORTS "dcqcn: {profile: connectx}\n", DCQCN_CONNECTX, 0},
		{PORTS "dcqcn:\n  profile: connectx\n  line_rate: 40Gbit\n",
		 DCQCN_CONNECTX, 40e9},
		{PORTS "dcqcn:\n  line_rate: 2.5Gbit\n", DCQCN_PAPER, 2.5e9},
	};
	struct xdplane_config *cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg = load_ok(cases[i].yaml);
		assert_dcqcn_profile(&cfg->qos.dcqcn.par, cases[i].prof,
				     cases[i].line);
		assert_dcqcn_flow_defaults(&cfg->qos.dcqcn);
		assert_false(cfg->qos.classes[0].dcqcn);
		config_free(cfg);
	}
}

static void test_dcqcn_full(void **state)
{
	struct xdplane_config *cfg = load_ok(dcqcn_connectx_full);
	const struct qos_dcqcn *d = &cfg->qos.dcqcn;
	const struct dcqcn_params *p = &d->par;

	(void)state;
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_false(cfg->qos.classes[1].dcqcn);
	assert_int_equal(p->profile, DCQCN_CONNECTX);
	assert_true(p->line_bps == 40e9);
	assert_true(p->min_bps == 10e6);
	assert_true(p->ai_bps == 20e6);
	assert_true(p->hai_bps == 100e6);
	assert_true(p->g == 1.0 / 128);
	assert_true(p->alpha_init == 0.75);
	assert_int_equal(p->alpha_ns, 2000);
	assert_int_equal(p->inc_ns, 100000);
	assert_int_equal(p->dec_ns, 8000);
	assert_int_equal(p->byte_counter, 0);
	assert_int_equal(p->f, 3);
	assert_true(p->min_dec_factor == 0.25);
	assert_true(p->clamp_always);
	assert_true(p->clamp_after_inc); /* connectx's, moot */
	assert_true(p->first_cnp_bps == 20e9);
	assert_false(p->alpha_before_cut);
	assert_int_equal(p->np_interval_ns, 20000);
	assert_int_equal(d->key, QOS_FLOW_QP);
	assert_int_equal(d->max_flows, 512);
	assert_int_equal(d->flow_idle_ns, 1000000000);
	assert_int_equal(d->cnp_action, QOS_CNP_ABSORB);
	assert_false(d->cp_loop);
	assert_true(d->np);
	assert_int_equal(d->np_dscp, 46);
	assert_int_equal(d->np_pcp, 5);
	config_free(cfg);

	cfg = load_ok(dcqcn_paper_full);
	d = &cfg->qos.dcqcn;
	p = &d->par;
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_int_equal(p->profile, DCQCN_PAPER);
	assert_true(p->line_bps == 100e9);
	assert_true(p->min_bps == 1e9);
	assert_true(p->ai_bps == 100e6);
	assert_true(p->hai_bps == 1e9);
	assert_true(p->g == 0.0625);
	assert_true(p->alpha_init == 0.5);
	assert_int_equal(p->alpha_ns, 50000);
	assert_int_equal(p->inc_ns, 60000);
	assert_int_equal(p->dec_ns, 0);
	assert_int_equal(p->byte_counter, 1048576);
	assert_int_equal(p->f, 31);
	assert_true(p->min_dec_factor == 0.1);
	assert_false(p->clamp_always);
	assert_false(p->clamp_after_inc);
	assert_true(p->first_cnp_bps == 0);
	assert_true(p->alpha_before_cut);
	assert_int_equal(p->np_interval_ns, 0);
	assert_int_equal(d->key, QOS_FLOW_HOST);
	assert_int_equal(d->max_flows, 65536);
	assert_int_equal(d->flow_idle_ns, 3600000000000ull);
	assert_int_equal(d->cnp_action, QOS_CNP_FORWARD);
	assert_true(d->cp_loop);
	assert_false(d->np);
	assert_int_equal(d->np_dscp, 0);
	assert_int_equal(d->np_pcp, 7);
	config_free(cfg);

	/* clamp after_increase on paper; a dcqcn class on shaped ports */
	cfg = load_ok(
		CLS("    dcqcn: true\n") "dcqcn: {clamp: after_increase}\n");
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_false(cfg->qos.dcqcn.par.clamp_always);
	assert_true(cfg->qos.dcqcn.par.clamp_after_inc);
	assert_true(cfg->qos.dcqcn.par.line_bps == 0); /* the port's */
	config_free(cfg);
}

/* The value one written dcqcn key loads to (times as ns, the rest as
 * doubles); `extra` goes before it ("profile: connectx"). */
static double dcqcn_value(const char *extra, const char *key, const char *text)
{
	struct xdplane_config *cfg;
	const struct qos_dcqcn *d;
	char yaml[512];
	double v = -1;

	snprintf(yaml, sizeof(yaml), DCQCN("%s%s: %s"), extra, key, text);
	cfg = load_ok(yaml);
	d = &cfg->qos.dcqcn;
	if (!strcmp(key, "line_rate"))
		v = d->par.line_bps;
	else if (!strcmp(key, "min_rate"))
		v = d->par.min_bps;
	else if (!strcmp(key, "first_cnp_rate"))
		v = d->par.first_cnp_bps;
	else if (!strcmp(key, "g"))
		v = d->par.g;
	else if (!strcmp(key, "alpha_init"))
		v = d->par.alpha_init;
	else if (!strcmp(key, "min_decrease"))
		v = d->par.min_dec_factor;
	else if (!strcmp(key, "alpha_timer"))
		v = (double)d->par.alpha_ns;
	else if (!strcmp(key, "decrease_period"))
		v = (double)d->par.dec_ns;
	else if (!strcmp(key, "cnp_interval"))
		v = (double)d->par.np_interval_ns;
	else if (!strcmp(key, "flow_idle"))
		v = (double)d->flow_idle_ns;
	else if (!strcmp(key, "byte_counter"))
		v = (double)d->par.byte_counter;
	config_free(cfg);
	return v;
}

/* Units and number forms, each exact: gains and percentages are the
 * double nearest the written value. */
static void test_dcqcn_units(void **state)
{
	static const char cx[] = "profile: connectx\n  ";
	static const struct {
		const char *extra, *key, *text;
		double want;
	} cases[] = {
		{"", "alpha_timer", "55us", 55000},
		{"", "alpha_timer", "55US", 55000},
		{"", "alpha_timer", "1000ns", 1000},
		{"", "alpha_timer", "1.5us", 1500},
		{"", "alpha_timer", "0.5ms", 500000},
		{"", "alpha_timer", "0.001s", 1000000},
		{"", "alpha_timer", "1us", 1000}, /* the edges */
		{"", "alpha_timer", "1s", 1e9},
		{"", "cnp_interval", "0", 0},
		{"", "cnp_interval", "0us", 0},
		{"", "cnp_interval", "50us", 50000},
		{"", "flow_idle", "1ms", 1e6},
		{"", "flow_idle", "100ms", 1e8},
		{"", "flow_idle", "3600s", 3.6e12},
		{cx, "decrease_period", "4us", 4000},
		{cx, "decrease_period", "1us", 1000},
		{"", "decrease_period", "0ns", 0}, /* paper: 0 is its value */
		{"", "byte_counter", "10MB", 1e7},
		{"", "byte_counter", "64KiB", 65536},
		{"", "byte_counter", "0", 0},
		{cx, "byte_counter", "0", 0},
		{"", "g", "1/256", 0.00390625},
		{"", "g", "0.00390625", 0.00390625},
		{"", "g", "5/1024", 0.0048828125},
		{"", "g", "1/3", 1.0 / 3},
		{"", "g", "0.1", 0.1},
		{"", "g", "1", 1},
		{"", "g", "1/1", 1},
		{"", "g", "0.000001", 0.000001},
		{"", "g", "1/1000000", 0.000001},
		{"", "alpha_init", "0.5", 0.5},
		{"", "alpha_init", "1023/1024", 1023.0 / 1024},
		{"", "min_decrease", "50%", 0.5},
		{"", "min_decrease", "12.5%", 0.125},
		{"", "min_decrease", "0.33%", 0.0033},
		{"", "min_decrease", "33.3%", 0.333},
		{"", "min_decrease", "99.99%", 0.9999},
		{"", "min_decrease", "0%", 0},
		{"", "min_decrease", "0", 0},
		{"", "min_decrease", "0.5", 0.5},
		{"", "line_rate", "''", 0},
		{"", "line_rate", "1.5Gbit", 1.5e9},
		{"", "min_rate", "1kbit", 1000},
		{cx, "first_cnp_rate", "''", 0},
		{cx, "first_cnp_rate", "1Mbit", 1e6}, /* = min_rate */
		{cx, "first_cnp_rate", "10Tbit", 1e13},
	};
	double got;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = dcqcn_value(cases[i].extra, cases[i].key, cases[i].text);
		if (got != cases[i].want)
			fail_msg("%s: %s: got %.17g, want %.17g", cases[i].key,
				 cases[i].text, got, cases[i].want);
	}
}

/* Where DCQCN takes its line rate from, and when it needs one. */
static void test_dcqcn_line(void **state)
{
	struct xdplane_config *cfg;

	(void)state;
	/* a DCQCN class with unshaped ports: dcqcn.line_rate will do */
	cfg = load_ok(PORTS "classes:\n  - name: default\n    dcqcn: true\n"
			    "dcqcn: {line_rate: 25Gbit}\n");
	assert_true(cfg->qos.classes[0].dcqcn);
	assert_true(cfg->qos.dcqcn.par.line_bps == 25e9);
	config_free(cfg);
	/* no DCQCN class: slow ports need not fit the DCQCN rates */
	cfg = load_ok("ports:\n  - interface: a\n    rate: 60000\n"
		      "  - interface: b\n    rate: 1Mbit\n");
	assert_int_equal(cfg->qos.port[0].rate_bps, 60000);
	assert_dcqcn_profile(&cfg->qos.dcqcn.par, DCQCN_PAPER, 0);
	config_free(cfg);
	/* a line rate just above the paper's R_min and at its R_HAI */
	cfg = load_ok(DCQCN("line_rate: 200Mbit"));
	assert_true(cfg->qos.dcqcn.par.line_bps == 200e6);
	config_free(cfg);
	cfg = load_ok("ports:\n  - interface: a\n    rate: 200Mbit\n"
		      "  - interface: b\n    rate: 1Gbit\n"
		      "classes:\n  - {name: default, dcqcn: true}\n");
	assert_true(cfg->qos.classes[0].dcqcn);
	config_free(cfg);
	/* connectx's R_min is 1Mbit: a slower class is fine with it */
	cfg = load_ok(CONNECTX("line_rate: 50Mbit\n  rate_hai: 50Mbit"));
	assert_true(cfg->qos.dcqcn.par.hai_bps == 50e6);
	config_free(cfg);
}

/* The dcqcn block as --dump-config prints it, both profiles' defaults. */
static void test_dcqcn_dump_text(void **state)
{
	static const char paper[] = "malformed: default\n"
				    "dcqcn:\n"
				    "  profile: paper\n"
				    "  line_rate: ''\n"
				    "  min_rate: 100Mbit\n"
				    "  rate_ai: 40Mbit\n"
				    "  rate_hai: 200Mbit\n"
				    "  g: 0.00390625\n"
				    "  alpha_init: 1\n"
				    "  alpha_timer: 55us\n"
				    "  increase_timer: 55us\n"
				    "  decrease_period: 0\n"
				    "  byte_counter: 10MB\n"
				    "  fast_recovery: 5\n"
				    "  min_decrease: 0%\n"
				    "  clamp: always\n"
				    "  first_cnp_rate: ''\n"
				    "  alpha_before_cut: false\n"
				    "  cnp_interval: 50us\n"
				    "  flow_key: host\n"
				    "  max_flows: 1024\n"
				    "  flow_idle: 100ms\n"
				    "  cnp: forward\n"
				    "  cp_loop: true\n"
				    "  np:\n"
				    "    enabled: false\n"
				    "    dscp: 48\n"
				    "    pcp: 6\n"
				    "control:\n";
	static const char connectx[] = "dcqcn:\n"
				       "  profile: connectx\n"
				       "  line_rate: 40Gbit\n"
				       "  min_rate: 1Mbit\n"
				       "  rate_ai: 5Mbit\n"
				       "  rate_hai: 50Mbit\n"
				       "  g: 0.0048828125\n"
				       "  alpha_init: 1\n"
				       "  alpha_timer: 1us\n"
				       "  increase_timer: 300us\n"
				       "  decrease_period: 4us\n"
				       "  byte_counter: 0\n"
				       "  fast_recovery: 1\n"
				       "  min_decrease: 50%\n"
				       "  clamp: after_increase\n"
				       "  first_cnp_rate: ''\n"
				       "  alpha_before_cut: false\n"
				       "  cnp_interval: 4us\n";
	struct xdplane_config *cfg = load_ok(PORTS);
	char *text;

	(void)state;
	config_free(dump_and_reload(cfg, &text));
	if (!strstr(text, paper))
		fail_msg("dump lacks:\n%s\nin:\n%s", paper, text);
	free(text);
	config_free(cfg);
	cfg = load_ok(PORTS "classes: [{name: default, dcqcn: true}]\n"
			    "dcqcn: {profile: connectx, line_rate: 40Gbit}\n");
	config_free(dump_and_reload(cfg, &text));
	if (!strstr(text, connectx) ||
	    !strstr(text, "    limit_packets: 2048\n    dcqcn: true\n"))
		fail_msg("dump lacks:\n%s\nin:\n%s", connectx, text);
	free(text);
	config_free(cfg);
}

static void test_check_system(void **state)
{
	static const char missing[] = "ports:\n  - interface: lo\n"
				      "  - interface: xdplane-nx0\n";
	struct config_error err = {.msg = ""};
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct xdplane_config *cfg;
	char yaml[128];

	(void)state;
	cfg = config_load_string("t.yaml", missing, true, &err);
	assert_null(cfg);
	assert_string_equal(
		err.msg, "t.yaml:3:16: ports[1].interface: no such interface "
			 "'xdplane-nx0'; check the name with 'ip link'");
	/* without check_system the same file loads */
	config_free(load_ok(missing));

	/* lo and any other interface of this machine */
	assert_non_null(ifs);
	for (i = ifs; i->if_name && !strcmp(i->if_name, "lo"); i++)
		;
	if (!i->if_name) {
		if_freenameindex(ifs);
		skip();
	}
	snprintf(yaml, sizeof(yaml),
		 "ports: [{interface: lo}, {interface: '%s'}]\n", i->if_name);
	cfg = config_load_string("t.yaml", yaml, true, &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->ports[1].interface, i->if_name);
	config_free(cfg);
	if_freenameindex(ifs);
}

static void source_path(char *buf, size_t size, const char *rel)
{
	const char *src = getenv("XDPLANE_SOURCE");
	const char *here = strstr(__FILE__, "tests/unit/"); /* run by hand */

	if (src)
		snprintf(buf, size, "%s/%s", src, rel);
	else
		snprintf(buf, size, "%.*s%s", here ? (int)(here - __FILE__) : 0,
			 __FILE__, rel);
}

/* The training-cluster classes and rules of the shipped file, in order. */
static void assert_shipped_qos(const struct qos_policy *q)
{
	static const struct {
		uint8_t class_id;
		uint32_t fields;
		uint8_t proto;
		uint16_t sport, dport;
		uint64_t dscp_mask;
	} rules[] = {
		{0, QOS_M_PROTO | QOS_M_DPORT | QOS_M_BTH_OPCODE, 17, 0, 4791,
		 0},
		{1, QOS_M_PROTO | QOS_M_DPORT, 17, 0, 4791, 0},
		{1, QOS_M_DSCP, 0, 0, 0, 1ull << 26},
		{3, QOS_M_DPORT, 0, 0, 2049, 0},
		{3, QOS_M_SPORT, 0, 2049, 0, 0},
		{3, QOS_M_PROTO | QOS_M_DPORT, 6, 0, 3260, 0},
		{3, QOS_M_PROTO | QOS_M_SPORT, 6, 3260, 0, 0},
		{3, QOS_M_PROTO | QOS_M_DPORT, 6, 0, 4420, 0},
		{3, QOS_M_PROTO | QOS_M_SPORT, 6, 4420, 0, 0},
		{3, QOS_M_DSCP, 0, 0, 0, 1ull << 10},
	};
	static const char *const names[] = {"cnp", "roce", "default",
					    "storage"};
	const struct qos_rule *r;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(q->port[i].rate_bps, 100000000000ull);
		assert_int_equal(q->port[i].burst, 2500000);
		assert_int_equal(q->port[i].overhead, 24);
	}
	assert_int_equal(q->n_classes, 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(q->classes[i].name, names[i]);
		assert_int_equal(q->classes[i].level, i);
		assert_int_equal(q->classes[i].quantum, 9000);
		assert_int_equal(q->classes[i].ecn.enabled, i == 1);
		assert_false(q->classes[i].dcqcn); /* DCQCN off by default */
		assert_int_equal(q->classes[i].min_share, 0);
		assert_int_equal(q->classes[i].min_bps, 0);
	}
	assert_int_equal(q->classes[0].ceil_share, 3277); /* 5% */
	assert_int_equal(q->classes[1].ceil_share, 58982); /* 90% */
	assert_int_equal(q->classes[2].ceil_share, 0);
	assert_int_equal(q->classes[3].ceil_share, 0);
	assert_int_equal(q->classes[1].ecn.kmin, 30000);
	assert_int_equal(q->classes[1].ecn.kmax, 300000);
	assert_int_equal(q->classes[1].ecn.pmax, 655);
	assert_int_equal(q->classes[1].ecn.nonect, QOS_NONECT_DROP);
	assert_int_equal(q->n_rules, sizeof(rules) / sizeof(rules[0]));
	for (size_t i = 0; i < q->n_rules; i++) {
		r = &q->rules[i];
		if (r->class_id != rules[i].class_id ||
		    r->fields != rules[i].fields ||
		    r->proto != rules[i].proto ||
		    r->sport_lo != rules[i].sport ||
		    r->sport_hi != rules[i].sport ||
		    r->dport_lo != rules[i].dport ||
		    r->dport_hi != rules[i].dport ||
		    r->dscp_mask != rules[i].dscp_mask)
			fail_msg("rules[%zu] is not as documented", i);
	}
	assert_int_equal(q->rules[0].bth_opcode, 0x81);
	assert_int_equal(q->default_class, 2);
	assert_int_equal(q->malformed, QOS_MALFORMED_DEFAULT);
	assert_dcqcn_profile(&q->dcqcn.par, DCQCN_PAPER, 0);
	assert_dcqcn_flow_defaults(&q->dcqcn);
}

/* The shipped file loads, and states exactly the built-in defaults. */
static void test_shipped_config(void **state)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;
	char path[4096];

	(void)state;
	source_path(path, sizeof(path), "config/xdplane.yaml");
	cfg = config_load(path, false, &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->path, path);
	assert_defaults(cfg);
	assert_shipped_qos(&cfg->qos);
	config_free(cfg);
}

/* The shipped file round-trips too, and keeps the two interface lines
 * bench/demo rewrites with sed. */
static void test_shipped_round_trip(void **state)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *in, *out;
	char path[4096], line[256], *text;
	int seen = 0;
	FILE *f;

	(void)state;
	source_path(path, sizeof(path), "config/xdplane.yaml");
	in = config_load(path, false, &err);
	if (!in)
		fail_msg("%s", err.msg);
	out = dump_and_reload(in, &text);
	if (memcmp(in, out, sizeof(*in)))
		fail_msg("round trip changed the config:\n%s", text);
	free(text);
	config_free(in);
	config_free(out);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "  - interface: eth1\n"))
			seen |= 1;
		if (!strcmp(line, "  - interface: eth2\n"))
			seen |= 2;
	}
	fclose(f);
	assert_int_equal(seen, 3);
}

/* The shipped file's comment that turns DCQCN on for roce does so. */
static void test_shipped_dcqcn(void **state)
{
	static const char off[] = "    # dcqcn: true\n",
			  on[] = "    dcqcn: true\n";
	struct xdplane_config *cfg;
	char path[4096], *text, *at;
	size_t len = 0;
	FILE *f;

	(void)state;
	source_path(path, sizeof(path), "config/xdplane.yaml");
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, 1 << 20);
	assert_non_null(text);
	len = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(len > 0);
	at = strstr(text, off);
	if (!at || strstr(at + 1, off))
		fail_msg("'%s' is not in %s exactly once", off, path);
	memmove(at + strlen(on), at + strlen(off),
		strlen(at + strlen(off)) + 1);
	memcpy(at, on, strlen(on));
	cfg = load_ok(text);
	for (uint32_t i = 0; i < cfg->qos.n_classes; i++)
		assert_int_equal(cfg->qos.classes[i].dcqcn,
				 !strcmp(cfg->qos.classes[i].name, "roce"));
	assert_dcqcn_profile(&cfg->qos.dcqcn.par, DCQCN_PAPER, 0);
	config_free(cfg);
	free(text);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/test_config_XXXXXX";
	struct config_error err = {.msg = ""};
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, PORTS "qeues: 1\n", strlen(PORTS) + 9),
			 (ssize_t)strlen(PORTS) + 9);
	close(fd);
	assert_null(config_load(path, false, &err));
	assert_true(!strncmp(err.msg, path, strlen(path)));
	assert_string_equal(
		err.msg + strlen(path),
		":4:1: unknown key 'qeues' (did you mean 'queues'?)");
	unlink(path);

	assert_null(config_load(path, false, &err));
	assert_true(!strncmp(err.msg, path, strlen(path)));
	assert_string_equal(err.msg + strlen(path),
			    ": cannot read: No such file or directory");
}

static void test_minimal(void **state)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg = config_load_string(
		"minimal", "ports:\n  - interface: a\n  - interface: b\n",
		false, &err);

	(void)state;
	assert_non_null(cfg);
	assert_string_equal(cfg->ports[0].interface, "a");
	assert_string_equal(cfg->ports[1].interface, "b");
	assert_defaults(cfg);
	config_free(cfg);
}

/* Every daemon key, written. */
static void test_daemon_keys(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "control:\n"
			      "  socket: /tmp/xdplane test/ctl.sock\n"
			      "  socket_group: adm\n"
			      "  metrics_listen: '[2001:db8::1]:9100'\n"
			      "  stats_interval_ms: 250\n"
			      "user: nobody\n"
			      "group: nogroup\n"
			      "log_level: debug\n");

	(void)state;
	assert_string_equal(cfg->control.socket, "/tmp/xdplane test/ctl.sock");
	assert_string_equal(cfg->control.socket_group, "adm");
	assert_string_equal(cfg->control.metrics_listen, "[2001:db8::1]:9100");
	assert_listen6(&cfg->control, "2001:db8::1", 9100);
	assert_int_equal(cfg->control.stats_interval_ms, 250);
	assert_string_equal(cfg->user, "nobody");
	assert_string_equal(cfg->group, "nogroup");
	assert_int_equal(cfg->log_level, 7);
	config_free(cfg);
}

/* "" switches the socket and the listener off; empty mapping: defaults. */
static void test_daemon_disabled(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "control: {socket: '', metrics_listen: '', "
			      "socket_group: ''}\nuser: ''\ngroup: ''\n");
	static const struct sockaddr_storage zero;

	(void)state;
	assert_string_equal(cfg->control.socket, "");
	assert_string_equal(cfg->control.metrics_listen, "");
	assert_int_equal(cfg->control.metrics_addrlen, 0);
	assert_int_equal(cfg->control.metrics_addr.ss_family, AF_UNSPEC);
	assert_memory_equal(&cfg->control.metrics_addr, &zero, sizeof(zero));
	assert_string_equal(cfg->user, "");
	assert_int_equal(cfg->control.stats_interval_ms, 1000);
	config_free(cfg);
	cfg = load_ok(PORTS "control: {}\n");
	assert_daemon_defaults(cfg);
	config_free(cfg);
}

/* Listener addresses: accepted forms, edges, and the canonical text. */
static void test_daemon_listen(void **state)
{
	static const struct {
		const char *yaml, *canon, *addr;
		uint16_t port;
		bool six;
	} cases[] = {
		{"0.0.0.0:1", "0.0.0.0:1", "0.0.0.0", 1, false},
		{"10.0.0.1:65535", "10.0.0.1:65535", "10.0.0.1", 65535, false},
		{"'[::]:9470'", "[::]:9470", "::", 9470, true},
		{"'[0:0::1]:80'", "[::1]:80", "::1", 80, true},
		{"'[FD00:0::AB]:9470'", "[fd00::ab]:9470", "fd00::ab", 9470,
		 true},
		{"'[::ffff:10.1.2.3]:9470'", "[::ffff:10.1.2.3]:9470",
		 "::ffff:10.1.2.3", 9470, true},
	};
	struct xdplane_config *cfg;
	char yaml[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(yaml, sizeof(yaml), LISTEN("%s"), cases[i].yaml);
		cfg = load_ok(yaml);
		assert_string_equal(cfg->control.metrics_listen,
				    cases[i].canon);
		if (cases[i].six)
			assert_listen6(&cfg->control, cases[i].addr,
				       cases[i].port);
		else
			assert_listen4(&cfg->control, cases[i].addr,
				       cases[i].port);
		config_free(cfg);
	}
}

/* The longest socket path fits sun_path with its NUL; the interval's
 * edges; every log level by name. */
static void test_daemon_limits(void **state)
{
	static const char *const levels[] = {"err", "warn", "notice", "info",
					     "debug"};
	char yaml[512], path[108];
	struct xdplane_config *cfg;

	(void)state;
	memset(path, 'x', sizeof(path));
	path[0] = '/';
	path[107] = '\0';
	snprintf(yaml, sizeof(yaml),
		 CONTROL("socket: %s\n  stats_interval_ms: 100"), path);
	cfg = load_ok(yaml);
	assert_string_equal(cfg->control.socket, path);
	assert_int_equal(cfg->control.stats_interval_ms, 100);
	config_free(cfg);
	cfg = load_ok(CONTROL("stats_interval_ms: 60000"));
	assert_int_equal(cfg->control.stats_interval_ms, 60000);
	config_free(cfg);
	for (int i = 0; i < 5; i++) {
		snprintf(yaml, sizeof(yaml), PORTS "log_level: %s\n",
			 levels[i]);
		cfg = load_ok(yaml);
		assert_int_equal(cfg->log_level, 3 + i);
		config_free(cfg);
	}
}

/* A machine with two interfaces: lo and the first other one, or NULL. */
static const char *other_interface(struct if_nameindex *ifs)
{
	for (struct if_nameindex *i = ifs; i && i->if_name; i++)
		if (strcmp(i->if_name, "lo"))
			return i->if_name;
	return NULL;
}

/* With check_system, the user and the groups must exist. */
static void test_daemon_check_system(void **state)
{
	static const struct {
		const char *keys, *msg;
	} cases[] = {
		{"user: xdplane-nx-user\n",
		 "t.yaml:4:7: user: no such user 'xdplane-nx-user'; check the "
		 "name with 'getent passwd xdplane-nx-user'"},
		{"user: root\ngroup: xdplane-nx-grp\n",
		 "t.yaml:5:8: group: no such group 'xdplane-nx-grp'; check the "
		 "name with 'getent group xdplane-nx-grp'"},
		{"control: {socket_group: xdplane-nx-grp}\n",
		 "t.yaml:4:25: control.socket_group: no such group "
		 "'xdplane-nx-grp'; check the name with 'getent group "
		 "xdplane-nx-grp'"},
		{"user: root\ngroup: root\ncontrol: {socket_group: root}\n",
		 NULL},
	};
	struct if_nameindex *ifs = if_nameindex();
	const char *other = other_interface(ifs);
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;
	char yaml[256];

	(void)state;
	if (!other) {
		if_freenameindex(ifs);
		skip();
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 "ports:\n  - interface: lo\n  - interface: '%s'\n%s",
			 other, cases[i].keys);
		cfg = config_load_string("t.yaml", yaml, true, &err);
		if (!cases[i].msg) {
			if (!cfg)
				fail_msg("%s", err.msg);
			assert_string_equal(cfg->user, "root");
			assert_string_equal(cfg->group, "root");
			assert_string_equal(cfg->control.socket_group, "root");
			config_free(cfg);
			continue;
		}
		assert_null(cfg);
		assert_string_equal(err.msg, cases[i].msg);
		/* without check_system the same file loads */
		config_free(load_ok(yaml));
	}
	if_freenameindex(ifs);
}

/* With check_system, user, group and control.socket_group follow the rule
 * of the daemon's privilege drop (config.h): a name, else a numeric id; a
 * numeric user needs a passwd entry, a numeric group does not. The value
 * is kept as written. (test_privs.c checks that privs_lookup() agrees.) */
static void test_daemon_check_system_ids(void **state)
{
	struct passwd *nobody = getpwnam("nobody");
	unsigned int nx_uid = unused_uid(), nx_gid = unused_gid();
	struct {
		char keys[128], msg[320], user[16], group[16];
	} cases[7];
	struct if_nameindex *ifs = if_nameindex();
	const char *other = other_interface(ifs);
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;
	char yaml[512];
	int n = 0;

	(void)state;
	assert_non_null(nobody);
	if (!other) {
		if_freenameindex(ifs);
		skip();
	}
	memset(cases, 0, sizeof(cases));
	/* a name */
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: nobody\n");
	snprintf(cases[n++].user, sizeof(cases[0].user), "nobody");
	/* numeric ids with entries, unquoted as an operator writes them */
	snprintf(cases[n].keys, sizeof(cases[n].keys),
		 "user: %u\ngroup: 0\ncontrol: {socket_group: 0}\n",
		 (unsigned int)nobody->pw_uid);
	snprintf(cases[n].user, sizeof(cases[n].user), "%u",
		 (unsigned int)nobody->pw_uid);
	snprintf(cases[n++].group, sizeof(cases[0].group), "0");
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: 0\n");
	snprintf(cases[n++].user, sizeof(cases[0].user), "0");
	/* a numeric group without a group entry: accepted, like chown(1) */
	snprintf(cases[n].keys, sizeof(cases[n].keys),
		 "user: root\ngroup: %u\ncontrol: {socket_group: '%u'}\n",
		 nx_gid, nx_gid);
	snprintf(cases[n].user, sizeof(cases[n].user), "root");
	snprintf(cases[n++].group, sizeof(cases[0].group), "%u", nx_gid);
	/* a numeric user without a passwd entry: refused (its groups) */
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: %u\n", nx_uid);
	snprintf(cases[n++].msg, sizeof(cases[0].msg),
		 "t.yaml:4:7: user: no such user '%u': uid %u has no passwd "
		 "entry, and the daemon takes the user's groups from it; check "
		 "with 'getent passwd %u'",
		 nx_uid, nx_uid, nx_uid);
	/* names that do not exist and are not numbers */
	snprintf(cases[n].keys, sizeof(cases[n].keys),
		 "user: xdplane-nx-user\n");
	snprintf(cases[n++].msg, sizeof(cases[0].msg),
		 "t.yaml:4:7: user: no such user 'xdplane-nx-user'; check the "
		 "name with 'getent passwd xdplane-nx-user'");
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: 0\ngroup: 12x\n");
	snprintf(cases[n++].msg, sizeof(cases[0].msg),
		 "t.yaml:5:8: group: no such group '12x'; check the name with "
		 "'getent group 12x'");
	assert_int_equal(n, sizeof(cases) / sizeof(cases[0]));
	for (int i = 0; i < n; i++) {
		snprintf(yaml, sizeof(yaml),
			 "ports:\n  - interface: lo\n  - interface: '%s'\n%s",
			 other, cases[i].keys);
		cfg = config_load_string("t.yaml", yaml, true, &err);
		if (cases[i].msg[0]) {
			assert_null(cfg);
			assert_string_equal(err.msg, cases[i].msg);
			/* without check_system the same file loads */
			config_free(load_ok(yaml));
			continue;
		}
		if (!cfg)
			fail_msg("%s: %s", cases[i].keys, err.msg);
		assert_string_equal(cfg->user, cases[i].user);
		assert_string_equal(cfg->group, cases[i].group);
		assert_string_equal(cfg->control.socket_group, cases[i].group);
		config_free(cfg);
	}
	if_freenameindex(ifs);
}

static void test_daemon_dump_text(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "control: {socket: \"/run/it's.sock\", "
			      "metrics_listen: '[0::2]:9000'}\n"
			      "user: nobody\nlog_level: warn\n");
	char *text;

	(void)state;
	config_free(dump_and_reload(cfg, &text));
	assert_non_null(strstr(text, "    pcp: 6\n"
				     "control:\n"
				     "  socket: '/run/it''s.sock'\n"
				     "  socket_group: ''\n"
				     "  metrics_listen: '[::2]:9000'\n"
				     "  stats_interval_ms: 1000\n"
				     "user: 'nobody'\n"
				     "group: ''\n"
				     "log_level: warn\n"));
	free(text);
	config_free(cfg);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(xdp_attach_mode_name(XDP_ATTACH_AUTO), "auto");
	assert_string_equal(xdp_attach_mode_name(XDP_ATTACH_NATIVE), "native");
	assert_string_equal(xdp_attach_mode_name(XDP_ATTACH_GENERIC),
			    "generic");
	assert_string_equal(xsk_bind_mode_name(XSK_BIND_AUTO), "auto");
	assert_string_equal(xsk_bind_mode_name(XSK_BIND_ZEROCOPY), "zerocopy");
	assert_string_equal(xsk_bind_mode_name(XSK_BIND_COPY), "copy");
	assert_string_equal(failure_mode_name(FAILURE_OPEN), "open");
	assert_string_equal(failure_mode_name(FAILURE_CLOSED), "closed");
	assert_string_equal(config_log_level_name(3), "err");
	assert_string_equal(config_log_level_name(4), "warn");
	assert_string_equal(config_log_level_name(5), "notice");
	assert_string_equal(config_log_level_name(6), "info");
	assert_string_equal(config_log_level_name(7), "debug");
	assert_string_equal(config_log_level_name(8), "invalid");
	assert_string_equal(config_log_level_name(0), "invalid");
	assert_int_equal(config_log_level_parse("err"), 3);
	assert_int_equal(config_log_level_parse("notice"), 5);
	assert_int_equal(config_log_level_parse("debug"), 7);
	assert_int_equal(config_log_level_parse("Debug"), -1);
	assert_int_equal(config_log_level_parse("warning"), -1);
	assert_int_equal(config_log_level_parse(""), -1);
}

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_zeros_kept),
		cmocka_unit_test(test_queues_auto),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_dump_text),
		cmocka_unit_test(test_dump_queues_auto),
		cmocka_unit_test(test_check_system),
		cmocka_unit_test(test_shipped_config),
		cmocka_unit_test(test_shipped_round_trip),
		cmocka_unit_test(test_shipped_dcqcn),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_qos_full),
		cmocka_unit_test(test_qos_fifo),
		cmocka_unit_test(test_qos_class_defaults),
		cmocka_unit_test(test_qos_units),
		cmocka_unit_test(test_qos_default_bursts),
		cmocka_unit_test(test_qos_counts),
		cmocka_unit_test(test_qos_dump_text),
		cmocka_unit_test(test_daemon_keys),
		cmocka_unit_test(test_daemon_disabled),
		cmocka_unit_test(test_daemon_listen),
		cmocka_unit_test(test_daemon_limits),
		cmocka_unit_test(test_daemon_check_system),
		cmocka_unit_test(test_daemon_check_system_ids),
		cmocka_unit_test(test_daemon_dump_text),
		cmocka_unit_test(test_dcqcn_defaults),
		cmocka_unit_test(test_dcqcn_full),
		cmocka_unit_test(test_dcqcn_units),
		cmocka_unit_test(test_dcqcn_line),
		cmocka_unit_test(test_dcqcn_dump_text),
	};
	struct CMUnitTest tests[sizeof(fixed) / sizeof(fixed[0]) + N_BAD];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		tests[n++] = fixed[i];
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){
			.name = bad_cases[i].name,
			.test_func = test_bad,
			.initial_state = (void *)&bad_cases[i],
		};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
