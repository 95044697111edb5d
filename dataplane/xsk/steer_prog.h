/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * steer_prog.h - life cycle of the XDP steering program on one port.
 *
 * The program (xdp/steer.bpf.c) is embedded in the daemon, loaded with
 * libbpf and attached through netlink (bpf_xdp_attach), not a bpf_link:
 *  - a netlink attachment outlives the process, which is what keeps the
 *    fail-open path forwarding after a crash (the XSKMAP entries vanish with
 *    the sockets; the program then takes its failure-mode branch);
 *  - it can replace a stale program atomically (XDP_FLAGS_REPLACE), so a
 *    restart under traffic has no window without a program.
 * libxdp's attach would go through its multi-program dispatcher, which does
 * not load on every kernel and cannot replace a foreign single program
 * atomically; the AF_XDP sockets themselves use libxdp (see xsk_queue.h).
 *
 * At start, steer_attach() looks at what the port already has:
 *  - nothing: attach;
 *  - a program named STEER_PROG_NAME: left by a crashed run (the caller
 *    holds the port lock, so no live xdplane owns it): replace atomically;
 *  - anything else: refuse, naming it; the operator decides.
 * A clean stop detaches (steer_detach); after a crash or kill -9,
 * `xdplane --detach` does (steer_detach_left), and steer_conf.flags tells
 * it what else the daemon had changed on the port (promiscuous mode).
 *
 * Multi-buffer: with `frags`, the program is loaded with
 * BPF_F_XDP_HAS_FRAGS (what the "xdp.frags" section does): the kernel then
 * accepts it on an interface whose MTU exceeds one page and hands it
 * packets in several buffers. The program only steers (it never reads
 * packet bytes), so the same code serves both; without frags the program
 * is loaded without the flag (which Linux < 5.18 refuses: the load fails
 * with EINVAL).
 *
 * Thread: control thread only (set-up, statistics, tear-down).
 *
 * Contracts (per function below): "Syscalls" lists every system call a
 * function may issue, libbpf's included ("netlink": socket(AF_NETLINK,
 * NETLINK_ROUTE), setsockopt(SOL_NETLINK, NETLINK_EXT_ACK), bind,
 * getsockname, sendto, recvmsg, close; "logs": ioctl(2, TCGETS) and
 * write(2) of log.h; "allocates": malloc/free, which may add brk, mmap,
 * munmap). Errors: 0 or -errno, with a one-line message in (errbuf,
 * errlen) where the function takes one.
 */
#ifndef XDPLANE_STEER_PROG_H
#define XDPLANE_STEER_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "../../xdp/steer_abi.h"

struct bpf_object;

struct steer_prog {
	struct bpf_object *obj;
	int prog_fd;
	int xsks_map_fd;
	int verdicts_fd;
	int nosock_fd; /* frames on queues without a socket (steer_abi.h) */
	int ifindex;
	uint32_t attach_flags; /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	bool attached;
	bool frags; /* loaded with BPF_F_XDP_HAS_FRAGS */
	/* steer_conf.flags of the stale xdplane program steer_attach()
	 * replaced (0: none replaced, or none readable) */
	uint32_t stale_flags;
};

enum steer_mode_req {
	STEER_MODE_AUTO,
	STEER_MODE_NATIVE,
	STEER_MODE_GENERIC,
};

/* Load the program for port `ifindex`, whose peer is `peer_ifindex`, and
 * attach it; `queues` is the number of RX queues that will have a socket
 * (0 .. queues - 1): frames on the others are counted in nosock;
 * stamp_room: the bytes a UMEM frame holds, frames that leave room for
 * the arrival stamp get one (steer_abi.h; 0: none). errbuf
 * receives a one-line reason on failure. Returns 0 or -errno (-EBUSY: a
 * foreign program is attached).
 * Syscalls: netlink (RTM_GETLINK query, RTM_SETLINK attach; a detach
 * first when a stale program sits in the other mode),
 * bpf(BPF_PROG_GET_FD_BY_ID, BPF_OBJ_GET_INFO_BY_FD) on an attached
 * program, uname and
 * faccessat(/proc/version_signature) (libbpf's kernel version),
 * bpf(BPF_PROG_LOAD: feature probes and the program, BPF_BTF_LOAD,
 * BPF_MAP_CREATE, BPF_MAP_UPDATE_ELEM), close; logs; allocates. */
int steer_attach(struct steer_prog *sp, int ifindex, const char *ifname,
		 int peer_ifindex, enum steer_mode_req mode,
		 uint32_t failure_mode, uint32_t queues, bool frags,
		 uint32_t stamp_room, char *errbuf, size_t errlen);

/* Write steer_conf.flags (STEER_CONF_*) of the attached program.
 * 0 or -errno (-EINVAL: not loaded). Syscalls: bpf(BPF_MAP_LOOKUP_ELEM,
 * BPF_MAP_UPDATE_ELEM). */
int steer_set_flags(struct steer_prog *sp, uint32_t flags);

/* After the daemon is gone (`xdplane --detach`; the caller holds the port
 * lock): detach the program attached to ifindex if it is xdplane's
 * (STEER_PROG_NAME), with XDP_FLAGS_REPLACE so that only that program
 * goes; a foreign program or none is left as it is. *flags gets its
 * steer_conf.flags (0 when unreadable or nothing detached). Returns 1
 * when detached, 0 when there was nothing of xdplane's, or -errno; msg
 * says which in one line. Syscalls: netlink (RTM_GETLINK, RTM_SETLINK),
 * bpf(BPF_PROG_GET_FD_BY_ID, BPF_OBJ_GET_INFO_BY_FD, BPF_MAP_GET_FD_BY_ID,
 * BPF_MAP_LOOKUP_ELEM), close. */
int steer_detach_left(int ifindex, const char *ifname, uint32_t *flags,
		      char *msg, size_t msglen);

/* Remove every socket from the XSKMAP: frames take the failure path.
 * Syscalls: bpf(BPF_MAP_DELETE_ELEM), once per queue slot. */
void steer_unbind_all(struct steer_prog *sp);

/* Detach (only if the attached program is still ours) and close.
 * Syscalls: netlink (RTM_SETLINK with XDP_FLAGS_REPLACE), close of the
 * program's and maps' fds; logs when the detach fails; allocates (free). */
void steer_detach(struct steer_prog *sp);

/* Sum of the per-CPU verdict counters. 0, -EINVAL (not loaded) or
 * -ENOMEM. Also while the workers run. Syscalls: bpf(BPF_MAP_LOOKUP_ELEM)
 * per verdict; openat, read, close of /sys/devices/system/cpu/possible
 * (libbpf, first call only); allocates. */
int steer_read_verdicts(const struct steer_prog *sp, uint64_t out[STEER_V_MAX]);

/* Sum of the per-CPU nosock counters, by RX queue index (the last slot:
 * indexes >= STEER_MAX_QUEUES). Same errors, threads and syscalls as
 * steer_read_verdicts(), one lookup per slot. */
int steer_read_nosock(const struct steer_prog *sp,
		      uint64_t out[STEER_NOSOCK_SLOTS]);

/* Names, for logs and statistics. Any thread; syscalls none. */
const char *steer_mode_name(const struct steer_prog *sp);
const char *steer_verdict_name(enum steer_verdict v);

#endif
