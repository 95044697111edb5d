// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pcp_tag.bpf.c - the emulated hosts' NIC tagging for bench/run: a tc
 * egress program (clsact, direct action) that gives every frame leaving a
 * host an 802.1Q priority tag (VLAN id 0) whose PCP is the socket priority
 * (SO_PRIORITY, 0..7), as a RoCE NIC in PCP mode sends its frames. The
 * receiving stack strips a VLAN-0 tag by itself, so no ingress program is
 * needed. A frame that already carries a tag is left alone. The kernel used
 * here has no 802.1Q devices or tc vlan action, hence this program.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("tc")
int pcp_tag(struct __sk_buff *skb)
{
	__u16 tci;

	if (skb->vlan_present || skb->protocol == bpf_htons(ETH_P_8021Q) ||
	    skb->protocol == bpf_htons(ETH_P_8021AD))
		return TC_ACT_OK;
	tci = (__u16)((skb->priority & 7) << 13); /* VLAN id 0: priority tag */
	bpf_skb_vlan_push(skb, bpf_htons(ETH_P_8021Q), tci);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "Dual BSD/GPL";
