/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_config.h - what the unit tests of the configuration loader
 * (test_config*.c) share: documents built from macros whose lines and
 * columns the expected messages count on, the loaders, the table-driven
 * check of a rejected document (struct bad_case, test_bad()), the dump
 * round trip, the defaults and the full DCQCN and QoS documents.
 * Each test file uses some of them.
 */
#ifndef XDPLANE_TEST_CONFIG_H
#define XDPLANE_TEST_CONFIG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "config.h"

#define TC_UNUSED __attribute__((unused))

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

TC_UNUSED static struct xdplane_config *load(const char *yaml,
					     struct config_error *err)
{
	return config_load_string("t.yaml", yaml, false, err);
}

TC_UNUSED static struct xdplane_config *load_ok(const char *yaml)
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

TC_UNUSED static void test_bad(void **state)
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

/* One group: the fixed tests, then one test_bad() per bad case (named
 * after it). */
TC_UNUSED static int run_config_tests(const struct CMUnitTest *fixed,
				      size_t n_fixed,
				      const struct bad_case *bad, size_t n_bad)
{
	struct CMUnitTest *tests = calloc(n_fixed + n_bad, sizeof(*tests));
	size_t n = 0;
	int rc;

	if (!tests)
		return 1;
	for (size_t i = 0; i < n_fixed; i++)
		tests[n++] = fixed[i];
	for (size_t i = 0; i < n_bad; i++)
		tests[n++] = (struct CMUnitTest){
			.name = bad[i].name,
			.test_func = test_bad,
			.initial_state = (void *)&bad[i],
		};
	rc = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
	free(tests);
	return rc;
}

TC_UNUSED static void assert_listen4(const struct config_control *ctl,
				     const char *addr, uint16_t port)
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

TC_UNUSED static void assert_listen6(const struct config_control *ctl,
				     const char *addr, uint16_t port)
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

TC_UNUSED static void assert_daemon_defaults(const struct xdplane_config *cfg)
{
	assert_string_equal(cfg->control.socket, "/run/xdplane/control.sock");
	assert_string_equal(cfg->control.socket_group, "");
	assert_string_equal(cfg->control.readonly_group, "");
	assert_string_equal(cfg->control.metrics_listen, "127.0.0.1:9470");
	assert_listen4(&cfg->control, "127.0.0.1", 9470);
	assert_int_equal(cfg->control.stats_interval_ms, 1000);
	assert_string_equal(cfg->user, "");
	assert_string_equal(cfg->group, "");
	assert_int_equal(cfg->log_level, 6); /* LOG_LVL_INFO */
}

TC_UNUSED static void assert_defaults(const struct xdplane_config *cfg)
{
	assert_int_equal(cfg->queues, CONFIG_QUEUES_AUTO);
	assert_false(cfg->queues_set_channels);
	assert_int_equal(cfg->xdp_mode, XDP_ATTACH_AUTO);
	assert_int_equal(cfg->bind_mode, XSK_BIND_AUTO);
	assert_int_equal(cfg->failure_mode, FAILURE_OPEN);
	assert_int_equal(cfg->rings.fill, 4096);
	assert_int_equal(cfg->rings.completion, 2048);
	assert_int_equal(cfg->rings.rx, 2048);
	assert_int_equal(cfg->rings.tx, 2048);
	assert_int_equal(cfg->rings.handoff, 4096);
	assert_int_equal(cfg->umem.frames, 32768);
	assert_true(cfg->umem.frames_auto);
	assert_int_equal(cfg->umem.frame_size, 4096);
	assert_int_equal(cfg->umem.headroom, 0);
	assert_false(cfg->umem.hugepages);
	assert_int_equal(cfg->poll.busy_us, 20);
	assert_int_equal(cfg->poll.coalesce_us, 50);
	assert_int_equal(cfg->poll.batch, 64);
	assert_int_equal(cfg->n_cpus, 0);
	assert_int_equal(cfg->jobs.mode, CONFIG_JOBS_OFF);
	assert_int_equal(cfg->jobs.max_registered, 64);
	assert_int_equal(cfg->jobs.max_passive, 64);
	assert_int_equal(cfg->jobs.max_hosts, 1024);
	assert_int_equal(cfg->jobs.max_edges, 4096);
	assert_int_equal(cfg->jobs.idle_ns, 10000000000ull);
	assert_daemon_defaults(cfg);
}

/* Every QoS key, with the exact values it loads to. */
TC_UNUSED static const char qos_full[] =
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
	"    min: 1Mbit\n"
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

/* Every key written, connectx: the values they load to. */
TC_UNUSED static const char dcqcn_connectx_full[] =
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
TC_UNUSED static const char dcqcn_paper_full[] =
	PORTS "classes:\n"
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

TC_UNUSED static struct xdplane_config *
dump_and_reload(const struct xdplane_config *in, char **text)
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

/* Both profiles' defaults: what dcqcn_params_default() gives, and the
 * values dcqcn.h and xdplane.yaml(5) document. */
TC_UNUSED static void assert_dcqcn_profile(const struct dcqcn_params *p,
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
TC_UNUSED static void assert_dcqcn_flow_defaults(const struct qos_dcqcn *d)
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

#endif
