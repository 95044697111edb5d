// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xgen.bpf.c - the frame source of xgen. xgen runs this program with
 * BPF_PROG_RUN in live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES): every run
 * gets a page-pool frame initialised once from the template frame, and the
 * program redirects it to the egress device, whose peer receives it as an
 * xdp_frame, as from a NIC.
 *
 * Live-frame pages are recycled WITHOUT restoring their bytes: a forwarder
 * that rewrites frames in place (MAC rewrite, TTL decrement, MAC swap) hands
 * modified headers back to the pool. So the whole Ethernet/IPv4/UDP header is
 * written on every run, from the template in .rodata.
 *
 * Optional pacing busy-waits inside the program (bpf_loop + ktime): it is
 * accurate only up to about 1-2 Mpps on a VM.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define XGEN_HDR_LEN 42 /* Ethernet 14 + IPv4 20 + UDP 8 */
#define XGEN_SPORT_OFF 34

/* Written by xgen.c before load (.rodata); same layout as there. */
struct xgen_conf {
	__u64 hdr[6]; /* header template; the first XGEN_HDR_LEN bytes count */
	__u64 gap_ns; /* time between frames; 0: flat out */
	__u32 ifindex; /* egress device */
	__u16 sport; /* first UDP source port, host order */
	__u16 sport_range; /* number of source ports, >= 1 */
};

/* Run state (.bss), read by xgen.c. Single writer: the running thread. */
struct xgen_state {
	__u64 sent; /* frames handed to the egress device */
	__u64 seq; /* runs that built a frame */
	__u64 next_ns; /* pacing: when the next frame is due */
	__u64 idle; /* pacing: runs that gave up waiting (not sent) */
};

const volatile struct xgen_conf conf = {};
struct xgen_state state = {};

static long wait_until(__u32 i, void *ctx)
{
	__u64 *due = ctx;

	return bpf_ktime_get_ns() >= *due; /* 1 ends the loop */
}

SEC("xdp")
int xgen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 *w = data;
	__u32 seq;
	int act;

	if (data + XGEN_HDR_LEN > end)
		return XDP_ABORTED;

	if (conf.gap_ns) {
		__u64 now = bpf_ktime_get_ns();
		__u64 due = state.next_ns;

		/* First frame, or more than 1 ms late: restart the schedule
		 * rather than catch up with a burst. */
		if (due == 0 || now > due + 1000000)
			due = now;
		if (now < due) {
			bpf_loop(1 << 20, wait_until, &due, 0);
			if (bpf_ktime_get_ns() < due) {
				state.idle++;
				return XDP_DROP;
			}
		}
		state.next_ns = due + conf.gap_ns;
	}

	w[0] = conf.hdr[0];
	w[1] = conf.hdr[1];
	w[2] = conf.hdr[2];
	w[3] = conf.hdr[3];
	w[4] = conf.hdr[4];
	*(__u16 *)(data + 40) = (__u16)conf.hdr[5];

	seq = state.seq++;
	if (conf.sport_range > 1)
		*(__u16 *)(data + XGEN_SPORT_OFF) =
			bpf_htons(conf.sport + seq % conf.sport_range);

	act = bpf_redirect(conf.ifindex, 0);
	if (act == XDP_REDIRECT)
		state.sent++;
	return act;
}

char _license[] SEC("license") = "Dual BSD/GPL";
