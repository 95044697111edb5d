// SPDX-License-Identifier: BSD-2-Clause
/*
 * placement.c - the placement decision and its hwloc adapter; see
 * placement.h for the rules.
 *
 * placement_decide() works on fixed arrays indexed by OS CPU number (below
 * PLC_MAX_CPUS): a candidate table (struct pool) of the PUs workers may
 * use, grouped by core in ascending order of their lowest PU, and the
 * result. It allocates nothing, reads its input only within the counts
 * given, and never fails without a line in out->why.
 *
 * Worker selection is demand driven: the units that prefer a node (their
 * egress port's) ask that node's cores for up to one worker each, first
 * one PU per core, then SMT siblings. Units whose node has no candidate
 * left (a cpuset without it) spill to the cores left elsewhere, again one
 * worker per unit at most. Workers are numbered in the order of the first
 * unit they run, so with one node unit u runs on worker u % n_workers.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "placement.h"

#define NO_CORE_BASE (1 << 20) /* core ids for PUs the topology lacks */

/* A PU workers may use. */
struct cand {
	int os;
	int core;
	int node;
	bool used; /* a worker, or the control thread's core */
};

struct pool {
	uint32_t n;
	struct cand c[PLC_MAX_CPUS]; /* by core, then by OS index */
};

/* A worker being chosen: its CPU, and how many units it runs. */
struct pick {
	int cpu;
	int node;
	uint32_t load;
	uint32_t group; /* GROUP_* */
};

/* Which units a worker is for: those of port 0's RX (egress port 1), those
 * of port 1's RX (egress port 0), or any. Unit u is in group u / queues. */
enum { GROUP_RX0 = 0, GROUP_RX1 = 1, GROUP_ANY = 2 };

/* The ports' locality: the nodes candidates come from (0, 1 or 2) and each
 * egress port's node (-1: none). */
struct locality {
	int nodes[2];
	uint32_t n_nodes;
	int egress_node[2];
};

/* One decision in progress. */
struct decision {
	const struct plc_input *in;
	uint32_t units;
	const struct plc_cpu *by_os[PLC_MAX_CPUS];
	bool allowed[PLC_MAX_CPUS];
	struct locality l;
	bool by_node; /* units go to their egress port's node */
	uint32_t n; /* workers picked */
	struct pick w[PLC_MAX_UNITS];
	struct plc_result *out;
};

__attribute__((format(printf, 2, 3))) static void why(struct plc_result *out,
						      const char *fmt, ...)
{
	size_t len = strnlen(out->why, sizeof(out->why));
	size_t room = sizeof(out->why) - len;
	va_list ap;
	int n;

	if (room < 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(out->why + len, room - 1, fmt, ap);
	va_end(ap);
	if (n < 0) {
		out->why[len] = '\0';
		return;
	}
	len += (size_t)n < room - 1 ? (size_t)n : room - 2;
	out->why[len++] = '\n';
	out->why[len] = '\0';
}

/* "0-3,8,10-11": the CPUs set in a flag array, as ranges. */
static void cpu_ranges(const bool *set, char *buf, size_t size)
{
	size_t len = 0;
	int lo, hi;

	buf[0] = '\0';
	for (lo = 0; lo < PLC_MAX_CPUS; lo = hi + 1) {
		hi = lo;
		if (!set[lo])
			continue;
		while (hi + 1 < PLC_MAX_CPUS && set[hi + 1])
			hi++;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len,
						hi > lo ? "%s%d-%d" : "%s%d",
						len ? "," : "", lo, hi);
	}
	if (len >= size && size > 4) /* cut short: say so */
		memcpy(buf + size - 4, "...", 4);
	if (!buf[0])
		snprintf(buf, size, "none");
}

static void pick_ranges(const struct decision *d, char *buf, size_t size)
{
	bool set[PLC_MAX_CPUS] = {false};

	for (uint32_t i = 0; i < d->n; i++)
		set[d->w[i].cpu] = true;
	cpu_ranges(set, buf, size);
}

/* The topology's entry of each OS CPU, or NULL. */
static void index_topo(const struct plc_topo *t,
		       const struct plc_cpu *by_os[PLC_MAX_CPUS])
{
	uint32_t n = t->n < PLC_MAX_CPUS ? t->n : PLC_MAX_CPUS;

	for (int i = 0; i < PLC_MAX_CPUS; i++)
		by_os[i] = NULL;
	for (uint32_t i = 0; i < n; i++) {
		int os = t->cpu[i].os;

		if (os >= 0 && os < PLC_MAX_CPUS && !by_os[os])
			by_os[os] = &t->cpu[i];
	}
}

/* A CPU the topology does not know is a core of its own on no node. */
static struct cand cand_of(const struct decision *d, int os)
{
	const struct plc_cpu *c = d->by_os[os];

	return (struct cand){
		.os = os,
		.core = c && c->core >= 0 ? c->core : NO_CORE_BASE + os,
		.node = c && c->node >= 0 ? c->node : -1,
	};
}

static bool on_nodes(int node, const int *nodes, uint32_t n_nodes)
{
	for (uint32_t i = 0; i < n_nodes; i++)
		if (node == nodes[i])
			return true;
	return !n_nodes;
}

/* The pool of the allowed CPUs whose node is in nodes[] (any node when
 * n_nodes is 0), grouped by core: a core's PUs follow its lowest one. */
static void pool_build(const struct decision *d, struct pool *p,
		       const int *nodes, uint32_t n_nodes)
{
	bool taken[PLC_MAX_CPUS] = {false};
	struct cand a, b;

	p->n = 0;
	for (int os = 0; os < PLC_MAX_CPUS; os++) {
		if (!d->allowed[os] || taken[os])
			continue;
		a = cand_of(d, os);
		if (!on_nodes(a.node, nodes, n_nodes))
			continue;
		for (int sib = os; sib < PLC_MAX_CPUS; sib++) {
			if (!d->allowed[sib] || taken[sib])
				continue;
			b = cand_of(d, sib);
			if (b.core != a.core)
				continue;
			taken[sib] = true;
			p->c[p->n++] = b;
		}
	}
}

static bool core_start(const struct pool *p, uint32_t i)
{
	return i == 0 || p->c[i].core != p->c[i - 1].core;
}

static uint32_t pool_cores(const struct pool *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n; i++)
		n += core_start(p, i);
	return n;
}

/* Mark every PU of the core of entry i used. */
static void pool_take_core(struct pool *p, uint32_t i)
{
	for (uint32_t k = 0; k < p->n; k++)
		if (p->c[k].core == p->c[i].core)
			p->c[k].used = true;
}

/* The first entry of the first core on `node` (any node: -1) none of whose
 * PUs is used, or -1. */
static int pool_free_core(const struct pool *p, int node)
{
	for (uint32_t i = 0; i < p->n; i++) {
		bool free = true;

		if (!core_start(p, i) || (node >= 0 && p->c[i].node != node))
			continue;
		for (uint32_t k = i; k < p->n && p->c[k].core == p->c[i].core;
		     k++)
			free &= !p->c[k].used;
		if (free)
			return (int)i;
	}
	return -1;
}

static void add_pick(struct decision *d, struct cand *c, uint32_t group)
{
	c->used = true;
	d->w[d->n++] = (struct pick){c->os, c->node, 0, group};
}

/* Up to `want` more workers for `group` on `node` (any: -1): one PU per
 * core none of whose PUs is used, then the remaining PUs (SMT siblings)
 * of the cores in order. Returns how many; *siblings counts the latter. */
static uint32_t pick_workers(struct decision *d, struct pool *p, int node,
			     uint32_t want, uint32_t group, uint32_t *siblings)
{
	uint32_t added = 0;
	int i;

	while (added < want && (i = pool_free_core(p, node)) >= 0) {
		add_pick(d, &p->c[i], group);
		added++;
	}
	for (uint32_t k = 0; k < p->n && added < want; k++) {
		if (p->c[k].used || (node >= 0 && p->c[k].node != node))
			continue;
		add_pick(d, &p->c[k], group);
		added++;
		(*siblings)++;
	}
	return added;
}

static void decide_locality(struct decision *d)
{
	const struct plc_input *in = d->in;
	int p0 = in->port_node[0] >= 0 ? in->port_node[0] : -1;
	int p1 = in->port_node[1] >= 0 ? in->port_node[1] : -1;
	struct plc_result *out = d->out;

	d->l = (struct locality){.egress_node = {-1, -1}};
	if (p0 >= 0 && p1 >= 0 && p0 != p1) {
		d->l = (struct locality){{p0, p1}, 2, {p0, p1}};
		d->by_node = true;
		out->mem_node = p0;
		why(out,
		    "ports on NUMA nodes %d (port 0) and %d (port 1): each "
		    "unit runs near its egress port; the one UMEM on port 0's "
		    "node %d",
		    p0, p1, p0);
	} else if (p0 >= 0 || p1 >= 0) {
		int n = p0 >= 0 ? p0 : p1;

		d->l.nodes[0] = n;
		d->l.n_nodes = 1;
		out->mem_node = n;
		if (p0 >= 0 && p1 >= 0)
			why(out,
			    "ports on NUMA node %d: workers and UMEM there", n);
		else
			why(out,
			    "port %d has no NUMA locality information, port "
			    "%d is on node %d: workers and UMEM there",
			    p0 >= 0 ? 1 : 0, p0 >= 0 ? 0 : 1, n);
	} else {
		out->mem_node = -1;
		why(out, "no NUMA locality for the ports (virtual devices, or "
			 "no PCI information): every allowed core is a "
			 "candidate");
	}
}

/* The control thread: a core of the cpuset no worker uses, on the UMEM's
 * node if there is one. */
static void control_elsewhere(struct decision *d)
{
	struct plc_result *out = d->out;
	struct pool p;
	int i = -1;

	pool_build(d, &p, NULL, 0);
	for (uint32_t k = 0; k < d->n; k++)
		for (uint32_t j = 0; j < p.n; j++)
			if (p.c[j].os == d->w[k].cpu)
				pool_take_core(&p, j);
	if (out->mem_node >= 0)
		i = pool_free_core(&p, out->mem_node);
	if (i < 0)
		i = pool_free_core(&p, -1);
	if (i < 0) {
		why(out, "control thread: no allowed core is free of workers, "
			 "it shares theirs");
		return;
	}
	out->control_cpu = p.c[i].os;
	why(out, "control thread on CPU %d, a core no worker uses%s",
	    out->control_cpu,
	    out->mem_node >= 0 && p.c[i].node != out->mem_node
		    ? " (off the UMEM's node)"
		    : "");
}

/* The group a configured worker on `node` serves. */
static uint32_t group_of_node(const struct decision *d, int node)
{
	if (!d->by_node || node < 0)
		return GROUP_ANY;
	if (node == d->l.egress_node[1])
		return GROUP_RX0;
	if (node == d->l.egress_node[0])
		return GROUP_RX1;
	return GROUP_ANY;
}

static int decide_configured(struct decision *d)
{
	const struct plc_input *in = d->in;
	struct plc_result *out = d->out;
	bool seen[PLC_MAX_CPUS] = {false}, off[PLC_MAX_CPUS] = {false};
	uint32_t n = in->n_cfg_cpus;
	char set[160], list[160];
	bool any_off = false;
	struct cand c;
	int cpu;

	cpu_ranges(d->allowed, set, sizeof(set));
	for (uint32_t i = 0; i < n; i++) {
		cpu = in->cfg_cpus[i];
		if (cpu < 0 || cpu >= PLC_MAX_CPUS || !d->allowed[cpu]) {
			why(out,
			    "workers.cpus: CPU %d is outside the process's "
			    "cpuset (%s); list only CPUs of the cpuset, or "
			    "widen it (taskset, systemd CPUAffinity=)",
			    cpu, set);
			return -EINVAL;
		}
		if (seen[cpu]) {
			why(out, "workers.cpus: CPU %d is listed twice", cpu);
			return -EINVAL;
		}
		seen[cpu] = true;
	}
	cpu_ranges(seen, list, sizeof(list));
	if (n > d->units) {
		why(out,
		    "workers.cpus: %u CPUs (%s) for %u units: workers on the "
		    "first %u listed only",
		    n, list, d->units, d->units);
		n = d->units;
	} else {
		why(out, "workers.cpus: %u workers on CPUs %s, as configured",
		    n, list);
	}
	for (uint32_t i = 0; i < n; i++) {
		c = cand_of(d, in->cfg_cpus[i]);
		if (!on_nodes(c.node, d->l.nodes, d->l.n_nodes))
			any_off = off[c.os] = true;
		add_pick(d, &c, group_of_node(d, c.node));
	}
	if (any_off) {
		cpu_ranges(off, list, sizeof(list));
		why(out,
		    "note: workers.cpus puts CPUs %s off the ports' node%s, "
		    "their frames cross the NUMA interconnect",
		    list, d->l.n_nodes > 1 ? "s" : "");
	}
	control_elsewhere(d);
	return 0;
}

/* Choose the workers from the cpuset; the control thread's core first. */
static int decide_auto(struct decision *d)
{
	const uint32_t q = d->in->queues;
	struct plc_result *out = d->out;
	uint32_t sib = 0, cores, spill = 0;
	char set[160], list[160];
	struct pool p;
	bool smt;
	int i;

	pool_build(d, &p, d->l.nodes, d->l.n_nodes);
	if (!p.n && d->l.n_nodes) {
		cpu_ranges(d->allowed, set, sizeof(set));
		why(out,
		    "no allowed CPU on the ports' node%s (cpuset %s): workers "
		    "on the other nodes' cores, every frame crosses the "
		    "interconnect; the UMEM stays on node %d, where the NIC "
		    "moves every byte by DMA",
		    d->l.n_nodes > 1 ? "s" : "", set, out->mem_node);
		d->by_node = false;
		pool_build(d, &p, NULL, 0);
	}
	if (!p.n) {
		why(out, "no CPU to run workers on: the cpuset is empty");
		return -EINVAL;
	}
	cores = pool_cores(&p);
	if (cores >= 2) {
		i = out->mem_node >= 0 ? pool_free_core(&p, out->mem_node) : -1;
		if (i < 0)
			i = pool_free_core(&p, -1);
		pool_take_core(&p, (uint32_t)i);
		out->control_cpu = p.c[i].os;
		smt = (uint32_t)i + 1 < p.n && p.c[i + 1].core == p.c[i].core;
		why(out,
		    "control thread on CPU %d, a core of its own (of %u "
		    "candidate cores)%s",
		    out->control_cpu, cores,
		    smt ? ", its SMT siblings left free too" : "");
	}
	if (d->by_node) {
		/* each node: up to one worker per unit that egresses there */
		for (uint32_t g = GROUP_RX0; g <= GROUP_RX1; g++) {
			int node = d->l.egress_node[1 - g];

			if (pick_workers(d, &p, node, q, g, &sib))
				continue;
			spill += q;
			why(out,
			    "no allowed core left on node %d: port %u's egress "
			    "units run on another node",
			    node, 1 - g);
		}
		if (spill)
			pick_workers(d, &p, -1, spill, GROUP_ANY, &sib);
	} else {
		pick_workers(d, &p, -1, d->units, GROUP_ANY, &sib);
	}
	if (cores < 2)
		control_elsewhere(d);
	pick_ranges(d, list, sizeof(list));
	if (sib)
		why(out,
		    "%u workers on CPUs %s: one per physical core, then %u on "
		    "SMT siblings (%u units want more workers than cores)",
		    d->n, list, sib, d->units);
	else
		why(out, "%u workers on CPUs %s: one per physical core%s", d->n,
		    list,
		    d->n < d->units ? ", fewer cores than units"
		    : p.n > cores   ? ", SMT siblings left idle"
				    : "");
	return 0;
}

/* A worker that runs no unit takes one from the most loaded worker (of
 * its own group if it can): with no more workers than units, every one
 * gets work. Only configured CPUs can need it (more workers on a node
 * than units egress there). */
static void fill_idle(struct decision *d, uint32_t *pick_of)
{
	uint32_t donor, moved;

	for (uint32_t k = 0; k < d->n; k++) {
		if (d->w[k].load)
			continue;
		donor = UINT32_MAX;
		for (uint32_t j = 0; j < d->n; j++) {
			bool same = d->w[j].group == d->w[k].group;

			if (d->w[j].load < 2)
				continue;
			if (donor == UINT32_MAX ||
			    (same && d->w[donor].group != d->w[k].group) ||
			    (same == (d->w[donor].group == d->w[k].group) &&
			     d->w[j].load > d->w[donor].load))
				donor = j;
		}
		if (donor == UINT32_MAX)
			return;
		moved = UINT32_MAX;
		for (uint32_t u = 0; u < d->units; u++)
			if (pick_of[u] == donor)
				moved = u; /* its last unit */
		pick_of[moved] = k;
		d->w[donor].load--;
		d->w[k].load++;
	}
}

/* Unit u to the least loaded worker of its group (round robin there) --
 * a configured worker off both ports' nodes serves either group -- or of
 * any group when its own has none; then number the workers in the order
 * of the first unit each runs. */
static void assign_units(struct decision *d)
{
	const uint32_t q = d->in->queues;
	const bool cfg = d->in->n_cfg_cpus > 0;
	struct plc_result *out = d->out;
	uint32_t pick_of[PLC_MAX_UNITS], num[PLC_MAX_UNITS], n = 0;
	uint32_t lo = UINT32_MAX, hi = 0, best, g, wg;
	bool has[3] = {false, false, false}, seen[PLC_MAX_UNITS] = {false};

	for (uint32_t k = 0; k < d->n; k++)
		has[d->w[k].group] = true;
	for (uint32_t u = 0; u < d->units; u++) {
		g = d->by_node && has[u / q] ? u / q : GROUP_ANY;
		best = UINT32_MAX;
		for (uint32_t k = 0; k < d->n; k++) {
			wg = d->w[k].group;
			if (has[g] && wg != g && !(cfg && wg == GROUP_ANY))
				continue;
			if (best == UINT32_MAX ||
			    d->w[k].load < d->w[best].load)
				best = k;
		}
		d->w[best].load++;
		pick_of[u] = best;
	}
	fill_idle(d, pick_of);
	for (uint32_t u = 0; u < d->units; u++)
		if (!seen[pick_of[u]]) {
			seen[pick_of[u]] = true;
			num[pick_of[u]] = n++;
		}
	for (uint32_t k = 0; k < d->n; k++) {
		if (!seen[k]) /* no unit: cannot happen, workers <= units */
			num[k] = n++;
		out->worker_cpu[num[k]] = d->w[k].cpu;
		out->worker_node[num[k]] = d->w[k].node;
		lo = d->w[k].load < lo ? d->w[k].load : lo;
		hi = d->w[k].load > hi ? d->w[k].load : hi;
	}
	for (uint32_t u = 0; u < d->units; u++)
		out->unit_worker[u] = num[pick_of[u]];
	out->n_workers = d->n;
	why(out,
	    "%u units (RX of a queue + egress of the other port) over %u "
	    "workers: %u to %u each",
	    d->units, d->n, lo, hi);
}

/* The ports say nothing about locality, but when every worker runs on one
 * node the frames are touched there: bind the UMEM to it. */
static void bind_where_workers_run(struct plc_result *out)
{
	int node = out->n_workers ? out->worker_node[0] : -1;

	if (out->mem_node >= 0)
		return;
	for (uint32_t i = 1; node >= 0 && i < out->n_workers; i++)
		if (out->worker_node[i] != node)
			node = -2;
	if (node < 0) {
		why(out, "UMEM not bound: %s",
		    node == -2 ? "the workers run on several nodes"
			       : "no NUMA information");
		return;
	}
	out->mem_node = node;
	why(out, "UMEM bound to node %d, where every worker runs", node);
}

int placement_decide(const struct plc_input *in, struct plc_result *out)
{
	static const struct plc_topo empty;
	struct decision d = {.in = in, .out = out};
	uint32_t dropped = 0;
	int err;

	memset(out, 0, sizeof(*out));
	out->control_cpu = -1;
	out->mem_node = -1;
	if (!in || in->queues < 1 || in->queues > PLC_MAX_UNITS / 2) {
		why(out, "queues: must be 1..%d per port (got %u)",
		    PLC_MAX_UNITS / 2, in ? in->queues : 0);
		return -EINVAL;
	}
	if ((in->n_allowed && !in->allowed) ||
	    (in->n_cfg_cpus && !in->cfg_cpus)) {
		why(out, "a CPU count without its list");
		return -EINVAL;
	}
	d.units = 2 * in->queues;
	index_topo(in->topo ? in->topo : &empty, d.by_os);
	for (uint32_t i = 0; i < in->n_allowed; i++) {
		if (in->allowed[i] >= 0 && in->allowed[i] < PLC_MAX_CPUS)
			d.allowed[in->allowed[i]] = true;
		else
			dropped++;
	}
	if (dropped)
		why(out, "%u allowed CPUs at or above %d are not used", dropped,
		    PLC_MAX_CPUS);
	decide_locality(&d);
	err = in->n_cfg_cpus ? decide_configured(&d) : decide_auto(&d);
	if (!err && !d.n) { /* not reached: a pool or a list has a CPU */
		why(out, "no CPU left for workers");
		err = -EINVAL;
	}
	if (err) {
		out->control_cpu = -1;
		return err;
	}
	assign_units(&d);
	bind_where_workers_run(out);
	return 0;
}

/*
 * hwloc adapter
 */

int placement_topo_from_hwloc(hwloc_topology_t topo, struct plc_topo *t)
{
	int n_pu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	int n_core = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	int n_node = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	hwloc_obj_t pu, core, pkg;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < n_pu; i++) {
		pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		if (!pu || pu->os_index >= PLC_MAX_CPUS || t->n == PLC_MAX_CPUS)
			continue;
		core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE,
						     pu);
		t->cpu[t->n++] = (struct plc_cpu){
			.os = (int)pu->os_index,
			/* no Core object: each PU is a core of its own */
			.core = core ? (int)core->logical_index
				     : (n_core > 0 ? n_core : 0) +
						(int)pu->logical_index,
			.package = pkg ? (int)pkg->logical_index : -1,
			/* a PU near several nodes (DDR and HBM or CXL
			 * memory): the lowest, the normal memory */
			.node = pu->nodeset && !hwloc_bitmap_iszero(pu->nodeset)
					? hwloc_bitmap_first(pu->nodeset)
					: -1,
		};
	}
	t->n_nodes = n_node > 0 ? (uint32_t)n_node : 0;
	return t->n ? 0 : -EINVAL;
}

int placement_topo_load(struct plc_topo *t, char *errbuf, size_t errlen)
{
	hwloc_topology_t topo;
	int e = 0;

	memset(t, 0, sizeof(*t));
	if (hwloc_topology_init(&topo)) {
		e = -errno;
		snprintf(errbuf, errlen,
			 "hwloc: cannot initialise a topology: %s",
			 strerror(errno));
		return e ? e : -ENOMEM;
	}
	/* the cpuset is the caller's input: see every PU of the machine */
	hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (hwloc_topology_load(topo)) {
		e = errno ? -errno : -EIO;
		snprintf(errbuf, errlen, "hwloc: cannot load the topology: %s",
			 strerror(-e));
	} else if (placement_topo_from_hwloc(topo, t)) {
		e = -ENOENT;
		snprintf(errbuf, errlen,
			 "hwloc: the topology has no PU below %d",
			 PLC_MAX_CPUS);
	}
	hwloc_topology_destroy(topo);
	return e;
}

int placement_port_node(hwloc_topology_t topo, const char *ifname)
{
	hwloc_obj_t dev = NULL, anc;

	if (!ifname)
		return -1;
	while ((dev = hwloc_get_next_osdev(topo, dev)))
		if (dev->attr &&
		    dev->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK &&
		    dev->name && !strcmp(dev->name, ifname))
			break;
	if (!dev)
		return -1;
	anc = hwloc_get_non_io_ancestor_obj(topo, dev);
	if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(anc->nodeset);
}

/* The topology with I/O objects is loaded once and kept for the life of
 * the process: destroying the last topology unloads hwloc's PCI plugin,
 * and libpciaccess, which it loads, never frees its global state -- that
 * memory would become a leak (LeakSanitizer reports it). Kept, it stays
 * reachable. Control thread only. */
static hwloc_topology_t io_topology(int *err)
{
	static hwloc_topology_t topo;
	static int load_err;

	if (topo || load_err) {
		*err = load_err;
		return load_err ? NULL : topo;
	}
	if (hwloc_topology_init(&topo)) {
		topo = NULL;
		load_err = errno ? -errno : -ENOMEM;
	} else {
		hwloc_topology_set_io_types_filter(
			topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
		if (hwloc_topology_load(topo)) {
			load_err = errno ? -errno : -EIO;
			hwloc_topology_destroy(topo);
			topo = NULL;
		}
	}
	*err = load_err;
	return topo;
}

int placement_port_nodes(const char *ifname0, const char *ifname1, int node[2])
{
	hwloc_topology_t topo;
	int e;

	node[0] = node[1] = -1;
	topo = io_topology(&e);
	if (!topo)
		return e;
	node[0] = placement_port_node(topo, ifname0);
	node[1] = placement_port_node(topo, ifname1);
	return 0;
}

int placement_allowed_cpus(int *cpus, uint32_t max)
{
	cpu_set_t set;
	uint32_t n = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return (int)n;
}
