// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_dump.c - config_dump() (control/config/config_dump.c): documents
 * of every kind load back from their dump into the same struct, and the
 * text of the dump.
 */
#include "test_config.h"

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
		PORTS "queues: 4\nqueues_set_channels: true\n",
		qos_full,
		PORTS
		"control: {socket: '', socket_group: adm, "
		"metrics_listen: '[fd00::1]:1', stats_interval_ms: 60000}\n"
		"user: nobody\ngroup: nogroup\nlog_level: err\n",
		PORTS "control: {metrics_listen: '', socket: '/a b/#c'}\n"
		      "log_level: notice\n",
		PORTS "control: {readonly_group: '4242'}\n",
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
	assert_non_null(
		strstr(text, "ports:\n  - interface: 'eth1'\n"
			     "    burst: 32KiB\n"
			     "  - interface: 'eth2'\n"
			     "    burst: 32KiB\nport_wait: 60s\nqueues: auto\n"
			     "queues_set_channels: false\n"
			     "xdp_mode: auto\nbind_mode: auto\n"
			     "failure_mode: open\nrings:\n"
			     "  fill: 4096\n"));
	assert_non_null(strstr(text, "umem:\n  # frames: 32768 (not set: "
				     "raised at start to what the queues "
				     "need)\n"
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

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_dump_text),
		cmocka_unit_test(test_dump_queues_auto),
	};

	return cmocka_run_group_tests(fixed, NULL, NULL);
}
