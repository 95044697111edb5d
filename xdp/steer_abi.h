/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * steer_abi.h - what the XDP steering program shares with userspace.
 *
 * One copy of the program is loaded per port; each copy has its own maps:
 *
 *   xsks_map   XSKMAP, key = RX queue index, value = AF_XDP socket.
 *              Written by the daemon (xsk_socket__update_xskmap); the kernel
 *              deletes an entry itself when its socket closes, which is how
 *              the program notices that the daemon is gone.
 *   peer_map   DEVMAP, one entry (key 0) = ifindex of the other port of the
 *              pair. Used only on the fail-open path.
 *   conf_map   ARRAY, one struct steer_conf. Written by the daemon before
 *              attach (flags: after); read by the program for every
 *              frame, by `xdplane --detach` once (steer_prog.h).
 *   verdicts   PERCPU_ARRAY indexed by enum steer_verdict, one counter of
 *              frames per verdict. Single writer per CPU (the program);
 *              the daemon sums the per-CPU values.
 *   nosock     PERCPU_ARRAY of STEER_NOSOCK_SLOTS counters: frames that
 *              arrived on RX queue q >= steer_conf.queues, a queue the
 *              gateway has no socket for (the NIC has more channels than
 *              the gateway has queues), by q; the last slot counts queue
 *              indexes >= STEER_MAX_QUEUES. Frames on queues below
 *              steer_conf.queues that find no socket (start, stop, after
 *              a crash) are not counted here. Same writers as verdicts.
 *
 * The program never reads packet bytes. In front of a frame it steers to
 * a socket that leaves room for them in a UMEM frame (its length + 16 <=
 * steer_conf.stamp_room), it puts STEER_RX_STAMP_LEN bytes (bpf_xdp_
 * adjust_head; XDP leaves 256 bytes of headroom): the arrival stamp,
 * struct steer_rx_stamp. The descriptor covers them: the reader checks
 * the magic, takes them off and keeps the time (rx_task.h). Its bytes 2
 * to 5 are zero in either byte order, so the bytes 10-13 of a stamped
 * frame are zero, where an Ethernet frame has its source MAC's last two
 * bytes and its EtherType (>= 0x0600): no Ethernet II frame reads as
 * stamped. A frame sent to the peer (fail-open) goes as it came.
 */
#ifndef XDPLANE_STEER_ABI_H
#define XDPLANE_STEER_ABI_H

#define STEER_PROG_NAME "xdplane_steer"
#define STEER_MAX_QUEUES 64

enum steer_failure_mode {
	STEER_FAIL_OPEN = 0, /* no socket: redirect to the peer port */
	STEER_FAIL_CLOSED = 1, /* no socket: drop */
};

/* nosock slots: one per queue index, and one for indexes beyond */
#define STEER_NOSOCK_SLOTS (STEER_MAX_QUEUES + 1)

struct steer_conf {
	__u32 failure_mode; /* enum steer_failure_mode */
	__u32 queues; /* RX queues with a socket: 0 .. queues - 1 */
	__u32 stamp_room; /* bytes a UMEM frame holds: frames up to this
			   * less STEER_RX_STAMP_LEN are stamped; 0: none
			   * (multi-buffer: a stamp could cost a frame) */
	__u32 flags; /* STEER_CONF_*: records for whoever removes the
		      * program; the program does not read them */
};

/* steer_conf.flags: the daemon turned promiscuous mode on for this port
 * (it was off before). Written by the daemon after attach; the record
 * lives as long as the program, so `xdplane --detach` after a crash (and
 * a daemon replacing a stale program) knows to turn it off again. */
#define STEER_CONF_PROMISC_SET (1u << 0)
/* steer_conf.flags bits 1 and 2: the daemon turned off the NIC's VLAN tag
 * stripping on receive (bit 1: rx-vlan-hw-parse, bit 2:
 * rx-vlan-stag-hw-parse; gw_ports.c); recorded like the above so that it
 * is turned on again by whoever removes the program. */
#define STEER_CONF_STRIP_SHIFT 1
#define STEER_CONF_STRIP_MASK (3u << STEER_CONF_STRIP_SHIFT)

/* In front of a stamped frame (see above). */
struct steer_rx_stamp {
	__u64 rx_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, the arrival */
	__u64 magic; /* STEER_RX_STAMP_MAGIC */
};

#define STEER_RX_STAMP_LEN 16 /* sizeof(struct steer_rx_stamp) */
#define STEER_RX_STAMP_MAGIC 0x5844000000004c50ull /* bytes 2-5 zero */

enum steer_verdict {
	STEER_V_XSK = 0, /* redirected to the AF_XDP socket of its queue */
	STEER_V_FAILOPEN, /* no socket: redirected in kernel to the peer */
	STEER_V_FAILOPEN_ERR, /* no socket, peer redirect refused: dropped */
	STEER_V_FAILCLOSED, /* no socket: dropped by policy */
	STEER_V_QUEUE_RANGE, /* RX queue index beyond the XSKMAP: policy */
	STEER_V_MAX,
};

#endif
