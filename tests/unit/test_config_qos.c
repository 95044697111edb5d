// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_qos.c - the QoS keys of the configuration
 * (control/config/config_qos.c): port shapers, classes, rules, default_class;
 * every key's exact value, the units and shares, the defaults, the counts,
 * the errors with file:line:col, the QoS part of the dump.
 */
#include <inttypes.h>
#include "test_config.h"

static const struct bad_case bad_cases[] = {
	/* QoS: port shapers */
	{"qos_rate_syntax", PORT_RATE("fast"), "t.yaml:3:11: ",
	 "ports[0].rate: expected a rate in bits/s: a number with an optional "
	 "unit bit, kbit, Mbit, Gbit or Tbit (1000s) or Kibit, Mibit, Gibit, "
	 "Tibit (1024s), as tc writes them, e.g. 100Gbit, 1.5Gbit or 800Mbit "
	 "(got 'fast')"},
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
	 "unit B, KB, MB, GB (1000s) or KiB, MiB, GiB (1024s), e.g. 64KB or "
	 "4MiB "
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
	 "optional unit bit, kbit, Mbit, Gbit or Tbit (1000s) or Kibit, Mibit, "
	 "Gibit, Tibit (1024s), as tc writes them, e.g. 100Gbit, 1.5Gbit or "
	 "800Mbit, or a percentage of "
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
	/* QoS: marking */
	{"qos_set_dscp_big", CLS("    set_dscp: 64\n"), "t.yaml:8:15: ",
	 "classes[0].set_dscp: must be between 0 and 63 (got 64)"},
	{"qos_set_dscp_negative", CLS("    set_dscp: -1\n"), "t.yaml:8:15: ",
	 "classes[0].set_dscp: expected a plain decimal number from 0 to 63 "
	 "(got '-1')"},
	{"qos_set_dscp_name", CLS("    set_dscp: ef\n"), "t.yaml:8:15: ",
	 "classes[0].set_dscp: expected a plain decimal number from 0 to 63 "
	 "(got 'ef')"},
	{"qos_set_pcp_big", CLS("    set_pcp: 8\n"), "t.yaml:8:14: ",
	 "classes[0].set_pcp: must be between 0 and 7 (got 8)"},
	{"qos_set_pcp_list", CLS("    set_pcp: [3]\n"), "t.yaml:8:14: ",
	 "classes[0].set_pcp: expected a plain decimal number from 0 to 7 "
	 "(got a list)"},
	{"qos_set_pcp_typo", CLS("    set_pcpp: 3\n"), "t.yaml:8:5: ",
	 "unknown key 'classes[0].set_pcpp' (did you mean "
	 "'classes[0].set_pcp'?)"},
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
	/* DCQCN */
	{"qos_match_scalar",
	 QPORTS "rules:\n  - class: default\n    match: udp\n", "t.yaml:8:12: ",
	 "rules[0].match: expected a mapping with the keys ethertype, vlan, "
	 "pcp, src, dst, proto, dscp, ecn, sport, dport, bth_opcode "
	 "(got 'udp')"},
};

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
	assert_false(c->has_set_dscp); /* no rewrite */
	assert_false(c->has_set_pcp);
	assert_int_equal(cfg->qos.classes[1].level, 3);
	assert_int_equal(cfg->qos.default_class, 1);
	config_free(cfg);
	/* default_class names another class: no "default" needed */
	cfg = load_ok(PORTS "classes: [{name: a}, {name: b}]\n"
			    "default_class: b\n");
	assert_int_equal(cfg->qos.default_class, 1);
	config_free(cfg);
}

/* classes[].set_dscp / set_pcp: absent, no rewrite; the whole ranges;
 * the dump prints them and loads back the same. */
static void test_qos_marking(void **state)
{
	struct xdplane_config *cfg =
		load_ok(QPORTS "classes:\n"
			       "  - name: roce\n    set_dscp: 26\n"
			       "  - name: storage\n    set_dscp: 0\n"
			       "    set_pcp: 7\n"
			       "  - name: bulk\n    set_dscp: 63\n"
			       "    set_pcp: 0\n"
			       "  - name: default\n");
	const struct qos_class *c = cfg->qos.classes;
	struct xdplane_config *back;
	char *text;

	(void)state;
	assert_true(c[0].has_set_dscp);
	assert_int_equal(c[0].set_dscp, 26);
	assert_false(c[0].has_set_pcp);
	assert_true(c[1].has_set_dscp);
	assert_int_equal(c[1].set_dscp, 0);
	assert_true(c[1].has_set_pcp);
	assert_int_equal(c[1].set_pcp, 7);
	assert_int_equal(c[2].set_dscp, 63);
	assert_true(c[2].has_set_pcp);
	assert_int_equal(c[2].set_pcp, 0);
	assert_false(c[3].has_set_dscp);
	assert_false(c[3].has_set_pcp);
	back = dump_and_reload(cfg, &text);
	assert_non_null(strstr(text, "  - name: 'roce'\n"));
	assert_non_null(strstr(text, "    set_dscp: 26\n"));
	assert_non_null(strstr(text, "    set_dscp: 0\n    set_pcp: 7\n"));
	assert_non_null(strstr(text, "    set_dscp: 63\n    set_pcp: 0\n"));
	for (int i = 0; i < 4; i++) {
		assert_int_equal(back->qos.classes[i].has_set_dscp,
				 c[i].has_set_dscp);
		assert_int_equal(back->qos.classes[i].set_dscp, c[i].set_dscp);
		assert_int_equal(back->qos.classes[i].has_set_pcp,
				 c[i].has_set_pcp);
		assert_int_equal(back->qos.classes[i].set_pcp, c[i].set_pcp);
	}
	free(text);
	config_free(back);
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
		{"rate", "10mbit", 10000000},
		{"rate", "1Kibit", 1024},
		{"rate", "2Gibit", 2147483648ull},
		{"rate", "5GBIT", 5000000000ull},
		{"rate", "0.5Gbit", 500000000},
		{"rate", "1.234567891Gbit", 1234567891},
		{"rate", "2.5kbit", 2500},
		{"rate", "10Tbit", 10000000000000ull},
		{"rate", "10000Gbit", 10000000000000ull},
		{"burst", "64KB", 64000},
		{"burst", "64KiB", 65536},
		{"burst", "64kB", 64000},
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

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_qos_full),
		cmocka_unit_test(test_qos_fifo),
		cmocka_unit_test(test_qos_class_defaults),
		cmocka_unit_test(test_qos_marking),
		cmocka_unit_test(test_qos_units),
		cmocka_unit_test(test_qos_default_bursts),
		cmocka_unit_test(test_qos_counts),
		cmocka_unit_test(test_qos_dump_text),
	};
	return run_config_tests(fixed, sizeof(fixed) / sizeof(fixed[0]),
				bad_cases, N_BAD);
}
