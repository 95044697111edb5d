// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_job_table.c - the job table (dataplane/jobs/job_table.h) on a fake
 * clock:
 *   - registration: every refusal's exact message, overlapping
 *     registrations refused unless their DSCPs differ, updates in place,
 *     unregistering, a full table refused and counted;
 *   - prefix matching, IPv4 and IPv6, lengths off byte boundaries, the
 *     DSCP selector, a job without prefixes;
 *   - a registered job wins over passive grouping, before and after the
 *     flows were grouped;
 *   - connected components: an 8-host ring all-reduce is one job (pairs
 *     never observed included), two disjoint rings two, a bridging flow
 *     joins them (the older id stays) and its expiry splits them again;
 *   - expiry: not one ns early, hosts and jobs with it, ids never reused,
 *     a reused slot's epoch;
 *   - bounds: full host, edge and job tables refuse whole and count,
 *     never a partial entry;
 *   - job_table_merge();
 *   - the snapshot answers as the table did, through random operations
 *     whose invariants (job_table_check()) hold after every step.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "job_table.h"

#define MS 1000000ull
#define S 1000000000ull

static struct job_addr ip(const char *s)
{
	struct job_addr a;

	memset(&a, 0, sizeof(a));
	a.family = strchr(s, ':') ? 6 : 4;
	assert_int_equal(
		inet_pton(a.family == 4 ? AF_INET : AF_INET6, s, a.addr), 1);
	return a;
}

/* host i of a ring r: 10.r.0.i */
static struct job_addr host(unsigned int r, unsigned int i)
{
	struct job_addr a;

	memset(&a, 0, sizeof(a));
	a.family = 4;
	a.addr[0] = 10;
	a.addr[1] = (uint8_t)r;
	a.addr[3] = (uint8_t)i;
	return a;
}

static struct qos_prefix pfx(const char *s)
{
	struct qos_prefix p;
	char buf[64];
	char *slash;
	struct job_addr a;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	assert_non_null(slash);
	*slash = 0;
	a = ip(buf);
	memset(&p, 0, sizeof(p));
	p.family = a.family;
	p.len = (uint8_t)atoi(slash + 1);
	memcpy(p.addr, a.addr, sizeof(p.addr));
	return p;
}

static struct job_reg reg(const char *id, const char *p0, const char *p1)
{
	struct job_reg r;

	memset(&r, 0, sizeof(r));
	snprintf(r.id, sizeof(r.id), "%s", id);
	r.dscp = JOB_DSCP_NONE;
	if (p0)
		r.prefixes[r.n_prefixes++] = pfx(p0);
	if (p1)
		r.prefixes[r.n_prefixes++] = pfx(p1);
	return r;
}

static void table(struct job_table *t, uint32_t nreg, uint32_t npas,
		  uint32_t hosts, uint32_t edges)
{
	struct job_table_params p;
	char err[128] = "";

	job_table_params_default(&p);
	p.max_registered = nreg;
	p.max_passive = npas;
	p.max_hosts = hosts;
	p.max_edges = edges;
	p.idle_ns = 10 * S;
	assert_int_equal(job_table_init(t, &p, err, sizeof(err)), 0);
}

static void ok(const struct job_table *t)
{
	const char *why = job_table_check(t);

	if (why)
		fail_msg("invariant: %s", why);
}

static uint32_t see(struct job_table *t, struct job_addr a, struct job_addr b,
		    uint64_t now)
{
	uint32_t j = job_table_observe(t, &a, &b, 0, 3, now);

	ok(t);
	return j;
}

static uint32_t look(const struct job_table *t, struct job_addr a,
		     struct job_addr b, uint8_t dscp)
{
	return job_table_lookup(t, &a, &b, dscp);
}

static void refused(const struct job_reg *r, const char *msg)
{
	char err[160] = "";

	assert_int_equal(job_reg_check(r, err, sizeof(err)), -1);
	assert_string_equal(err, msg);
}

static void test_reg_errors(void **state)
{
	struct job_reg r;

	(void)state;
	r = reg("", "10.0.0.0/24", NULL);
	refused(&r, "id is empty");
	memset(r.id, 'a', sizeof(r.id));
	refused(&r, "id is longer than 63 characters");
	snprintf(r.id, sizeof(r.id), "job 7");
	refused(&r, "id holds byte 0x20; use letters, digits and . _ : / -");
	snprintf(r.id, sizeof(r.id), "job*7");
	refused(&r, "id 'job*7' holds '*'; use letters, digits and . _ : / -");
	snprintf(r.id, sizeof(r.id), "passive-3");
	refused(&r, "id 'passive-3' is reserved for passive jobs");
	r = reg("slurm/4711", "10.0.0.0/24", NULL);
	assert_int_equal(job_reg_check(&r, NULL, 0), 0);
	r.n_prefixes = 17;
	refused(&r, "prefixes: 17 given, at most 16");
	r = reg("j", "10.0.0.0/24", "fd00::/8");
	r.prefixes[1].family = 5;
	refused(&r, "prefixes[1]: family 5 is neither 4 nor 6");
	r = reg("j", "10.0.0.0/24", NULL);
	r.prefixes[0].len = 33;
	refused(&r, "prefixes[0]: length 33 is longer than 32");
	r = reg("j", "10.0.0.0/24", "fd00::/8");
	r.prefixes[1].len = 129;
	refused(&r, "prefixes[1]: length 129 is longer than 128");
	r = reg("j", "10.0.0.1/24", NULL);
	refused(&r, "prefixes[0]: host bits set");
	r = reg("j", "10.0.0.0/24", "fd00::1/127");
	refused(&r, "prefixes[1]: host bits set");
	r = reg("j", "10.0.0.0/24", NULL);
	r.dscp = 64;
	refused(&r, "dscp 64 is out of range (0..63)");
	r = reg("j", NULL, NULL);
	refused(&r, "no prefixes and no dscp: nothing would tell the job's "
		    "flows");
	r.dscp = 26;
	assert_int_equal(job_reg_check(&r, NULL, 0), 0);
	memset(r.prio_class, 'c', sizeof(r.prio_class));
	refused(&r, "prio_class is longer than 31 characters");
	snprintf(r.prio_class, sizeof(r.prio_class), "gold!");
	refused(&r,
		"prio_class holds byte 0x21; use letters, digits and _ . -");
	snprintf(r.prio_class, sizeof(r.prio_class), "roce_gold-1");
	assert_int_equal(job_reg_check(&r, NULL, 0), 0);
}

static void test_reg_overlap_update(void **state)
{
	struct job_table t;
	struct job_reg a, b;
	char err[200] = "";
	uint32_t ja, jb;

	(void)state;
	table(&t, 2, 4, 16, 16);
	a = reg("train-a", "10.1.0.0/16", NULL);
	ja = job_table_register(&t, &a, 1 * S, err, sizeof(err));
	assert_int_equal(ja, 0);
	/* an invalid one is refused and counted, with job_reg_check's line */
	b = reg("passive-9", "10.2.0.0/16", NULL);
	assert_int_equal(job_table_register(&t, &b, 1 * S, err, sizeof(err)),
			 JOB_NONE);
	assert_string_equal(err, "id 'passive-9' is reserved for passive jobs");
	b = reg("train-b", "10.3.0.0/16", "10.1.7.0/24");
	assert_int_equal(job_table_register(&t, &b, 1 * S, err, sizeof(err)),
			 JOB_NONE);
	assert_string_equal(err, "prefix 10.1.7.0/24 overlaps job 'train-a' "
				 "(10.1.0.0/16); give both jobs distinct "
				 "dscp values");
	/* one of the two with a DSCP is not enough */
	b.dscp = 26;
	assert_int_equal(job_table_register(&t, &b, 1 * S, err, sizeof(err)),
			 JOB_NONE);
	/* both with distinct DSCPs share hosts */
	a.dscp = 24;
	assert_int_equal(job_table_register(&t, &a, 2 * S, err, sizeof(err)),
			 ja);
	jb = job_table_register(&t, &b, 2 * S, err, sizeof(err));
	assert_int_equal(jb, 1);
	assert_int_equal(look(&t, host(1, 7), host(1, 9), 24), ja);
	assert_int_equal(look(&t, ip("10.1.7.1"), host(3, 9), 26), jb);
	assert_int_equal(look(&t, ip("10.1.7.1"), host(3, 9), 24), JOB_NONE);
	assert_int_equal(look(&t, ip("10.1.7.1"), host(1, 9), 26), JOB_NONE);
	/* the update kept slot and epoch */
	assert_int_equal(job_table_job(&t, ja)->epoch, 1);
	assert_int_equal(job_table_job(&t, ja)->reg.dscp, 24);
	assert_int_equal(job_table_job(&t, ja)->created_ns, 1 * S);
	assert_int_equal(ctr_read(&t.st.registered), 2);
	assert_int_equal(ctr_read(&t.st.updated), 1);
	assert_int_equal(ctr_read(&t.st.refused), 3);
	/* a job without prefixes matches any host: overlaps by its DSCP */
	a = reg("any", NULL, NULL);
	a.dscp = 24;
	assert_int_equal(job_table_register(&t, &a, 3 * S, err, sizeof(err)),
			 JOB_NONE);
	assert_string_equal(err, "hosts overlap job 'train-a' (one of them "
				 "matches any host); give both jobs distinct "
				 "dscp values");
	/* full */
	a.dscp = 30;
	assert_int_equal(job_table_register(&t, &a, 3 * S, err, sizeof(err)),
			 JOB_NONE);
	assert_string_equal(err, "job table full: 2 registered jobs");
	assert_int_equal(ctr_read(&t.st.full_registered), 1);
	/* unregister frees the slot; the next job there has a new epoch */
	assert_int_equal(job_table_unregister(&t, "train-a"), 0);
	assert_int_equal(job_table_unregister(&t, "train-a"), -1);
	assert_int_equal(job_table_find(&t, "train-a"), JOB_NONE);
	assert_int_equal(job_table_register(&t, &a, 4 * S, err, sizeof(err)),
			 ja);
	assert_int_equal(job_table_job(&t, ja)->epoch, 2);
	assert_string_equal(job_table_job(&t, ja)->id, "any");
	assert_int_equal(look(&t, ip("192.0.2.1"), ip("2001:db8::1"), 30), ja);
	assert_int_equal(ctr_read(&t.st.unregistered), 1);
	ok(&t);
	job_table_fini(&t);
}

static void test_prefix_match(void **state)
{
	struct job_table t;
	struct job_reg r;
	char err[160] = "";
	uint32_t j;

	(void)state;
	table(&t, 4, 4, 16, 16);
	r = reg("llm", "10.1.128.0/17", "fd00:1:8000::/33");
	r.prefixes[r.n_prefixes++] = pfx("192.0.2.7/32");
	j = job_table_register(&t, &r, 0, err, sizeof(err));
	assert_int_equal(j, 0);
	assert_int_equal(look(&t, ip("10.1.200.1"), ip("10.1.128.0"), 0), j);
	assert_int_equal(look(&t, ip("10.1.255.255"), ip("192.0.2.7"), 0), j);
	/* one end outside the job: not its flow */
	assert_int_equal(look(&t, ip("10.1.127.255"), ip("10.1.200.1"), 0),
			 JOB_NONE);
	assert_int_equal(look(&t, ip("10.1.200.1"), ip("192.0.2.8"), 0),
			 JOB_NONE);
	assert_int_equal(
		look(&t, ip("fd00:1:8000::5"), ip("fd00:1:ffff::1"), 0), j);
	assert_int_equal(
		look(&t, ip("fd00:1:7fff::5"), ip("fd00:1:ffff::1"), 0),
		JOB_NONE);
	/* an IPv4 address never matches an IPv6 prefix of the same bytes */
	assert_int_equal(look(&t, ip("253.0.0.1"), ip("10.1.200.1"), 0),
			 JOB_NONE);
	/* the DSCP selector */
	r = reg("tc", "172.16.0.0/12", NULL);
	r.dscp = 26;
	j = job_table_register(&t, &r, 0, err, sizeof(err));
	assert_int_equal(j, 1);
	assert_int_equal(look(&t, ip("172.16.0.1"), ip("172.31.0.1"), 26), j);
	assert_int_equal(look(&t, ip("172.16.0.1"), ip("172.31.0.1"), 0),
			 JOB_NONE);
	/* /0 holds every address of its family */
	r = reg("all6", "::/0", NULL);
	r.dscp = 10;
	assert_int_equal(job_table_register(&t, &r, 0, err, sizeof(err)),
			 JOB_NONE);
	assert_string_equal(err, "prefix ::/0 overlaps job 'llm' "
				 "(fd00:1:8000::/33); give both jobs "
				 "distinct dscp values");
	assert_int_equal(job_table_unregister(&t, "llm"), 0);
	j = job_table_register(&t, &r, 0, err, sizeof(err));
	assert_int_equal(j, 0);
	assert_int_equal(look(&t, ip("2001:db8::1"), ip("fe80::1"), 10), j);
	assert_int_equal(look(&t, ip("10.0.0.1"), ip("10.0.0.2"), 10),
			 JOB_NONE);
	job_table_fini(&t);
}

static void test_registered_wins(void **state)
{
	struct job_table t;
	struct job_reg r;
	char err[160] = "";
	uint32_t p, j;

	(void)state;
	table(&t, 4, 4, 32, 32);
	/* grouped passively first */
	p = see(&t, host(1, 1), host(1, 2), 1 * S);
	assert_int_equal(p, 4);
	assert_int_equal(job_table_job(&t, p)->kind, JOB_PASSIVE);
	assert_string_equal(job_table_job(&t, p)->id, "passive-1");
	r = reg("train", "10.1.0.0/24", NULL);
	j = job_table_register(&t, &r, 2 * S, err, sizeof(err));
	assert_int_equal(j, 0);
	/* registered at once, for lookups and observations */
	assert_int_equal(look(&t, host(1, 1), host(1, 2), 0), j);
	assert_int_equal(see(&t, host(1, 2), host(1, 1), 3 * S), j);
	assert_int_equal(see(&t, host(1, 3), host(1, 4), 3 * S), j);
	assert_int_equal(job_table_hosts(&t), 2); /* no new passive host */
	assert_int_equal(ctr_read(&t.st.observed_registered), 2);
	assert_int_equal(job_table_job(&t, j)->flows_seen, 2);
	assert_int_equal(job_table_job(&t, j)->last_ns, 3 * S);
	assert_int_equal(job_table_job(&t, j)->class_mask, 1u << 3);
	/* the passive job it replaced ages out; the registered one stays */
	job_table_expire(&t, 11 * S);
	ok(&t);
	assert_int_equal(job_table_count(&t, JOB_PASSIVE), 0);
	assert_int_equal(ctr_read(&t.st.passive_expired), 1);
	job_table_expire(&t, 1000 * S);
	assert_int_equal(look(&t, host(1, 1), host(1, 2), 0), j);
	/* outside its prefixes, passive grouping goes on */
	assert_int_equal(see(&t, host(1, 1), host(2, 1), 1001 * S), 4);
	job_table_fini(&t);
}

/* ring r of n hosts: i -> i + 1 */
static uint32_t ring(struct job_table *t, unsigned int r, unsigned int n,
		     uint64_t now)
{
	uint32_t j = JOB_NONE;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t k = see(t, host(r, i), host(r, (i + 1) % n), now);

		assert_int_not_equal(k, JOB_NONE);
		if (j != JOB_NONE)
			assert_int_equal(k, j);
		j = k;
	}
	return j;
}

static void test_components(void **state)
{
	struct job_table t;
	uint32_t a, b, m, a2, b2;

	(void)state;
	table(&t, 2, 8, 64, 64);
	a = ring(&t, 1, 8, 1 * S);
	assert_int_equal(job_table_count(&t, JOB_PASSIVE), 1);
	assert_int_equal(job_table_job(&t, a)->hosts, 8);
	assert_int_equal(job_table_job(&t, a)->edges, 8);
	/* a pair never observed, both in the ring: the ring's job */
	assert_int_equal(look(&t, host(1, 0), host(1, 4), 0), a);
	assert_int_equal(look(&t, host(1, 0), host(2, 4), 0), JOB_NONE);
	/* the ring's reverse direction: no new edge */
	assert_int_equal(see(&t, host(1, 1), host(1, 0), 1 * S), a);
	assert_int_equal(job_table_edges(&t), 8);
	b = ring(&t, 2, 8, 2 * S);
	assert_int_not_equal(a, b);
	assert_int_equal(job_table_count(&t, JOB_PASSIVE), 2);
	assert_int_equal(look(&t, host(1, 0), host(2, 0), 0), JOB_NONE);
	assert_string_equal(job_table_job(&t, b)->id, "passive-2");
	/* a bridging flow: one job, the older id */
	m = see(&t, host(1, 3), host(2, 5), 3 * S);
	assert_int_equal(m, a);
	assert_int_equal(job_table_count(&t, JOB_PASSIVE), 1);
	assert_int_equal(job_table_job(&t, m)->hosts, 16);
	assert_int_equal(job_table_job(&t, m)->edges, 17);
	assert_int_equal(job_table_job(&t, b)->kind, JOB_FREE);
	assert_int_equal(look(&t, host(1, 0), host(2, 0), 0), a);
	assert_int_equal(ctr_read(&t.st.passive_merged), 1);
	/* the rings go on, the bridge stops: split once it is idle */
	ring(&t, 1, 8, 12 * S);
	ring(&t, 2, 8, 12 * S);
	assert_int_equal(job_table_expire(&t, 12 * S), 0);
	assert_int_equal(job_table_expire(&t, 13 * S), 1);
	ok(&t);
	assert_int_equal(job_table_count(&t, JOB_PASSIVE), 2);
	a2 = look(&t, host(1, 0), host(1, 5), 0);
	b2 = look(&t, host(2, 0), host(2, 5), 0);
	assert_int_not_equal(a2, JOB_NONE);
	assert_int_not_equal(b2, JOB_NONE);
	assert_int_not_equal(a2, b2);
	assert_int_equal(look(&t, host(1, 0), host(2, 0), 0), JOB_NONE);
	/* one half keeps the job (a tie of 8 hosts each: the first found),
	 * the other is a new one (ids never reused) */
	assert_true(a2 == a || b2 == a);
	assert_string_equal(job_table_job(&t, a)->id, "passive-1");
	assert_string_equal(job_table_job(&t, a2 == a ? b2 : a2)->id,
			    "passive-3");
	assert_int_equal(job_table_job(&t, a2)->hosts, 8);
	assert_int_equal(job_table_job(&t, b2)->hosts, 8);
	assert_int_equal(job_table_job(&t, b2)->edges, 8);
	job_table_fini(&t);
}

/* a split where one side is larger: the larger keeps the id */
static void test_split_majority(void **state)
{
	struct job_table t;
	uint32_t a, big, small;

	(void)state;
	table(&t, 0, 4, 32, 32);
	/* 2 hosts first (they make the job), then a ring of 6 bridged */
	a = see(&t, host(2, 0), host(2, 1), 1 * S);
	assert_int_equal(ring(&t, 1, 6, 1 * S), 1);
	assert_int_equal(see(&t, host(2, 1), host(1, 0), 1 * S), a);
	ring(&t, 1, 6, 5 * S);
	assert_int_equal(see(&t, host(2, 0), host(2, 1), 5 * S), a);
	job_table_expire(&t, 11 * S);
	ok(&t);
	big = look(&t, host(1, 0), host(1, 3), 0);
	small = look(&t, host(2, 0), host(2, 1), 0);
	assert_int_equal(big, a);
	assert_string_equal(job_table_job(&t, small)->id, "passive-3");
	job_table_fini(&t);
}

static void test_expiry_timing(void **state)
{
	struct job_table t;
	uint32_t j, k;

	(void)state;
	table(&t, 1, 2, 8, 8);
	j = see(&t, host(1, 1), host(1, 2), 5 * S);
	assert_int_equal(j, 1);
	assert_int_equal(job_table_job(&t, j)->epoch, 1);
	/* idle_ns 10 s: still there 1 ns before */
	assert_int_equal(job_table_expire(&t, 15 * S - 1), 0);
	assert_int_equal(look(&t, host(1, 1), host(1, 2), 0), j);
	assert_int_equal(job_table_expire(&t, 15 * S), 1);
	ok(&t);
	assert_int_equal(look(&t, host(1, 1), host(1, 2), 0), JOB_NONE);
	assert_int_equal(job_table_job(&t, j)->kind, JOB_FREE);
	assert_int_equal(job_table_hosts(&t), 0);
	assert_int_equal(ctr_read(&t.st.passive_expired), 1);
	assert_int_equal(ctr_read(&t.st.hosts_expired), 2);
	assert_int_equal(ctr_read(&t.st.edges_expired), 1);
	/* the same hosts again: a new job in the same slot, a new id */
	k = see(&t, host(1, 1), host(1, 2), 16 * S);
	assert_int_equal(k, j);
	assert_int_equal(job_table_job(&t, k)->epoch, 2);
	assert_string_equal(job_table_job(&t, k)->id, "passive-2");
	/* an observation refreshes: only the idle edge of a job leaves */
	see(&t, host(1, 2), host(1, 3), 20 * S);
	see(&t, host(1, 1), host(1, 2), 25 * S);
	assert_int_equal(job_table_expire(&t, 30 * S), 1);
	ok(&t);
	assert_int_equal(look(&t, host(1, 1), host(1, 2), 0), k);
	assert_int_equal(look(&t, host(1, 1), host(1, 3), 0), JOB_NONE);
	assert_int_equal(job_table_job(&t, k)->hosts, 2);
	assert_int_equal(job_table_job(&t, k)->last_ns, 25 * S);
	job_table_fini(&t);
}

static void test_bounds(void **state)
{
	struct job_table t;
	uint32_t a;

	(void)state;
	/* 1 passive job, 4 hosts, 4 edges */
	table(&t, 1, 1, 4, 4);
	a = see(&t, host(1, 1), host(1, 2), 1 * S);
	assert_int_equal(a, 1);
	/* a second component needs a second job: refused whole */
	assert_int_equal(see(&t, host(2, 1), host(2, 2), 1 * S), JOB_NONE);
	assert_int_equal(ctr_read(&t.st.full_passive), 1);
	assert_int_equal(job_table_hosts(&t), 2);
	assert_int_equal(job_table_edges(&t), 1);
	assert_int_equal(see(&t, host(1, 2), host(1, 3), 1 * S), a);
	assert_int_equal(see(&t, host(1, 3), host(1, 4), 1 * S), a);
	/* the host table is full */
	assert_int_equal(see(&t, host(1, 4), host(1, 5), 1 * S), JOB_NONE);
	assert_int_equal(ctr_read(&t.st.full_hosts), 1);
	assert_int_equal(see(&t, host(1, 4), host(1, 1), 1 * S), a);
	/* the edge table is full: a new pair of known hosts is refused */
	assert_int_equal(job_table_edges(&t), 4);
	assert_int_equal(see(&t, host(1, 1), host(1, 3), 1 * S), JOB_NONE);
	assert_int_equal(ctr_read(&t.st.full_edges), 1);
	/* known pairs go on; lookups of the refused pair still find the
	 * component */
	assert_int_equal(see(&t, host(1, 2), host(1, 1), 2 * S), a);
	assert_int_equal(look(&t, host(1, 1), host(1, 3), 0), a);
	assert_int_equal(ctr_read(&t.st.unmatched), 3);
	/* src == dst and a bad family: attributed to nothing */
	assert_int_equal(see(&t, host(1, 1), host(1, 1), 2 * S), JOB_NONE);
	{
		struct job_addr bad = host(1, 1);

		bad.family = 7;
		assert_int_equal(see(&t, bad, host(1, 2), 2 * S), JOB_NONE);
	}
	assert_int_equal(ctr_read(&t.st.unmatched), 5);
	/* after expiry, room again */
	job_table_expire(&t, 100 * S);
	ok(&t);
	assert_int_equal(see(&t, host(2, 1), host(2, 2), 101 * S), a);
	job_table_fini(&t);
}

static void test_merge(void **state)
{
	struct job_table t;
	struct job_reg r;
	const char *why = NULL;
	char err[160];
	uint32_t a, b, m;

	(void)state;
	table(&t, 1, 4, 16, 16);
	a = see(&t, host(1, 1), host(1, 2), 1 * S);
	b = see(&t, host(2, 1), host(2, 2), 2 * S);
	assert_int_not_equal(a, b);
	/* b is younger: a survives, whichever way round */
	m = job_table_merge(&t, b, a, 3 * S, &why);
	ok(&t);
	assert_int_equal(m, a);
	assert_int_equal(job_table_count(&t, JOB_PASSIVE), 1);
	assert_int_equal(look(&t, host(1, 1), host(2, 2), 0), a);
	assert_int_equal(job_table_job(&t, a)->hosts, 4);
	assert_int_equal(job_table_job(&t, a)->edges, 3);
	assert_int_equal(job_table_merge(&t, a, a, 3 * S, &why), a);
	assert_int_equal(job_table_merge(&t, a, b, 3 * S, &why), JOB_NONE);
	assert_string_equal(why, "not a passive job");
	r = reg("reg", "10.9.0.0/16", NULL);
	assert_int_equal(job_table_register(&t, &r, 0, err, sizeof(err)), 0);
	assert_int_equal(job_table_merge(&t, a, 0, 3 * S, &why), JOB_NONE);
	assert_string_equal(why, "not a passive job");
	assert_int_equal(job_table_merge(&t, a, 99, 3 * S, &why), JOB_NONE);
	/* the merge outlives idle_ns while both sides have flows */
	see(&t, host(1, 1), host(1, 2), 20 * S);
	see(&t, host(2, 1), host(2, 2), 20 * S);
	job_table_expire(&t, 25 * S);
	ok(&t);
	assert_int_equal(look(&t, host(1, 1), host(2, 2), 0), a);
	/* one side stops: its hosts leave, the merge with them */
	see(&t, host(1, 1), host(1, 2), 35 * S);
	assert_int_equal(job_table_expire(&t, 35 * S), 2);
	ok(&t);
	assert_int_equal(job_table_count(&t, JOB_PASSIVE), 1);
	assert_int_equal(look(&t, host(1, 1), host(1, 2), 0), a);
	assert_int_equal(job_table_hosts(&t), 2);
	/* the edge table full: a merge is refused and counted */
	job_table_fini(&t);
	table(&t, 0, 2, 4, 2);
	a = see(&t, host(1, 1), host(1, 2), 1 * S);
	b = see(&t, host(2, 1), host(2, 2), 1 * S);
	assert_int_equal(job_table_merge(&t, a, b, 1 * S, &why), JOB_NONE);
	assert_string_equal(why, "edge table full");
	assert_int_equal(ctr_read(&t.st.full_edges), 1);
	job_table_fini(&t);
}

static void snap_agrees(struct job_snap *s, const struct job_table *t,
			unsigned int nr, unsigned int nh)
{
	job_snap_fill(s, t);
	assert_int_equal(s->gen, job_table_gen(t));
	for (unsigned int r1 = 0; r1 < nr; r1++)
		for (unsigned int i = 0; i < nh; i++)
			for (unsigned int r2 = 0; r2 < nr; r2++)
				for (unsigned int k = 0; k < nh; k++) {
					struct job_addr a = host(r1, i);
					struct job_addr b = host(r2, k);
					uint8_t d = (uint8_t)((i + k) & 1);

					assert_int_equal(
						job_snap_lookup(s, &a, &b, d),
						job_table_lookup(t, &a, &b, d));
				}
}

/* random observations, merges, registrations and expiries on a small
 * table: the invariants after every step, the snapshot agreeing */
static void test_random_snapshot(void **state)
{
	struct job_table t;
	struct job_snap s;
	struct job_reg r;
	uint64_t now = 0, gen;
	uint32_t x = 12345;
	const char *why;
	char err[160];

	(void)state;
	table(&t, 2, 6, 24, 20);
	assert_int_equal(job_snap_init(&s, &t), 0);
	r = reg("reg", "10.3.0.0/24", NULL);
	r.dscp = 1;
	for (int step = 0; step < 4000; step++) {
		unsigned int op;

		x = x * 1103515245u + 12345u;
		op = (x >> 16) % 100;
		now += ((x >> 8) & 0xff) * 10 * MS;
		if (op < 80) {
			unsigned int v = x >> 20;

			struct job_addr a = host(v % 4, (v >> 2) % 8);
			struct job_addr b = host((v >> 5) % 4, (v >> 7) % 8);

			job_table_observe(&t, &a, &b, (v >> 10) & 1,
					  (v >> 11) % 40, now);
		} else if (op < 85) {
			job_table_merge(&t, 2 + (x >> 24) % 6,
					2 + (x >> 12) % 6, now, &why);
		} else if (op < 88) {
			job_table_register(&t, &r, now, err, sizeof(err));
		} else if (op < 90) {
			job_table_unregister(&t, "reg");
		} else {
			job_table_expire(&t, now);
		}
		ok(&t);
		if (step % 97 == 0)
			snap_agrees(&s, &t, 4, 8);
	}
	/* the generation moves with the mapping only */
	job_table_expire(&t, now);
	gen = job_table_gen(&t);
	assert_int_equal(job_table_expire(&t, now), 0);
	assert_int_equal(job_table_gen(&t), gen);
	job_table_observe(&t, &(struct job_addr){0}, &(struct job_addr){0}, 0,
			  0, now); /* refused: no family */
	assert_int_equal(job_table_gen(&t), gen);
	assert_true(ctr_read(&t.st.passive_created) > 10);
	assert_true(ctr_read(&t.st.passive_merged) > 10);
	assert_true(ctr_read(&t.st.passive_expired) > 0);
	assert_true(ctr_read(&t.st.full_hosts) + ctr_read(&t.st.full_edges) >
		    0);
	job_snap_fini(&s);
	job_table_fini(&t);
}

static void test_params(void **state)
{
	struct job_table_params p;
	struct job_table t;
	char err[80] = "";

	(void)state;
	job_table_params_default(&p);
	assert_null(job_table_params_check(&p));
	p.max_hosts = 1;
	assert_string_equal(job_table_params_check(&p), "max_hosts");
	assert_int_equal(job_table_init(&t, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "job table: bad max_hosts");
	job_table_params_default(&p);
	p.max_registered = JOB_TABLE_JOBS_MAX;
	assert_string_equal(job_table_params_check(&p),
			    "max_registered + max_passive");
	job_table_params_default(&p);
	p.idle_ns = 0;
	assert_string_equal(job_table_params_check(&p), "idle_ns");
	/* registrations only: no graph */
	job_table_params_default(&p);
	p.max_passive = 0;
	p.max_hosts = 0;
	p.max_edges = 0;
	assert_int_equal(job_table_init(&t, &p, err, sizeof(err)), 0);
	assert_int_equal(see(&t, host(1, 1), host(1, 2), 0), JOB_NONE);
	assert_int_equal(ctr_read(&t.st.unmatched), 1);
	assert_int_equal(job_table_expire(&t, 100 * S), 0);
	job_table_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reg_errors),
		cmocka_unit_test(test_reg_overlap_update),
		cmocka_unit_test(test_prefix_match),
		cmocka_unit_test(test_registered_wins),
		cmocka_unit_test(test_components),
		cmocka_unit_test(test_split_majority),
		cmocka_unit_test(test_expiry_timing),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_random_snapshot),
		cmocka_unit_test(test_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
