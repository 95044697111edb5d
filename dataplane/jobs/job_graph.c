// SPDX-License-Identifier: BSD-2-Clause
/*
 * job_graph.c - expiry of the passive host graph: idle edges and the
 * hosts they leave alone go, the components are computed again and
 * their jobs claimed (the model in job_table.h); and the table's
 * invariants (job_table_check()).
 */
#include <stdlib.h>
#include <string.h>
#include "job_int.h"

static void indices_rebuild(struct job_table *t)
{
	memset(t->host_index, 0xff, (t->host_mask + 1ull) * sizeof(uint32_t));
	memset(t->edge_index, 0xff, (t->edge_mask + 1ull) * sizeof(uint32_t));
	for (uint32_t h = 0; h < t->par.max_hosts; h++)
		if (t->hosts[h].live)
			jt_host_index_add(t, h);
	for (uint32_t e = 0; e < t->par.max_edges; e++)
		if (t->edges[e].a != JOB_NONE)
			jt_edge_index_add(t, e);
}

static void edge_free(struct job_table *t, uint32_t e)
{
	struct job_edge *ed = &t->edges[e];

	t->hosts[ed->a].degree--;
	t->hosts[ed->b].degree--;
	if (!ed->merge) {
		t->hosts[ed->a].flows--;
		t->hosts[ed->b].flows--;
	}
	ed->a = ed->b = JOB_NONE;
	t->edge_free[t->n_edge_free++] = e;
}

static void host_free(struct job_table *t, uint32_t h)
{
	t->hosts[h].live = 0;
	t->host_free[t->n_host_free++] = h;
}

/* the edges and hosts that leave; false if none */
static bool expire_entries(struct job_table *t, uint64_t now, uint32_t *n)
{
	uint32_t removed = 0, gone = 0;

	for (uint32_t e = 0; e < t->par.max_edges; e++) {
		struct job_edge *ed = &t->edges[e];

		if (ed->a == JOB_NONE || ed->merge ||
		    now - ed->last_ns < t->par.idle_ns || now < ed->last_ns)
			continue;
		edge_free(t, e);
		removed++;
	}
	/* a host without flows leaves, and the merge edges it holds */
	for (uint32_t e = 0; e < t->par.max_edges; e++) {
		struct job_edge *ed = &t->edges[e];

		if (ed->a != JOB_NONE && ed->merge &&
		    (!t->hosts[ed->a].flows || !t->hosts[ed->b].flows)) {
			edge_free(t, e);
			removed++;
		}
	}
	for (uint32_t h = 0; h < t->par.max_hosts; h++) {
		if (t->hosts[h].live && !t->hosts[h].degree) {
			host_free(t, h);
			gone++;
		}
	}
	ctr_add(&t->st.edges_expired, removed);
	ctr_add(&t->st.hosts_expired, gone);
	*n = removed;
	return removed || gone;
}

/* union-find from scratch over the live edges (union by size in sz) */
static void forest_rebuild(struct job_table *t, uint32_t *sz)
{
	for (uint32_t h = 0; h < t->par.max_hosts; h++) {
		t->hosts[h].parent = h;
		t->hosts[h].job = JOB_NONE;
		sz[h] = 1;
	}
	for (uint32_t e = 0; e < t->par.max_edges; e++) {
		uint32_t a, b;

		if (t->edges[e].a == JOB_NONE)
			continue;
		a = jt_root_halve(t, t->edges[e].a);
		b = jt_root_halve(t, t->edges[e].b);
		if (a == b)
			continue;
		if (sz[a] < sz[b]) {
			uint32_t x = a;

			a = b;
			b = x;
		}
		t->hosts[b].parent = a;
		sz[a] += sz[b];
	}
}

/* Each old job goes to the component holding most of its hosts (the
 * first such in slot order on a tie); a component keeps the oldest job
 * that came to it; the others are merged into it. */
static void jobs_claim(struct job_table *t, const uint32_t *prev,
		       const uint32_t *next, const uint32_t *head,
		       uint32_t *comp_job)
{
	uint32_t *cnt = t->scratch + SC_HOST_ARRAYS * t->par.max_hosts;
	uint32_t *best = cnt + t->max_jobs, *best_cnt = best + t->max_jobs;
	uint32_t *touched = best_cnt + t->max_jobs;

	for (uint32_t j = 0; j < t->max_jobs; j++) {
		cnt[j] = 0;
		best[j] = JOB_NONE;
		best_cnt[j] = 0;
	}
	for (uint32_t r = 0; r < t->par.max_hosts; r++) {
		uint32_t nt = 0;

		comp_job[r] = JOB_NONE;
		if (!t->hosts[r].live || t->hosts[r].parent != r)
			continue;
		for (uint32_t h = head[r]; h != JOB_NONE; h = next[h]) {
			if (prev[h] == JOB_NONE)
				continue;
			if (!cnt[prev[h]]++)
				touched[nt++] = prev[h];
		}
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t j = touched[i];

			if (cnt[j] > best_cnt[j]) {
				best_cnt[j] = cnt[j];
				best[j] = r;
			}
			cnt[j] = 0;
		}
	}
	for (uint32_t j = t->par.max_registered; j < t->max_jobs; j++) {
		uint32_t r = best[j], *cj;

		if (t->jobs[j].kind != JOB_PASSIVE)
			continue;
		if (r == JOB_NONE) {
			jt_job_release(t, j);
			ctr_add(&t->st.passive_expired, 1);
			continue;
		}
		cj = &comp_job[r];
		if (*cj != JOB_NONE && jt_older(t, *cj, j)) {
			jt_job_release(t, j);
			ctr_add(&t->st.passive_merged, 1);
			continue;
		}
		if (*cj != JOB_NONE) {
			jt_job_release(t, *cj);
			ctr_add(&t->st.passive_merged, 1);
		}
		*cj = j;
	}
}

uint32_t job_table_expire(struct job_table *t, uint64_t now_ns)
{
	uint32_t H = t->par.max_hosts, removed = 0;
	uint32_t *prev = t->scratch + SC_PREV * H;
	uint32_t *next = t->scratch + SC_NEXT * H;
	uint32_t *head = t->scratch + SC_HEAD * H;
	uint32_t *sz = t->scratch + SC_SIZE * H;
	uint32_t *comp_job = sz; /* sizes are done with before its use */

	if (!t->par.max_passive)
		return 0;
	/* every host's job before anything leaves (a leaving host may lie
	 * on another's path to its root) */
	for (uint32_t h = 0; h < H; h++)
		prev[h] = t->hosts[h].live ? t->hosts[jt_root_of(t, h)].job
					   : JOB_NONE;
	if (!expire_entries(t, now_ns, &removed))
		return 0;
	forest_rebuild(t, sz);
	for (uint32_t h = 0; h < H; h++)
		head[h] = JOB_NONE;
	for (uint32_t h = 0; h < H; h++) {
		uint32_t r;

		if (!t->hosts[h].live)
			continue;
		r = jt_root_halve(t, h);
		next[h] = head[r];
		head[r] = h;
	}
	jobs_claim(t, prev, next, head, comp_job);
	/* components without a job get a new one, or leave if none is free */
	for (uint32_t r = 0; r < H; r++) {
		if (!t->hosts[r].live || t->hosts[r].parent != r ||
		    comp_job[r] != JOB_NONE)
			continue;
		comp_job[r] = jt_passive_take(t, now_ns);
		if (comp_job[r] != JOB_NONE)
			continue;
		ctr_add(&t->st.full_passive, 1);
		for (uint32_t h = head[r]; h != JOB_NONE; h = next[h])
			t->hosts[h].live = 0; /* freed below */
	}
	for (uint32_t e = 0; e < t->par.max_edges; e++)
		if (t->edges[e].a != JOB_NONE && !t->hosts[t->edges[e].a].live)
			edge_free(t, e);
	for (uint32_t r = 0; r < H; r++) {
		if (head[r] == JOB_NONE || comp_job[r] != JOB_NONE)
			continue;
		for (uint32_t h = head[r]; h != JOB_NONE; h = next[h])
			t->host_free[t->n_host_free++] = h;
	}
	/* the jobs' view of their components */
	for (uint32_t r = 0; r < H; r++) {
		struct job *j;

		if (head[r] == JOB_NONE || comp_job[r] == JOB_NONE)
			continue;
		j = &t->jobs[comp_job[r]];
		t->hosts[r].job = comp_job[r];
		j->root = r;
		j->hosts = 0;
		j->edges = 0;
		j->class_mask = 0;
		j->last_ns = 0;
		for (uint32_t h = head[r]; h != JOB_NONE; h = next[h])
			j->hosts++;
	}
	for (uint32_t e = 0; e < t->par.max_edges; e++) {
		struct job_edge *ed = &t->edges[e];
		struct job *j;

		if (ed->a == JOB_NONE)
			continue;
		j = &t->jobs[t->hosts[jt_root_of(t, ed->a)].job];
		j->edges++;
		j->class_mask |= ed->class_mask;
		if (ed->last_ns > j->last_ns)
			j->last_ns = ed->last_ns;
	}
	indices_rebuild(t);
	t->gen++;
	return removed;
}

/* ---- invariants ---- */

const char *job_table_check(const struct job_table *t)
{
	uint32_t nh = 0, ne = 0;

	for (uint32_t h = 0; h < t->par.max_hosts; h++) {
		const struct job_host *hs = &t->hosts[h];
		uint32_t r, j;

		if (!hs->live)
			continue;
		nh++;
		r = jt_root_of(t, h);
		j = t->hosts[r].job;
		if (j == JOB_NONE || j >= t->max_jobs ||
		    t->jobs[j].kind != JOB_PASSIVE || t->jobs[j].root != r)
			return "a live host's root holds no live passive job";
		if (jt_host_find(t, &hs->addr) != h)
			return "the host index does not find a live host";
		if (!hs->degree || hs->flows > hs->degree)
			return "a live host without edges";
	}
	for (uint32_t e = 0; e < t->par.max_edges; e++) {
		const struct job_edge *ed = &t->edges[e];

		if (ed->a == JOB_NONE)
			continue;
		ne++;
		if (ed->a >= ed->b || ed->b >= t->par.max_hosts ||
		    !t->hosts[ed->a].live || !t->hosts[ed->b].live)
			return "an edge with a host that is not live";
		if (jt_root_of(t, ed->a) != jt_root_of(t, ed->b))
			return "an edge across two components";
		if (jt_edge_find(t, ed->a, ed->b) != e)
			return "the edge index does not find a live edge";
	}
	if (nh + t->n_host_free != t->par.max_hosts ||
	    ne + t->n_edge_free != t->par.max_edges)
		return "free slots and live entries do not add up";
	for (uint32_t j = 0; j < t->max_jobs; j++) {
		const struct job *jb = &t->jobs[j];
		uint32_t n = 0;

		if ((jb->kind == JOB_PASSIVE) != (j >= t->par.max_registered) &&
		    jb->kind != JOB_FREE)
			return "a job in a slot of the other kind";
		if (jb->kind != JOB_PASSIVE)
			continue;
		if (jb->root >= t->par.max_hosts || !t->hosts[jb->root].live ||
		    t->hosts[jb->root].parent != jb->root ||
		    t->hosts[jb->root].job != j)
			return "a passive job without its component";
		for (uint32_t h = 0; h < t->par.max_hosts; h++)
			n += t->hosts[h].live && jt_root_of(t, h) == jb->root;
		if (n != jb->hosts)
			return "a passive job's host count is wrong";
	}
	return NULL;
}
