// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xsink.bpf.c - the receiver of the forwarding benchmark: counts frames and
 * bytes per CPU and drops them (or passes them to the stack with --pass).
 * It never reads packet bytes, like xdp-bench drop in no-touch mode.
 *
 * On veth it also gives the device a NAPI instance, without which frames
 * redirected into its peer are dropped silently.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct xsink_count {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xsink_count);
} xsink_counts SEC(".maps");

/* Set by xsink.c before load: nonzero passes frames instead of dropping. */
const volatile __u32 pass_frames = 0;

SEC("xdp")
int xsink(struct xdp_md *ctx)
{
	__u32 zero = 0;
	struct xsink_count *c = bpf_map_lookup_elem(&xsink_counts, &zero);

	if (c) {
		c->packets++;
		c->bytes += bpf_xdp_get_buff_len(ctx);
	}
	return pass_frames ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "Dual BSD/GPL";
