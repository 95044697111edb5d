// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_diff_fields.c - config_diff field by field: the mutation
 * table changes one field of a fully written config at a time and checks
 * the exact key(s) and hotness reported; the size guards fail when struct
 * xdplane_config or struct qos_policy gain a field, so that whoever adds
 * one teaches config_diff (and this table) about it.
 */
#include "test_config_diff.h"

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
	HOT(jobs.mode, "jobs.mode"), /* off -> observe */
	COLD(jobs.max_registered, "jobs.max_registered"),
	COLD(jobs.max_passive, "jobs.max_passive"),
	COLD(jobs.max_hosts, "jobs.max_hosts"),
	COLD(jobs.max_edges, "jobs.max_edges"),
	HOT(jobs.idle_ns, "jobs.idle"),
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
		{"struct xdplane_config", sizeof(struct xdplane_config), 8000},
		{"struct config_jobs", sizeof(struct config_jobs), 32},
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_struct_sizes),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
