// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_coll_job.c - unit tests of the collective jobs (coll_job) on 8 (or
 * 4) emulated hosts joined by the in-memory wire, fake clock: ring
 * all-reduce verifies its sums (also under loss), respects the step
 * dependency and catches corrupted data; parameter server and pipeline
 * complete with the right byte counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "coll_job.h"
#include "coll_wire.h"
#include "roce.h"

struct world {
	struct coll_wire w;
	struct coll_job job[RC_MAX_RANKS];
	int n;
	uint64_t dep_violations; /* all-reduce posts before their input */
	uint64_t posts;
};

struct rank_ctx {
	struct world *wd;
	int rank;
} rctx[RC_MAX_RANKS];

static int do_post(void *ctx, int peer, uint32_t id, const uint8_t *data,
		   uint32_t len)
{
	struct rank_ctx *rc = ctx;
	struct world *wd = rc->wd;
	struct coll_job *j = &wd->job[rc->rank];

	wd->posts++;
	if (j->p.kind == COLL_ALLREDUCE && coll_id_step(id) > 0) {
		/* chunk k of step t needs chunk k of step t - 1 */
		uint32_t it = id >> 24, t = coll_id_step(id);
		const struct coll_slot *s = &j->slot[it & 1];

		if ((s->iter & 0xff) != it ||
		    !s->got[(t - 1) * j->nchunks + coll_id_chunk(id)])
			wd->dep_violations++;
	}
	return rc_host_post(&wd->w.host[rc->rank], peer, id, data, len);
}

static void on_data(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t off,
		    const uint8_t *p, uint32_t n)
{
	struct rank_ctx *rc = ctx;

	coll_job_on_data(&rc->wd->job[rc->rank], qp->peer, id, off, p, n);
}

static void on_msg(void *ctx, struct rc_qp *qp, uint32_t id, uint32_t len,
		   uint64_t now)
{
	struct rank_ctx *rc = ctx;

	coll_job_on_msg(&rc->wd->job[rc->rank], qp->peer, id, len, now);
}

static void on_sent(void *ctx, struct rc_qp *qp, uint32_t id, uint64_t now)
{
	struct rank_ctx *rc = ctx;

	coll_job_on_sent(&rc->wd->job[rc->rank], qp->peer, id, now);
}

static const struct rc_ops job_ops = {
	.data = on_data, .msg_done = on_msg, .send_done = on_sent};

static void app_poll(void *ctx, int rank, uint64_t now)
{
	struct world *wd = ctx;

	coll_job_poll(&wd->job[rank], now);
}

static uint64_t app_next(void *ctx, int rank)
{
	struct world *wd = ctx;

	return coll_job_next_ns(&wd->job[rank]);
}

static bool app_done(void *ctx)
{
	struct world *wd = ctx;

	for (int r = 0; r < wd->n; r++)
		if (!coll_job_done(&wd->job[r]))
			return false;
	return true;
}

static struct world *world_new(const struct coll_params *p0, int n)
{
	struct world *wd = calloc(1, sizeof(*wd));
	void *ctxs[RC_MAX_RANKS];
	struct coll_params pn = *p0;
	struct rc_cfg c;

	assert_non_null(wd);
	pn.nranks = n;
	wd->n = n;
	rc_cfg_default(&c);
	c.mtu = 256;
	c.window = 64;
	c.rto_ns = 200000;
	c.line_bps = 10e9;
	for (int r = 0; r < n; r++) {
		struct coll_params p = *p0;

		p.nranks = n;
		p.rank = r;
		rctx[r].wd = wd;
		rctx[r].rank = r;
		ctxs[r] = &rctx[r];
		assert_int_equal(
			coll_job_init(&wd->job[r], &p, do_post, &rctx[r]), 0);
	}
	wire_init(&wd->w, n, &c, 2 * coll_job_msgs_per_peer(&pn) + 8, &job_ops,
		  ctxs);
	wd->w.app.poll = app_poll;
	wd->w.app.next_ns = app_next;
	wd->w.app.done = app_done;
	wd->w.app.ctx = wd;
	return wd;
}

static void world_free(struct world *wd)
{
	for (int r = 0; r < wd->n; r++)
		coll_job_free(&wd->job[r]);
	wire_free(&wd->w);
	free(wd);
}

static void check_clean(struct world *wd, uint32_t iters)
{
	for (int r = 0; r < wd->n; r++) {
		const struct coll_job *j = &wd->job[r];

		assert_true(coll_job_done(j));
		assert_int_equal(coll_job_completed(j), iters);
		assert_int_equal(j->proto_errors, 0);
		assert_int_equal(j->post_errors, 0);
		for (uint32_t i = 0; i < iters; i++) {
			assert_true(j->iters[i].end_ns > j->iters[i].start_ns);
			if (i)
				assert_true(j->iters[i].start_ns >=
					    j->iters[i - 1].end_ns);
		}
	}
}

static void ar_params(struct coll_params *p)
{
	coll_params_default(p);
	p->kind = COLL_ALLREDUCE;
	p->iters = 3;
	p->model = 8 * 4096; /* 4 KiB per segment */
	p->chunk = 1024; /* 4 chunks per step */
	p->compute_ns = 10000;
}

static void test_allreduce_8(void **state)
{
	struct coll_params p;
	struct world *wd;

	ar_params(&p);
	wd = world_new(&p, 8);
	assert_true(wire_run(&wd->w, 10ull * 1000000000));
	check_clean(wd, p.iters);
	for (int r = 0; r < 8; r++) {
		const struct coll_job *j = &wd->job[r];

		assert_int_equal(j->verify_errors, 0);
		/* 2 (N - 1) steps of model / N bytes, each iteration */
		assert_int_equal(j->bytes_received,
				 (uint64_t)p.iters * 14 * (p.model / 8));
		assert_int_equal(j->bytes_posted, j->bytes_received);
	}
	assert_int_equal(wd->dep_violations, 0);
	world_free(wd);
}

static void test_allreduce_loss(void **state)
{
	struct coll_params p;
	struct world *wd;
	struct rc_qp_stats st;
	uint64_t losses = 0;

	ar_params(&p);
	p.iters = 4;
	p.compute_ns = 0; /* next iteration's data arrives early */
	wd = world_new(&p, 8);
	wd->w.p_drop = 0.01;
	wd->w.p_reorder = 0.005;
	assert_true(wire_run(&wd->w, 20ull * 1000000000));
	check_clean(wd, p.iters);
	for (int r = 0; r < 8; r++) {
		assert_int_equal(wd->job[r].verify_errors, 0);
		rc_host_stats(&wd->w.host[r], &st);
		losses += st.loss_events;
	}
	assert_true(losses > 0);
	assert_int_equal(wd->dep_violations, 0);
	world_free(wd);
}

/* Flip a byte of one all-reduce data packet in flight (the wire has no
 * ICRC check): the sum is wrong and the check says so. */
static bool corrupt_one(void *ctx, const struct wire_pkt *p, uint64_t now)
{
	int *left = ctx;

	if (*left && bth_opcode(p->data) == 0x07 && p->len > 100) {
		((struct wire_pkt *)p)->data[80] ^= 0x5a;
		--*left;
	}
	return false;
}

static void test_allreduce_detects_corruption(void **state)
{
	struct coll_params p;
	struct world *wd;
	int left = 1;
	uint64_t errors = 0;

	ar_params(&p);
	p.iters = 1;
	wd = world_new(&p, 8);
	wd->w.filter = corrupt_one;
	wd->w.filter_ctx = &left;
	assert_true(wire_run(&wd->w, 10ull * 1000000000));
	for (int r = 0; r < 8; r++)
		errors += wd->job[r].verify_errors;
	assert_true(errors > 0);
	world_free(wd);
}

static void test_ps_8(void **state)
{
	struct coll_params p;
	struct world *wd;

	coll_params_default(&p);
	p.kind = COLL_PS;
	p.iters = 3;
	p.model = 20000; /* 5 chunks, the last short */
	p.chunk = 4096;
	p.server = 4;
	wd = world_new(&p, 8);
	assert_true(wire_run(&wd->w, 10ull * 1000000000));
	check_clean(wd, p.iters);
	for (int r = 0; r < 8; r++) {
		uint64_t want = (r == 4 ? 7 : 1) * p.model * p.iters;

		assert_int_equal(wd->job[r].bytes_received, want);
		assert_int_equal(wd->job[r].bytes_posted, want);
	}
	/* a worker's iteration ends after the server got every push */
	assert_true(wd->job[0].iters[0].end_ns > wd->job[4].iters[0].start_ns);
	world_free(wd);
}

static void test_pipeline_4(void **state)
{
	struct coll_params p;
	struct world *wd;

	coll_params_default(&p);
	p.kind = COLL_PIPELINE;
	p.iters = 3;
	p.microbatches = 4;
	p.activation = 3000;
	wd = world_new(&p, 4);
	assert_true(wire_run(&wd->w, 10ull * 1000000000));
	check_clean(wd, p.iters);
	for (int r = 0; r < 4; r++) {
		uint64_t per =
			(uint64_t)p.microbatches * p.activation * p.iters;
		uint64_t want = (r == 0 || r == 3) ? per : 2 * per;

		assert_int_equal(wd->job[r].bytes_received, want);
		assert_int_equal(wd->job[r].bytes_posted, want);
	}
	/* stage 0's iteration spans the others' */
	assert_true(wd->job[0].iters[0].end_ns >= wd->job[3].iters[0].end_ns);
	world_free(wd);
}

static void test_params_check(void **state)
{
	struct coll_params p;
	const char *why;

	ar_params(&p);
	p.nranks = 8;
	p.rank = 0;
	assert_int_equal(coll_params_check(&p, &why), 0);
	p.model = 8 * 4096 + 4; /* not a multiple of 4 x ranks */
	assert_int_equal(coll_params_check(&p, &why), -1);
	assert_non_null(why);
	p.model = 8 * 4096;
	p.chunk = 6;
	assert_int_equal(coll_params_check(&p, &why), -1);
	p.kind = COLL_PS;
	p.chunk = 4096;
	p.server = 8;
	assert_int_equal(coll_params_check(&p, &why), -1);
	assert_int_equal(coll_kind_from_name("pipeline"), COLL_PIPELINE);
	assert_int_equal(coll_kind_from_name("nccl"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allreduce_8),
		cmocka_unit_test(test_allreduce_loss),
		cmocka_unit_test(test_allreduce_detects_corruption),
		cmocka_unit_test(test_ps_8),
		cmocka_unit_test(test_pipeline_4),
		cmocka_unit_test(test_params_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
