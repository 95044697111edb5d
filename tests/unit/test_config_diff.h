/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_config_diff.h - what the unit tests of control/config/config_diff.c
 * (test_config_diff_*.c) share: a fully written config built from pieces
 * (HEAD, the classes Y_*, RULES, TAIL) so that tests can reorder the
 * classes, its loaders, and assert_diff() / assert_variant() of the exact
 * keys and hotness a diff reports. Each test file uses some of them.
 */
#ifndef XDPLANE_TEST_CONFIG_DIFF_H
#define XDPLANE_TEST_CONFIG_DIFF_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "config.h"
#include "config_diff.h"

/* Every field with a value of its own: 4 classes (roce with ECN, a
 * minimum and DCQCN), rules[0] with every match key, every dcqcn key
 * (connectx, so that decrease_period and first_cnp_rate can be written),
 * the daemon keys. No rule and not default_class names the last class,
 * "bulk", so that dropping it from n_classes changes nothing else. Built
 * from pieces so that tests can reorder the classes. */
#define HEAD                                                                   \
	"ports:\n"                                                             \
	"  - interface: eth1\n"                                                \
	"    rate: 100Gbit\n"                                                  \
	"  - interface: eth2\n"                                                \
	"    rate: 100Gbit\n"                                                  \
	"    burst: 64KiB\n"                                                   \
	"queues: 2\n"                                                          \
	"xdp_mode: native\n"                                                   \
	"bind_mode: copy\n"                                                    \
	"failure_mode: closed\n"                                               \
	"rings: {fill: 2048, completion: 1024, rx: 512, tx: 1024, "            \
	"handoff: 2048}\n"                                                     \
	"umem: {frames: 32768, frame_size: 4096, headroom: 64, "               \
	"hugepages: true}\n"                                                   \
	"poll: {busy_us: 30, shaper_spin_us: 400, batch: 32}\n"                \
	"workers: {cpus: [2, 3]}\n"                                            \
	"overhead: 20\n"                                                       \
	"classes:\n"
#define Y_CNP "  - name: cnp\n    level: 0\n    ceil: 5%\n"
#define Y_ROCE                                                                 \
	"  - name: roce\n"                                                     \
	"    level: 1\n"                                                       \
	"    quantum: 4000\n"                                                  \
	"    ceil: 50%\n"                                                      \
	"    min: 10Gbit\n"                                                    \
	"    limit_bytes: 2MiB\n"                                              \
	"    limit_packets: 1024\n"                                            \
	"    ecn: {kmin: 30KB, kmax: 300KB, pmax: 1%, non_ect: pass}\n"        \
	"    set_dscp: 26\n"                                                   \
	"    set_pcp: 3\n"                                                     \
	"    dcqcn: true\n"
#define Y_DEFAULT "  - name: default\n    level: 2\n"
#define Y_BULK "  - name: bulk\n    level: 3\n"
#define RULES                                                                  \
	"rules:\n"                                                             \
	"  - class: cnp\n"                                                     \
	"    match:\n"                                                         \
	"      ethertype: 0x0800\n"                                            \
	"      vlan: 100\n"                                                    \
	"      pcp: [3, 4]\n"                                                  \
	"      src: 10.1.0.0/16\n"                                             \
	"      dst: 10.2.3.4\n"                                                \
	"      proto: udp\n"                                                   \
	"      dscp: [26, 46]\n"                                               \
	"      ecn: [1, 2]\n"                                                  \
	"      sport: 1000-2000\n"                                             \
	"      dport: 4000-5000\n"                                             \
	"      bth_opcode: 0x81\n"                                             \
	"  - class: roce\n"                                                    \
	"    match: {proto: udp, dport: 4791}\n"                               \
	"  - class: default\n"                                                 \
	"    match: {dscp: 10}\n"
#define TAIL                                                                   \
	"default_class: default\n"                                             \
	"malformed: drop\n"                                                    \
	"dcqcn:\n"                                                             \
	"  profile: connectx\n"                                                \
	"  line_rate: 40Gbit\n"                                                \
	"  min_rate: 10Mbit\n"                                                 \
	"  rate_ai: 20Mbit\n"                                                  \
	"  rate_hai: 100Mbit\n"                                                \
	"  g: 1/128\n"                                                         \
	"  alpha_init: 0.75\n"                                                 \
	"  alpha_timer: 2us\n"                                                 \
	"  increase_timer: 100us\n"                                            \
	"  decrease_period: 8us\n"                                             \
	"  byte_counter: 0\n"                                                  \
	"  fast_recovery: 3\n"                                                 \
	"  min_decrease: 25%\n"                                                \
	"  clamp: always\n"                                                    \
	"  first_cnp_rate: 20Gbit\n"                                           \
	"  alpha_before_cut: false\n"                                          \
	"  cnp_interval: 20us\n"                                               \
	"  flow_key: qp\n"                                                     \
	"  max_flows: 512\n"                                                   \
	"  flow_idle: 1s\n"                                                    \
	"  cnp: absorb\n"                                                      \
	"  cp_loop: false\n"                                                   \
	"  np: {enabled: true, dscp: 46, pcp: 5}\n"                            \
	"control:\n"                                                           \
	"  socket: /run/xdplane/control.sock\n"                                \
	"  socket_group: adm\n"                                                \
	"  metrics_listen: 127.0.0.1:9470\n"                                   \
	"  stats_interval_ms: 500\n"                                           \
	"user: nobody\n"                                                       \
	"group: nogroup\n"                                                     \
	"log_level: info\n"
#define WITH_CLASSES(classes) HEAD classes RULES TAIL

/* The daemon's reload decision on the diff of a -> b. */
static inline int reload_check(const struct xdplane_config *a,
			       const struct xdplane_config *b, char *err,
			       size_t len)
{
	struct config_diff d;

	config_diff(a, b, &d);
	return config_reload_check(&d, err, len);
}
static __attribute__((unused)) const char base_yaml[] =
	WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK);

static inline struct xdplane_config *load_ok(const char *yaml)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg =
		config_load_string("t.yaml", yaml, false, &err);

	if (!cfg)
		fail_msg("rejected: %s\n%s", err.msg, yaml);
	return cfg;
}

/* base_yaml with `from` (which must occur exactly once) replaced by `to`. */
static inline struct xdplane_config *load_variant(const char *from,
						  const char *to)
{
	const char *at = strstr(base_yaml, from);
	struct xdplane_config *cfg;
	char *yaml;

	if (!at || strstr(at + 1, from))
		fail_msg("'%s' is not in base_yaml exactly once", from);
	yaml = malloc(sizeof(base_yaml) + strlen(to));
	assert_non_null(yaml);
	sprintf(yaml, "%.*s%s%s", (int)(at - base_yaml), base_yaml, to,
		at + strlen(from));
	cfg = load_ok(yaml);
	free(yaml);
	return cfg;
}

/* The diff has exactly these keys, in this order, with this hotness. */
struct want {
	const char *key;
	bool cold;
};

static inline void assert_diff(const struct config_diff *d,
			       const struct want *w, size_t n)
{
	char text[4096];
	uint32_t cold = 0;

	config_diff_format(d, false, text, sizeof(text));
	if (d->n != n || d->truncated)
		fail_msg("%u keys%s (%s), want %zu", d->n,
			 d->truncated ? ", truncated" : "", text, n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(d->ch[i].key, w[i].key) ||
		    d->ch[i].cold != w[i].cold)
			fail_msg("key %zu: '%s' (%s), want '%s' (%s)", i,
				 d->ch[i].key, d->ch[i].cold ? "cold" : "hot",
				 w[i].key, w[i].cold ? "cold" : "hot");
		cold += w[i].cold;
	}
	assert_int_equal(d->n_cold, cold);
}

static inline void assert_variant(const char *from, const char *to,
				  const struct want *w, size_t n)
{
	struct xdplane_config *a = load_ok(base_yaml);
	struct xdplane_config *b = load_variant(from, to);
	struct config_diff d;

	config_diff(a, b, &d);
	assert_diff(&d, w, n);
	config_free(a);
	config_free(b);
}

#define N(w) (sizeof(w) / sizeof(w[0]))

#endif
