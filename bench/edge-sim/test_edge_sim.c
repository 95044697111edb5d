// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_edge_sim.c - the simulator's default scenario (a 100 Mbit/s gateway
 * port in front of a 100 Mbit/s FIFO bottleneck with a 1 MB buffer, base
 * RTT 1 ms, available capacity 100 % -> 50 % at 2 s -> 80 % at 4 s):
 *  - with the controller on: after each step the bottleneck queue is back
 *    below the target (500 us) within 50 base RTTs and the rate within
 *    15 % of the available capacity within 50; the utilisation of the
 *    available capacity is >= 90 %; the queue p99 stays below 5x the
 *    target (the standing sawtooth; measured 1.35 ms); no drops;
 *  - with it off (the gateway at its line rate): the queue stands in the
 *    bottleneck (p99 above 10x the target), which is the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "edge_sim.h"

static void print(const struct edge_sim_cfg *c, const struct edge_sim_result *r)
{
	print_message("adaptive %s: queue mean %.0f us p99 %.0f us max %.0f "
		      "us, utilisation %.3f, drops %llu, samples %llu\n",
		      c->adaptive ? "on" : "off", r->queue_mean_us,
		      r->queue_p99_us, r->queue_max_us, r->utilisation,
		      (unsigned long long)r->drops,
		      (unsigned long long)r->rtt_samples);
	for (uint32_t k = 0; k < r->n_follow; k++)
		print_message("  step at %.0f s to %.0f %%: queue below target "
			      "after %.1f ms, rate within 15 %% after %.1f "
			      "ms\n",
			      (double)r->follow[k].t_ns / 1e9,
			      r->follow[k].share * 100,
			      (double)r->follow[k].queue_ns / 1e6,
			      (double)r->follow[k].rate_ns / 1e6);
}

static void test_steps_followed(void **state)
{
	struct edge_sim_cfg c;
	struct edge_sim_result r;
	char err[128];

	edge_sim_cfg_default(&c);
	assert_int_equal(edge_sim_run(&c, &r, err, sizeof(err)), 0);
	print(&c, &r);
	for (uint32_t k = 1; k < r.n_follow; k++) {
		assert_true(r.follow[k].queue_ns <= 50 * c.base_rtt_ns);
		assert_true(r.follow[k].rate_ns <= 50 * c.base_rtt_ns);
	}
	assert_true(r.utilisation >= 0.90);
	assert_true(r.queue_p99_us < 5 * (double)c.ctl.target_ns / 1e3);
	assert_int_equal(r.drops, 0);
	assert_true(r.rtt_samples > 1000);
}

static void test_off_queues_beyond(void **state)
{
	struct edge_sim_cfg c;
	struct edge_sim_result r;
	char err[128];

	edge_sim_cfg_default(&c);
	c.adaptive = false;
	assert_int_equal(edge_sim_run(&c, &r, err, sizeof(err)), 0);
	print(&c, &r);
	assert_true(r.queue_p99_us > 10 * (double)c.ctl.target_ns / 1e3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_followed),
		cmocka_unit_test(test_off_queues_beyond),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
