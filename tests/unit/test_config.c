// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config.c - unit tests of the configuration loader's schema and
 * pipeline (control/config/config_load.c, config_errors.c, yaml_loc.c): values
 * and defaults loaded, every rule on ports, rings, umem, poll and workers
 * rejected with the exact "file:line:col:" of the offending key or value,
 * the schema's and libyaml's errors located, the shipped config. The
 * sections have their own files: test_config_qos.c, _dcqcn.c, _daemon.c,
 * _dump.c, _pfc.c, _units.c, _diff.c.
 */
#include <net/if.h>
#include <unistd.h>
#include "test_config.h"

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
	{"frames_too_few", PORTS "queues: 1\numem:\n  frames: 16384\n",
	 "t.yaml:6:11: ",
	 "umem.frames: need at least 2 * queues 1 * (rings.fill 4096 + "
	 "rings.tx 2048 + rings.handoff 4096) = 20480 (got 16384); "
	 "set umem.frames to 32768"},
	/* written: checked at load; not written, it grows at start */
	{"frames_written_too_few", PORTS "queues: 2\numem: {frames: 32768}\n",
	 "t.yaml:5:16: ",
	 "umem.frames: need at least 2 * queues 2 * (rings.fill 4096 + "
	 "rings.tx 2048 + rings.handoff 4096) = 40960 (got 32768); "
	 "set umem.frames to 65536"},
	{"queues_set_channels_word", PORTS "queues_set_channels: yes\n",
	 "t.yaml:4:22: ", "queues_set_channels: "},
	{"busy_us", PORTS "poll:\n  busy_us: 10001\n", "t.yaml:5:12: ",
	 "poll.busy_us: must be between 0 and 10000 microseconds, 0 to 10ms "
	 "(got '10001')"},
	{"coalesce_us", PORTS "poll:\n  coalesce_us: 1001\n", "t.yaml:5:16: ",
	 "poll.coalesce_us: must be between 0 and 1000 microseconds, 0 to 1ms "
	 "(got '1001')"},
	{"coalesce_us_unit", PORTS "poll:\n  coalesce_us: 1.5ms\n",
	 "t.yaml:5:16: ",
	 "poll.coalesce_us: must be between 0 and 1000 microseconds, 0 to 1ms "
	 "(got '1.5ms')"},
	{"busy_us_fraction", PORTS "poll:\n  busy_us: 1500ns\n",
	 "t.yaml:5:12: ",
	 "poll.busy_us: not a whole number of microseconds (got '1500ns')"},
	{"busy_us_bare_fraction", PORTS "poll:\n  busy_us: 1.5\n",
	 "t.yaml:5:12: ",
	 "poll.busy_us: expected a time: a number with a unit ns, us, ms or "
	 "s, e.g. 55us, 0.5ms or 1s, or a plain number of microseconds (got "
	 "'1.5')"},
	{"batch_zero", PORTS "poll:\n  batch: 0\n", "t.yaml:5:10: ",
	 "poll.batch: must be between 1 and 256 descriptors (got 0)"},
	{"batch_257", PORTS "poll:\n  batch: 257\n", "t.yaml:5:10: ",
	 "poll.batch: must be between 1 and 256 descriptors (got 257)"},
	{"cpu_too_big", PORTS "workers:\n  cpus: [1, 256]\n", "t.yaml:5:13: ",
	 "workers.cpus[1]: CPU ids must be below 256 (got 256)"},
	{"cpu_twice", PORTS "workers:\n  cpus: [1, 2, 1]\n",
	 "t.yaml:5:16: ", "workers.cpus[2]: CPU 1 is listed twice"},
	/* the schema: unknown keys, at the key itself */
	{"unknown_top", PORTS "qeues: 2\n",
	 "t.yaml:4:1: ", "unknown key 'qeues' (did you mean 'queues'?)"},
	{"unknown_nested", PORTS "rings:\n  fill: 4096\n  txx: 64\n",
	 "t.yaml:6:3: ", "unknown key 'rings.txx' (did you mean 'rings.tx'?)"},
	{"unknown_in_port", "ports:\n  - interface: a\n  - interfac: b\n",
	 "t.yaml:3:5: ",
	 "unknown key 'ports[1].interfac' (did you mean "
	 "'ports[1].interface'?)"},
	{"unknown_far", PORTS "colour: blue\n", "t.yaml:4:1: ",
	 "unknown key 'colour'; the keys at the top are: ports, port_wait, "
	 "queues,"},
	{"port_wait_range", PORTS "port_wait: 3601s\n", "t.yaml:4:12: ",
	 "port_wait: must be between 0 and 3600s (got '3601s')"},
	{"port_wait_unit", PORTS "port_wait: 60\n",
	 "t.yaml:4:12: ", "port_wait: expected a time: a number with a unit"},
	/* the schema: wrong types */
	{"type_word", PORTS "poll:\n  batch: two\n", "t.yaml:5:10: ",
	 "poll.batch: expected a plain decimal number from 0 to 4294967295 "
	 "(got 'two')"},
	{"type_fraction", PORTS "poll:\n  batch: 1.5\n",
	 "t.yaml:5:10: ", "poll.batch: expected a plain decimal number"},
	{"type_octal", PORTS "poll:\n  batch: 010\n",
	 "t.yaml:5:10: ", "poll.batch: expected a plain decimal number"},
	{"type_negative", PORTS "poll: {busy_us: -1}\n", "t.yaml:4:17: ",
	 "poll.busy_us: expected a time: a number with a "
	 "unit ns, us, ms or s"},
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
	{"port_checksum_word",
	 "ports:\n  - {interface: eth1, checksum: yes}\n  - interface: eth2\n",
	 "t.yaml:2:33: ",
	 "ports[0].checksum: expected one of auto, complete, trust (got "
	 "'yes')"},
	{"type_scalar_entries", "ports: [a, b]\n", "t.yaml:1:9: ",
	 "ports[0]: expected a mapping with the keys interface, mtu, rate, "
	 "burst"},
	{"type_scalar_for_list", PORTS "workers:\n  cpus: 3\n",
	 "t.yaml:5:9: ", "workers.cpus: expected a list (got '3')"},
	{"type_cpu_entry", PORTS "workers:\n  cpus: [1, x]\n",
	 "t.yaml:5:13: ", "workers.cpus[1]: expected a plain decimal number"},
	{"type_top_list", "- a\n",
	 "t.yaml:1:1: ", "document: expected a mapping with the keys ports,"},
	/* the schema: enums */
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
	/* a dotted key would stand for the nested key's path (the fuzz
	 * target read pfc.xon's mapping as pfc: {xon: ...}) */
	{"dotted_key", PORTS "pfc.xon: {cpus: [0]}\n", "t.yaml:4:1: ",
	 "key 'pfc.xon' contains '.', '[' or ']'; nest it instead (a.b: 1 "
	 "is written a: {b: 1})"},
	{"bracket_key", PORTS "ports[0]: 1\n",
	 "t.yaml:4:1: ", "key 'ports[0]' contains '.', '[' or ']'"},
	{"two_documents", PORTS "---\nqueues: 2\n",
	 "t.yaml:4:1: ", "a second YAML document"},
	{"after_document_end", PORTS "...\nqueues: 2\n", "t.yaml:5:1: ",
	 "YAML syntax error: did not find expected <document start>"},
	{"too_deep", PORTS "x: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n",
	 "t.yaml:4:19: ", "nested more than 16 levels deep"},
	{"complex_key", PORTS "? [a]\n: 1\n",
	 "t.yaml:4:3: ", "a key must be a string"},
};

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
				   "  coalesce_us: 40\n"
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
	assert_int_equal(cfg->poll.coalesce_us, 40);
	assert_int_equal(cfg->poll.batch, 32);
	assert_int_equal(cfg->n_cpus, 3);
	assert_int_equal(cfg->cpus[0], 3);
	assert_int_equal(cfg->cpus[1], 1);
	assert_int_equal(cfg->cpus[2], 2);
	config_free(cfg);
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

	/* the default is auto; umem.frames not written grows at start, so
	 * a number of queues the default frames cannot hold loads */
	cfg = load_ok(PORTS);
	assert_int_equal(cfg->queues, CONFIG_QUEUES_AUTO);
	assert_true(cfg->umem.frames_auto);
	config_free(cfg);
	cfg = load_ok(PORTS "queues: 4\nqueues_set_channels: true\n");
	assert_int_equal(cfg->queues, 4);
	assert_true(cfg->queues_set_channels);
	assert_true(cfg->umem.frames_auto);
	assert_int_equal(cfg->umem.frames, 32768);
	config_free(cfg);
	cfg = load_ok(PORTS "queues_set_channels: true\numem: {frames: 64}\n");
	assert_int_equal(cfg->queues, CONFIG_QUEUES_AUTO);
	assert_true(cfg->queues_set_channels);
	assert_false(cfg->umem.frames_auto);
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
		/* adaptive egress on, its other keys the defaults */
		assert_true(q->port[i].adaptive.on);
		assert_int_equal(q->port[i].adaptive.target_ns, 500000);
		assert_int_equal(q->port[i].adaptive.floor_bps, 10000000000ull);
		assert_true(q->port[i].adaptive.probe_gain == 0.1);
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

/* ports[].checksum: auto by default, complete and trust kept, dumped
 * only when not auto (as mtu), round trip. */
static void test_port_checksum(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS), *back;
	char *text;

	(void)state;
	assert_int_equal(cfg->ports[0].checksum, PORT_CSUM_AUTO);
	assert_int_equal(cfg->ports[1].checksum, PORT_CSUM_AUTO);
	back = dump_and_reload(cfg, &text);
	assert_null(strstr(text, "checksum"));
	free(text);
	config_free(back);
	config_free(cfg);
	cfg = load_ok("ports:\n  - {interface: eth1, checksum: complete}\n"
		      "  - {interface: eth2, checksum: trust}\n");
	assert_int_equal(cfg->ports[0].checksum, PORT_CSUM_COMPLETE);
	assert_int_equal(cfg->ports[1].checksum, PORT_CSUM_TRUST);
	back = dump_and_reload(cfg, &text);
	assert_non_null(strstr(text, "    checksum: complete\n"));
	assert_non_null(strstr(text, "    checksum: trust\n"));
	assert_int_equal(back->ports[0].checksum, PORT_CSUM_COMPLETE);
	assert_int_equal(back->ports[1].checksum, PORT_CSUM_TRUST);
	free(text);
	config_free(back);
	config_free(cfg);
	assert_string_equal(port_checksum_name(PORT_CSUM_AUTO), "auto");
	assert_string_equal(port_checksum_name(PORT_CSUM_TRUST), "trust");
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

/* Every independent error of a file, each at its position, in the order
 * of the file. */
struct every_case {
	const char *name, *yaml;
	unsigned int found;
	const char *msgs[5];
};

static const struct every_case every_cases[] = {
	/* three independent errors: an unknown key (schema), a number out
	 * of range (numbers), a rate in bytes (port shapers) */
	{"three",
	 "ports:\n"
	 "  - interface: eth1\n"
	 "    rate: 100MBps\n"
	 "  - interface: eth2\n"
	 "queus: 4\n"
	 "poll:\n"
	 "  busy_us: 20ms\n",
	 3,
	 {"t.yaml:3:11: ports[0].rate: '100MBps' is bytes per second "
	  "(800Mbit); rates are in bits: write 800Mbit, or 100Mbit if bits "
	  "were meant",
	  "t.yaml:5:1: unknown key 'queus' (did you mean 'queues'?)",
	  "t.yaml:7:12: poll.busy_us: must be between 0 and 10000 "
	  "microseconds, 0 to 10ms (got '20ms')"}},
	/* the keys of one section are independent too: each number key,
	 * each of the daemon's keys */
	{"numbers_and_daemon",
	 PORTS "rings: {fill: 100, tx: 32}\n"
	       "control: {socket: relative.sock, metrics_listen: nowhere}\n",
	 4,
	 {"t.yaml:4:15: rings.fill: must be a power of two from 64 to 65536 "
	  "descriptors (got 100); try 64 or 128",
	  "t.yaml:4:24: rings.tx: must be a power of two from 64 to 65536 "
	  "descriptors (got 32); try 64",
	  "t.yaml:5:19: control.socket: expected an absolute path of at most "
	  "107 bytes, e.g. /run/xdplane/control.sock, or '' for no control "
	  "socket (got 'relative.sock')",
	  "t.yaml:5:50: control.metrics_listen: 'nowhere' is not an IPv4 "
	  "address (got 'nowhere'); write a numeric address such as "
	  "127.0.0.1, host names are not resolved"}},
	/* each rule on its own, and default_class */
	{"rules",
	 QPORTS "rules:\n"
		"  - {class: nope, match: {proto: udp}}\n"
		"  - {class: default, match: {dport: 99999}}\n"
		"  - {match: {proto: tcp}}\n"
		"default_class: nada\n",
	 4,
	 {"t.yaml:7:13: rules[0].class: no class named 'nope'; the classes "
	  "are: "
	  "default",
	  "t.yaml:8:37: rules[1].match.dport: expected a port number "
	  "0..65535 or an inclusive range lo-hi, e.g. 2049 or 1000-2000 (got "
	  "'99999')",
	  "t.yaml:9:5: rules[2].class: required key is missing; add 'class: "
	  "NAME' to this rule",
	  "t.yaml:10:16: default_class: no class named 'nada'; the classes "
	  "are: default"}},
	/* a value of the wrong type stops the checks between keys (the
	 * sections read the values as the schema promised them); the other
	 * schema errors are all reported */
	{"type_stops_sections",
	 "ports:\n"
	 "  - interface: eth1\n"
	 "    rate: 100MBps\n"
	 "  - interface: eth2\n"
	 "rings: {fill: lots}\n"
	 "qeues: 2\n",
	 2,
	 {"t.yaml:5:15: rings.fill: expected a plain decimal number",
	  "t.yaml:6:1: unknown key 'qeues' (did you mean 'queues'?)"}},
	/* nothing under an unknown key is reported; no error follows from
	 * another: a refused class list leaves dcqcn unchecked */
	{"no_follow_ups",
	 CLS("    ceil: 100MBps\n") "dcqcn: {min_rate: 1GBps}\n"
				    "colour: {hue: red, shade: dark}\n",
	 2,
	 {"t.yaml:8:11: classes[0].ceil: '100MBps' is bytes per second "
	  "(800Mbit)",
	  "t.yaml:11:1: unknown key 'colour'"}},
};

static void test_every_error(void **state)
{
	const struct every_case *c;
	struct config_error err = {.msg = ""};
	const char *got;

	(void)state;
	for (size_t i = 0; i < sizeof(every_cases) / sizeof(every_cases[0]);
	     i++) {
		c = &every_cases[i];
		if (load(c->yaml, &err))
			fail_msg("%s: loaded", c->name);
		assert_int_equal(err.found, c->found);
		assert_int_equal(err.n, c->found);
		for (unsigned int j = 0; j < c->found; j++) {
			got = config_error_at(&err, j);
			if (strncmp(got, c->msgs[j], strlen(c->msgs[j])))
				fail_msg("%s[%u]:\n got: %s\nwant: %s...",
					 c->name, j, got, c->msgs[j]);
		}
	}
}

/* At most CONFIG_ERRORS_MAX messages are kept; all are counted. */
static void test_error_cap(void **state)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;
	char yaml[2048] = PORTS;
	size_t len;

	(void)state;
	for (unsigned int i = 0; i < CONFIG_ERRORS_MAX + 5; i++) {
		len = strlen(yaml);
		snprintf(yaml + len, sizeof(yaml) - len, "junk%u: 1\n", i);
	}
	assert_null(load(yaml, &err));
	assert_int_equal(err.found, CONFIG_ERRORS_MAX + 5);
	assert_int_equal(err.n, CONFIG_ERRORS_MAX);
	assert_string_equal(err.msg, "t.yaml:4:1: unknown key 'junk0'; the "
				     "keys at the top are: ports, port_wait, "
				     "queues, queues_set_channels, xdp_mode, "
				     "bind_mode, failure_mode, rings, umem, "
				     "poll, workers, overhead, classes, "
				     "rules, default_class, malformed, "
				     "dcqcn, pfc, control, jobs, user, "
				     "group, "
				     "log_level");
	assert_true(!strncmp(config_error_at(&err, CONFIG_ERRORS_MAX - 1),
			     "t.yaml:23:1: unknown key 'junk19'", 33));
	/* a successful load clears it */
	cfg = config_load_string("t.yaml", PORTS, false, &err);
	assert_non_null(cfg);
	config_free(cfg);
	assert_int_equal(err.found, 0);
	assert_int_equal(err.n, 0);
	assert_string_equal(err.msg, "");
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_every_error),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_zeros_kept),
		cmocka_unit_test(test_queues_auto),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_check_system),
		cmocka_unit_test(test_shipped_config),
		cmocka_unit_test(test_shipped_round_trip),
		cmocka_unit_test(test_shipped_dcqcn),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_port_checksum),
		cmocka_unit_test(test_names),
	};
	return run_config_tests(fixed, sizeof(fixed) / sizeof(fixed[0]),
				bad_cases, N_BAD);
}
