// SPDX-License-Identifier: BSD-2-Clause
/*
 * job_snap.c - the snapshot of the job table the dataplane looks flows up
 * in (job_table.h): filled by the control thread while no reader holds
 * it, read by any thread.
 */
#include <stdlib.h>
#include <string.h>
#include "job_int.h"

int job_snap_init(struct job_snap *s, const struct job_table *t)
{
	memset(s, 0, sizeof(*s));
	s->max_reg = t->par.max_registered;
	s->host_mask = t->host_mask;
	s->seed = t->par.seed;
	s->reg = calloc(s->max_reg ? s->max_reg : 1, sizeof(*s->reg));
	s->hosts = calloc(s->host_mask + 1ull, sizeof(*s->hosts));
	if (!s->reg || !s->hosts) {
		job_snap_fini(s);
		return -1;
	}
	for (uint32_t i = 0; i <= s->host_mask; i++)
		s->hosts[i].job = JOB_NONE;
	return 0;
}

void job_snap_fini(struct job_snap *s)
{
	free(s->reg);
	free(s->hosts);
	memset(s, 0, sizeof(*s));
}

void job_snap_fill(struct job_snap *s, const struct job_table *t)
{
	s->n_reg = 0;
	for (uint32_t i = 0; i < t->par.max_registered && i < s->max_reg; i++) {
		const struct job *j = &t->jobs[i];
		struct job_snap_reg *r;

		if (j->kind != JOB_REGISTERED)
			continue;
		r = &s->reg[s->n_reg++];
		r->job = i;
		r->dscp = j->reg.dscp;
		r->n_prefixes = (uint8_t)j->reg.n_prefixes;
		memcpy(r->prefixes, j->reg.prefixes, sizeof(r->prefixes));
	}
	for (uint32_t i = 0; i <= s->host_mask; i++)
		s->hosts[i].job = JOB_NONE;
	for (uint32_t h = 0; h < t->par.max_hosts && t->par.max_passive; h++) {
		const struct job_host *hs = &t->hosts[h];
		uint32_t p;

		if (!hs->live)
			continue;
		p = addr_hash(&hs->addr, s->seed) & s->host_mask;
		while (s->hosts[p].job != JOB_NONE)
			p = (p + 1) & s->host_mask;
		s->hosts[p].addr = hs->addr;
		s->hosts[p].job = t->hosts[jt_root_of(t, h)].job;
	}
	s->gen = t->gen;
}

static uint32_t snap_host(const struct job_snap *s, const struct job_addr *a)
{
	uint32_t p = addr_hash(a, s->seed) & s->host_mask;

	for (;; p = (p + 1) & s->host_mask) {
		const struct job_snap_host *h = &s->hosts[p];

		if (h->job == JOB_NONE || addr_eq(&h->addr, a))
			return h->job;
	}
}

uint32_t job_snap_lookup(const struct job_snap *s, const struct job_addr *src,
			 const struct job_addr *dst, uint8_t dscp)
{
	uint32_t js;

	if (!addr_valid(src) || !addr_valid(dst))
		return JOB_NONE;
	for (uint32_t i = 0; i < s->n_reg; i++) {
		const struct job_snap_reg *r = &s->reg[i];

		if (reg_matches(r->dscp, r->n_prefixes, r->prefixes, src, dst,
				dscp))
			return r->job;
	}
	if (addr_eq(src, dst))
		return JOB_NONE;
	js = snap_host(s, src);
	return js != JOB_NONE && js == snap_host(s, dst) ? js : JOB_NONE;
}
