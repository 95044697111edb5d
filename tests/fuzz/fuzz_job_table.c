// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_job_table.c - libFuzzer target: the job table
 * (dataplane/jobs/job_table.h) driven by the input as a script.
 *
 * The first byte's low bits pick the table's size. Then 4 bytes per
 * step: observations between 16 IPv4 and 16 IPv6 hosts (the pairs the
 * script names, any DSCP and class), registrations (an id from a pool of
 * 4 or a raw copy of input bytes, prefixes and DSCP from the input:
 * hostile registrations must be refused with a message, never read past
 * the struct), unregistrations, merges of any two slots, expiries with
 * time moving forward by the step's bytes. After every step
 * job_table_check() holds, every index returned names a live job of the
 * right kind, the counters add up; every 8 steps a snapshot is filled and
 * agrees with job_table_lookup() on every pair of the hosts.
 *
 * Single-threaded; the table is created and freed per input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job_table.h"
#include "fuzz_check.h"

#define MS 1000000ull
#define NHOSTS 32

static struct job_addr host(unsigned int i)
{
	struct job_addr a;

	memset(&a, 0, sizeof(a));
	i %= NHOSTS;
	if (i < 16) {
		a.family = 4;
		a.addr[0] = 10;
		a.addr[2] = (uint8_t)(i >> 2); /* four /24s */
		a.addr[3] = (uint8_t)i;
	} else {
		a.family = 6;
		a.addr[0] = 0xfd;
		a.addr[5] = (uint8_t)(i >> 2);
		a.addr[15] = (uint8_t)i;
	}
	return a;
}

static void check_index(const struct job_table *t, uint32_t j,
			enum job_kind kind)
{
	const struct job *jb;

	if (j == JOB_NONE)
		return;
	jb = job_table_job(t, j);
	CHECK(jb != NULL);
	CHECK(jb->kind == kind || kind == JOB_FREE);
	CHECK(jb->kind != JOB_FREE);
}

static void check_snap(struct job_snap *s, const struct job_table *t)
{
	job_snap_fill(s, t);
	for (unsigned int i = 0; i < NHOSTS; i++) {
		for (unsigned int k = 0; k < NHOSTS; k++) {
			struct job_addr a = host(i), b = host(k);
			uint8_t d = (uint8_t)((i ^ k) & 3);
			uint32_t j = job_table_lookup(t, &a, &b, d);

			CHECK(job_snap_lookup(s, &a, &b, d) == j);
			check_index(t, j, JOB_FREE);
		}
	}
}

static void reg_from(struct job_reg *r, const uint8_t *b, const uint8_t *end)
{
	static const char *const ids[] = {"a", "slurm/17", "k8s:ns/x",
					  "passive-1"};

	memset(r, 0, sizeof(*r));
	if (b[1] & 0x80 && end - b >= (ptrdiff_t)sizeof(*r)) {
		memcpy(r, b, sizeof(*r)); /* anything at all */
		return;
	}
	snprintf(r->id, sizeof(r->id), "%s", ids[b[1] & 3]);
	r->dscp = b[2] & 0x40 ? JOB_DSCP_NONE : (uint8_t)(b[2] & 0x3f);
	r->n_prefixes = (b[1] >> 2) & 3;
	for (uint32_t i = 0; i < r->n_prefixes; i++) {
		struct job_addr a = host(b[3] + i * 7u);
		unsigned int bits = a.family == 4 ? 32 : 128;

		r->prefixes[i].family = a.family;
		memcpy(r->prefixes[i].addr, a.addr, 16);
		r->prefixes[i].len = (uint8_t)(bits - ((b[2] >> i) & 7));
		/* host bits left set when b[1] bit 4 says so */
		if (!(b[1] & 0x10))
			for (unsigned int x = r->prefixes[i].len; x < 128; x++)
				r->prefixes[i].addr[x / 8] &=
					(uint8_t) ~(0x80 >> (x % 8));
	}
	r->gpus = b[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_table_params p;
	struct job_table t;
	struct job_snap s;
	const uint8_t *end = data + size;
	uint64_t now = 0;
	char err[256];
	const char *why;

	if (!size || size > 4096)
		return -1;
	job_table_params_default(&p);
	p.max_registered = 1 + (data[0] & 3);
	p.max_passive = 1 + ((data[0] >> 2) & 7);
	p.max_hosts = 2 + ((data[0] >> 5) & 7) * 4;
	p.max_edges = 1 + ((data[0] >> 4) & 7) * 5;
	p.idle_ns = 50 * MS;
	p.seed = data[0];
	CHECK(job_table_init(&t, &p, err, sizeof(err)) == 0);
	CHECK(job_snap_init(&s, &t) == 0);
	for (const uint8_t *b = data + 1; b + 4 <= end; b += 4) {
		unsigned int op = b[0] >> 5;
		struct job_addr x = host(b[1]), y = host(b[2]);
		struct job_reg r;
		uint32_t j;

		now += (b[0] & 31) * MS;
		switch (op) {
		case 0:
		case 1:
		case 2:
			j = job_table_observe(&t, &x, &y, b[3] & 63, b[3] >> 3,
					      now);
			check_index(&t, j, JOB_FREE);
			break;
		case 3:
			reg_from(&r, b, end);
			err[0] = 0;
			j = job_table_register(&t, &r, now, err, sizeof(err));
			CHECK(memchr(err, 0, sizeof(err)) != NULL);
			if (j == JOB_NONE)
				CHECK(err[0] != 0);
			else
				CHECK(job_reg_check(&r, NULL, 0) == 0);
			check_index(&t, j, JOB_REGISTERED);
			break;
		case 4: {
			static const char *const ids[] = {"a", "slurm/17",
							  "k8s:ns/x", "b"};

			(void)job_table_unregister(&t, ids[b[1] & 3]);
			break;
		}
		case 5:
			why = NULL;
			j = job_table_merge(&t, b[1] % (t.max_jobs + 1),
					    b[2] % (t.max_jobs + 1), now, &why);
			CHECK(j != JOB_NONE || why != NULL);
			check_index(&t, j, JOB_PASSIVE);
			break;
		case 6:
			(void)job_table_expire(&t, now);
			break;
		default:
			check_snap(&s, &t);
			break;
		}
		why = job_table_check(&t);
		if (why) {
			fprintf(stderr, "invariant: %s\n", why);
			CHECK(!why);
		}
		CHECK(job_table_count(&t, JOB_REGISTERED) <= p.max_registered);
		CHECK(job_table_count(&t, JOB_PASSIVE) <= p.max_passive);
		CHECK(job_table_hosts(&t) <= p.max_hosts);
		CHECK(job_table_edges(&t) <= p.max_edges);
	}
	check_snap(&s, &t);
	job_snap_fini(&s);
	job_table_fini(&t);
	return 0;
}
