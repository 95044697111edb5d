/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * privs.h - drop from the set-up privileges to the run-time set, once, after
 * the gateway is open and before the workers start.
 *
 * Set-up (root, or the unit's ambient set) needs CAP_BPF (load the steering
 * program, create its maps), CAP_NET_ADMIN (attach XDP, create the XSKMAP
 * and DEVMAP), CAP_NET_RAW (socket(AF_XDP)), CAP_IPC_LOCK (UMEM pages beyond
 * RLIMIT_MEMLOCK), plus CAP_SETUID/CAP_SETGID (switch user), CAP_CHOWN (hand
 * the control socket to that user) and CAP_SETPCAP (trim the bounding set).
 * Neither CAP_SYS_ADMIN nor CAP_PERFMON: no libxdp dispatcher, and the
 * steering object loads with CAP_BPF + CAP_NET_ADMIN alone (checked with
 * setpriv --bounding-set=-all,+net_admin,+net_raw,+bpf on 6.18).
 *
 * Run time: what the daemon still does, and what it needs.
 *   - BPF map lookup/update/delete through fds it already holds (verdict
 *     counters, XSKMAP deletes at stop): no capability, unless the kernel
 *     gates every bpf() command. Until 5.18, __sys_bpf() started with
 *     "if (sysctl_unprivileged_bpf_disabled && !bpf_capable()) return
 *     -EPERM" for every command; commit c8644cd0efe7 ("bpf: refine
 *     kernel.unprivileged_bpf_disabled behaviour", v5.19) limited that to
 *     BPF_MAP_CREATE and BPF_PROG_LOAD, and 6.5 moved the check into
 *     map_create()/bpf_prog_load() ("bpf: move unprivileged checks into
 *     map_create() and bpf_prog_load()"). So Debian 12's 6.1 and this 6.18
 *     need no CAP_BPF at run time even with unprivileged_bpf_disabled set
 *     (2 on this machine); 5.10..5.18 with the sysctl set do.
 *     Measured on 6.18.44, unprivileged_bpf_disabled = 2, fds made as root,
 *     in a child with every capability dropped (also as uid nobody): array
 *     update + lookup, per-CPU array lookup and XSKMAP delete succeed;
 *     BPF_MAP_CREATE fails with EPERM (so the sysctl gate is live);
 *     BPF_MAP_LOOKUP_ELEM on fd -1 answers EBADF, not EPERM.
 *   - XDP detach at a clean stop (netlink RTM_SETLINK, XDP_FLAGS_REPLACE
 *     with the old program fd): CAP_NET_ADMIN, checked by rtnetlink for
 *     every RTM_SETLINK. Measured: succeeds with CAP_NET_ADMIN alone (root
 *     or nobody), EPERM with no capability.
 *   - sendto() kicks and getsockopt(XDP_STATISTICS) on its AF_XDP sockets,
 *     accept() on bound listeners: none. Measured: both work with no
 *     capability, while a new socket(AF_XDP) gets EPERM.
 *   - re-reading the config file, unlinking the control socket: file
 *     permissions only (the daemon chowns its run directory first).
 * Hence the run-time set is CAP_NET_ADMIN, plus CAP_BPF only when the
 * running kernel gates map operations. That is decided by a probe, not the
 * version number (distribution kernels backport): a short-lived thread
 * clears its own effective set and calls BPF_MAP_LOOKUP_ELEM on fd -1. A
 * gating kernel answers EPERM before looking at the fd; any other kernel
 * answers EBADF. The probe runs once per process and touches no other
 * thread (capabilities are per thread).
 *
 * After privs_drop() every thread shows CapEff = CapPrm = CapBnd =
 * privs_runtime_mask(), CapInh = CapAmb = 0, NoNewPrivs = 1, and the uid
 * and gid of the configured user when one is given.
 *
 * Thread rules: privs_drop() must be called while the process has exactly
 * one thread: capset() changes only the calling thread, so a second thread
 * would stay privileged. It counts /proc/self/task and refuses otherwise.
 * Threads created afterwards inherit the reduced sets. privs_lookup(),
 * privs_runtime_mask() and privs_describe() may be called from any thread
 * at any time (the probe result is cached under pthread_once).
 *
 * Errors: -1 with a one-line reason in err (truncated to errlen, always
 * NUL-terminated when errlen > 0) -- -1 rather than the tree's -errno:
 * the reason is the message (most refusals have no errno), and the
 * callers and the unit test compare with -1. A refusal found before
 * anything is changed (other threads, unknown user or group, a
 * capability the process does not have) leaves the process exactly as it
 * was. A failure of the kernel half-way (not expected once the checks
 * passed) leaves it partly reduced: the caller must exit.
 */
#ifndef XDPLANE_PRIVS_H
#define XDPLANE_PRIVS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Drop to the runtime set; optionally switch to user/group first (NULL or
 * "" = keep uid/gid). group NULL/"" with a user = that user's primary group;
 * supplementary groups = the user's (initgroups), plus group when given.
 * A group without a user changes the gid only and leaves that group as the
 * only supplementary one. When the process already runs with the target
 * ids (systemd's User=), ids and groups are left alone. user and group
 * are names or numeric ids, resolved by config_lookup_user() /
 * config_lookup_group() (config.h: a name first, then a number; a numeric
 * user needs a passwd entry, a numeric group does not), the rule the
 * configuration check applies too.
 * Returns 0, or -1 with a one-line reason in err. Applies to every thread
 * of the process (it refuses to run with more than one).
 * Thread: the only thread of the process (see Thread rules).
 * Syscalls: the name lookups (NSS: openat, read, close of /etc/passwd and
 * /etc/group; connect to nscd or systemd-userdb where nsswitch.conf asks),
 * openat + getdents64 + close of /proc/self/task (counting threads),
 * clock_nanosleep (waiting for the probe thread to go), the probe's once
 * (clone3, futex, and in the probe thread capget, capset,
 * bpf(BPF_MAP_LOOKUP_ELEM on fd -1)), capget, capset,
 * prctl(PR_SET_KEEPCAPS, PR_CAPBSET_READ, PR_CAPBSET_DROP,
 * PR_CAP_AMBIENT, PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS), setgroups,
 * setresgid, setresuid, getresuid, getresgid; allocates. */
int privs_drop(const char *user, const char *group, char *err, size_t errlen);

/* Resolve names without changing anything (the daemon chowns its control
 * socket and directory before dropping). NULL or "" keeps the current
 * real uid / gid; group NULL/"" with a user gives the user's primary group.
 * Returns 0, or -1 with a reason naming the unknown user or group (the
 * text of config_lookup_user/group(), config.h). Thread: any.
 * Syscalls: the name lookups (as privs_drop()). */
int privs_lookup(const char *user, const char *group, uid_t *uid, gid_t *gid,
		 char *err, size_t errlen);

/* The runtime capability set as a mask of (1 << CAP_*) bits: what
 * /proc/<pid>/status CapEff, CapPrm and CapBnd show after privs_drop().
 * Thread: any. Syscalls: the probe's, at the first call of the process
 * (clone3, futex; capget, capset, bpf in the probe thread); none
 * afterwards. */
uint64_t privs_runtime_mask(void);

/* The runtime set as "cap_net_admin" or "cap_net_admin,cap_bpf", for logs.
 * Truncated to len (NUL-terminated when len > 0). Thread: any.
 * Syscalls: as privs_runtime_mask(); allocates. */
void privs_describe(char *buf, size_t len);

#endif
