// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * steer.bpf.c - xdplane's XDP program: every frame goes to the AF_XDP socket
 * bound to the queue it arrived on. When no socket is bound (the daemon is
 * starting, restarting or has crashed), the configured failure mode decides:
 * "open" forwards the frame in the kernel to the peer port (DEVMAP),
 * "closed" drops it. Every verdict is counted per CPU, and so is every
 * frame that arrived on a queue the gateway has no socket for at all (a
 * NIC with more channels than the configured queues: RSS spreads flows
 * over all of them).
 *
 * Maps and their writers: see steer_abi.h.
 *
 * In front of a frame it steers to a socket it puts the arrival stamp
 * (struct steer_rx_stamp) when a UMEM frame has room for both.
 *
 * Multi-buffer: the program reads no packet bytes, so it is safe on
 * packets in several buffers; the daemon loads it with
 * BPF_F_XDP_HAS_FRAGS (the flag the "xdp.frags" section sets) when the MTU
 * needs more than one UMEM frame (steer_prog.h), as itself otherwise.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "steer_abi.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, STEER_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} peer_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct steer_conf);
} conf_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STEER_V_MAX);
	__type(key, __u32);
	__type(value, __u64);
} verdicts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STEER_NOSOCK_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} nosock SEC(".maps");

static __always_inline void count(__u32 verdict)
{
	__u64 *c = bpf_map_lookup_elem(&verdicts, &verdict);

	if (c)
		*c += 1;
}

static __always_inline int no_socket(__u32 q, __u32 verdict)
{
	__u32 zero = 0, slot;
	struct steer_conf *conf = bpf_map_lookup_elem(&conf_map, &zero);
	__u64 *c;

	if (conf && q >= conf->queues) {
		/* a queue that never has a socket: misconfiguration */
		slot = q < STEER_MAX_QUEUES ? q : STEER_MAX_QUEUES;
		c = bpf_map_lookup_elem(&nosock, &slot);
		if (c)
			*c += 1;
	}
	if (conf && conf->failure_mode == STEER_FAIL_CLOSED) {
		count(verdict == STEER_V_QUEUE_RANGE ? verdict
						     : STEER_V_FAILCLOSED);
		return XDP_DROP;
	}
	if (bpf_redirect_map(&peer_map, 0, 0) == XDP_REDIRECT) {
		count(verdict == STEER_V_QUEUE_RANGE ? verdict
						     : STEER_V_FAILOPEN);
		return XDP_REDIRECT;
	}
	count(STEER_V_FAILOPEN_ERR);
	return XDP_DROP;
}

/* The arrival stamp in front of the frame when a UMEM frame has room for
 * both (steer_abi.h). Returns whether it put one. */
static __always_inline int stamp(struct xdp_md *ctx)
{
	__u32 zero = 0;
	struct steer_conf *conf = bpf_map_lookup_elem(&conf_map, &zero);
	struct steer_rx_stamp *st;
	__u64 now = bpf_ktime_get_ns();
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	if (!conf || !conf->stamp_room ||
	    end - data + STEER_RX_STAMP_LEN > conf->stamp_room)
		return 0;
	if (bpf_xdp_adjust_head(ctx, -STEER_RX_STAMP_LEN))
		return 0;
	st = (void *)(long)ctx->data;
	if ((void *)(st + 1) > (void *)(long)ctx->data_end)
		return 1; /* (for the verifier: the frame follows it) */
	st->rx_ns = now;
	st->magic = STEER_RX_STAMP_MAGIC;
	return 1;
}

SEC("xdp")
int xdplane_steer(struct xdp_md *ctx)
{
	__u32 q = ctx->rx_queue_index;
	int stamped;

	if (q >= STEER_MAX_QUEUES)
		return no_socket(q, STEER_V_QUEUE_RANGE);
	stamped = stamp(ctx);
	/* The low bits of the flags are the action when no socket is bound. */
	if (bpf_redirect_map(&xsks_map, q, XDP_ABORTED) == XDP_REDIRECT) {
		count(STEER_V_XSK);
		return XDP_REDIRECT;
	}
	if (stamped) /* the peer gets the frame as it came */
		bpf_xdp_adjust_head(ctx, STEER_RX_STAMP_LEN);
	return no_socket(q, STEER_V_FAILOPEN);
}

char _license[] SEC("license") = "Dual BSD/GPL";
