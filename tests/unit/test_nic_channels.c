// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_nic_channels.c - queue_plan_decide() (dataplane/xsk/nic_channels.h):
 * the configured queues against the NICs' channel counts at start, auto
 * and explicit, with and without queues_set_channels, ports that differ,
 * drivers that do not say, and the fixes the refusals name.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "nic_channels.h"

/* NIC kinds: combined channels (most NICs), rx/tx channels (veth) */
static const struct nic_channels unknown;

static struct nic_channels combined(uint32_t n, uint32_t max)
{
	return (struct nic_channels){.max_combined = max, .combined = n};
}

static struct nic_channels rxtx(uint32_t n, uint32_t max)
{
	return (struct nic_channels){
		.max_rx = max, .max_tx = max, .rx = n, .tx = n};
}

/* combined channels and RX-only ones (ethtool -l: "RX: r, Combined: c"):
 * RSS spreads over c + r RX queues */
static struct nic_channels combined_rx(uint32_t c, uint32_t r, uint32_t max)
{
	return (struct nic_channels){.max_combined = max,
				     .max_rx = max,
				     .max_tx = max,
				     .combined = c,
				     .rx = r};
}

struct plan_case {
	const char *what;
	uint32_t queues; /* 0: auto */
	bool set;
	struct nic_channels ch0, ch1;
	int rc;
	uint32_t want_queues;
	uint32_t set0, set1;
	const char *in_msg[4]; /* substrings of the error (or the note) */
};

static void run(const struct plan_case *c)
{
	struct queue_plan_in in = {
		.queues = c->queues,
		.set_channels = c->set,
		.max_queues = 64,
		.name = {"eth1", "eth2"},
		.ch = {c->ch0, c->ch1},
	};
	struct queue_plan out;
	char err[512];
	int rc = queue_plan_decide(&in, &out, err, sizeof(err));
	const char *text = rc ? err : out.note;

	if (rc != c->rc)
		fail_msg("%s: rc %d, want %d (%s)", c->what, rc, c->rc, err);
	if (out.queues != c->want_queues || out.set_to[0] != c->set0 ||
	    out.set_to[1] != c->set1)
		fail_msg("%s: queues %u set %u/%u, want %u set %u/%u", c->what,
			 out.queues, out.set_to[0], out.set_to[1],
			 c->want_queues, c->set0, c->set1);
	for (int i = 0; i < 4 && c->in_msg[i]; i++)
		if (!strstr(text, c->in_msg[i]))
			fail_msg("%s: '%s' not in: %s", c->what, c->in_msg[i],
				 text);
	if (!rc && strchr(err, ':'))
		fail_msg("%s: an error text on success: %s", c->what, err);
}

static void test_plans(void **state)
{
	const struct plan_case cases[] = {
		/* auto */
		{"auto, same counts",
		 0,
		 false,
		 combined(8, 63),
		 combined(8, 63),
		 0,
		 8,
		 0,
		 0,
		 {NULL}},
		{"auto, veth 4",
		 0,
		 false,
		 rxtx(4, 4),
		 rxtx(4, 4),
		 0,
		 4,
		 0,
		 0,
		 {NULL}},
		{"auto, 1 channel (the testbed)",
		 0,
		 false,
		 rxtx(1, 1),
		 rxtx(1, 1),
		 0,
		 1,
		 0,
		 0,
		 {NULL}},
		{"auto, ports differ: refused",
		 0,
		 false,
		 combined(8, 63),
		 combined(4, 63),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"eth1 has 8 RX channels and eth2 4", "same number",
		  "queues_set_channels: true", "'ethtool -L eth1 combined 4'"}},
		{"auto, ports differ, the larger one set",
		 0,
		 true,
		 combined(4, 63),
		 rxtx(8, 16),
		 0,
		 4,
		 0,
		 4,
		 {NULL}},
		{"auto, more channels than the gateway runs",
		 0,
		 false,
		 combined(96, 128),
		 combined(96, 128),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"eth1 has 96 RX channels, more than the 64",
		  "'ethtool -L eth1 combined 64'"}},
		{"auto, more than 64, set",
		 0,
		 true,
		 combined(96, 128),
		 combined(64, 128),
		 0,
		 64,
		 64,
		 0,
		 {NULL}},
		{"auto, a driver that does not say",
		 0,
		 false,
		 unknown,
		 combined(2, 8),
		 0,
		 2,
		 0,
		 0,
		 {"eth1: the driver does not report its channels",
		  "running 2 queues"}},
		{"auto, neither says",
		 0,
		 false,
		 unknown,
		 unknown,
		 0,
		 1,
		 0,
		 0,
		 {"eth1: the driver", "eth2: the driver", "rx_no_socket"}},
		{"auto, combined and RX-only channels: 4 + 4 = 8",
		 0,
		 false,
		 combined_rx(4, 4, 8),
		 combined(8, 63),
		 0,
		 8,
		 0,
		 0,
		 {NULL}},
		{"auto, combined and RX-only channels, set down",
		 0,
		 true,
		 combined_rx(4, 4, 8),
		 combined(6, 63),
		 0,
		 6,
		 6,
		 0,
		 {NULL}},
		/* explicit */
		{"8 on 4 combined + 4 RX-only",
		 8,
		 false,
		 combined_rx(4, 4, 8),
		 combined(8, 8),
		 0,
		 8,
		 0,
		 0,
		 {NULL}},
		{"4 on 4 combined + 4 RX-only: refused, the RX-only ones go",
		 4,
		 false,
		 combined_rx(4, 4, 8),
		 combined(4, 8),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"eth1 has 8 RX channels but queues is 4",
		  "'ethtool -L eth1 combined 4 rx 0'"}},
		{"1 on 1",
		 1,
		 false,
		 rxtx(1, 1),
		 rxtx(1, 1),
		 0,
		 1,
		 0,
		 0,
		 {NULL}},
		{"2 on 2 (t-multiqueue)",
		 2,
		 false,
		 rxtx(2, 2),
		 rxtx(2, 2),
		 0,
		 2,
		 0,
		 0,
		 {NULL}},
		{"1 on 8: refused (the issue)",
		 1,
		 false,
		 combined(8, 63),
		 combined(8, 63),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"eth1 has 8 RX channels but queues is 1",
		  "7 channels without an AF_XDP socket", "queues: auto (8)",
		  "'ethtool -L eth1 combined 1'"}},
		{"1 on 4 veth: the rx/tx command",
		 1,
		 false,
		 rxtx(4, 4),
		 rxtx(4, 4),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"'ethtool -L eth1 rx 1 tx 1'", "queues_set_channels: true"}},
		{"4 on 2: refused",
		 4,
		 false,
		 combined(2, 8),
		 combined(2, 8),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"eth1 has 2 RX channels but queues is 4", "does not have",
		  "'ethtool -L eth1 combined 4'"}},
		{"4 on 2, max 2: no set_channels advice",
		 4,
		 false,
		 rxtx(2, 2),
		 rxtx(2, 2),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"the NIC allows at most 2", "queues: 2 or less"}},
		{"only the second port differs",
		 4,
		 false,
		 combined(4, 8),
		 combined(8, 8),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"eth2 has 8 RX channels but queues is 4"}},
		{"2 on 4, set",
		 2,
		 true,
		 rxtx(4, 4),
		 rxtx(4, 4),
		 0,
		 2,
		 2,
		 2,
		 {NULL}},
		{"4 on 2, set (raised)",
		 4,
		 true,
		 combined(2, 8),
		 combined(4, 8),
		 0,
		 4,
		 4,
		 0,
		 {NULL}},
		{"8 on max 4, set: refused",
		 8,
		 true,
		 combined(2, 4),
		 combined(2, 4),
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"eth1 allows at most 4 RX channels", "queues: 4 or less"}},
		{"explicit, a driver that does not say",
		 3,
		 false,
		 unknown,
		 combined(3, 8),
		 0,
		 3,
		 0,
		 0,
		 {"eth1: the driver does not report", "running 3 queues"}},
		{"explicit, out of range",
		 65,
		 false,
		 unknown,
		 unknown,
		 -EINVAL,
		 0,
		 0,
		 0,
		 {"between 1 and 64"}},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(&cases[i]);
}

static void test_channel_helpers(void **state)
{
	struct nic_channels c = combined(4, 8), v = rxtx(2, 4);
	/* a NIC with combined channels set to 0 and some RX ones */
	struct nic_channels mixed = {
		.max_combined = 8, .max_rx = 8, .rx = 2, .combined = 0};
	char cmd[64];

	(void)state;
	assert_int_equal(nic_channels_count(&c), 4);
	assert_int_equal(nic_channels_max(&c), 8);
	assert_int_equal(nic_channels_count(&v), 2);
	assert_int_equal(nic_channels_max(&v), 4);
	assert_int_equal(nic_channels_count(&mixed), 2);
	assert_int_equal(nic_channels_count(&unknown), 0);
	nic_channels_cmd(&c, "eth1", 2, cmd, sizeof(cmd));
	assert_string_equal(cmd, "ethtool -L eth1 combined 2");
	nic_channels_cmd(&v, "gw0", 3, cmd, sizeof(cmd));
	assert_string_equal(cmd, "ethtool -L gw0 rx 3 tx 3");
	/* combined and RX-only: RSS spreads over both (ethtool: RX queues =
	 * combined + rx); setting the count drops the RX-only ones */
	c = combined_rx(4, 4, 8);
	assert_int_equal(nic_channels_count(&c), 8);
	nic_channels_cmd(&c, "eth1", 2, cmd, sizeof(cmd));
	assert_string_equal(cmd, "ethtool -L eth1 combined 2 rx 0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plans),
		cmocka_unit_test(test_channel_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
