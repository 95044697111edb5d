/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll_job.h - the collective jobs of one rank as state machines over a
 * reliable message transport (rc_host in rocegen, the same over an
 * in-memory wire in the tests): ring all-reduce, parameter server and
 * pipeline-parallel transfers. Pure: no I/O, no clock (every call takes
 * now), allocation only in coll_job_init().
 *
 * The transport is seen through three things: a post function (queue a
 * message of len bytes to a peer; the bytes must stay unchanged until the
 * transport reports it sent), and the calls the owner makes when a
 * message's data arrives (in order, once), when a message arrived whole,
 * and when a posted message was acknowledged.
 *
 * Message ids: bits 31..24 the iteration (mod 256), 23..0 the job's own:
 *   allreduce  step (23..12), chunk (11..0)
 *   ps         pull (23), chunk (22..0)
 *   pipeline   backward (23), microbatch (22..0)
 * A rank is at most one iteration ahead of a peer it receives from, so two
 * iteration slots (by parity) hold everything; data of the next iteration
 * arriving early is kept (all-reduce: reduced into the next slot's buffer)
 * and acted on when that iteration starts.
 *
 * Iterations: the first starts at start_ns, each next one compute_ns after
 * the previous ended on this rank. An iteration ends when everything this
 * rank had to receive arrived and everything it sent was acknowledged
 * (so its buffers may be reused). All-reduce then checks every element.
 *
 * Ownership: one thread. Invariants: a message is posted at most once per
 * iteration; all-reduce's chunk k of step s+1 is posted only after chunk k
 * of step s arrived whole (and was reduced).
 */
#ifndef COLL_COLL_JOB_H
#define COLL_COLL_JOB_H

#include <stdbool.h>
#include <stdint.h>

enum coll_kind { COLL_IDLE = 0, COLL_ALLREDUCE, COLL_PS, COLL_PIPELINE };

struct coll_params {
	enum coll_kind kind;
	int nranks, rank;
	uint32_t iters;
	uint64_t compute_ns;
	uint64_t start_ns;
	uint64_t model; /* bytes: all-reduce buffer, ps push/pull size */
	uint32_t chunk; /* bytes per message (all-reduce, ps) */
	int server; /* ps */
	uint32_t microbatches; /* pipeline */
	uint32_t activation; /* pipeline: bytes per microbatch */
};

void coll_params_default(struct coll_params *p);
/* 0 if p can run, else -1 and a static text in *why. */
int coll_params_check(const struct coll_params *p, const char **why);
/* "idle", "allreduce", "ps", "pipeline"; from name: -1 if unknown. */
const char *coll_kind_name(enum coll_kind k);
int coll_kind_from_name(const char *s);

typedef int (*coll_post_fn)(void *ctx, int peer, uint32_t id,
			    const uint8_t *data, uint32_t len);

struct coll_iter {
	uint64_t start_ns, end_ns;
};

struct coll_slot {
	uint32_t iter;
	bool used;
	uint32_t recv_msgs, send_done;
	uint32_t cnt; /* ps server: pushes; pipeline last stage: forwards */
	uint8_t *got; /* per expected message: arrived */
	uint8_t *buf; /* all-reduce: the model buffer of this iteration */
};

struct coll_job {
	struct coll_params p;
	coll_post_fn post;
	void *post_ctx;
	uint32_t cur; /* the iteration running or next to start */
	bool running;
	uint64_t next_start_ns;
	struct coll_iter *iters; /* p.iters entries */
	struct coll_slot slot[2];
	uint32_t ngot; /* entries of slot[].got */
	uint32_t exp_recv, exp_send; /* messages per iteration */
	uint32_t seg, nchunks, nsteps; /* all-reduce / ps geometry */
	/* counters */
	uint64_t verify_errors; /* all-reduce: wrong elements */
	uint64_t proto_errors; /* unexpected ids, lengths, peers */
	uint64_t post_errors; /* the transport refused a post */
	uint64_t msgs_received, bytes_received; /* message data bytes */
	uint64_t msgs_posted, bytes_posted;
};

/* 0, or -1 (bad params, no memory). */
int coll_job_init(struct coll_job *j, const struct coll_params *p,
		  coll_post_fn post, void *post_ctx);
void coll_job_free(struct coll_job *j);

/* The most messages one iteration posts to one peer (to size the QPs). */
uint32_t coll_job_msgs_per_peer(const struct coll_params *p);

/* Start the next iteration if it is due. */
void coll_job_poll(struct coll_job *j, uint64_t now);
/* When coll_job_poll() has something to do, UINT64_MAX: nothing. */
uint64_t coll_job_next_ns(const struct coll_job *j);

void coll_job_on_data(struct coll_job *j, int peer, uint32_t id, uint32_t off,
		      const uint8_t *p, uint32_t n);
void coll_job_on_msg(struct coll_job *j, int peer, uint32_t id, uint32_t len,
		     uint64_t now);
void coll_job_on_sent(struct coll_job *j, int peer, uint32_t id, uint64_t now);

/* Every iteration ended (an idle job never is). */
bool coll_job_done(const struct coll_job *j);
/* Iterations that ended. */
static inline uint32_t coll_job_completed(const struct coll_job *j)
{
	return j->cur;
}

/* The value rank r puts in element i of iteration it (all-reduce). */
uint32_t coll_elem(int r, uint32_t i, uint32_t it);

/* Decode an all-reduce message id. */
static inline uint32_t coll_id_step(uint32_t id)
{
	return (id >> 12) & 0xfff;
}

static inline uint32_t coll_id_chunk(uint32_t id)
{
	return id & 0xfff;
}

#endif
