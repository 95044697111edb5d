// SPDX-License-Identifier: BSD-2-Clause
/*
 * job_table.c - the job table (job_table.h): its slots, registrations,
 * the host graph as flows are observed, lookups, merges (what the files
 * share: job_int.h; expiry: job_graph.c; the snapshot: job_snap.c).
 *
 * Hosts and edges live in fixed arrays with a stack of free slots each;
 * one open-addressed index per array (linear probing, 2x the array's
 * size, so a probe always meets an empty position). Between expiries
 * entries are only added; job_table_expire() frees entries and builds
 * both indices again, so no deletion ever happens inside an index. The
 * components are a union-find forest over the hosts (union by size, path
 * halving); the job of a component is held by its root.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job_int.h"

static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

void job_table_params_default(struct job_table_params *p)
{
	memset(p, 0, sizeof(*p));
	p->max_registered = 64;
	p->max_passive = 64;
	p->max_hosts = 1024;
	p->max_edges = 4096;
	p->idle_ns = 10ull * 1000 * 1000 * 1000;
}

const char *job_table_params_check(const struct job_table_params *p)
{
	if (!p->max_registered && !p->max_passive)
		return "max_registered + max_passive";
	if ((uint64_t)p->max_registered + p->max_passive > JOB_TABLE_JOBS_MAX)
		return "max_registered + max_passive";
	if (p->max_passive &&
	    (p->max_hosts < 2 || p->max_hosts > JOB_TABLE_HOSTS_MAX))
		return "max_hosts";
	if (p->max_passive &&
	    (!p->max_edges || p->max_edges > JOB_TABLE_EDGES_MAX))
		return "max_edges";
	if (!p->idle_ns)
		return "idle_ns";
	return NULL;
}

static bool prefixes_overlap(const struct qos_prefix *p,
			     const struct qos_prefix *q)
{
	return p->family == q->family &&
	       bits_eq(p->addr, q->addr, p->len < q->len ? p->len : q->len);
}

static void prefix_str(const struct qos_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family == 4 ? AF_INET : AF_INET6, p->addr, a,
		       sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, len, "%s/%u", a, p->len);
}

/* ---- the life of the table ---- */

static uint32_t pow2_at_least(uint64_t n)
{
	uint32_t m = 1;

	while (m < n)
		m <<= 1;
	return m;
}

int job_table_init(struct job_table *t, const struct job_table_params *p,
		   char *errbuf, size_t errlen)
{
	const char *bad = job_table_params_check(p);
	uint32_t h, e, nsc;

	memset(t, 0, sizeof(*t));
	if (bad) {
		say(errbuf, errlen, "job table: bad %s", bad);
		return -1;
	}
	t->par = *p;
	t->max_jobs = p->max_registered + p->max_passive;
	h = p->max_passive ? p->max_hosts : 1;
	e = p->max_passive ? p->max_edges : 1;
	t->par.max_hosts = h;
	t->par.max_edges = e;
	t->host_mask = pow2_at_least(2ull * h) - 1;
	t->edge_mask = pow2_at_least(2ull * e) - 1;
	nsc = SC_HOST_ARRAYS * h + SC_JOB_ARRAYS * t->max_jobs;
	t->jobs = calloc(t->max_jobs, sizeof(*t->jobs));
	t->hosts = calloc(h, sizeof(*t->hosts));
	t->edges = calloc(e, sizeof(*t->edges));
	t->host_index = malloc((t->host_mask + 1ull) * sizeof(uint32_t));
	t->edge_index = malloc((t->edge_mask + 1ull) * sizeof(uint32_t));
	t->host_free = malloc((size_t)h * sizeof(uint32_t));
	t->edge_free = malloc((size_t)e * sizeof(uint32_t));
	t->scratch = malloc((size_t)nsc * sizeof(uint32_t));
	if (!t->jobs || !t->hosts || !t->edges || !t->host_index ||
	    !t->edge_index || !t->host_free || !t->edge_free || !t->scratch) {
		job_table_fini(t);
		say(errbuf, errlen, "job table: out of memory");
		return -1;
	}
	memset(t->host_index, 0xff, (t->host_mask + 1ull) * sizeof(uint32_t));
	memset(t->edge_index, 0xff, (t->edge_mask + 1ull) * sizeof(uint32_t));
	/* free stacks: slot 0 on top */
	for (uint32_t i = 0; i < h; i++)
		t->host_free[i] = h - 1 - i;
	for (uint32_t i = 0; i < e; i++) {
		t->edge_free[i] = e - 1 - i;
		t->edges[i].a = t->edges[i].b = JOB_NONE;
	}
	t->n_host_free = h;
	t->n_edge_free = e;
	t->passive_seq = 1;
	return 0;
}

void job_table_fini(struct job_table *t)
{
	free(t->jobs);
	free(t->hosts);
	free(t->edges);
	free(t->host_index);
	free(t->edge_index);
	free(t->host_free);
	free(t->edge_free);
	free(t->scratch);
	memset(t, 0, sizeof(*t));
}

/* ---- slots of jobs ---- */

bool jt_older(const struct job_table *t, uint32_t a, uint32_t b)
{
	const struct job *x = &t->jobs[a], *y = &t->jobs[b];

	return x->created_ns < y->created_ns ||
	       (x->created_ns == y->created_ns && a < b);
}

static void job_take(struct job_table *t, uint32_t i, uint8_t kind,
		     uint64_t now)
{
	struct job *j = &t->jobs[i];
	uint32_t epoch = j->epoch + 1;

	memset(j, 0, sizeof(*j));
	j->kind = kind;
	j->epoch = epoch;
	j->created_ns = now;
	j->last_ns = now;
	j->root = JOB_NONE;
}

void jt_job_release(struct job_table *t, uint32_t i)
{
	t->jobs[i].kind = JOB_FREE;
	t->gen++;
}

uint32_t jt_passive_take(struct job_table *t, uint64_t now)
{
	for (uint32_t i = t->par.max_registered; i < t->max_jobs; i++) {
		if (t->jobs[i].kind != JOB_FREE)
			continue;
		job_take(t, i, JOB_PASSIVE, now);
		snprintf(t->jobs[i].id, sizeof(t->jobs[i].id),
			 JOB_PASSIVE_PREFIX "%llu",
			 (unsigned long long)t->passive_seq++);
		ctr_add(&t->st.passive_created, 1);
		t->gen++;
		return i;
	}
	return JOB_NONE;
}

uint32_t job_table_find(const struct job_table *t, const char *id)
{
	for (uint32_t i = 0; i < t->max_jobs; i++)
		if (t->jobs[i].kind != JOB_FREE && !strcmp(t->jobs[i].id, id))
			return i;
	return JOB_NONE;
}

const struct job *job_table_job(const struct job_table *t, uint32_t i)
{
	return i < t->max_jobs ? &t->jobs[i] : NULL;
}

uint32_t job_table_count(const struct job_table *t, enum job_kind kind)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->max_jobs; i++)
		n += t->jobs[i].kind == kind;
	return n;
}

uint32_t job_table_hosts(const struct job_table *t)
{
	return t->par.max_hosts - t->n_host_free;
}

uint32_t job_table_edges(const struct job_table *t)
{
	return t->par.max_edges - t->n_edge_free;
}

/* ---- registration ---- */

static bool id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
	       c == '/' || c == '-';
}

static bool class_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

int job_reg_check(const struct job_reg *r, char *errbuf, size_t errlen)
{
	size_t n = strnlen(r->id, JOB_ID_MAX);

	if (!n) {
		say(errbuf, errlen, "id is empty");
		return -1;
	}
	if (n == JOB_ID_MAX) {
		say(errbuf, errlen, "id is longer than %d characters",
		    JOB_ID_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (id_char(r->id[i]))
			continue;
		if (r->id[i] >= 0x21 && r->id[i] <= 0x7e)
			say(errbuf, errlen,
			    "id '%s' holds '%c'; use letters, digits and "
			    ". _ : / -",
			    r->id, r->id[i]);
		else
			say(errbuf, errlen,
			    "id holds byte 0x%02x; use letters, digits and "
			    ". _ : / -",
			    (unsigned int)(uint8_t)r->id[i]);
		return -1;
	}
	if (!strncmp(r->id, JOB_PASSIVE_PREFIX, strlen(JOB_PASSIVE_PREFIX))) {
		say(errbuf, errlen, "id '%s' is reserved for passive jobs",
		    r->id);
		return -1;
	}
	if (r->n_prefixes > JOB_PREFIXES_MAX) {
		say(errbuf, errlen, "prefixes: %u given, at most %d",
		    r->n_prefixes, JOB_PREFIXES_MAX);
		return -1;
	}
	for (uint32_t i = 0; i < r->n_prefixes; i++) {
		const struct qos_prefix *p = &r->prefixes[i];
		unsigned int bits = p->family == 4 ? 32 : 128;
		struct qos_prefix c = *p;

		if (p->family != 4 && p->family != 6) {
			say(errbuf, errlen,
			    "prefixes[%u]: family %u is neither 4 nor 6", i,
			    p->family);
			return -1;
		}
		if (p->len > bits) {
			say(errbuf, errlen,
			    "prefixes[%u]: length %u is longer than %u", i,
			    p->len, bits);
			return -1;
		}
		for (unsigned int b = p->len; b < 128; b++)
			c.addr[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
		if (memcmp(c.addr, p->addr, bits / 8)) {
			say(errbuf, errlen, "prefixes[%u]: host bits set", i);
			return -1;
		}
	}
	if (r->dscp != JOB_DSCP_NONE && r->dscp > 63) {
		say(errbuf, errlen, "dscp %u is out of range (0..63)", r->dscp);
		return -1;
	}
	if (!r->n_prefixes && r->dscp == JOB_DSCP_NONE) {
		say(errbuf, errlen,
		    "no prefixes and no dscp: nothing would tell the job's "
		    "flows");
		return -1;
	}
	n = strnlen(r->prio_class, JOB_CLASS_NAME_MAX);
	if (n == JOB_CLASS_NAME_MAX) {
		say(errbuf, errlen, "prio_class is longer than %d characters",
		    JOB_CLASS_NAME_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (class_char(r->prio_class[i]))
			continue;
		say(errbuf, errlen,
		    "prio_class holds byte 0x%02x; use letters, digits and "
		    "_ . -",
		    (unsigned int)(uint8_t)r->prio_class[i]);
		return -1;
	}
	return 0;
}

/* r against registered job o: NULL-free message in errbuf if they could
 * both match one flow */
static bool reg_overlaps(const struct job_reg *r, const struct job *o,
			 char *errbuf, size_t errlen)
{
	const struct job_reg *q = &o->reg;
	char a[64], b[64];

	if (r->dscp != JOB_DSCP_NONE && q->dscp != JOB_DSCP_NONE &&
	    r->dscp != q->dscp)
		return false;
	if (!r->n_prefixes || !q->n_prefixes) {
		say(errbuf, errlen,
		    "hosts overlap job '%s' (one of them matches any host); "
		    "give both jobs distinct dscp values",
		    o->id);
		return true;
	}
	for (uint32_t i = 0; i < r->n_prefixes; i++) {
		for (uint32_t k = 0; k < q->n_prefixes; k++) {
			if (!prefixes_overlap(&r->prefixes[i], &q->prefixes[k]))
				continue;
			prefix_str(&r->prefixes[i], a, sizeof(a));
			prefix_str(&q->prefixes[k], b, sizeof(b));
			say(errbuf, errlen,
			    "prefix %s overlaps job '%s' (%s); give both jobs "
			    "distinct dscp values",
			    a, o->id, b);
			return true;
		}
	}
	return false;
}

uint32_t job_table_register(struct job_table *t, const struct job_reg *r,
			    uint64_t now_ns, char *errbuf, size_t errlen)
{
	uint32_t self = JOB_NONE, slot = JOB_NONE;
	struct job *j;

	if (job_reg_check(r, errbuf, errlen)) {
		ctr_add(&t->st.refused, 1);
		return JOB_NONE;
	}
	for (uint32_t i = 0; i < t->par.max_registered; i++) {
		j = &t->jobs[i];
		if (j->kind == JOB_FREE) {
			if (slot == JOB_NONE)
				slot = i;
			continue;
		}
		if (!strcmp(j->id, r->id)) {
			self = i;
			continue;
		}
		if (reg_overlaps(r, j, errbuf, errlen)) {
			ctr_add(&t->st.refused, 1);
			return JOB_NONE;
		}
	}
	if (self == JOB_NONE && slot == JOB_NONE) {
		say(errbuf, errlen, "job table full: %u registered jobs",
		    t->par.max_registered);
		ctr_add(&t->st.full_registered, 1);
		return JOB_NONE;
	}
	if (self == JOB_NONE) {
		self = slot;
		job_take(t, self, JOB_REGISTERED, now_ns);
		ctr_add(&t->st.registered, 1);
	} else {
		ctr_add(&t->st.updated, 1);
	}
	j = &t->jobs[self];
	j->reg = *r;
	memset(j->reg.prefixes + r->n_prefixes, 0,
	       (JOB_PREFIXES_MAX - r->n_prefixes) * sizeof(r->prefixes[0]));
	memcpy(j->id, r->id, sizeof(j->id));
	j->last_ns = now_ns;
	t->gen++;
	return self;
}

int job_table_unregister(struct job_table *t, const char *id)
{
	for (uint32_t i = 0; i < t->par.max_registered; i++) {
		if (t->jobs[i].kind != JOB_REGISTERED ||
		    strcmp(t->jobs[i].id, id))
			continue;
		jt_job_release(t, i);
		ctr_add(&t->st.unregistered, 1);
		return 0;
	}
	return -1;
}

static uint32_t reg_lookup(const struct job_table *t,
			   const struct job_addr *src,
			   const struct job_addr *dst, uint8_t dscp)
{
	for (uint32_t i = 0; i < t->par.max_registered; i++) {
		const struct job *j = &t->jobs[i];

		if (j->kind == JOB_REGISTERED &&
		    reg_matches(j->reg.dscp, j->reg.n_prefixes, j->reg.prefixes,
				src, dst, dscp))
			return i;
	}
	return JOB_NONE;
}

/* ---- the host graph ---- */

uint32_t jt_host_find(const struct job_table *t, const struct job_addr *a)
{
	uint32_t p = addr_hash(a, t->par.seed) & t->host_mask;

	for (;; p = (p + 1) & t->host_mask) {
		uint32_t h = t->host_index[p];

		if (h == JOB_NONE || addr_eq(&t->hosts[h].addr, a))
			return h;
	}
}

void jt_host_index_add(struct job_table *t, uint32_t h)
{
	uint32_t p = addr_hash(&t->hosts[h].addr, t->par.seed) & t->host_mask;

	while (t->host_index[p] != JOB_NONE)
		p = (p + 1) & t->host_mask;
	t->host_index[p] = h;
}

uint32_t jt_edge_find(const struct job_table *t, uint32_t a, uint32_t b)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint32_t p = pair_hash(lo, hi, t->par.seed) & t->edge_mask;

	for (;; p = (p + 1) & t->edge_mask) {
		uint32_t e = t->edge_index[p];

		if (e == JOB_NONE ||
		    (t->edges[e].a == lo && t->edges[e].b == hi))
			return e;
	}
}

void jt_edge_index_add(struct job_table *t, uint32_t e)
{
	uint32_t p = pair_hash(t->edges[e].a, t->edges[e].b, t->par.seed) &
		     t->edge_mask;

	while (t->edge_index[p] != JOB_NONE)
		p = (p + 1) & t->edge_mask;
	t->edge_index[p] = e;
}

/* the root of h, halving the path */
uint32_t jt_root_halve(struct job_table *t, uint32_t h)
{
	struct job_host *hs = t->hosts;

	while (hs[h].parent != h) {
		hs[h].parent = hs[hs[h].parent].parent;
		h = hs[h].parent;
	}
	return h;
}

/* a new host in the component of root r, or a new root of job j */
static uint32_t host_add(struct job_table *t, const struct job_addr *a,
			 uint32_t r, uint32_t j)
{
	uint32_t h = t->host_free[--t->n_host_free];
	struct job_host *hs = &t->hosts[h];

	memset(hs, 0, sizeof(*hs));
	hs->addr.family = a->family;
	memcpy(hs->addr.addr, a->addr, addr_len(a->family));
	hs->live = 1;
	hs->parent = r == JOB_NONE ? h : r;
	hs->job = r == JOB_NONE ? j : JOB_NONE;
	jt_host_index_add(t, h);
	t->gen++;
	return h;
}

static uint32_t edge_add(struct job_table *t, uint32_t a, uint32_t b,
			 bool merge, uint64_t now)
{
	uint32_t e = t->edge_free[--t->n_edge_free];
	struct job_edge *ed = &t->edges[e];

	ed->a = a < b ? a : b;
	ed->b = a < b ? b : a;
	ed->merge = merge;
	ed->class_mask = 0;
	ed->last_ns = now;
	t->hosts[a].degree++;
	t->hosts[b].degree++;
	if (!merge) {
		t->hosts[a].flows++;
		t->hosts[b].flows++;
	}
	jt_edge_index_add(t, e);
	return e;
}

/* join the components of roots ra != rb: the older job stays */
static uint32_t unite(struct job_table *t, uint32_t ra, uint32_t rb)
{
	uint32_t ja = t->hosts[ra].job, jb = t->hosts[rb].job, keep, gone;
	struct job *k, *g;

	keep = jt_older(t, ja, jb) ? ja : jb;
	gone = keep == ja ? jb : ja;
	k = &t->jobs[keep];
	g = &t->jobs[gone];
	if (t->jobs[ja].hosts < t->jobs[jb].hosts) {
		uint32_t x = ra;

		ra = rb;
		rb = x;
	}
	t->hosts[rb].parent = ra;
	t->hosts[rb].job = JOB_NONE;
	t->hosts[ra].job = keep;
	k->root = ra;
	k->hosts += g->hosts;
	k->edges += g->edges;
	k->flows_seen += g->flows_seen;
	k->class_mask |= g->class_mask;
	if (g->last_ns > k->last_ns)
		k->last_ns = g->last_ns;
	jt_job_release(t, gone);
	ctr_add(&t->st.passive_merged, 1);
	return keep;
}

uint32_t job_table_observe(struct job_table *t, const struct job_addr *src,
			   const struct job_addr *dst, uint8_t dscp,
			   uint8_t class_id, uint64_t now_ns)
{
	uint32_t cls = class_id < 32 ? 1u << class_id : 0;
	uint32_t hs, hd, e = JOB_NONE, j = JOB_NONE, need;
	struct job *jb;

	if (!addr_valid(src) || !addr_valid(dst) || addr_eq(src, dst)) {
		ctr_add(&t->st.unmatched, 1);
		return JOB_NONE;
	}
	j = reg_lookup(t, src, dst, dscp);
	if (j != JOB_NONE) {
		jb = &t->jobs[j];
		jb->last_ns = now_ns;
		jb->flows_seen++;
		jb->class_mask |= cls;
		ctr_add(&t->st.observed_registered, 1);
		return j;
	}
	if (!t->par.max_passive) {
		ctr_add(&t->st.unmatched, 1);
		return JOB_NONE;
	}
	/* every refusal before any change: never a partial entry */
	hs = jt_host_find(t, src);
	hd = jt_host_find(t, dst);
	need = (hs == JOB_NONE) + (hd == JOB_NONE);
	if (t->n_host_free < need) {
		ctr_add(&t->st.full_hosts, 1);
		ctr_add(&t->st.unmatched, 1);
		return JOB_NONE;
	}
	if (!need)
		e = jt_edge_find(t, hs, hd);
	if (e == JOB_NONE && !t->n_edge_free) {
		ctr_add(&t->st.full_edges, 1);
		ctr_add(&t->st.unmatched, 1);
		return JOB_NONE;
	}
	if (need == 2) {
		j = jt_passive_take(t, now_ns);
		if (j == JOB_NONE) {
			ctr_add(&t->st.full_passive, 1);
			ctr_add(&t->st.unmatched, 1);
			return JOB_NONE;
		}
		hs = host_add(t, src, JOB_NONE, j);
		hd = host_add(t, dst, hs, JOB_NONE);
		t->jobs[j].root = hs;
		t->jobs[j].hosts = 2;
	} else if (need == 1) {
		uint32_t r = jt_root_halve(t, hs == JOB_NONE ? hd : hs);

		j = t->hosts[r].job;
		if (hs == JOB_NONE)
			hs = host_add(t, src, r, JOB_NONE);
		else
			hd = host_add(t, dst, r, JOB_NONE);
		t->jobs[j].hosts++;
	} else {
		uint32_t rs = jt_root_halve(t, hs), rd = jt_root_halve(t, hd);

		j = rs == rd ? t->hosts[rs].job : unite(t, rs, rd);
	}
	jb = &t->jobs[j];
	if (e == JOB_NONE) {
		e = edge_add(t, hs, hd, false, now_ns);
		jb->edges++;
	} else if (t->edges[e].merge) {
		/* a merge edge that carries a flow: a flow edge from now on */
		t->edges[e].merge = 0;
		t->hosts[hs].flows++;
		t->hosts[hd].flows++;
	}
	t->edges[e].last_ns = now_ns;
	t->edges[e].class_mask |= cls;
	jb->last_ns = now_ns;
	jb->flows_seen++;
	jb->class_mask |= cls;
	ctr_add(&t->st.observed_passive, 1);
	return j;
}

uint32_t job_table_lookup(const struct job_table *t, const struct job_addr *src,
			  const struct job_addr *dst, uint8_t dscp)
{
	uint32_t j, hs, hd, rs;

	if (!addr_valid(src) || !addr_valid(dst))
		return JOB_NONE;
	j = reg_lookup(t, src, dst, dscp);
	if (j != JOB_NONE || !t->par.max_passive || addr_eq(src, dst))
		return j;
	hs = jt_host_find(t, src);
	hd = jt_host_find(t, dst);
	if (hs == JOB_NONE || hd == JOB_NONE)
		return JOB_NONE;
	rs = jt_root_of(t, hs);
	return rs == jt_root_of(t, hd) ? t->hosts[rs].job : JOB_NONE;
}

uint32_t job_table_merge(struct job_table *t, uint32_t a, uint32_t b,
			 uint64_t now_ns, const char **why)
{
	uint32_t ra, rb;

	if (a >= t->max_jobs || b >= t->max_jobs ||
	    t->jobs[a].kind != JOB_PASSIVE || t->jobs[b].kind != JOB_PASSIVE) {
		*why = "not a passive job";
		return JOB_NONE;
	}
	if (a == b)
		return a;
	if (!t->n_edge_free) {
		ctr_add(&t->st.full_edges, 1);
		*why = "edge table full";
		return JOB_NONE;
	}
	ra = t->jobs[a].root;
	rb = t->jobs[b].root;
	edge_add(t, ra, rb, true, now_ns);
	t->jobs[a].edges++;
	return unite(t, ra, rb);
}
