/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * placement.h - where the threads run and where the packet memory lives,
 * decided from the machine's topology.
 *
 * Two halves:
 *   - placement_decide(): a pure function from a plain description of the
 *     machine (struct plc_topo: one entry per PU with its core, package
 *     and NUMA node), the ports' NUMA nodes, the process's cpuset and the
 *     configured workers.cpus, to the workers' CPUs, the unit -> worker
 *     map, the control thread's CPU and the UMEM's NUMA node. No I/O, no
 *     hwloc: unit tests feed hand-built topologies.
 *   - the hwloc adapter (placement_topo_*, placement_port_node*): fills a
 *     struct plc_topo from an hwloc topology (this machine's, or an XML or
 *     synthetic one in tests) and finds a network interface's NUMA node
 *     through its PCI device's locality.
 *
 * Units: with Q queues per port there are 2Q units; unit u is the RX task
 * of (port u / Q, queue u % Q) together with the egress task of the other
 * port, same queue (the two ends of its handoff ring, which must run on
 * one worker). Its egress port is 1 - u / Q.
 *
 * The rules placement_decide() follows (each decision is also written,
 * one line each, to out->why):
 *   1. Candidates: with workers.cpus, exactly those CPUs (each must be in
 *      the process's cpuset); otherwise the cpuset's CPUs on the ports'
 *      NUMA node(s) -- all of the cpuset when the ports have no locality
 *      information or the cpuset has no CPU on their node(s).
 *   2. One worker per physical core first; SMT siblings only when more
 *      workers are useful; never more workers than units.
 *   3. The control thread gets a core of its own when the candidates span
 *      at least 2 cores (its first PU, preferably on the UMEM's node); with
 *      one core it shares it (control_cpu -1). With workers.cpus, it takes
 *      a core of the cpuset that no worker uses, if there is one.
 *   4. Each unit runs on a worker on its egress port's node when the ports
 *      are on different nodes; units are spread round robin over the
 *      workers of their node (loads differ by at most one unit there).
 *   5. The UMEM is bound to the ports' node (port 0's when they differ),
 *      even when no worker may run there: the NIC moves every byte of
 *      every frame into and out of the UMEM by DMA, a worker reads only
 *      the headers, so the memory belongs next to the NIC. -1: unknown.
 *
 * Thread safety: placement_decide() is a pure function of its arguments.
 * The hwloc functions load or read a topology owned by the caller (or a
 * private one, freed before they return); call them from one thread.
 * NUMA node numbers are the kernel's (hwloc OS indexes), as used by
 * mbind(2) and /sys/devices/system/node/nodeN.
 *
 * Contracts (per function below): "Thread" says who may call it,
 * "Syscalls" every system call it may issue, hwloc's included. "hwloc
 * discovery" stands for: openat, read, close, getdents64, readlink,
 * faccessat, newfstatat of /sys/devices/system/{cpu,node}, /proc/cpuinfo,
 * /proc/mounts, /proc/self (with I/O objects also /sys/bus/pci and
 * /sys/class), openat of its plugin directory, uname, fcntl,
 * sched_getaffinity, and sched_setaffinity (the x86 backend pins the
 * calling thread to each CPU in turn to read CPUID, then restores its
 * mask); it allocates. Errors: 0 or -errno, with a message where the
 * function takes a buffer.
 */
#ifndef XDPLANE_PLACEMENT_H
#define XDPLANE_PLACEMENT_H

#include <hwloc.h>
#include <stddef.h>
#include <stdint.h>

#define PLC_MAX_CPUS 256
#define PLC_MAX_UNITS 128
#define PLC_WHY_MAX 1024

/* One PU (hardware thread): its OS index, the logical id of its core (two
 * PUs with the same core are SMT siblings), its package, its NUMA node;
 * -1 where unknown. */
struct plc_cpu {
	int os;
	int core;
	int package;
	int node;
};

/* The machine: PUs in any order, at most PLC_MAX_CPUS. */
struct plc_topo {
	uint32_t n;
	struct plc_cpu cpu[PLC_MAX_CPUS];
	uint32_t n_nodes;
};

struct plc_input {
	const struct plc_topo *topo;
	int port_node[2]; /* NUMA node of each port; -1: no locality info */
	const int *allowed; /* the process's cpuset (OS indexes) */
	uint32_t n_allowed;
	const int *cfg_cpus; /* workers.cpus, in order */
	uint32_t n_cfg_cpus; /* 0: none given */
	uint32_t queues; /* per port, 1..PLC_MAX_UNITS / 2 */
};

struct plc_result {
	uint32_t n_workers;
	int worker_cpu[PLC_MAX_CPUS]; /* OS index of each worker's CPU */
	int worker_node[PLC_MAX_CPUS]; /* its NUMA node, -1: unknown */
	uint32_t unit_worker[PLC_MAX_UNITS]; /* the worker of each unit */
	int control_cpu; /* the control thread's CPU; -1: anywhere */
	int mem_node; /* bind the UMEM here; -1: no binding */
	char why[PLC_WHY_MAX]; /* one line per decision, NUL terminated */
};

/* Decide. Returns 0, or -EINVAL with the reason in out->why (a workers.cpus
 * CPU outside the cpuset, no CPU at all, queues out of range). out is
 * always fully written. Thread: any. Syscalls: none. */
int placement_decide(const struct plc_input *in, struct plc_result *out);

/* The unit's egress port (0 or 1): 1 - u / queues. Any thread, no
 * syscall. */
static inline unsigned int placement_unit_egress_port(uint32_t u,
						      uint32_t queues)
{
	return 1 - u / queues;
}

/*
 * hwloc adapter.
 */

/* Fill t from a loaded topology: every PU with an OS index below
 * PLC_MAX_CPUS (others are left out). Returns 0 or -EINVAL (no PU).
 * Thread: the topology's owner. Syscalls: none. */
int placement_topo_from_hwloc(hwloc_topology_t topo, struct plc_topo *t);

/* Load this machine's topology (disallowed PUs included: the caller's
 * cpuset is an input of its own) into t. Returns 0, or -errno with a
 * message in errbuf. Thread: the control thread, at set-up, before the
 * workers start (hwloc moves the calling thread between CPUs). Syscalls:
 * hwloc discovery. */
int placement_topo_load(struct plc_topo *t, char *errbuf, size_t errlen);

/* The NUMA node of network interface ifname in topo (loaded with I/O
 * objects): the node of the closest non-I/O ancestor of its OS device when
 * that is exactly one node; -1 when the interface is unknown to hwloc (a
 * virtual device: veth, bridge, ...) or its locality spans several nodes
 * (the kernel gave no PCI locality). Thread: the topology's owner.
 * Syscalls: none. */
int placement_port_node(hwloc_topology_t topo, const char *ifname);

/* Both ports' nodes, from this machine's topology loaded with I/O objects
 * (loaded at the first call, kept for the process's life). Returns 0 or
 * -errno (topology not loadable; node[] then -1). Thread: the control
 * thread, at set-up. Syscalls: hwloc discovery with I/O objects (first
 * call); none afterwards. */
int placement_port_nodes(const char *ifname0, const char *ifname1, int node[2]);

/* The CPUs this thread may run on (sched_getaffinity), ascending, at most
 * max. Returns how many, or -errno. Thread: any. Syscalls:
 * sched_getaffinity. */
int placement_allowed_cpus(int *cpus, uint32_t max);

#endif
