// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_placement.c - unit tests of dataplane/run/placement.c and of the UMEM's
 * NUMA binding and hugepage fallback (dataplane/xsk/umem.c).
 *
 * Decisions on hand-built topologies, each test saying why the expected
 * choice is the one an expert would make. Most use the two-socket machine
 * of two_sockets(): packages 0 and 1 = NUMA nodes 0 and 1, 4 cores each,
 * 2 PUs per core numbered as Linux does on Intel servers: core c (0..7)
 * has PUs c and c + 8, so node 0 = CPUs 0-3,8-11, node 1 = 4-7,12-15.
 *
 * Through hwloc: a synthetic description ("pack:2 numa:1 core:4 pu:2",
 * siblings adjacent) and the XML fixture tests/unit/topo/two-socket-nic.xml
 * (the machine above with eth1/eth2 on socket 1 and eth0 without
 * locality), found through $XDPLANE_SOURCE (set by ctest). Then this
 * machine's topology, and a UMEM bound to node 0 checked in
 * /proc/self/numa_maps.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "placement.h"
#include "umem.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void two_sockets(struct plc_topo *t)
{
	memset(t, 0, sizeof(*t));
	for (int os = 0; os < 16; os++) {
		int core = os % 8;

		t->cpu[t->n++] = (struct plc_cpu){os, core, core / 4, core / 4};
	}
	t->n_nodes = 2;
}

static int node_of(int cpu)
{
	return (cpu % 8) / 4;
}

/* CPUs lo..hi into a[], returns the count. */
static uint32_t cpus(int *a, int lo, int hi)
{
	uint32_t n = 0;

	for (int c = lo; c <= hi; c++)
		a[n++] = c;
	return n;
}

static struct plc_input input(const struct plc_topo *t, int node0, int node1,
			      const int *allowed, uint32_t n_allowed,
			      uint32_t queues)
{
	return (struct plc_input){
		.topo = t,
		.port_node = {node0, node1},
		.allowed = allowed,
		.n_allowed = n_allowed,
		.queues = queues,
	};
}

static void decide_ok(const struct plc_input *in, struct plc_result *out)
{
	int err = placement_decide(in, out);

	if (err)
		fail_msg("placement_decide: %d: %s", err, out->why);
}

static void assert_why(const struct plc_result *out, const char *text)
{
	if (!strstr(out->why, text))
		fail_msg("'%s' not in why:\n%s", text, out->why);
}

static void assert_workers(const struct plc_result *out, const int *want,
			   uint32_t n)
{
	if (out->n_workers != n)
		fail_msg("%u workers, want %u; why:\n%s", out->n_workers, n,
			 out->why);
	for (uint32_t i = 0; i < n; i++)
		if (out->worker_cpu[i] != want[i])
			fail_msg("worker %u on CPU %d, want %d; why:\n%s", i,
				 out->worker_cpu[i], want[i], out->why);
}

/* Every unit has a worker, every worker a unit, loads differ by <= 1. */
static void assert_balanced(const struct plc_result *out, uint32_t units)
{
	uint32_t load[PLC_MAX_CPUS] = {0}, lo = UINT32_MAX, hi = 0;

	for (uint32_t u = 0; u < units; u++) {
		assert_in_range(out->unit_worker[u], 0, out->n_workers - 1);
		load[out->unit_worker[u]]++;
	}
	for (uint32_t w = 0; w < out->n_workers; w++) {
		lo = load[w] < lo ? load[w] : lo;
		hi = load[w] > hi ? load[w] : hi;
	}
	assert_true(lo >= 1);
	assert_true(hi - lo <= 1);
}

/* The NIC (both ports) on node 1, the whole machine allowed, one queue per
 * port: 2 units. Workers on node 1 so that neither the frames the NIC
 * DMAs nor the rings cross the interconnect; one per physical core (5
 * and 6, not 12 and 13: a sibling shares its core's execution units);
 * the first node-1 core (4, with its sibling 12) kept for the control
 * thread, so that reloads and scrapes never steal a worker's cycles; the
 * UMEM on node 1, next to the NIC. */
static void test_nic_on_node1(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int want[] = {5, 6};

	(void)state;
	two_sockets(&t);
	in = input(&t, 1, 1, all, cpus(all, 0, 15), 1);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.control_cpu, 4);
	assert_int_equal(out.mem_node, 1);
	assert_int_equal(out.worker_node[0], 1);
	assert_int_equal(out.worker_node[1], 1);
	/* unit 0 = RX(port 0) + egress(port 1) on worker 0, unit 1 the
	 * mirror on worker 1: the pairing placement_decide makes */
	assert_int_equal(out.unit_worker[0], 0);
	assert_int_equal(out.unit_worker[1], 1);
	assert_why(&out, "ports on NUMA node 1: workers and UMEM there");
	assert_why(&out, "control thread on CPU 4");
	assert_why(&out, "2 workers on CPUs 5-6: one per physical core, SMT "
			 "siblings left idle");
}

/* SMT siblings only when more workers are useful. Node 1 has 3 cores
 * after the control thread's: 3 queues (6 units) take those 3 cores and
 * then their siblings 13-15 (a sibling adds throughput to a polling loop,
 * a unit doubled up on one thread adds none); 2 queues (4 units) take one
 * sibling; 4 queues (8 units) take all 6 PUs, loads 2,2,1,1,1,1, never the
 * control core's PUs 4 and 12. */
static void test_smt_siblings_when_needed(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int want3[] = {5, 6, 7, 13, 14, 15};
	static const int want2[] = {5, 6, 7, 13};
	static const int want4[] = {5, 6, 7, 13, 14, 15};

	(void)state;
	two_sockets(&t);
	in = input(&t, 1, 1, all, cpus(all, 0, 15), 3);
	decide_ok(&in, &out);
	assert_workers(&out, want3, N(want3));
	assert_balanced(&out, 6);
	assert_why(&out, "one per physical core, then 3 on SMT siblings");

	in.queues = 2;
	decide_ok(&in, &out);
	assert_workers(&out, want2, N(want2));
	assert_balanced(&out, 4);

	in.queues = 4;
	decide_ok(&in, &out);
	assert_workers(&out, want4, N(want4));
	assert_balanced(&out, 8);
	assert_int_equal(out.control_cpu, 4);
	assert_why(&out, "8 units");
	assert_why(&out, "over 6 workers: 1 to 2 each");
}

/* Never more workers than units: 16 allowed CPUs, 1 queue, 2 workers. */
static void test_workers_at_most_units(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];

	(void)state;
	two_sockets(&t);
	in = input(&t, -1, -1, all, cpus(all, 0, 15), 1);
	decide_ok(&in, &out);
	assert_int_equal(out.n_workers, 2);
}

/* A cpuset without node 1 (CPUs 0-3,8-11: node 0 only) while the NIC is
 * on node 1: the workers can only run on node 0, so they do (cores 1
 * and 2; core 0 for the control thread), and the log says that every
 * frame crosses the interconnect. The UMEM still goes to node 1: the NIC
 * writes every byte of every frame into it and reads every byte back out,
 * by DMA, while a worker reads a header and writes a descriptor; memory
 * on the workers' node would send all the payload across the link (and
 * lose DDIO, which only serves the NIC's local memory). A cpuset is about
 * CPUs; if a cgroup also forbade node 1's memory, the binding would be
 * refused and reported (see test_umem_bad_node), never fatal. */
static void test_cpuset_excludes_nic_node(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int allowed[8];
	static const int want[] = {1, 2};

	(void)state;
	two_sockets(&t);
	cpus(allowed, 0, 3);
	cpus(allowed + 4, 8, 11);
	in = input(&t, 1, 1, allowed, 8, 1);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.control_cpu, 0);
	assert_int_equal(out.mem_node, 1);
	assert_why(&out, "no allowed CPU on the ports' node (cpuset 0-3,8-11)");
	assert_why(&out, "the UMEM stays on node 1");
}

/* A NIC without locality (virtual devices, a VM without a PCI NUMA
 * node): no node to prefer, so every allowed core is a candidate, taken
 * in order -- which fills one socket first (Linux numbers a socket's
 * cores together), keeping the workers near each other; the UMEM is not
 * bound (the first touch places it, on the starting thread's node). */
static void test_no_locality(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int want[] = {1, 2, 3, 4};

	(void)state;
	two_sockets(&t);
	in = input(&t, -1, -1, all, cpus(all, 0, 15), 2);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.control_cpu, 0);
	assert_int_equal(out.mem_node, -1);
	assert_balanced(&out, 4);
	assert_why(&out, "no NUMA locality for the ports");
	assert_why(&out, "UMEM not bound");
}

/* No locality from the ports (veth, as on the CI machine), but the cpuset
 * holds node 0's CPUs only (0-3): every worker runs there, so the frames
 * are touched there -- bind the UMEM to node 0. */
static void test_no_locality_one_node(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];

	(void)state;
	two_sockets(&t);
	in = input(&t, -1, -1, all, cpus(all, 0, 3), 1);
	decide_ok(&in, &out);
	for (uint32_t i = 0; i < out.n_workers; i++)
		assert_int_equal(node_of(out.worker_cpu[i]), 0);
	assert_int_equal(out.mem_node, 0);
	assert_why(&out, "UMEM bound to node 0, where every worker runs");
}

/* One port with locality, the other without (a virtual device): go by the
 * one that has it. */
static void test_one_port_without_locality(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];

	(void)state;
	two_sockets(&t);
	in = input(&t, -1, 1, all, cpus(all, 0, 15), 1);
	decide_ok(&in, &out);
	assert_int_equal(out.mem_node, 1);
	assert_int_equal(out.control_cpu, 4);
	assert_int_equal(node_of(out.worker_cpu[0]), 1);
	assert_int_equal(node_of(out.worker_cpu[1]), 1);
	assert_why(&out, "port 0 has no NUMA locality information, port 1 is "
			 "on node 1");
}

/* workers.cpus given: exactly those CPUs, in the order listed (the
 * operator may know better, e.g. isolated cores); the control thread on a
 * core of the cpuset that no worker uses, on the NIC's node (core 4). A
 * CPU off the NIC's node is allowed, with a note. */
static void test_cfg_cpus(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int cfg[] = {7, 6};
	static const int off[] = {7, 2};

	(void)state;
	two_sockets(&t);
	in = input(&t, 1, 1, all, cpus(all, 0, 15), 1);
	in.cfg_cpus = cfg;
	in.n_cfg_cpus = N(cfg);
	decide_ok(&in, &out);
	assert_workers(&out, cfg, N(cfg));
	assert_int_equal(out.control_cpu, 4);
	assert_int_equal(out.mem_node, 1);
	assert_why(&out, "workers.cpus: 2 workers on CPUs 6-7, as configured");

	in.cfg_cpus = off;
	decide_ok(&in, &out);
	assert_workers(&out, off, N(off));
	assert_why(&out, "note: workers.cpus puts CPUs 2 off the ports' node");
}

/* More CPUs listed than units: the first ones, one per unit. */
static void test_cfg_cpus_more_than_units(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int cfg[] = {4, 5, 6, 7};

	(void)state;
	two_sockets(&t);
	in = input(&t, 1, 1, all, cpus(all, 0, 15), 1);
	in.cfg_cpus = cfg;
	in.n_cfg_cpus = N(cfg);
	decide_ok(&in, &out);
	assert_workers(&out, cfg, 2);
	assert_why(&out, "workers.cpus: 4 CPUs (4-7) for 2 units: workers on "
			 "the first 2 listed only");
}

/* A workers.cpus CPU outside the cpuset: refused, naming the CPU and the
 * cpuset, nothing placed. So is a CPU listed twice. */
static void test_cfg_cpu_outside_cpuset(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int allowed[8];
	static const int cfg[] = {5, 9};
	static const int twice[] = {5, 5};

	(void)state;
	two_sockets(&t);
	in = input(&t, 1, 1, allowed, cpus(allowed, 0, 7), 1);
	in.cfg_cpus = cfg;
	in.n_cfg_cpus = N(cfg);
	assert_int_equal(placement_decide(&in, &out), -EINVAL);
	assert_int_equal(out.n_workers, 0);
	assert_int_equal(out.control_cpu, -1);
	assert_why(&out, "workers.cpus: CPU 9 is outside the process's cpuset "
			 "(0-7)");
	in.cfg_cpus = twice;
	assert_int_equal(placement_decide(&in, &out), -EINVAL);
	assert_why(&out, "workers.cpus: CPU 5 is listed twice");
}

/* Ports on different nodes (port 0 on node 0, port 1 on node 1), 2 queues:
 * units 0 and 1 (RX of port 0) egress on port 1, units 2 and 3 on port 0.
 * Each unit runs on its egress port's node: the egress scheduler
 * transmits through that NIC and reads its completions -- the per-frame
 * work that touches the NIC -- while the RX side only reads what the other
 * NIC wrote. The control thread on the UMEM's node 0 (core 0); the UMEM
 * on port 0's node, said so. */
static void test_ports_on_two_nodes(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int want[] = {4, 5, 1, 2};

	(void)state;
	two_sockets(&t);
	in = input(&t, 0, 1, all, cpus(all, 0, 15), 2);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	for (uint32_t u = 0; u < 4; u++) {
		int port = (int)placement_unit_egress_port(u, 2);
		int cpu = out.worker_cpu[out.unit_worker[u]];

		assert_int_equal(node_of(cpu), in.port_node[port]);
		assert_int_equal(out.worker_node[out.unit_worker[u]],
				 in.port_node[port]);
	}
	assert_int_equal(out.mem_node, 0);
	assert_int_equal(out.control_cpu, 0);
	assert_balanced(&out, 4);
	assert_why(&out, "ports on NUMA nodes 0 (port 0) and 1 (port 1)");
	assert_why(&out, "UMEM on port 0's node 0");
}

/* Ports on two nodes, cpuset on node 0 only: port 0's egress units stay
 * on node 0 (cores 1, 2), port 1's spill to the cores left there (core 3,
 * then the sibling 9 of core 1) -- with a line saying so. */
static void test_two_nodes_one_excluded(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int allowed[8];
	static const int want[] = {3, 9, 1, 2};

	(void)state;
	two_sockets(&t);
	cpus(allowed, 0, 3);
	cpus(allowed + 4, 8, 11);
	in = input(&t, 0, 1, allowed, 8, 2);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.worker_cpu[out.unit_worker[2]], 1);
	assert_int_equal(out.worker_cpu[out.unit_worker[3]], 2);
	assert_int_equal(out.control_cpu, 0);
	assert_balanced(&out, 4);
	assert_why(&out, "no allowed core left on node 1: port 1's egress "
			 "units run on another node");
}

/* Fewer PUs than units: workers run several units, loads differ by at
 * most one (one node, 4 cores, no SMT; 1 core for control, 3 workers for
 * 8 units: 3, 3, 2). */
static void test_balance(void **state)
{
	struct plc_topo t = {.n = 4, .n_nodes = 1};
	struct plc_input in;
	struct plc_result out;
	int all[4];
	static const int want[] = {1, 2, 3};

	(void)state;
	for (int i = 0; i < 4; i++)
		t.cpu[i] = (struct plc_cpu){i, i, 0, 0};
	in = input(&t, 0, 0, all, cpus(all, 0, 3), 4);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_balanced(&out, 8);
	/* round robin: unit u on worker u % 3 */
	for (uint32_t u = 0; u < 8; u++)
		assert_int_equal(out.unit_worker[u], u % 3);
	assert_why(&out, "fewer cores than units");
}

/* One core (2 PUs): no core to spare, the control thread shares it (-1)
 * and the 2 units use both PUs. */
static void test_one_core(void **state)
{
	struct plc_topo t = {.n = 2, .n_nodes = 1};
	struct plc_input in;
	struct plc_result out;
	int all[2];
	static const int want[] = {0, 1};

	(void)state;
	t.cpu[0] = (struct plc_cpu){0, 0, 0, 0};
	t.cpu[1] = (struct plc_cpu){1, 0, 0, 0};
	in = input(&t, 0, 0, all, cpus(all, 0, 1), 1);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.control_cpu, -1);
	assert_why(&out, "it shares theirs");
}

/* The ports' node has one allowed core: the workers keep it, the control
 * thread takes a free core on another node rather than share. */
static void test_control_off_node(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	static const int allowed[] = {0, 1, 4};
	static const int want[] = {4};

	(void)state;
	two_sockets(&t);
	in = input(&t, 1, 1, allowed, N(allowed), 1);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.unit_worker[0], 0);
	assert_int_equal(out.unit_worker[1], 0);
	assert_int_equal(out.control_cpu, 0);
	assert_why(&out, "(off the UMEM's node)");
}

/* Bad input: refused with a reason, never read past the lists. CPUs the
 * topology does not know are cores of their own on no node. */
static void test_bad_input(void **state)
{
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	static const int allowed[] = {0, 1, 300, -1};

	(void)state;
	two_sockets(&t);
	in = input(&t, 0, 0, allowed, 2, 0);
	assert_int_equal(placement_decide(&in, &out), -EINVAL);
	assert_why(&out, "queues: must be 1..64 per port (got 0)");
	in.queues = 65;
	assert_int_equal(placement_decide(&in, &out), -EINVAL);
	assert_int_equal(placement_decide(NULL, &out), -EINVAL);
	in = input(&t, 0, 0, NULL, 2, 1);
	assert_int_equal(placement_decide(&in, &out), -EINVAL);
	in = input(&t, 0, 0, allowed, 0, 1);
	assert_int_equal(placement_decide(&in, &out), -EINVAL);
	assert_why(&out, "the cpuset is empty");

	in = input(NULL, -1, -1, allowed, N(allowed), 1);
	decide_ok(&in, &out);
	assert_int_equal(out.n_workers, 1);
	assert_int_equal(out.worker_cpu[0], 1);
	assert_int_equal(out.worker_node[0], -1);
	assert_int_equal(out.control_cpu, 0);
	assert_why(&out, "2 allowed CPUs at or above 256 are not used");
}

/* why is one line per decision, NUL terminated, within its size, also
 * with the largest placement (128 units on 256 CPUs). */
static void test_why_bounded(void **state)
{
	struct plc_topo t = {.n = PLC_MAX_CPUS, .n_nodes = 2};
	struct plc_input in;
	struct plc_result out;
	int all[PLC_MAX_CPUS];
	size_t len;

	(void)state;
	for (int i = 0; i < PLC_MAX_CPUS; i++)
		t.cpu[i] = (struct plc_cpu){i, i / 2, i / 128, i / 128};
	in = input(&t, 0, 1, all, cpus(all, 0, PLC_MAX_CPUS - 1), 64);
	decide_ok(&in, &out);
	assert_int_equal(out.n_workers, 128);
	assert_balanced(&out, 128);
	len = strnlen(out.why, sizeof(out.why));
	assert_true(len < sizeof(out.why));
	assert_int_equal(out.why[len - 1], '\n');
}

/*
 * hwloc
 */

static const struct plc_cpu *find_cpu(const struct plc_topo *t, int os)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->cpu[i].os == os)
			return &t->cpu[i];
	fail_msg("CPU %d not in the topology", os);
	return NULL;
}

/* "pack:2 numa:1 core:4 pu:2": hwloc numbers the PUs in order, so the
 * siblings are adjacent (0 and 1 share core 0), node 1 = CPUs 8-15. The
 * decision sees that: on node 1, core 4 (8, 9) for control, workers on
 * 10 and 12, not on the sibling 11. */
static void test_hwloc_synthetic(void **state)
{
	hwloc_topology_t topo;
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int want[] = {10, 12};

	(void)state;
	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(
		hwloc_topology_set_synthetic(topo, "pack:2 numa:1 core:4 pu:2"),
		0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	assert_int_equal(placement_topo_from_hwloc(topo, &t), 0);
	hwloc_topology_destroy(topo);
	assert_int_equal(t.n, 16);
	assert_int_equal(t.n_nodes, 2);
	assert_int_equal(find_cpu(&t, 0)->core, find_cpu(&t, 1)->core);
	assert_int_not_equal(find_cpu(&t, 1)->core, find_cpu(&t, 2)->core);
	assert_int_equal(find_cpu(&t, 15)->core, 7);
	assert_int_equal(find_cpu(&t, 7)->node, 0);
	assert_int_equal(find_cpu(&t, 8)->node, 1);
	assert_int_equal(find_cpu(&t, 8)->package, 1);
	assert_int_equal(find_cpu(&t, 3)->package, 0);

	in = input(&t, 1, 1, all, cpus(all, 0, 15), 1);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.control_cpu, 8);
}

static hwloc_topology_t load_fixture(void)
{
	const char *src = getenv("XDPLANE_SOURCE");
	hwloc_topology_t topo;
	char path[512];

	if (!src)
		fail_msg("XDPLANE_SOURCE is not set (ctest sets it)");
	snprintf(path, sizeof(path), "%s/tests/unit/topo/two-socket-nic.xml",
		 src);
	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_io_types_filter(
				 topo, HWLOC_TYPE_FILTER_KEEP_ALL),
			 0);
	if (hwloc_topology_set_xml(topo, path))
		fail_msg("%s: cannot use: %s", path, strerror(errno));
	assert_int_equal(hwloc_topology_load(topo), 0);
	return topo;
}

/* The XML fixture: PUs numbered as on Intel (n and n + 8 siblings),
 * eth1/eth2 behind a PCI bridge of socket 1, eth0 attached to the
 * machine. */
static void test_hwloc_xml(void **state)
{
	hwloc_topology_t topo = load_fixture();
	struct plc_topo t;
	struct plc_input in;
	struct plc_result out;
	int all[16];
	static const int want[] = {5, 6};

	(void)state;
	assert_int_equal(placement_topo_from_hwloc(topo, &t), 0);
	assert_int_equal(t.n, 16);
	assert_int_equal(t.n_nodes, 2);
	assert_int_equal(find_cpu(&t, 4)->core, find_cpu(&t, 12)->core);
	assert_int_not_equal(find_cpu(&t, 4)->core, find_cpu(&t, 5)->core);
	assert_int_equal(find_cpu(&t, 12)->node, 1);
	assert_int_equal(find_cpu(&t, 12)->package, 1);
	assert_int_equal(find_cpu(&t, 11)->node, 0);

	assert_int_equal(placement_port_node(topo, "eth1"), 1);
	assert_int_equal(placement_port_node(topo, "eth2"), 1);
	/* behind a host bridge of the machine: spans both nodes */
	assert_int_equal(placement_port_node(topo, "eth0"), -1);
	/* not a network device (an OpenFabrics one) */
	assert_int_equal(placement_port_node(topo, "mlx5_0"), -1);
	/* unknown to hwloc: a virtual device */
	assert_int_equal(placement_port_node(topo, "veth0"), -1);
	assert_int_equal(placement_port_node(topo, NULL), -1);

	/* end to end: the same choice as test_nic_on_node1 */
	in = input(&t, placement_port_node(topo, "eth1"),
		   placement_port_node(topo, "eth2"), all, cpus(all, 0, 15), 1);
	hwloc_topology_destroy(topo);
	decide_ok(&in, &out);
	assert_workers(&out, want, N(want));
	assert_int_equal(out.control_cpu, 4);
	assert_int_equal(out.mem_node, 1);
}

/* This machine: every CPU we may run on is in the topology; lo has no
 * PCI device, so no locality. */
static void test_hwloc_this_machine(void **state)
{
	struct plc_topo *t = calloc(1, sizeof(*t));
	int allowed[PLC_MAX_CPUS], node[2] = {5, 5}, n;
	char err[128] = "";

	(void)state;
	assert_non_null(t);
	if (placement_topo_load(t, err, sizeof(err)))
		fail_msg("placement_topo_load: %s", err);
	assert_true(t->n >= 1);
	assert_true(t->n_nodes >= 1);
	n = placement_allowed_cpus(allowed, PLC_MAX_CPUS);
	assert_true(n >= 1);
	for (int i = 0; i < n; i++)
		if (allowed[i] < PLC_MAX_CPUS)
			find_cpu(t, allowed[i]);
	assert_int_equal(placement_port_nodes("lo", "nosuchif0", node), 0);
	assert_int_equal(node[0], -1);
	assert_int_equal(node[1], -1);
	free(t);
}

/*
 * UMEM binding and hugepages
 */

/* The /proc/self/numa_maps line of the mapping at base, or "". */
/* Start of the mapping that holds addr: the kernel may merge an area
 * with a neighbour of the same kind (it does under ASan), so the area's
 * numa_maps line can start before it. */
static uintptr_t vma_start(const void *addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long long lo, hi;
	uintptr_t start = (uintptr_t)addr;
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return start;
	while (getline(&line, &cap, f) > 0)
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 &&
		    lo <= (uintptr_t)addr && (uintptr_t)addr < hi) {
			start = (uintptr_t)lo;
			break;
		}
	free(line);
	fclose(f);
	return start;
}

static void numa_maps_line(const void *base, char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/numa_maps", "re");
	uintptr_t start = vma_start(base);
	char *line = NULL;
	size_t cap = 0;

	buf[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0)
		if (strtoull(line, NULL, 16) == start) {
			snprintf(buf, size, "%s", line);
			break;
		}
	free(line);
	fclose(f);
}

static bool have_numa_maps(void)
{
	return access("/proc/self/numa_maps", R_OK) == 0;
}

static long nr_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/"
			"nr_hugepages",
			"re");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* 512 frames of 2048 bytes = 1 MiB = 256 pages of 4 KiB, bound to node 0
 * (every Linux machine has it) and faulted in: numa_maps shows the bind
 * policy and all 256 pages on node 0. */
static void test_umem_bound_to_node0(void **state)
{
	struct umem_area u;
	char msg[256], line[512];
	long page = sysconf(_SC_PAGESIZE);
	char want[32];

	(void)state;
	if (!have_numa_maps()) {
		print_message("no /proc/self/numa_maps: kernel without NUMA\n");
		skip();
	}
	assert_int_equal(
		umem_area_init(&u, 512, 2048, 1, 0, false, msg, sizeof(msg)),
		0);
	assert_int_equal(u.mem_node, 0);
	assert_false(u.hugepages);
	assert_int_equal(u.size, 1 << 20);
	assert_int_equal(u.map_size, 1 << 20);
	assert_non_null(strstr(msg, "bound to NUMA node 0"));
	numa_maps_line(u.base, line, sizeof(line));
	if (!strstr(line, " bind:0 "))
		fail_msg("numa_maps: '%s'", line);
	snprintf(want, sizeof(want), " N0=%ld ", (1l << 20) / page);
	if (!strstr(line, want))
		fail_msg("numa_maps: '%s' lacks '%s'", line, want);
	/* the frames are usable */
	memset((char *)u.base + u.size - 2048, 0xab, 2048);
	assert_int_equal(((unsigned char *)u.base)[u.size - 1], 0xab);
	umem_area_fini(&u);
	assert_null(u.base);
}

/* No node: no binding, the default policy, said so. */
static void test_umem_unbound(void **state)
{
	struct umem_area u;
	char msg[256], line[512];

	(void)state;
	assert_int_equal(
		umem_area_init(&u, 512, 2048, 2, -1, false, msg, sizeof(msg)),
		0);
	assert_int_equal(u.mem_node, -1);
	assert_int_equal(u.n_frames, 512);
	assert_non_null(strstr(msg, "not bound to a NUMA node"));
	if (have_numa_maps()) {
		numa_maps_line(u.base, line, sizeof(line));
		if (!strstr(line, " default "))
			fail_msg("numa_maps: '%s'", line);
	}
	umem_area_fini(&u);
}

/* A node the kernel refuses (none has number 1000; 5000 is past the mask
 * mbind() is given): the area is still mapped, with the default policy,
 * and the message says why it is not bound. */
static void test_umem_bad_node(void **state)
{
	struct umem_area u;
	char msg[256];

	(void)state;
	assert_int_equal(
		umem_area_init(&u, 512, 2048, 1, 1000, false, msg, sizeof(msg)),
		0);
	assert_non_null(u.base);
	assert_int_equal(u.mem_node, -1);
	if (!strstr(msg, "not bound to NUMA node 1000 ("))
		fail_msg("msg: '%s'", msg);
	umem_area_fini(&u);
	assert_int_equal(
		umem_area_init(&u, 512, 2048, 1, 5000, false, msg, sizeof(msg)),
		0);
	assert_non_null(strstr(msg, "not bound to NUMA node 5000 (Invalid "
				    "argument)"));
	umem_area_fini(&u);
}

/* Hugepages asked for: with none reserved (vm.nr_hugepages = 0, as on
 * this machine and most CI), normal pages and the message the operator
 * needs; with some, 2 MiB pages (size rounded up to 2 MiB) or a fallback
 * that says which was short. */
static void test_umem_hugepages(void **state)
{
	struct umem_area u;
	char msg[256];

	(void)state;
	assert_int_equal(
		umem_area_init(&u, 512, 2048, 1, 0, true, msg, sizeof(msg)), 0);
	assert_non_null(u.base);
	if (nr_hugepages() == 0) {
		static const char want[] =
			"no hugepages reserved (vm.nr_hugepages = 0): using 4 "
			"KiB pages; UMEM 1 MiB (512 frames of 2048 bytes) "
			"in 4 KiB pages, bound to NUMA node 0";

		if (sysconf(_SC_PAGESIZE) == 4096 && strcmp(msg, want))
			fail_msg("msg: '%s'", msg);
		assert_false(u.hugepages);
		assert_int_equal(u.map_size, 1 << 20);
	} else if (u.hugepages) {
		assert_int_equal(u.map_size, 2 << 20);
		assert_non_null(strstr(msg, "in 2 MiB pages"));
	} else {
		assert_non_null(strstr(msg, "hugepages: "));
	}
	umem_area_fini(&u);
}

/* The four-argument form (no placement) works too. */
static void test_umem_plain(void **state)
{
	struct umem_area u;

	(void)state;
	assert_int_equal(umem_area_init_plain(&u, 1000, 2048, 2), 0);
	assert_int_equal(u.n_frames, 512); /* 2 parts of 256 */
	assert_int_equal(u.mem_node, -1);
	assert_int_equal(umem_area_init_plain(&u, 1000, 3000, 2), -EINVAL);
	assert_null(u.base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nic_on_node1),
		cmocka_unit_test(test_smt_siblings_when_needed),
		cmocka_unit_test(test_workers_at_most_units),
		cmocka_unit_test(test_cpuset_excludes_nic_node),
		cmocka_unit_test(test_no_locality),
		cmocka_unit_test(test_no_locality_one_node),
		cmocka_unit_test(test_one_port_without_locality),
		cmocka_unit_test(test_cfg_cpus),
		cmocka_unit_test(test_cfg_cpus_more_than_units),
		cmocka_unit_test(test_cfg_cpu_outside_cpuset),
		cmocka_unit_test(test_ports_on_two_nodes),
		cmocka_unit_test(test_two_nodes_one_excluded),
		cmocka_unit_test(test_balance),
		cmocka_unit_test(test_one_core),
		cmocka_unit_test(test_control_off_node),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_why_bounded),
		cmocka_unit_test(test_hwloc_synthetic),
		cmocka_unit_test(test_hwloc_xml),
		cmocka_unit_test(test_hwloc_this_machine),
		cmocka_unit_test(test_umem_bound_to_node0),
		cmocka_unit_test(test_umem_unbound),
		cmocka_unit_test(test_umem_bad_node),
		cmocka_unit_test(test_umem_hugepages),
		cmocka_unit_test(test_umem_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
