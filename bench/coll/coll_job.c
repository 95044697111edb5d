// SPDX-License-Identifier: BSD-2-Clause
/*
 * coll_job.c - all-reduce, parameter server and pipeline jobs as state
 * machines over a message transport; see coll_job.h.
 */
#include "coll_job.h"

#include <stdlib.h>
#include <string.h>

#define ID_ITER_SHIFT 24
#define ID_LOW_MASK 0xffffffu
#define ID_DIR_BIT (1u << 23) /* ps pull, pipeline backward */
#define MAX_CHUNKS 4096
#define MAX_STEPS 4095

void coll_params_default(struct coll_params *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = COLL_ALLREDUCE;
	p->iters = 5;
	p->model = 4u << 20;
	p->chunk = 256u << 10;
	p->server = 4;
	p->microbatches = 8;
	p->activation = 1u << 20;
}

static const char *const kind_names[] = {"idle", "allreduce", "ps", "pipeline"};

const char *coll_kind_name(enum coll_kind k)
{
	return (unsigned int)k < 4 ? kind_names[k] : "unknown";
}

int coll_kind_from_name(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, kind_names[i]))
			return i;
	return -1;
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

int coll_params_check(const struct coll_params *p, const char **why)
{
	const char *w = NULL;

	if (p->nranks < 1 || p->nranks > 16)
		w = "ranks: 1 to 16";
	else if (p->rank < 0 || p->rank >= p->nranks)
		w = "rank: not in the hosts file";
	else if (p->kind == COLL_IDLE)
		w = NULL;
	else if (p->iters < 1 || p->iters > 1000000)
		w = "iters: 1 to 1000000";
	else if (p->kind == COLL_ALLREDUCE && p->nranks < 2)
		w = "allreduce: at least 2 ranks";
	else if (p->kind == COLL_ALLREDUCE &&
		 (p->model % (4ull * (uint64_t)p->nranks) || p->model == 0 ||
		  p->model > (1ull << 31)))
		w = "model: a multiple of 4 x ranks bytes, at most 2 GiB";
	else if ((p->kind == COLL_ALLREDUCE || p->kind == COLL_PS) &&
		 (p->chunk < 4 || p->chunk % 4))
		w = "chunk: a multiple of 4 bytes";
	else if (p->kind == COLL_ALLREDUCE &&
		 div_up(p->model / (uint64_t)p->nranks, p->chunk) > MAX_CHUNKS)
		w = "allreduce: at most 4096 chunks per segment";
	else if (p->kind == COLL_PS &&
		 (p->nranks < 2 || p->server < 0 || p->server >= p->nranks))
		w = "ps: --server must be one of at least 2 ranks";
	else if (p->kind == COLL_PS &&
		 (p->model == 0 || div_up(p->model, p->chunk) > MAX_CHUNKS))
		w = "ps: model of 1 to 4096 chunks";
	else if (p->kind == COLL_PIPELINE &&
		 (p->nranks < 2 || p->microbatches < 1 ||
		  p->microbatches > MAX_CHUNKS || p->activation < 1))
		w = "pipeline: 2+ ranks, 1 to 4096 microbatches, activation "
		    ">= 1 byte";
	if (why)
		*why = w;
	return w ? -1 : 0;
}

uint32_t coll_job_msgs_per_peer(const struct coll_params *p)
{
	switch (p->kind) {
	case COLL_ALLREDUCE:
		return 2 * ((uint32_t)p->nranks - 1) *
		       div_up(p->model / (uint64_t)p->nranks, p->chunk);
	case COLL_PS:
		return div_up(p->model, p->chunk);
	case COLL_PIPELINE:
		return p->microbatches;
	default:
		return 1;
	}
}

uint32_t coll_elem(int r, uint32_t i, uint32_t it)
{
	uint32_t x = (uint32_t)(r + 1) * 0x9e3779b1u ^ (i * 0x85ebca6bu) ^
		     (it * 0xc2b2ae35u);

	x ^= x >> 15;
	return x * 0x2c1b3c6du + i;
}

/* ---- geometry ---- */

static int ring_prev(const struct coll_job *j)
{
	return (j->p.rank + j->p.nranks - 1) % j->p.nranks;
}

static int ring_next(const struct coll_job *j)
{
	return (j->p.rank + 1) % j->p.nranks;
}

static uint32_t make_id(uint32_t it, uint32_t low)
{
	return (it & 0xff) << ID_ITER_SHIFT | (low & ID_LOW_MASK);
}

/* All-reduce: the segment rank r sends at step t, and the one it receives
 * (from r - 1) at step t. */
static uint32_t ar_send_seg(const struct coll_job *j, uint32_t t)
{
	int n = j->p.nranks, r = j->p.rank;
	int s = t < (uint32_t)n - 1 ? r - (int)t : r + 1 - (int)(t - (n - 1));

	return (uint32_t)(((s % n) + n) % n);
}

static uint32_t ar_recv_seg(const struct coll_job *j, uint32_t t)
{
	int n = j->p.nranks, r = j->p.rank;
	int s = t < (uint32_t)n - 1 ? r - 1 - (int)t : r - (int)(t - (n - 1));

	return (uint32_t)(((s % n) + n) % n);
}

static uint32_t chunk_len(const struct coll_job *j, uint32_t total, uint32_t k)
{
	uint32_t off = k * j->p.chunk;

	return total - off < j->p.chunk ? total - off : j->p.chunk;
}

/* ---- slots ---- */

static void slot_reset(struct coll_job *j, struct coll_slot *s, uint32_t it)
{
	s->iter = it;
	s->used = true;
	s->recv_msgs = 0;
	s->send_done = 0;
	s->cnt = 0;
	memset(s->got, 0, j->ngot);
	if (j->p.kind == COLL_ALLREDUCE) {
		uint32_t *e = (uint32_t *)s->buf;
		uint32_t n = (uint32_t)(j->p.model / 4);

		for (uint32_t i = 0; i < n; i++)
			e[i] = coll_elem(j->p.rank, i, it);
	}
}

/* The slot of the iteration a message id names: the current one or the
 * next. NULL (a protocol error) otherwise. */
static struct coll_slot *slot_of(struct coll_job *j, uint32_t id)
{
	uint32_t d = ((id >> ID_ITER_SHIFT) - j->cur) & 0xff, it;
	struct coll_slot *s;

	if (d > 1 || j->cur + d >= j->p.iters) {
		j->proto_errors++;
		return NULL;
	}
	it = j->cur + d;
	s = &j->slot[it & 1];
	if (!s->used || s->iter != it)
		slot_reset(j, s, it);
	return s;
}

int coll_job_init(struct coll_job *j, const struct coll_params *p,
		  coll_post_fn post, void *post_ctx)
{
	if (coll_params_check(p, NULL))
		return -1;
	memset(j, 0, sizeof(*j));
	j->p = *p;
	j->post = post;
	j->post_ctx = post_ctx;
	j->next_start_ns = p->start_ns;
	if (p->kind == COLL_IDLE)
		return 0;
	j->iters = calloc(p->iters, sizeof(*j->iters));
	if (!j->iters)
		return -1;
	switch (p->kind) {
	case COLL_ALLREDUCE:
		j->seg = (uint32_t)(p->model / (uint64_t)p->nranks);
		j->nchunks = div_up(j->seg, p->chunk);
		j->nsteps = 2 * ((uint32_t)p->nranks - 1);
		j->ngot = j->nsteps * j->nchunks;
		j->exp_recv = j->exp_send = j->ngot;
		break;
	case COLL_PS:
		j->nchunks = div_up(p->model, p->chunk);
		j->ngot = (uint32_t)p->nranks * j->nchunks;
		if (p->rank == p->server)
			j->exp_recv = j->exp_send =
				((uint32_t)p->nranks - 1) * j->nchunks;
		else
			j->exp_recv = j->exp_send = j->nchunks;
		break;
	case COLL_PIPELINE:
		j->ngot = 2 * p->microbatches;
		j->exp_recv = (p->rank > 0 ? p->microbatches : 0) +
			      (p->rank < p->nranks - 1 ? p->microbatches : 0);
		j->exp_send = j->exp_recv;
		break;
	default:
		break;
	}
	for (int i = 0; i < 2; i++) {
		j->slot[i].got = calloc(j->ngot ? j->ngot : 1, 1);
		if (!j->slot[i].got)
			goto fail;
		if (p->kind == COLL_ALLREDUCE) {
			j->slot[i].buf = malloc(p->model);
			if (!j->slot[i].buf)
				goto fail;
		}
	}
	return 0;
fail:
	coll_job_free(j);
	return -1;
}

void coll_job_free(struct coll_job *j)
{
	for (int i = 0; i < 2; i++) {
		free(j->slot[i].got);
		free(j->slot[i].buf);
		j->slot[i].got = NULL;
		j->slot[i].buf = NULL;
	}
	free(j->iters);
	j->iters = NULL;
}

static void post(struct coll_job *j, int peer, uint32_t id, const uint8_t *data,
		 uint32_t len)
{
	if (j->post(j->post_ctx, peer, id, data, len)) {
		j->post_errors++;
		return;
	}
	j->msgs_posted++;
	j->bytes_posted += len;
}

/* ---- all-reduce ---- */

static void ar_send(struct coll_job *j, struct coll_slot *s, uint32_t t,
		    uint32_t k)
{
	uint32_t off = ar_send_seg(j, t) * j->seg + k * j->p.chunk;

	post(j, ring_next(j), make_id(s->iter, t << 12 | k), s->buf + off,
	     chunk_len(j, j->seg, k));
}

static void ar_start(struct coll_job *j, struct coll_slot *s)
{
	for (uint32_t t = 0; t < j->nsteps; t++)
		for (uint32_t k = 0; k < j->nchunks; k++)
			if (t == 0 || s->got[(t - 1) * j->nchunks + k])
				ar_send(j, s, t, k);
}

static bool ar_check_id(struct coll_job *j, int peer, uint32_t id)
{
	if (peer != ring_prev(j) || coll_id_step(id) >= j->nsteps ||
	    coll_id_chunk(id) >= j->nchunks) {
		j->proto_errors++;
		return false;
	}
	return true;
}

static void ar_data(struct coll_job *j, int peer, uint32_t id, uint32_t off,
		    const uint8_t *p, uint32_t n)
{
	uint32_t t = coll_id_step(id), k = coll_id_chunk(id), base, cl;
	struct coll_slot *s;

	if (!ar_check_id(j, peer, id) || !(s = slot_of(j, id)))
		return;
	cl = chunk_len(j, j->seg, k);
	if (off > cl || n > cl - off || (off | n) % 4) {
		j->proto_errors++;
		return;
	}
	base = ar_recv_seg(j, t) * j->seg + k * j->p.chunk + off;
	if (t < (uint32_t)j->p.nranks - 1) { /* reduce-scatter: add */
		uint32_t *e = (uint32_t *)(s->buf + base);

		for (uint32_t i = 0; i < n / 4; i++) {
			uint32_t v;

			memcpy(&v, p + 4 * i, 4);
			e[i] += v;
		}
	} else { /* all-gather: copy */
		memcpy(s->buf + base, p, n);
	}
}

static void ar_verify(struct coll_job *j, struct coll_slot *s)
{
	const uint32_t *e = (const uint32_t *)s->buf;
	uint32_t n = (uint32_t)(j->p.model / 4);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t want = 0;

		for (int r = 0; r < j->p.nranks; r++)
			want += coll_elem(r, i, s->iter);
		if (e[i] != want)
			j->verify_errors++;
	}
}

/* ---- parameter server ---- */

static void ps_pulls(struct coll_job *j, struct coll_slot *s)
{
	for (int w = 0; w < j->p.nranks; w++) {
		if (w == j->p.server)
			continue;
		for (uint32_t k = 0; k < j->nchunks; k++)
			post(j, w, make_id(s->iter, ID_DIR_BIT | k), NULL,
			     chunk_len(j, (uint32_t)j->p.model, k));
	}
}

static void ps_start(struct coll_job *j, struct coll_slot *s)
{
	if (j->p.rank == j->p.server) {
		if (s->cnt == j->exp_recv)
			ps_pulls(j, s);
		return;
	}
	for (uint32_t k = 0; k < j->nchunks; k++)
		post(j, j->p.server, make_id(s->iter, k), NULL,
		     chunk_len(j, (uint32_t)j->p.model, k));
}

/* ---- pipeline ---- */

static void pp_backward(struct coll_job *j, struct coll_slot *s)
{
	for (uint32_t m = j->p.microbatches; m-- > 0;)
		post(j, j->p.rank - 1, make_id(s->iter, ID_DIR_BIT | m), NULL,
		     j->p.activation);
}

static void pp_start(struct coll_job *j, struct coll_slot *s)
{
	int r = j->p.rank, last = j->p.nranks - 1;
	uint32_t mb = j->p.microbatches;

	if (r == 0) {
		for (uint32_t m = 0; m < mb; m++)
			post(j, 1, make_id(s->iter, m), NULL, j->p.activation);
		return;
	}
	/* what arrived before the iteration started */
	for (uint32_t m = 0; m < mb; m++)
		if (s->got[m] && r < last)
			post(j, r + 1, make_id(s->iter, m), NULL,
			     j->p.activation);
	if (r == last && s->cnt == mb)
		pp_backward(j, s);
	for (uint32_t m = mb; m-- > 0;)
		if (s->got[mb + m])
			post(j, r - 1, make_id(s->iter, ID_DIR_BIT | m), NULL,
			     j->p.activation);
}

/* ---- the iteration ---- */

static void maybe_end(struct coll_job *j, uint64_t now)
{
	struct coll_slot *s = &j->slot[j->cur & 1];

	if (!j->running || !s->used || s->iter != j->cur ||
	    s->recv_msgs < j->exp_recv || s->send_done < j->exp_send)
		return;
	j->iters[j->cur].end_ns = now;
	if (j->p.kind == COLL_ALLREDUCE)
		ar_verify(j, s);
	j->running = false;
	j->cur++;
	j->next_start_ns = now + j->p.compute_ns;
}

void coll_job_poll(struct coll_job *j, uint64_t now)
{
	struct coll_slot *s;

	if (j->p.kind == COLL_IDLE || j->running || j->cur >= j->p.iters ||
	    now < j->next_start_ns)
		return;
	j->running = true;
	j->iters[j->cur].start_ns = now;
	s = &j->slot[j->cur & 1];
	if (!s->used || s->iter != j->cur)
		slot_reset(j, s, j->cur);
	switch (j->p.kind) {
	case COLL_ALLREDUCE:
		ar_start(j, s);
		break;
	case COLL_PS:
		ps_start(j, s);
		break;
	case COLL_PIPELINE:
		pp_start(j, s);
		break;
	default:
		break;
	}
	maybe_end(j, now);
}

uint64_t coll_job_next_ns(const struct coll_job *j)
{
	if (j->p.kind == COLL_IDLE || j->running || j->cur >= j->p.iters)
		return UINT64_MAX;
	return j->next_start_ns;
}

void coll_job_on_data(struct coll_job *j, int peer, uint32_t id, uint32_t off,
		      const uint8_t *p, uint32_t n)
{
	j->bytes_received += n;
	if (j->p.kind == COLL_ALLREDUCE)
		ar_data(j, peer, id, off, p, n);
}

/* The index in got[] of a received message, or -1 (counted). */
static int64_t got_index(struct coll_job *j, int peer, uint32_t id,
			 uint32_t len)
{
	uint32_t low = id & ID_LOW_MASK, k = low & ~ID_DIR_BIT;
	bool dir = low & ID_DIR_BIT;
	int r = j->p.rank;

	switch (j->p.kind) {
	case COLL_ALLREDUCE:
		if (!ar_check_id(j, peer, id))
			return -1;
		if (len != chunk_len(j, j->seg, coll_id_chunk(id)))
			break;
		return coll_id_step(id) * j->nchunks + coll_id_chunk(id);
	case COLL_PS:
		if (k >= j->nchunks ||
		    len != chunk_len(j, (uint32_t)j->p.model, k))
			break;
		if (r == j->p.server && !dir && peer != r)
			return (int64_t)peer * j->nchunks + k;
		if (r != j->p.server && dir && peer == j->p.server)
			return k;
		break;
	case COLL_PIPELINE:
		if (k >= j->p.microbatches || len != j->p.activation)
			break;
		if (!dir && peer == r - 1)
			return k;
		if (dir && peer == r + 1)
			return j->p.microbatches + k;
		break;
	default:
		break;
	}
	j->proto_errors++;
	return -1;
}

void coll_job_on_msg(struct coll_job *j, int peer, uint32_t id, uint32_t len,
		     uint64_t now)
{
	struct coll_slot *s;
	int64_t g = got_index(j, peer, id, len);
	bool live;

	if (g < 0 || !(s = slot_of(j, id)))
		return;
	if (s->got[g]) {
		j->proto_errors++;
		return;
	}
	s->got[g] = 1;
	s->recv_msgs++;
	j->msgs_received++;
	live = j->running && s->iter == j->cur;
	switch (j->p.kind) {
	case COLL_ALLREDUCE: {
		uint32_t t = coll_id_step(id);

		if (live && t + 1 < j->nsteps)
			ar_send(j, s, t + 1, coll_id_chunk(id));
		break;
	}
	case COLL_PS:
		if (j->p.rank == j->p.server && ++s->cnt == j->exp_recv && live)
			ps_pulls(j, s);
		break;
	case COLL_PIPELINE: {
		uint32_t m = (uint32_t)g % j->p.microbatches;
		int r = j->p.rank, last = j->p.nranks - 1;

		if (g < (int64_t)j->p.microbatches) { /* forward */
			if (r < last && live)
				post(j, r + 1, make_id(s->iter, m), NULL,
				     j->p.activation);
			if (r == last && ++s->cnt == j->p.microbatches && live)
				pp_backward(j, s);
		} else if (r > 0 && live) {
			post(j, r - 1, make_id(s->iter, ID_DIR_BIT | m), NULL,
			     j->p.activation);
		}
		break;
	}
	default:
		break;
	}
	maybe_end(j, now);
}

void coll_job_on_sent(struct coll_job *j, int peer, uint32_t id, uint64_t now)
{
	struct coll_slot *s = slot_of(j, id);

	if (!s)
		return;
	s->send_done++;
	maybe_end(j, now);
}

bool coll_job_done(const struct coll_job *j)
{
	return j->p.kind != COLL_IDLE && !j->running && j->cur >= j->p.iters;
}
