// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_pfc.c - the PFC keys of the configuration: classes[].lossless
 * and .pcp (default from the class's rules, else 3), ports[].link_speed,
 * the pfc mapping; the thresholds computed from the headroom (pfc.h), the
 * errors with file:line:col, the dump round trip and the reload diff.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "config.h"
#include "config_diff.h"
#include "pfc.h"

#define PORTS                                                                  \
	"ports:\n"                                                             \
	"  - interface: eth1\n"                                                \
	"    rate: 10Gbit\n"                                                   \
	"    mtu: 9000\n"                                                      \
	"  - interface: eth2\n"                                                \
	"    rate: 10Gbit\n"                                                   \
	"    link_speed: 25Gbit\n"                                             \
	"    mtu: 9000\n"

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

static void load_bad(const char *yaml, const char *prefix, const char *text)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg = load(yaml, &err);

	if (cfg) {
		config_free(cfg);
		fail_msg("loaded, want an error at %s", prefix);
	}
	if (strncmp(err.msg, prefix, strlen(prefix)) || !strstr(err.msg, text))
		fail_msg("\n got: %s\nwant: %s...%s", err.msg, prefix, text);
}

static const char good[] =
	PORTS "classes:\n"
	      "  - name: roce\n"
	      "    limit_bytes: 1MB\n"
	      "    lossless: true\n"
	      "  - name: storage\n"
	      "    lossless: true\n"
	      "    limit_bytes: 500KB\n"
	      "  - name: tagged\n"
	      "    lossless: true\n"
	      "    limit_bytes: 500KB\n"
	      "  - name: default\n"
	      "rules:\n"
	      "  - {class: roce, match: {proto: udp, dport: 4791}}\n"
	      "  - {class: storage, match: {dscp: [40, 41]}}\n"
	      "  - {class: tagged, match: {pcp: 4}}\n"
	      "pfc:\n"
	      "  enabled: true\n"
	      "  cable_length: 100\n"
	      "  watchdog: 150\n"
	      "  watchdog_restore: 300\n";

static void test_defaults_and_thresholds(void **state)
{
	struct xdplane_config *cfg = load_ok(good);
	const struct qos_policy *q = &cfg->qos;
	/* egress 0: traffic comes from port 1 (link 25G); egress 1: from
	 * port 0 (link = rate, 10G); MTU 9000, 100 m */
	uint32_t h25 = pfc_headroom_bytes(25000000000ull, 100, 9000),
		 h10 = pfc_headroom_bytes(10000000000ull, 100, 9000);

	(void)state;
	assert_int_equal(h25, 22037);
	assert_int_equal(h10, 20162);
	assert_true(q->pfc.enabled);
	assert_int_equal(q->pfc.quanta, 0xffff);
	assert_int_equal(q->pfc.cable_m, 100);
	assert_int_equal(q->pfc.watchdog_ns, 150000000);
	assert_int_equal(q->pfc.restore_ns, 300000000);
	assert_int_equal(q->port[0].link_bps, 0);
	assert_int_equal(q->port[1].link_bps, 25000000000ull);
	/* pcp: no pcp/dscp rule -> 3; dscp 40 -> 5; pcp 4 -> 4 */
	assert_true(q->classes[0].has_pcp);
	assert_int_equal(q->classes[0].pcp, 3);
	assert_int_equal(q->classes[1].pcp, 5);
	assert_int_equal(q->classes[2].pcp, 4);
	assert_false(q->classes[3].has_pcp);
	assert_false(q->classes[3].lossless);
	assert_int_equal(q->classes[0].pfc_xoff[0], 1000000 - h25);
	assert_int_equal(q->classes[0].pfc_xoff[1], 1000000 - h10);
	assert_int_equal(q->classes[0].pfc_xon[0], (1000000 - h25) / 2);
	assert_int_equal(q->classes[1].pfc_xoff[1], 500000 - h10);
	config_free(cfg);
}

static void test_explicit(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "classes:\n"
			      "  - name: default\n"
			      "    limit_bytes: 1MB\n"
			      "    lossless: true\n"
			      "    pcp: 6\n"
			      "pfc: {enabled: true, xoff: 200KB, xon: 100KB, "
			      "pause_quanta: 1000, watchdog: 0}\n");

	(void)state;
	assert_int_equal(cfg->qos.classes[0].pcp, 6);
	assert_int_equal(cfg->qos.classes[0].pfc_xoff[0], 200000);
	assert_int_equal(cfg->qos.classes[0].pfc_xon[1], 100000);
	assert_int_equal(cfg->qos.pfc.quanta, 1000);
	assert_int_equal(cfg->qos.pfc.watchdog_ns, 0);
	config_free(cfg);
}

static void test_errors(void **state)
{
	(void)state;
	/* limit below headroom + 2 MTU: 22037 + 18000 */
	load_bad(PORTS "classes:\n"
		       "  - name: default\n"
		       "    limit_bytes: 40000\n"
		       "    lossless: true\n"
		       "pfc: {enabled: true}\n",
		 "t.yaml:11:18: ",
		 "classes[0].limit_bytes: a lossless class needs at least "
		 "headroom + 2 MTU = 40037 bytes");
	load_bad(PORTS "classes:\n"
		       "  - name: default\n"
		       "    lossless: true\n"
		       "    pcp: 8\n",
		 "t.yaml:12:10: ", "classes[0].pcp: must be between 0 and 7");
	load_bad(PORTS "classes:\n  - name: default\n    lossless: maybe\n",
		 "t.yaml:11:15: ", "classes[0].lossless");
	load_bad(PORTS "pfc: {enabled: true, pause_quanta: 0}\n",
		 "t.yaml:9:36: ", "pfc.pause_quanta: must be between 1 and");
	load_bad(PORTS "pfc: {xoff: 100KB, xon: 200KB}\n",
		 "t.yaml:9:25: ", "pfc.xon: must be below pfc.xoff");
	load_bad(PORTS "classes:\n"
		       "  - name: default\n"
		       "    limit_bytes: 100KB\n"
		       "    lossless: true\n"
		       "pfc: {enabled: true, xoff: 90KB}\n",
		 "t.yaml:13:28: ", "pfc.xoff: above the limit_bytes");
	load_bad("ports:\n  - interface: eth1\n  - interface: eth2\n"
		 "classes:\n  - name: default\n    lossless: true\n"
		 "pfc: {enabled: true}\n",
		 "t.yaml:6:15: ",
		 "classes[0].lossless: PFC needs the link speed of ports[1]");
	load_bad(PORTS "pfc: {watchdog: two}\n", "t.yaml:9:", "");
}

static void test_dump_round_trip_and_diff(void **state)
{
	struct xdplane_config *a = load_ok(good), *b, *c;
	struct config_diff d;
	char *text = NULL, buf[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(config_dump(a, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "    link_speed: 25Gbit\n"));
	assert_non_null(strstr(text, "    lossless: true\n    pcp: 3\n"));
	assert_non_null(strstr(text, "pfc:\n  enabled: true\n  xoff: auto\n"
				     "  xon: auto\n  cable_length: 100\n"
				     "  pause_quanta: 65535\n  watchdog: 150\n"
				     "  watchdog_restore: 300\n"));
	b = load_ok(text);
	config_diff(a, b, &d);
	config_diff_format(&d, false, buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_memory_equal(&a->qos, &b->qos, sizeof(a->qos));
	/* every PFC key is applied live */
	c = load_ok(PORTS
		    "classes:\n"
		    "  - name: roce\n"
		    "    limit_bytes: 1MB\n"
		    "  - name: storage\n"
		    "    lossless: true\n"
		    "    limit_bytes: 500KB\n"
		    "  - name: tagged\n"
		    "    lossless: true\n"
		    "    limit_bytes: 500KB\n"
		    "  - name: default\n"
		    "rules:\n"
		    "  - {class: roce, match: {proto: udp, dport: 4791}}\n"
		    "  - {class: storage, match: {dscp: [40, 41]}}\n"
		    "  - {class: tagged, match: {pcp: 4}}\n"
		    "pfc:\n"
		    "  enabled: false\n"
		    "  watchdog: 150\n"
		    "  watchdog_restore: 300\n");
	config_diff(a, c, &d);
	assert_int_equal(d.n_cold, 0);
	config_diff_format(&d, false, buf, sizeof(buf));
	assert_string_equal(buf, "classes.roce.lossless, classes.roce.pcp, "
				 "pfc.enabled");
	free(text);
	config_free(a);
	config_free(b);
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_thresholds),
		cmocka_unit_test(test_explicit),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_dump_round_trip_and_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
