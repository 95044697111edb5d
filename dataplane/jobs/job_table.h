/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * job_table.h - the jobs whose traffic crosses the gateway: which training
 * run a flow belongs to. A job is the set of flows of one distributed
 * training run. Pure: state + facts + now -> jobs; no clock of its own, no
 * I/O, no allocation after job_table_init(), no locks.
 *
 * Two sources, registration first:
 *   registered  a scheduler hook names the job (job_table_register(): an
 *               id, the member hosts as IPv4 / IPv6 prefixes, optionally
 *               the DSCP its flows carry, a priority class name, a GPU
 *               count). A flow belongs to a registered job when both its
 *               addresses lie in the job's prefixes (a job without
 *               prefixes: any address) and, if the job has a DSCP, the
 *               flow carries it. Registrations whose flows could
 *               coincide are refused: two jobs may share hosts only when
 *               both have a DSCP and the two differ. So a flow matches at
 *               most one registered job. A registered job stays until it
 *               is unregistered (the scheduler's epilog).
 *   passive     flows of the collective classes that match no registered
 *               job (job_table_observe()) are edges of a host graph; each
 *               connected component of it is one passive job, named
 *               "passive-N" (N never reused). A flow between two hosts of
 *               one component belongs to its job, whether or not that
 *               pair was observed. job_table_merge() joins two passive
 *               jobs that the network shows are one (the phase clock:
 *               their burst onsets coincide) by a merge edge between
 *               their roots.
 *
 * Model of the host graph:
 *   host     an address seen in an observed flow (bounded: max_hosts)
 *   edge     an unordered host pair observed (a flow edge), or a merge
 *            edge (bounded together: max_edges); a flow edge keeps the
 *            last time it was observed
 *   expiry   a flow edge idle for idle_ns (now - last >= idle_ns)
 *            leaves; a host without flow edges leaves, and the merge
 *            edges it holds (a merge edge does not idle out: once
 *            joined, the phase clock sees one job and has nothing to
 *            merge again); the components are recomputed
 *            (job_table_expire()), so a job whose bridging flow stopped
 *            splits again
 *   identity a component keeps the id of the oldest job among those
 *            whose hosts it holds most of; a component that holds the
 *            most of no job gets a new one; a job that no component
 *            holds expires. A union of two components keeps the older
 *            job (the other is merged away).
 * A job index (a slot) is stable while the job lives; a slot that takes a
 * new job increments its epoch, so a consumer keyed by index (the phase
 * clock) sees a reused slot. Registered jobs take slots
 * [0, max_registered), passive jobs [max_registered, max_jobs): passive
 * grouping never keeps a registration out.
 *
 * Invariants (checked by job_table_check()): every live host belongs to
 * a component whose root holds a live passive job, and every live
 * passive job is exactly one component's; every edge joins two live
 * hosts of one component; the indices find every live host and edge;
 * memory is fixed at init; a table that is full refuses the new flow or
 * registration and counts it (never a partial entry).
 *
 * Ownership: the control thread owns a struct job_table; every call that
 * takes a non-const one is its. Any thread may read the counters with
 * ctr_read(). The dataplane never reads the table: the control thread
 * fills a struct job_snap that no reader holds (job_snap_fill()) and
 * publishes its pointer as the policy generations are published
 * (run/policy.h: a release store, readers' acquire load, the older
 * snapshot filled again only after a grace period), when
 * job_table_gen() has changed. A snapshot is immutable once published:
 * any thread looks flows up in it (job_snap_lookup(), no writes).
 */
#ifndef XDPLANE_JOB_TABLE_H
#define XDPLANE_JOB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "counters.h"
#include "qos.h" /* struct qos_prefix */

#define JOB_NONE UINT32_MAX
#define JOB_ID_MAX 64 /* with the NUL: ids of at most 63 characters */
#define JOB_PREFIXES_MAX 16 /* member prefixes per registered job */
#define JOB_CLASS_NAME_MAX 32 /* with the NUL */
#define JOB_DSCP_NONE 0xff
#define JOB_PASSIVE_PREFIX "passive-" /* ids of passive jobs, reserved */
#define JOB_TABLE_JOBS_MAX 4096 /* max_registered + max_passive */
#define JOB_TABLE_HOSTS_MAX 65536
#define JOB_TABLE_EDGES_MAX 262144

/* An address of a flow: family 4 (the first 4 bytes) or 6. */
struct job_addr {
	uint8_t family;
	uint8_t addr[16];
};

/* What a scheduler hook registers. */
struct job_reg {
	char id[JOB_ID_MAX]; /* [A-Za-z0-9._:/-]+, not JOB_PASSIVE_PREFIX.. */
	uint32_t n_prefixes; /* 0: any host (then dscp is required) */
	struct qos_prefix prefixes[JOB_PREFIXES_MAX]; /* host bits zero */
	uint8_t dscp; /* 0..63, or JOB_DSCP_NONE */
	char prio_class[JOB_CLASS_NAME_MAX]; /* a class name, "" for none */
	uint32_t gpus; /* 0: unknown */
};

enum job_kind {
	JOB_FREE = 0,
	JOB_REGISTERED,
	JOB_PASSIVE,
};

/* One slot of the table, as job_table_job() shows it. */
struct job {
	uint8_t kind; /* enum job_kind */
	uint32_t epoch; /* +1 each time the slot takes a new job */
	char id[JOB_ID_MAX];
	struct job_reg reg; /* JOB_REGISTERED only */
	uint64_t created_ns; /* registered or first observed */
	uint64_t last_ns; /* last observed (or registered / updated) */
	uint64_t flows_seen; /* observations attributed to it */
	uint32_t hosts, edges; /* JOB_PASSIVE: its component's */
	uint32_t root; /* JOB_PASSIVE: its component's root host */
	uint32_t class_mask; /* bit c: a flow of class c (c < 32) seen */
};

struct job_table_params {
	uint32_t max_registered; /* slots for registered jobs */
	uint32_t max_passive; /* slots for passive jobs */
	uint32_t max_hosts; /* hosts of the passive graph */
	uint32_t max_edges; /* host pairs and merge edges */
	uint64_t idle_ns; /* an edge idle this long leaves */
	uint64_t seed; /* of the address hash: random in the daemon (hosts, not
			* the gateway, choose the addresses) */
};

struct job_table_stats {
	ctr_t registered; /* new registrations */
	ctr_t updated; /* registrations of an existing id */
	ctr_t unregistered;
	ctr_t refused; /* registrations refused as invalid or overlapping */
	ctr_t passive_created;
	ctr_t passive_merged; /* passive jobs joined into another */
	ctr_t passive_expired; /* passive jobs no component holds any more */
	ctr_t hosts_expired;
	ctr_t edges_expired;
	ctr_t observed_registered; /* observations of a registered job */
	ctr_t observed_passive;
	ctr_t unmatched; /* observations attributed to no job */
	ctr_t full_registered; /* registrations refused: no free slot */
	ctr_t full_passive; /* flows refused: no passive job slot */
	ctr_t full_hosts; /* flows refused: host table full */
	ctr_t full_edges; /* flows and merges refused: edge table full */
};

struct job_host;
struct job_edge;

struct job_table {
	struct job_table_params par;
	uint32_t max_jobs; /* max_registered + max_passive */
	struct job *jobs;
	struct job_host *hosts;
	struct job_edge *edges;
	uint32_t *host_index, host_mask; /* open addressing, 2x max_hosts */
	uint32_t *edge_index, edge_mask; /* likewise, 2x max_edges */
	uint32_t *host_free, n_host_free; /* free slots, a stack */
	uint32_t *edge_free, n_edge_free;
	uint32_t *scratch; /* job_table_expire()'s work arrays */
	uint64_t gen; /* +1 at every change of the flow -> job mapping */
	uint64_t passive_seq; /* the N of the next "passive-N" */
	struct job_table_stats st;
};

/* Defaults: 64 registered, 64 passive, 1024 hosts, 4096 edges, 10 s. */
void job_table_params_default(struct job_table_params *p);

/* NULL, or the first bad field of p (a static string). */
const char *job_table_params_check(const struct job_table_params *p);

/* 0, or -1 with the reason in (errbuf, errlen): bad parameters, no
 * memory. All memory the table will use is allocated here. */
int job_table_init(struct job_table *t, const struct job_table_params *p,
		   char *errbuf, size_t errlen);
void job_table_fini(struct job_table *t);

/* r on its own, or -1 and one line in (errbuf, errlen) naming the first
 * bad field:
 *   id is empty
 *   id is longer than 63 characters
 *   id 'X' holds 'C'; use letters, digits and . _ : / -
 *   id 'passive-3' is reserved for passive jobs
 *   prefixes: N given, at most 16
 *   prefixes[I]: family F is neither 4 nor 6
 *   prefixes[I]: length L is longer than 32 (128)
 *   prefixes[I]: host bits set
 *   dscp D is out of range (0..63)
 *   no prefixes and no dscp: nothing would tell the job's flows
 *   prio_class is longer than 31 characters
 *   prio_class 'X' holds 'C'; use letters, digits and _ . -
 * (the control API prefixes its verb). */
int job_reg_check(const struct job_reg *r, char *errbuf, size_t errlen);

/* Register r, or update the job of the same id in place (same index and
 * epoch). The job's index, or JOB_NONE and one line in (errbuf, errlen):
 * what job_reg_check() says, or
 *   prefix P overlaps job 'Y' (Q); give both jobs distinct dscp values
 *   dscp D overlaps job 'Y' ...  (no prefixes: any host)
 *   job table full: N registered jobs
 * Counted: registered / updated, refused, full_registered. */
uint32_t job_table_register(struct job_table *t, const struct job_reg *r,
			    uint64_t now_ns, char *errbuf, size_t errlen);

/* 0, or -1 if no registered job has this id. */
int job_table_unregister(struct job_table *t, const char *id);

/* The index of the job of this id (registered or passive), or JOB_NONE. */
uint32_t job_table_find(const struct job_table *t, const char *id);

/* The job in slot i (kind JOB_FREE if none), or NULL if i is out of
 * range. Valid until the next call that changes the table. */
const struct job *job_table_job(const struct job_table *t, uint32_t i);

/* A flow of a collective class seen at now_ns: its job's index (the
 * registered job it matches, else its passive job, created or joined),
 * or JOB_NONE: a table full (counted), or src == dst. class_id < 32 is
 * recorded in the job's class_mask. */
uint32_t job_table_observe(struct job_table *t, const struct job_addr *src,
			   const struct job_addr *dst, uint8_t dscp,
			   uint8_t class_id, uint64_t now_ns);

/* The job of a flow, as observe() would attribute it, without observing
 * it: a registered job it matches, else the passive job holding both of
 * its hosts, else JOB_NONE. */
uint32_t job_table_lookup(const struct job_table *t, const struct job_addr *src,
			  const struct job_addr *dst, uint8_t dscp);

/* Join passive jobs a and b (their burst onsets coincide) with a merge
 * edge between their roots (it stays while both hosts have flows): the
 * surviving index (the older job; a itself if a == b), or JOB_NONE and
 * why (a static string): "not a passive job", "edge table full"
 * (counted full_edges). */
uint32_t job_table_merge(struct job_table *t, uint32_t a, uint32_t b,
			 uint64_t now_ns, const char **why);

/* Remove the flow edges idle for idle_ns, the hosts left without flow
 * edges and their merge edges, and recompute the components and their
 * jobs (see the model above). Call about once a second. The number of
 * edges removed. */
uint32_t job_table_expire(struct job_table *t, uint64_t now_ns);

/* Live counts. */
uint32_t job_table_count(const struct job_table *t, enum job_kind kind);
uint32_t job_table_hosts(const struct job_table *t);
uint32_t job_table_edges(const struct job_table *t);

/* +1 at every change of the flow -> job mapping (a snapshot filled at one
 * value answers like the table until it changes). */
static inline uint64_t job_table_gen(const struct job_table *t)
{
	return t->gen;
}

/* NULL if the invariants above hold, else the first that does not. */
const char *job_table_check(const struct job_table *t);

/*
 * The snapshot the dataplane looks flows up in: flat copies of the
 * registered jobs' selectors and of the passive host -> job map. Sized
 * for one table at job_snap_init() (the only allocation); filled by the
 * control thread while no reader holds it; read by any thread.
 */
struct job_snap_reg {
	uint32_t job;
	uint8_t dscp;
	uint8_t n_prefixes;
	struct qos_prefix prefixes[JOB_PREFIXES_MAX];
};

struct job_snap_host {
	struct job_addr addr;
	uint32_t job; /* JOB_NONE: an empty slot */
};

struct job_snap {
	uint64_t gen; /* job_table_gen() when filled */
	uint64_t seed;
	uint32_t n_reg, max_reg;
	struct job_snap_reg *reg;
	uint32_t host_mask; /* open addressing, 2x the table's max_hosts */
	struct job_snap_host *hosts;
};

int job_snap_init(struct job_snap *s, const struct job_table *t);
void job_snap_fini(struct job_snap *s);
void job_snap_fill(struct job_snap *s, const struct job_table *t);

/* What job_table_lookup() answered when s was filled. */
uint32_t job_snap_lookup(const struct job_snap *s, const struct job_addr *src,
			 const struct job_addr *dst, uint8_t dscp);

#endif
