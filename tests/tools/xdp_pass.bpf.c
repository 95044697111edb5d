// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xdp_pass.bpf.c - attached to the outer veth peers of a testbed. veth only
 * accepts frames redirected into it (XDP_REDIRECT, AF_XDP TX) when its peer
 * runs an XDP program; this one passes every frame to the stack unchanged.
 * xdp_pass_mb is the same for an MTU above one page, where a program
 * without multi-buffer (frags) support is refused (ERANGE).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp.frags")
int xdp_pass_mb(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
