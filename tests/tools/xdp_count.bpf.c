// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp_count.bpf.c - a receiving host's XDP program for t-malformed: passes
 * every frame to the stack (as xdp_pass does, so that veth accepts frames
 * redirected into it) and counts the test's frames before the stack sees
 * them (the stack frees some of them, truncated VLAN tags, before any
 * packet socket could). A test frame has the source MAC 02:ee:KK:..:..:..;
 * KK (0..255) indexes the two per-kind counters of the array map
 * "xdp_count": packets (slot KK) and bytes (slot 256 + KK).
 *
 * Single program, array map: the kernel's atomic adds make it safe on
 * every CPU; userspace reads it with bpftool (map dump).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 512);
	__type(key, __u32);
	__type(value, __u64);
} xdp_count SEC(".maps");

SEC("xdp")
int xdp_count_prog(struct xdp_md *ctx)
{
	const __u8 *data = (const __u8 *)(long)ctx->data;
	const __u8 *end = (const __u8 *)(long)ctx->data_end;
	__u32 kind, bytes_key;
	__u64 *v;

	if (data + 12 > end || data[6] != 0x02 || data[7] != 0xee)
		return XDP_PASS;
	kind = data[8];
	v = bpf_map_lookup_elem(&xdp_count, &kind);
	if (v)
		__sync_fetch_and_add(v, 1);
	bytes_key = 256 + kind;
	v = bpf_map_lookup_elem(&xdp_count, &bytes_key);
	if (v)
		__sync_fetch_and_add(v, (__u64)(end - data));
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
