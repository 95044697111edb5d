// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_diff.c - unit tests of control/config/config_diff.c. The mutation
 * table changes one field of a fully written config at a time and checks
 * the exact key(s) and hotness reported; the size guards fail when struct
 * xdplane_config or struct qos_policy gain a field, so that whoever adds
 * one teaches config_diff (and this table) about it. Then whole configs:
 * identical, classes reordered, added, removed, renamed, rules appended and
 * inserted, derived values (a port rate moves its default burst), the
 * formatted key lists, truncation, and configs with out-of-range counts.
 * DCQCN: every dcqcn key hot but max_flows; a class switching dcqcn, and
 * a DCQCN class added, removed or renamed, cold (named by the class).
 */
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
static int reload_check(const struct xdplane_config *a,
			const struct xdplane_config *b, char *err, size_t len)
{
	struct config_diff d;

	config_diff(a, b, &d);
	return config_reload_check(&d, err, len);
}
static const char base_yaml[] = WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK);

static struct xdplane_config *load_ok(const char *yaml)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg =
		config_load_string("t.yaml", yaml, false, &err);

	if (!cfg)
		fail_msg("rejected: %s\n%s", err.msg, yaml);
	return cfg;
}

/* base_yaml with `from` (which must occur exactly once) replaced by `to`. */
static struct xdplane_config *load_variant(const char *from, const char *to)
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

static void assert_diff(const struct config_diff *d, const struct want *w,
			size_t n)
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

static void assert_variant(const char *from, const char *to,
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

/*
 * One field at a time: XOR one byte of it and diff. key1/key2 NULL: the
 * byte must not matter (the file name; a slot past a count; ECN values of
 * a class without ECN; address bytes past metrics_addrlen).
 */
struct mutation {
	const char *what;
	size_t off;
	uint8_t xor ;
	const char *key1, *key2;
	bool cold;
};

#define OFF(member) offsetof(struct xdplane_config, member)
#define COLD(member, key)                                                      \
	{                                                                      \
#member, OFF(member), 1, key, NULL, true                       \
	}
#define HOT(member, key)                                                       \
	{                                                                      \
#member, OFF(member), 1, key, NULL, false                      \
	}
#define HOT_X(member, x, key1, key2)                                           \
	{                                                                      \
#member, OFF(member), x, key1, key2, false                     \
	}
#define IGNORED(member)                                                        \
	{                                                                      \
#member, OFF(member), 1, NULL, NULL, false                     \
	}
#define RULE0(member) HOT(qos.rules[0].member, "rules[0]")
#define ROCE(member, key) HOT(qos.classes[1].member, "classes.roce." key)
#define DCQCN(member, key) HOT(qos.dcqcn.member, "dcqcn." key)
#define DCQCN_PAR(member, key) DCQCN(par.member, key)

static const struct mutation mutations[] = {
	IGNORED(path),
	COLD(ports[0].interface, "ports[0].interface"),
	COLD(ports[1].interface[3], "ports[1].interface"),
	COLD(ports[0].mtu, "ports[0].mtu"),
	COLD(ports[1].mtu, "ports[1].mtu"),
	COLD(ports[0].checksum, "ports[0].checksum"),
	COLD(ports[1].checksum, "ports[1].checksum"),
	COLD(port_wait_ms, "port_wait"),
	COLD(queues, "queues"),
	/* 2 -> auto: the channel count, read at start */
	{"queues (auto)", OFF(queues), 2, "queues", NULL, true},
	COLD(queues_set_channels, "queues_set_channels"),
	COLD(xdp_mode, "xdp_mode"),
	COLD(bind_mode, "bind_mode"),
	COLD(failure_mode, "failure_mode"),
	COLD(rings.fill, "rings.fill"),
	COLD(rings.completion, "rings.completion"),
	COLD(rings.rx, "rings.rx"),
	COLD(rings.tx, "rings.tx"),
	COLD(rings.handoff, "rings.handoff"),
	COLD(umem.frames, "umem.frames"),
	/* written -> not written (raised at start) */
	COLD(umem.frames_auto, "umem.frames"),
	COLD(umem.frame_size, "umem.frame_size"),
	COLD(umem.headroom, "umem.headroom"),
	COLD(umem.hugepages, "umem.hugepages"), /* true -> false */
	COLD(poll.busy_us, "poll.busy_us"),
	COLD(poll.coalesce_us, "poll.coalesce_us"),
	COLD(poll.shaper_spin_us, "poll.shaper_spin_us"),
	COLD(poll.shaper_wait_spin, "poll.shaper_wait"),
	COLD(poll.batch, "poll.batch"),
	COLD(n_cpus, "workers.cpus"), /* 2 -> 3 */
	COLD(cpus[0], "workers.cpus"),
	COLD(cpus[1], "workers.cpus"),
	IGNORED(cpus[2]), /* past n_cpus */
	HOT(qos.port[0].rate_bps, "ports[0].rate"),
	HOT(qos.port[1].rate_bps, "ports[1].rate"),
	HOT(qos.port[0].burst, "ports[0].burst"),
	HOT(qos.port[1].burst, "ports[1].burst"),
	HOT(qos.port[0].overhead, "overhead"),
	HOT(qos.port[1].overhead, "overhead"),
	HOT(qos.port[0].link_bps, "ports[0].link_speed"),
	HOT(qos.port[1].link_bps, "ports[1].link_speed"),
	/* ports[].adaptive: one key per port, every field hot */
	HOT(qos.port[0].adaptive.on, "ports[0].adaptive"), /* off -> on */
	HOT(qos.port[1].adaptive.on, "ports[1].adaptive"),
	HOT(qos.port[0].adaptive.target_ns, "ports[0].adaptive"),
	HOT(qos.port[1].adaptive.target_ns, "ports[1].adaptive"),
	HOT(qos.port[0].adaptive.floor_bps, "ports[0].adaptive"),
	HOT(qos.port[1].adaptive.floor_bps, "ports[1].adaptive"),
	HOT(qos.port[0].adaptive.probe_gain, "ports[0].adaptive"),
	HOT(qos.port[1].adaptive.probe_gain, "ports[1].adaptive"),
	/* a rename is a removal and an addition ('b' ^ 1 = 'c') */
	HOT_X(qos.classes[3].name, 1, "classes.bulk (removed)",
	      "classes.culk (added)"),
	ROCE(level, "level"),
	ROCE(quantum, "quantum"),
	ROCE(ceil_bps, "ceil"),
	ROCE(ceil_share, "ceil"),
	ROCE(ceil_burst, "ceil_burst"),
	ROCE(min_bps, "min"),
	ROCE(min_share, "min"),
	ROCE(min_burst, "min_burst"),
	ROCE(limit_bytes, "limit_bytes"),
	ROCE(limit_packets, "limit_packets"),
	ROCE(lossless, "lossless"),
	ROCE(has_pcp, "pcp"),
	ROCE(pcp, "pcp"),
	ROCE(has_set_dscp, "set_dscp"),
	ROCE(set_dscp, "set_dscp"),
	ROCE(has_set_pcp, "set_pcp"),
	ROCE(set_pcp, "set_pcp"),
	/* derived from limit_bytes, the link speeds and pfc.*: those keys
	 * report the change */
	IGNORED(qos.classes[1].pfc_xoff[0]),
	IGNORED(qos.classes[1].pfc_xoff[1]),
	IGNORED(qos.classes[1].pfc_xon[0]),
	IGNORED(qos.classes[1].pfc_xon[1]),
	ROCE(ecn.enabled, "ecn"),
	ROCE(ecn.kmin, "ecn.kmin"),
	ROCE(ecn.kmax, "ecn.kmax"),
	ROCE(ecn.pmax, "ecn.pmax"),
	ROCE(ecn.nonect, "ecn.non_ect"),
	HOT(qos.classes[0].ecn.enabled, "classes.cnp.ecn"),
	IGNORED(qos.classes[0].ecn.kmin), /* cnp has no ECN */
	IGNORED(qos.classes[0].ecn.kmax),
	IGNORED(qos.classes[0].ecn.pmax),
	IGNORED(qos.classes[0].ecn.nonect),
	COLD(qos.classes[1].dcqcn, "classes.roce.dcqcn"), /* on -> off */
	COLD(qos.classes[0].dcqcn, "classes.cnp.dcqcn"), /* off -> on */
	IGNORED(qos.classes[4].name), /* past n_classes */
	IGNORED(qos.classes[4].dcqcn),
	HOT_X(qos.n_classes, 7, "classes.bulk (removed)", NULL), /* 4 -> 3 */
	HOT_X(qos.n_classes, 1, "classes. (added)", NULL), /* 4 -> 5 */
	RULE0(fields),
	RULE0(ethertype),
	RULE0(vlan_id),
	RULE0(pcp_mask),
	RULE0(proto),
	RULE0(ecn_mask),
	RULE0(bth_opcode),
	RULE0(dscp_mask),
	RULE0(src.family),
	RULE0(src.len),
	RULE0(src.addr[0]),
	RULE0(src.addr[15]),
	RULE0(dst.family),
	RULE0(dst.len),
	RULE0(dst.addr[3]),
	RULE0(dst.addr[15]),
	RULE0(sport_lo),
	RULE0(sport_hi),
	RULE0(dport_lo),
	RULE0(dport_hi),
	RULE0(class_id), /* cnp -> roce */
	HOT(qos.rules[2].class_id, "rules[2]"), /* default -> bulk */
	IGNORED(qos.rules[3].proto), /* past n_rules */
	HOT_X(qos.n_rules, 1, "rules[2] (removed)", NULL), /* 3 -> 2 */
	HOT_X(qos.n_rules, 7, "rules[3] (added)", NULL), /* 3 -> 4 */
	HOT(qos.default_class, "default_class"), /* default -> bulk */
	HOT(qos.malformed, "malformed"),
	DCQCN_PAR(profile, "profile"), /* connectx -> paper */
	DCQCN_PAR(line_bps, "line_rate"),
	DCQCN_PAR(min_bps, "min_rate"),
	DCQCN_PAR(ai_bps, "rate_ai"),
	DCQCN_PAR(hai_bps, "rate_hai"),
	DCQCN_PAR(g, "g"),
	DCQCN_PAR(alpha_init, "alpha_init"),
	DCQCN_PAR(alpha_ns, "alpha_timer"),
	DCQCN_PAR(inc_ns, "increase_timer"),
	DCQCN_PAR(dec_ns, "decrease_period"),
	DCQCN_PAR(byte_counter, "byte_counter"),
	DCQCN_PAR(f, "fast_recovery"),
	DCQCN_PAR(min_dec_factor, "min_decrease"),
	DCQCN_PAR(clamp_always, "clamp"),
	DCQCN_PAR(clamp_after_inc, "clamp"),
	DCQCN_PAR(np_interval_ns, "cnp_interval"),
	DCQCN_PAR(first_cnp_bps, "first_cnp_rate"),
	DCQCN_PAR(alpha_before_cut, "alpha_before_cut"),
	DCQCN(key, "flow_key"),
	COLD(qos.dcqcn.max_flows, "dcqcn.max_flows"),
	DCQCN(flow_idle_ns, "flow_idle"),
	DCQCN(cnp_action, "cnp"),
	DCQCN(cp_loop, "cp_loop"),
	DCQCN(np, "np.enabled"),
	DCQCN(np_dscp, "np.dscp"),
	DCQCN(np_pcp, "np.pcp"),
	HOT(qos.pfc.enabled, "pfc.enabled"),
	HOT(qos.pfc.quanta, "pfc.pause_quanta"),
	HOT(qos.pfc.cable_m, "pfc.cable_length"),
	HOT(qos.pfc.xoff, "pfc.xoff"),
	HOT(qos.pfc.xon, "pfc.xon"),
	HOT(qos.pfc.watchdog_ns, "pfc.watchdog"),
	HOT(qos.pfc.restore_ns, "pfc.watchdog_restore"),
	COLD(control.socket[5], "control.socket"),
	COLD(control.socket_group, "control.socket_group"),
	COLD(control.readonly_group, "control.readonly_group"),
	COLD(control.metrics_listen[1], "control.metrics_listen"),
	COLD(control.stats_interval_ms, "control.stats_interval_ms"),
	{"control.metrics_addr (port)",
	 OFF(control.metrics_addr) + offsetof(struct sockaddr_in, sin_port), 1,
	 "control.metrics_listen", NULL, true},
	{"control.metrics_addr (address)",
	 OFF(control.metrics_addr) + offsetof(struct sockaddr_in, sin_addr), 1,
	 "control.metrics_listen", NULL, true},
	{"control.metrics_addr (past its length)",
	 OFF(control.metrics_addr) + sizeof(struct sockaddr_in6), 1, NULL, NULL,
	 false},
	COLD(control.metrics_addrlen, "control.metrics_listen"),
	COLD(user, "user"),
	COLD(group[2], "group"),
	HOT(log_level, "log_level"), /* info -> debug */
};

static void test_mutations(void **state)
{
	struct xdplane_config *a = load_ok(base_yaml);
	struct xdplane_config *b = load_ok(base_yaml);
	const struct mutation *m;
	struct want w[2];
	struct config_diff d;
	size_t n;

	(void)state;
	/* the base is what the comments above say */
	assert_int_equal(a->queues, 2);
	assert_true(a->umem.hugepages);
	assert_int_equal(a->n_cpus, 2);
	assert_int_equal(a->qos.n_classes, 4);
	assert_int_equal(a->qos.n_rules, 3);
	assert_true(a->qos.classes[1].ecn.enabled);
	assert_false(a->qos.classes[0].ecn.enabled);
	assert_true(a->qos.classes[1].dcqcn);
	assert_false(a->qos.classes[0].dcqcn);
	assert_int_equal(a->qos.dcqcn.par.profile, DCQCN_CONNECTX);
	assert_int_equal(a->qos.dcqcn.key, QOS_FLOW_QP);
	assert_true(a->qos.dcqcn.par.clamp_always);
	assert_true(a->qos.dcqcn.par.clamp_after_inc); /* connectx's, moot */
	assert_true(a->qos.dcqcn.np);
	assert_int_equal(a->qos.default_class, 2);
	assert_int_equal(a->log_level, 6);
	assert_int_equal(a->control.metrics_addr.ss_family, AF_INET);
	assert_false(a->qos.port[0].adaptive.on);
	assert_int_equal(a->qos.port[1].adaptive.floor_bps, 10000000000ull);
	for (size_t i = 0; i < N(mutations); i++) {
		m = &mutations[i];
		memcpy(b, a, sizeof(*b));
		((uint8_t *)b)[m->off] ^= m->xor ;
		config_diff(a, b, &d);
		n = 0;
		if (m->key1)
			w[n++] = (struct want){m->key1, m->cold};
		if (m->key2)
			w[n++] = (struct want){m->key2, m->cold};
		if (d.n != n || (n && strcmp(d.ch[0].key, w[0].key)) ||
		    (n > 1 && strcmp(d.ch[1].key, w[1].key)))
			fail_msg("%s: %u keys, first '%s'; want %zu, '%s'",
				 m->what, d.n, d.n ? d.ch[0].key : "", n,
				 n ? w[0].key : "");
		assert_diff(&d, w, n);
	}
	config_free(a);
	config_free(b);
}

/* Guards: a field added to any of these structs changes its size. Then
 * config_diff must learn the field: compare it in control/config/config_diff.c,
 * add it to the mutation table above and to RELOAD in xdplane.yaml(5),
 * and only then update the size here. */
static void test_struct_sizes(void **state)
{
#if defined(__x86_64__) || defined(__aarch64__)
	static const struct {
		const char *name;
		size_t size, was;
	} sizes[] = {
		{"struct xdplane_config", sizeof(struct xdplane_config), 7968},
		{"struct config_port", sizeof(struct config_port), 24},
		{"struct config_rings", sizeof(struct config_rings), 20},
		{"struct config_umem", sizeof(struct config_umem), 16},
		{"struct config_poll", sizeof(struct config_poll), 20},
		{"struct config_control", sizeof(struct config_control), 456},
		{"struct qos_policy", sizeof(struct qos_policy), 5960},
		{"struct qos_port", sizeof(struct qos_port), 56},
		{"struct qos_adaptive", sizeof(struct qos_adaptive), 32},
		{"struct qos_class", sizeof(struct qos_class), 128},
		{"struct qos_pfc", sizeof(struct qos_pfc), 32},
		{"struct qos_ecn", sizeof(struct qos_ecn), 20},
		{"struct qos_rule", sizeof(struct qos_rule), 72},
		{"struct qos_prefix", sizeof(struct qos_prefix), 18},
		{"struct qos_dcqcn", sizeof(struct qos_dcqcn), 160},
		{"struct dcqcn_params", sizeof(struct dcqcn_params), 136},
	};

	(void)state;
	for (size_t i = 0; i < N(sizes); i++)
		if (sizes[i].size != sizes[i].was)
			fail_msg("%s is %zu bytes, was %zu: a field was added "
				 "or removed; update config_diff (compare it "
				 "in control/config/config_diff.c, add it to "
				 "the mutation table in this file and to "
				 "RELOAD in xdplane.yaml(5)), then this size",
				 sizes[i].name, sizes[i].size, sizes[i].was);
#else
	(void)state;
	skip(); /* the sizes are those of x86_64 and aarch64 */
#endif
}

static void test_identical(void **state)
{
	struct xdplane_config *a = load_ok(base_yaml);
	struct xdplane_config *b = load_ok(base_yaml);
	struct config_diff d;
	char text[16] = "x";

	(void)state;
	config_diff(a, b, &d);
	assert_diff(&d, NULL, 0);
	config_diff(a, a, &d);
	assert_diff(&d, NULL, 0);
	assert_int_equal(config_diff_format(&d, false, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	config_free(a);
	config_free(b);
}

/* Class order is hot and reported by name: the fewest classes that moved.
 * Rules and default_class name their classes, so their changed ids are no
 * change. */
static void test_class_order(void **state)
{
	static const struct {
		const char *yaml;
		struct want w[3];
		size_t n;
	} cases[] = {
		{WITH_CLASSES(Y_BULK Y_CNP Y_ROCE Y_DEFAULT),
		 {{"classes.bulk (moved)", false}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_BULK Y_DEFAULT),
		 {{"classes.bulk (moved)", false}},
		 1},
		{WITH_CLASSES(Y_ROCE Y_CNP Y_DEFAULT Y_BULK),
		 {{"classes.cnp (moved)", false}},
		 1},
		{WITH_CLASSES(Y_BULK Y_DEFAULT Y_ROCE Y_CNP),
		 {{"classes.bulk (moved)", false},
		  {"classes.default (moved)", false},
		  {"classes.roce (moved)", false}},
		 3},
	};
	struct xdplane_config *a = load_ok(base_yaml), *b;
	struct config_diff d;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		b = load_ok(cases[i].yaml);
		config_diff(a, b, &d);
		assert_diff(&d, cases[i].w, cases[i].n);
		config_free(b);
	}
	/* the ids did change, and no rule or default_class was reported */
	b = load_ok(cases[0].yaml);
	assert_int_equal(a->qos.rules[0].class_id, 0);
	assert_int_equal(b->qos.rules[0].class_id, 1); /* cnp */
	assert_int_equal(a->qos.default_class, 2);
	assert_int_equal(b->qos.default_class, 3);
	config_free(b);
	config_free(a);
}

static void test_classes_added_removed(void **state)
{
	static const struct {
		const char *yaml;
		struct want w[2];
		size_t n;
	} cases[] = {
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK "  - name: gold\n"),
		 {{"classes.gold (added)", false}},
		 1},
		{WITH_CLASSES(Y_CNP "  - name: gold\n" Y_ROCE Y_DEFAULT Y_BULK),
		 {{"classes.gold (added)", false}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT),
		 {{"classes.bulk (removed)", false}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT
			      "  - name: bulk2\n    level: 3\n"),
		 {{"classes.bulk (removed)", false},
		  {"classes.bulk2 (added)", false}},
		 2},
	};
	/* roce has dcqcn on: renaming it is cold */
	static const struct want renamed[] = {
		{"classes.roce (removed)", true},
		{"classes.rdma (added)", true},
		{"rules[1]", false},
	};
	struct xdplane_config *a = load_ok(base_yaml), *b;
	char yaml[sizeof(base_yaml)], *at;
	struct config_diff d;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		b = load_ok(cases[i].yaml);
		config_diff(a, b, &d);
		assert_diff(&d, cases[i].w, cases[i].n);
		/* and back */
		config_diff(b, a, &d);
		assert_int_equal(d.n, cases[i].n);
		config_free(b);
	}
	/* renamed everywhere: the rule now names another class */
	memcpy(yaml, base_yaml, sizeof(yaml));
	for (at = yaml; (at = strstr(at, "roce"));)
		memcpy(at, "rdma", 4);
	b = load_ok(yaml);
	config_diff(a, b, &d);
	assert_diff(&d, renamed, N(renamed));
	config_free(b);
	config_free(a);
}

#define Y_BULK_DCQCN "  - name: bulk\n    level: 3\n    dcqcn: true\n"
#define Y_GOLD_DCQCN "  - name: gold\n    level: 4\n    dcqcn: true\n"

/* A class's DCQCN flow tables exist from the start: switching dcqcn, and
 * adding or removing a class that has it, are cold, named by the class;
 * moving a DCQCN class, and adding or removing others, stay hot. */
static void test_dcqcn_classes(void **state)
{
	static const struct {
		const char *from, *to;
		struct want w[3];
		size_t n;
	} cases[] = {
		{base_yaml,
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK Y_GOLD_DCQCN),
		 {{"classes.gold (added)", true}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT),
		 {{"classes.bulk (removed)", true}},
		 1},
		{base_yaml,
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 {{"classes.bulk.dcqcn", true}},
		 1},
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 base_yaml,
		 {{"classes.bulk.dcqcn", true}},
		 1},
		{base_yaml,
		 WITH_CLASSES(Y_CNP Y_DEFAULT Y_BULK Y_ROCE),
		 {{"classes.roce (moved)", false}},
		 1},
		/* cold first, then hot; removed before added */
		{WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT Y_BULK_DCQCN),
		 WITH_CLASSES(Y_CNP Y_ROCE Y_DEFAULT
			      "  - name: silver\n" Y_GOLD_DCQCN),
		 {{"classes.bulk (removed)", true},
		  {"classes.gold (added)", true},
		  {"classes.silver (added)", false}},
		 3},
	};
	struct xdplane_config *a, *b;
	struct config_diff d;
	char text[256];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		a = load_ok(cases[i].from);
		b = load_ok(cases[i].to);
		config_diff(a, b, &d);
		assert_diff(&d, cases[i].w, cases[i].n);
		config_free(a);
		config_free(b);
	}
	/* switched off: refused, and said so */
	a = load_ok(base_yaml);
	b = load_variant("    dcqcn: true\n", "    dcqcn: false\n");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: classes.roce.dcqcn");
	config_free(b);
	/* left out is off too */
	b = load_variant("    dcqcn: true\n", "");
	config_diff(a, b, &d);
	assert_diff(&d, (const struct want[]){{"classes.roce.dcqcn", true}}, 1);
	config_free(b);
	config_free(a);
}

/* The dcqcn mapping: hot but for max_flows. */
static void test_dcqcn_keys(void **state)
{
	static const struct want g[] = {{"dcqcn.g", false}};
	static const struct want max_flows[] = {{"dcqcn.max_flows", true}};
	static const struct want np[] = {{"dcqcn.np.enabled", false},
					 {"dcqcn.np.pcp", false}};
	static const struct want line[] = {{"dcqcn.line_rate", false}};
	/* every parameter the two profiles' defaults set differently */
	static const struct want profile[] = {
		{"dcqcn.profile", false},
		{"dcqcn.min_rate", false},
		{"dcqcn.rate_ai", false},
		{"dcqcn.rate_hai", false},
		{"dcqcn.g", false},
		{"dcqcn.alpha_timer", false},
		{"dcqcn.increase_timer", false},
		{"dcqcn.decrease_period", false},
		{"dcqcn.byte_counter", false},
		{"dcqcn.fast_recovery", false},
		{"dcqcn.min_decrease", false},
		{"dcqcn.clamp", false},
		{"dcqcn.cnp_interval", false},
	};
	struct xdplane_config *a, *b;
	struct config_diff d;
	char text[128];

	(void)state;
	assert_variant("g: 1/128", "g: 0.0078125", NULL, 0); /* same value */
	assert_variant("g: 1/128", "g: 1/64", g, N(g));
	assert_variant("max_flows: 512", "max_flows: 2048", max_flows,
		       N(max_flows));
	assert_variant("np: {enabled: true, dscp: 46, pcp: 5}",
		       "np: {enabled: false, dscp: 46, pcp: 4}", np, N(np));
	/* marking: a new value, or the key gone (no rewrite), is hot */
	assert_variant("set_dscp: 26", "set_dscp: 46",
		       (const struct want[]){{"classes.roce.set_dscp", false}},
		       1);
	assert_variant("    set_dscp: 26\n", "",
		       (const struct want[]){{"classes.roce.set_dscp", false}},
		       1);
	assert_variant("set_pcp: 3", "set_pcp: 0",
		       (const struct want[]){{"classes.roce.set_pcp", false}},
		       1);
	a = load_ok(base_yaml);
	b = load_variant("set_pcp: 3", "set_pcp: 5");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	config_free(b);
	config_free(a);
	/* '' follows the port rate, whatever it is: a change of key */
	assert_variant("line_rate: 40Gbit", "line_rate: ''", line, N(line));
	a = load_ok(base_yaml);
	b = load_variant("max_flows: 512", "max_flows: 2048");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: dcqcn.max_flows");
	config_free(b);
	b = load_variant("cp_loop: false", "cp_loop: true");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	config_diff(a, b, &d);
	assert_diff(&d, (const struct want[]){{"dcqcn.cp_loop", false}}, 1);
	config_free(b);
	config_free(a);

	a = load_ok("ports: [{interface: a}, {interface: b}]\n"
		    "dcqcn: {profile: paper}\n");
	b = load_ok("ports: [{interface: a}, {interface: b}]\n"
		    "dcqcn: {profile: connectx}\n");
	config_diff(a, b, &d);
	assert_diff(&d, profile, N(profile));
	config_free(a);
	config_free(b);
}

static void test_rules(void **state)
{
	static const struct want appended[] = {{"rules[3] (added)", false}};
	static const struct want removed[] = {{"rules[2] (removed)", false}};
	static const struct want changed[] = {{"rules[1]", false}};
	static const struct want inserted[] = {{"rules[0]", false},
					       {"rules[1]", false},
					       {"rules[2]", false},
					       {"rules[3] (added)", false}};

	(void)state;
	assert_variant("    match: {dscp: 10}\n",
		       "    match: {dscp: 10}\n  - class: bulk\n", appended,
		       N(appended));
	assert_variant("  - class: default\n    match: {dscp: 10}\n", "",
		       removed, N(removed));
	assert_variant("dport: 4791}", "dport: 4792}", changed, N(changed));
	assert_variant("rules:\n", "rules:\n  - class: bulk\n", inserted,
		       N(inserted));
	/* same match, other class */
	assert_variant("  - class: roce\n", "  - class: bulk\n", changed,
		       N(changed));
}

/* Values derived from others change with them; rates and shares compare
 * as stored. */
static void test_values(void **state)
{
	static const struct want port_rate[] = {{"ports[0].rate", false},
						{"ports[0].burst", false},
						{"ports[0].adaptive", false}};
	static const struct want ceil[] = {{"classes.roce.ceil", false}};
	static const struct want ecn_off[] = {{"classes.roce.ecn", false}};
	static const struct want non_ect[] = {
		{"classes.roce.ecn.non_ect", false}};
	static const struct want overhead[] = {{"overhead", false}};
	static const struct want log_level[] = {{"log_level", false}};
	static const struct want mixed[] = {
		{"ports[0].interface", true},	  {"umem.frames", true},
		{"control.metrics_listen", true}, {"user", true},
		{"classes.cnp.level", false},	  {"log_level", false}};
	struct xdplane_config *a, *b;
	struct config_diff d;

	(void)state;
	/* the default burst follows the rate: 2.5MB -> 1MB; so does the
	 * default ports[].adaptive.floor (10% of it) */
	assert_variant("    rate: 100Gbit\n  - interface: eth2",
		       "    rate: 40Gbit\n  - interface: eth2", port_rate,
		       N(port_rate));
	/* 50% of 100Gbit is 50Gbit, but one is a share: the bursts agree */
	a = load_ok(base_yaml);
	b = load_variant("ceil: 50%", "ceil: 50Gbit");
	assert_int_equal(a->qos.classes[1].ceil_burst,
			 b->qos.classes[1].ceil_burst);
	config_diff(a, b, &d);
	assert_diff(&d, ceil, N(ceil));
	config_free(a);
	config_free(b);
	assert_variant(
		"    ecn: {kmin: 30KB, kmax: 300KB, pmax: 1%, non_ect: pass}\n",
		"", ecn_off, N(ecn_off));
	assert_variant("non_ect: pass", "non_ect: drop", non_ect, N(non_ect));
	assert_variant("overhead: 20", "overhead: 24", overhead, N(overhead));
	assert_variant("log_level: info", "log_level: err", log_level,
		       N(log_level));
	/* metrics_listen compares the address, not the spelling */
	a = load_ok(base_yaml);
	b = load_variant("metrics_listen: 127.0.0.1:9470",
			 "metrics_listen: '127.0.0.1:9470'");
	config_diff(a, b, &d);
	assert_diff(&d, NULL, 0);
	config_free(a);
	config_free(b);
	a = load_variant("metrics_listen: 127.0.0.1:9470",
			 "metrics_listen: '[::1]:9470'");
	b = load_variant("metrics_listen: 127.0.0.1:9470",
			 "metrics_listen: '[0:0::1]:9470'");
	config_diff(a, b, &d);
	assert_diff(&d, NULL, 0);
	config_free(a);
	config_free(b);
	/* cold keys first, then hot, each in file order */
	a = load_ok(base_yaml);
	b = load_ok(WITH_CLASSES(
		"  - name: cnp\n    level: 1\n    ceil: 5%\n" Y_ROCE Y_DEFAULT
			Y_BULK));
	config_diff(a, b, &d);
	assert_diff(&d, (const struct want[]){{"classes.cnp.level", false}}, 1);
	config_free(b);
	{
		char yaml[sizeof(base_yaml) + 64];

		snprintf(yaml, sizeof(yaml), "%s", base_yaml);
		memcpy(strstr(yaml, "eth1"), "eth9", 4);
		memcpy(strstr(yaml, "frames: 32768"), "frames: 65536", 13);
		memcpy(strstr(yaml, "127.0.0.1:9470"), "127.0.0.2:9470", 14);
		memcpy(strstr(yaml, "user: nobody"), "user: daemon", 12);
		memcpy(strstr(yaml, "level: 0"), "level: 4", 8);
		memcpy(strstr(yaml, "log_level: info"), "log_level: warn", 15);
		b = load_ok(yaml);
	}
	config_diff(a, b, &d);
	assert_diff(&d, mixed, N(mixed));
	config_free(a);
	config_free(b);
}

/* The key lists, and config_reload_check's message. */
static void test_format(void **state)
{
	static const char all[] = "ports[0].interface, umem.frames, "
				  "control.metrics_listen, log_level";
	static const char cold[] = "ports[0].interface, umem.frames, "
				   "control.metrics_listen";
	struct xdplane_config *a = load_ok(base_yaml), *b;
	char yaml[sizeof(base_yaml)], text[256];
	struct config_diff d;

	(void)state;
	snprintf(yaml, sizeof(yaml), "%s", base_yaml);
	memcpy(strstr(yaml, "eth1"), "eth9", 4);
	memcpy(strstr(yaml, "frames: 32768"), "frames: 65536", 13);
	memcpy(strstr(yaml, "127.0.0.1:9470"), "127.0.0.2:9470", 14);
	memcpy(strstr(yaml, "log_level: info"), "log_level: warn", 15);
	b = load_ok(yaml);
	config_diff(a, b, &d);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.n_cold, 3);
	assert_int_equal(config_diff_format(&d, false, text, sizeof(text)),
			 strlen(all));
	assert_string_equal(text, all);
	assert_int_equal(config_diff_format(&d, true, text, sizeof(text)),
			 strlen(cold));
	assert_string_equal(text, cold);
	/* like snprintf: cut, terminated, the whole length returned */
	memset(text, 'z', sizeof(text));
	assert_int_equal(config_diff_format(&d, false, text, 12), strlen(all));
	assert_string_equal(text, "ports[0].in");
	assert_int_equal(text[12], 'z');
	memset(text, 'z', sizeof(text));
	assert_int_equal(config_diff_format(&d, false, text, 20), strlen(all));
	assert_string_equal(text, "ports[0].interface,");
	assert_int_equal(config_diff_format(&d, false, NULL, 0), strlen(all));
	text[0] = 'z';
	assert_int_equal(config_diff_format(&d, true, text, 1), strlen(cold));
	assert_int_equal(text[0], '\0');

	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: ports[0].interface, "
				  "umem.frames, control.metrics_listen");
	assert_int_equal(reload_check(a, b, text, 10), -1);
	assert_string_equal(text, "restart r");
	assert_int_equal(reload_check(a, b, text, 20), -1);
	assert_string_equal(text, "restart required: p");
	config_free(b);
	/* hot only: applies */
	b = load_variant("log_level: info", "log_level: warn");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	config_diff(a, b, &d);
	assert_int_equal(config_diff_format(&d, true, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	assert_int_equal(config_diff_format(&d, false, text, sizeof(text)), 9);
	assert_string_equal(text, "log_level");
	config_free(b);
	config_free(a);
}

/* 8 classes with 8 changed keys each, 64 changed rules, and a cold key:
 * 129 keys. The cold one comes first and survives the truncation. */
static void test_truncated(void **state)
{
	char *ya = malloc(16384), *yb = malloc(16384), text[8192];
	struct xdplane_config *a, *b;
	struct config_diff d;
	char *p, *q;
	int len;

	(void)state;
	assert_non_null(ya);
	assert_non_null(yb);
	p = ya + sprintf(ya, "ports: [{interface: a}, {interface: b}]\n"
			     "poll: {batch: 32}\nclasses:\n");
	q = yb + sprintf(yb, "ports: [{interface: a}, {interface: b}]\n"
			     "poll: {batch: 64}\nclasses:\n");
	for (int i = 0; i < 8; i++) {
		p += sprintf(p,
			     "  - {name: c%d, level: 1, quantum: 1000, "
			     "ceil: 10Gbit, min: 2Gbit, limit_bytes: 1MiB, "
			     "limit_packets: 100}\n",
			     i);
		q += sprintf(q,
			     "  - {name: c%d, level: 2, quantum: 2000, "
			     "ceil: 20Gbit, min: 4Gbit, limit_bytes: 2MiB, "
			     "limit_packets: 200}\n",
			     i);
	}
	p += sprintf(p, "default_class: c0\nrules:\n");
	q += sprintf(q, "default_class: c0\nrules:\n");
	for (int i = 0; i < 64; i++) {
		p += sprintf(p, "  - {class: c0, match: {dscp: %d}}\n", i);
		q += sprintf(q, "  - {class: c0, match: {dscp: %d}}\n",
			     (i + 1) % 64);
	}
	a = load_ok(ya);
	b = load_ok(yb);
	config_diff(a, b, &d);
	assert_int_equal(d.n, CONFIG_DIFF_MAX);
	assert_true(d.truncated);
	assert_int_equal(d.n_cold, 1);
	assert_string_equal(d.ch[0].key, "poll.batch");
	assert_true(d.ch[0].cold);
	assert_string_equal(d.ch[1].key, "classes.c0.level");
	assert_string_equal(d.ch[64].key, "classes.c7.limit_packets");
	assert_string_equal(d.ch[65].key, "rules[0]");
	assert_string_equal(d.ch[127].key, "rules[62]");
	len = config_diff_format(&d, false, text, sizeof(text));
	assert_int_equal(len, strlen(text));
	assert_string_equal(text + len - 14, "rules[62], ...");
	assert_int_equal(config_diff_format(&d, true, text, sizeof(text)), 10);
	assert_string_equal(text, "poll.batch");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: poll.batch");
	config_free(a);
	config_free(b);
	free(ya);
	free(yb);
}

/* Configs that did not come from config_load(): counts past the arrays,
 * names without a NUL, ids past the classes. Bounded, no crash. */
static void test_out_of_range(void **state)
{
	struct xdplane_config *a = load_ok(base_yaml);
	struct xdplane_config *b = load_ok(base_yaml);
	char text[16384], name[64];
	struct config_diff d;

	(void)state;
	b->n_cpus = 100000;
	b->qos.n_classes = 1000;
	b->qos.n_rules = UINT32_MAX;
	b->qos.rules[0].class_id = 200;
	b->qos.default_class = 255;
	memset(b->qos.classes[0].name, 'x', QOS_NAME_MAX);
	memset(b->user, 'u', sizeof(b->user));
	memset(b->control.socket, 's', sizeof(b->control.socket));
	b->control.metrics_addrlen = 100000;
	config_diff(b, b, &d);
	assert_diff(&d, NULL, 0);
	config_diff(a, b, &d);
	assert_true(d.n <= CONFIG_DIFF_MAX);
	assert_true(config_diff_format(&d, false, text, sizeof(text)) <
		    (int)sizeof(text));
	snprintf(name, sizeof(name), "classes.%.32s (added)",
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_non_null(strstr(text, "workers.cpus"));
	assert_non_null(strstr(text, "control.socket"));
	assert_non_null(strstr(text, "control.metrics_listen"));
	assert_non_null(strstr(text, "user"));
	assert_non_null(strstr(text, "classes.cnp (removed)"));
	assert_non_null(strstr(text, name));
	assert_non_null(strstr(text, "rules[0]"));
	assert_non_null(strstr(text, "rules[63] (added)"));
	assert_non_null(strstr(text, "default_class"));
	config_diff(b, a, &d);
	assert_true(d.n <= CONFIG_DIFF_MAX);
	config_free(a);
	config_free(b);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_struct_sizes),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_class_order),
		cmocka_unit_test(test_classes_added_removed),
		cmocka_unit_test(test_dcqcn_classes),
		cmocka_unit_test(test_dcqcn_keys),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
