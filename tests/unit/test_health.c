// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_health.c - the health decision (control/state/health.c) on a fake clock:
 * each reason raised by its input and cleared when the input recovers
 * (a stalled worker that turns again, a port back up, a failure-path
 * counter that stops moving for hold_ns, a reload that succeeds); the
 * first look does not hold earlier counts against the gateway; the line
 * /healthz prints; the input read from a snapshot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "health.h"
#include "snapshot.h"

#define S 1000000000ull

static const struct health_params par = {.stall_ns = 3 * S, .hold_ns = 5 * S};

static void healthy_input(struct health_input *in, uint64_t now)
{
	memset(in, 0, sizeof(*in));
	in->now_ns = now;
	in->n_workers = 2;
	in->heartbeat[0] = now / 1000; /* moves with the clock */
	in->heartbeat[1] = now / 1000 + 7;
	strcpy(in->port[0].name, "gw0");
	strcpy(in->port[1].name, "gw1");
	in->port[0].link_up = in->port[1].link_up = true;
	in->reload_ok = true;
}

static bool has(const struct health_result *r, enum health_reason why)
{
	return r->degraded & (1u << why);
}

static void test_ok(void **state)
{
	struct health h;
	struct health_input in;
	struct health_result r;

	health_init(&h, &par);
	for (uint64_t t = 1; t < 20; t++) {
		healthy_input(&in, t * S);
		health_eval(&h, &in, &r);
		assert_true(health_ok(&r));
		assert_string_equal(r.line, "ok");
		for (int k = 0; k < HEALTH_N_REASONS; k++)
			assert_string_equal(r.msg[k], "");
	}
}

static void test_worker_stall(void **state)
{
	struct health h;
	struct health_input in;
	struct health_result r;
	uint64_t frozen;

	health_init(&h, &par);
	healthy_input(&in, 10 * S);
	health_eval(&h, &in, &r);
	frozen = in.heartbeat[1];
	/* worker 1 stops turning at 10 s: fine up to 13 s, stalled after */
	for (uint64_t ms = 10500; ms <= 13000; ms += 500) {
		healthy_input(&in, ms * 1000000ull);
		in.heartbeat[1] = frozen;
		health_eval(&h, &in, &r);
		assert_true(health_ok(&r));
	}
	healthy_input(&in, 13 * S + 1000000);
	in.heartbeat[1] = frozen;
	health_eval(&h, &in, &r);
	assert_false(health_ok(&r));
	assert_true(has(&r, HEALTH_WORKER_STALLED));
	assert_int_equal(r.degraded, 1u << HEALTH_WORKER_STALLED);
	assert_string_equal(r.msg[HEALTH_WORKER_STALLED],
			    "worker 1 made no progress for 3.0 s");
	assert_string_equal(r.line, "worker_stalled: worker 1 made no "
				    "progress for 3.0 s");
	/* both stalled */
	healthy_input(&in, 20 * S);
	in.heartbeat[1] = frozen;
	in.heartbeat[0] = 5;
	health_eval(&h, &in, &r);
	healthy_input(&in, 24 * S);
	in.heartbeat[1] = frozen;
	in.heartbeat[0] = 5;
	health_eval(&h, &in, &r);
	assert_string_equal(r.msg[HEALTH_WORKER_STALLED],
			    "2 workers made no progress (the longest for "
			    "14.0 s)");
	/* it turns again: ok at once */
	healthy_input(&in, 25 * S);
	health_eval(&h, &in, &r);
	assert_true(health_ok(&r));
}

static void test_ports(void **state)
{
	struct health h;
	struct health_input in;
	struct health_result r;

	health_init(&h, &par);
	healthy_input(&in, S);
	health_eval(&h, &in, &r);
	healthy_input(&in, 2 * S);
	in.port[1].link_up = false;
	health_eval(&h, &in, &r);
	assert_int_equal(r.degraded, 1u << HEALTH_PORT_DOWN);
	assert_string_equal(r.line, "port_down: link down: gw1");
	in.port[0].link_up = false;
	health_eval(&h, &in, &r);
	assert_string_equal(r.msg[HEALTH_PORT_DOWN], "link down: gw0, gw1");
	/* a vanished interface is port_gone, not also port_down */
	in.port[0].gone = true;
	health_eval(&h, &in, &r);
	assert_int_equal(r.degraded,
			 1u << HEALTH_PORT_DOWN | 1u << HEALTH_PORT_GONE);
	assert_string_equal(r.msg[HEALTH_PORT_DOWN], "link down: gw1");
	assert_string_equal(r.msg[HEALTH_PORT_GONE], "interface vanished: gw0");
	assert_string_equal(r.line, "port_down: link down: gw1; port_gone: "
				    "interface vanished: gw0");
	healthy_input(&in, 3 * S);
	health_eval(&h, &in, &r);
	assert_true(health_ok(&r));
}

static void test_fail_open(void **state)
{
	struct health h;
	struct health_input in;
	struct health_result r;

	health_init(&h, &par);
	/* counted before the first look (the start-up window): not held */
	healthy_input(&in, S);
	in.port[0].failure_path = in.port[0].no_socket = 500;
	health_eval(&h, &in, &r);
	assert_true(health_ok(&r));
	healthy_input(&in, 2 * S);
	in.port[0].failure_path = in.port[0].no_socket = 500;
	health_eval(&h, &in, &r);
	assert_true(health_ok(&r));
	/* it grows: both reasons, for hold_ns after the last growth */
	healthy_input(&in, 3 * S);
	in.port[0].failure_path = in.port[0].no_socket = 600;
	health_eval(&h, &in, &r);
	assert_int_equal(r.degraded, 1u << HEALTH_FAIL_OPEN |
					     1u << HEALTH_QUEUE_WITHOUT_SOCKET);
	assert_string_equal(r.msg[HEALTH_FAIL_OPEN],
			    "gw0: 100 frames forwarded unshaped by the kernel");
	healthy_input(&in, 4 * S);
	in.port[0].failure_path = in.port[0].no_socket = 650;
	health_eval(&h, &in, &r);
	assert_string_equal(r.msg[HEALTH_FAIL_OPEN],
			    "gw0: 150 frames forwarded unshaped by the kernel");
	assert_non_null(strstr(r.msg[HEALTH_QUEUE_WITHOUT_SOCKET],
			       "gw0: 150 frames on RX queues without a "
			       "socket"));
	/* quiet: still degraded until 5 s after the last growth (4 s) */
	for (uint64_t t = 5; t < 9; t++) {
		healthy_input(&in, t * S);
		in.port[0].failure_path = in.port[0].no_socket = 650;
		health_eval(&h, &in, &r);
		assert_true(has(&r, HEALTH_FAIL_OPEN));
	}
	healthy_input(&in, 9 * S);
	in.port[0].failure_path = in.port[0].no_socket = 650;
	health_eval(&h, &in, &r);
	assert_true(health_ok(&r));
	/* queues without a socket now, no frames on them yet */
	healthy_input(&in, 9 * S + 1);
	in.port[0].failure_path = in.port[0].no_socket = 650;
	in.port[1].queues_without_socket = 3;
	health_eval(&h, &in, &r);
	assert_int_equal(r.degraded, 1u << HEALTH_QUEUE_WITHOUT_SOCKET);
	assert_string_equal(r.msg[HEALTH_QUEUE_WITHOUT_SOCKET],
			    "gw1: 3 queues without a socket");
	/* a new episode counts from 0; fail-closed says dropped; only the
	 * port that moved */
	healthy_input(&in, 10 * S);
	in.port[0].failure_path = in.port[0].no_socket = 650;
	in.port[1].failure_path = 3;
	in.port[1].fail_closed = true;
	health_eval(&h, &in, &r);
	assert_int_equal(r.degraded, 1u << HEALTH_FAIL_OPEN);
	assert_string_equal(r.msg[HEALTH_FAIL_OPEN],
			    "gw1: 3 frames dropped (failure_mode closed)");
}

static void test_reload(void **state)
{
	struct health h;
	struct health_input in;
	struct health_result r;

	health_init(&h, &par);
	healthy_input(&in, S);
	in.reload_ok = false;
	in.reload_error = "x.yaml:3:5: classes: unknown key";
	health_eval(&h, &in, &r);
	assert_int_equal(r.degraded, 1u << HEALTH_RELOAD_FAILED);
	assert_string_equal(r.line, "reload_failed: last reload refused: "
				    "x.yaml:3:5: classes: unknown key");
	in.reload_error = NULL;
	health_eval(&h, &in, &r);
	assert_string_equal(r.msg[HEALTH_RELOAD_FAILED],
			    "last reload refused: (no reason given)");
	healthy_input(&in, 2 * S);
	health_eval(&h, &in, &r);
	assert_true(health_ok(&r));
}

/* Every reason has a name (a label value) and a help; all at once fit
 * the line. */
static void test_starved(void **state)
{
	struct health h;
	struct health_input in;
	struct health_result r;

	health_init(&h, &par);
	healthy_input(&in, S);
	health_eval(&h, &in, &r);
	healthy_input(&in, 2 * S);
	in.port[0].starved = 2;
	in.port[0].starve_kicks = 3;
	health_eval(&h, &in, &r);
	assert_false(health_ok(&r));
	assert_true(has(&r, HEALTH_RX_STARVED));
	assert_string_equal(r.msg[HEALTH_RX_STARVED],
			    "gw0: 2 queues starved by the driver (3 wake-ups "
			    "so far)");
	assert_non_null(strstr(r.line, "rx_starved: gw0: 2 queues"));
	/* as long as the gauge says so; ok at once when it is 0 */
	healthy_input(&in, 3 * S);
	in.port[0].starve_kicks = 4;
	health_eval(&h, &in, &r);
	assert_true(health_ok(&r));
}

static void test_table(void **state)
{
	struct health h;
	struct health_input in;
	struct health_result r;
	char long_err[600];

	for (int k = 0; k < HEALTH_N_REASONS; k++) {
		assert_true(strlen(health_reason_name(k)) > 0);
		assert_true(strspn(health_reason_name(k),
				   "abcdefghijklmnopqrstuvwxyz_") ==
			    strlen(health_reason_name(k)));
		assert_true(strlen(health_reason_help(k)) > 0);
	}
	assert_string_equal(health_reason_name(HEALTH_N_REASONS), "unknown");
	memset(long_err, 'e', sizeof(long_err) - 1);
	long_err[sizeof(long_err) - 1] = '\0';
	health_init(&h, &par);
	healthy_input(&in, S);
	in.heartbeat[0] = in.heartbeat[1] = 0;
	health_eval(&h, &in, &r);
	healthy_input(&in, 10 * S);
	in.heartbeat[0] = in.heartbeat[1] = 0;
	in.port[0].link_up = false;
	in.port[1].gone = true;
	in.port[0].failure_path = in.port[0].no_socket = 1;
	in.reload_ok = false;
	in.reload_error = long_err;
	in.port[1].starved = 2;
	health_eval(&h, &in, &r);
	assert_int_equal(r.degraded, (1u << HEALTH_N_REASONS) - 1);
	assert_true(strlen(r.line) < sizeof(r.line));
	assert_null(strchr(r.line, '\n'));
	for (int k = 0; k < HEALTH_N_REASONS; k++)
		assert_non_null(strstr(r.line, health_reason_name(k)));
}

static void test_from_snapshot(void **state)
{
	struct stats_snapshot *s = calloc(1, sizeof(*s));
	struct health_input in;

	assert_non_null(s);
	s->now_mono_ns = 42 * S;
	s->n_workers = 3;
	s->workers[2].loops = 99;
	s->failure_mode = "fail-closed";
	strcpy(s->ports[0].ifname, "eth1");
	strcpy(s->ports[1].ifname, "eth2");
	s->ports[0].link_up = true;
	s->ports[1].gone = true;
	s->ports[1].s.verdicts[STEER_V_XSK] = 1000;
	s->ports[1].s.verdicts[STEER_V_FAILOPEN] = 1;
	s->ports[1].s.verdicts[STEER_V_FAILOPEN_ERR] = 2;
	s->ports[1].s.verdicts[STEER_V_FAILCLOSED] = 4;
	s->ports[1].s.verdicts[STEER_V_QUEUE_RANGE] = 8;
	s->ports[1].s.rx_no_socket = 9;
	s->ports[1].s.queues_without_socket = 2;
	s->ports[1].s.rx_starved = 1;
	s->ports[1].s.rx_starve_kicks = 5;
	s->reload.last_successful = false;
	strcpy(s->reload.last_error, "why");
	health_input_from_snapshot(s, &in);
	assert_int_equal(in.now_ns, 42 * S);
	assert_int_equal(in.n_workers, 3);
	assert_int_equal(in.heartbeat[2], 99);
	assert_string_equal(in.port[0].name, "eth1");
	assert_true(in.port[0].link_up);
	assert_false(in.port[0].gone);
	assert_true(in.port[1].gone);
	assert_true(in.port[1].fail_closed);
	assert_int_equal(in.port[0].failure_path, 0);
	assert_int_equal(in.port[1].failure_path, 15);
	assert_int_equal(in.port[1].no_socket, 9);
	assert_int_equal(in.port[1].queues_without_socket, 2);
	assert_int_equal(in.port[1].starved, 1);
	assert_int_equal(in.port[1].starve_kicks, 5);
	assert_int_equal(in.port[0].starved, 0);
	assert_false(in.reload_ok);
	assert_string_equal(in.reload_error, "why");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_worker_stall),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_fail_open),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_starved),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_from_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
