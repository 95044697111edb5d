/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kernel_req.h - which Linux each feature of the gateway needs, and the
 * start-up check that refuses a configuration the running kernel cannot
 * carry, before anything is touched (xdplane(8), REQUIREMENTS; README
 * "Requirements" has the same table).
 *
 *   every configuration  AF_XDP sockets of two devices sharing one UMEM
 *                        (XDP_SHARED_UMEM across devices): Linux >= 5.10
 *   an MTU above what    AF_XDP multi-buffer (bind with XDP_USE_SG, RX and
 *   one UMEM frame holds TX descriptors chained with XDP_PKT_CONTD) and an
 *                        XDP program loaded with frags: Linux >= 6.6
 *   any kernel           at most FRAME_CHAIN_MAX - 1 (17) frames per packet
 *                        (frame_chain.h): an MTU above that is refused
 *
 * Debian 12's own kernel is 6.1: it carries every configuration whose
 * ports fit one frame (MTU <= frame_size - 256 - umem.headroom - 22, 3818
 * with the default 4096-byte frames) and refuses jumbo MTUs with the
 * largest MTU that works.
 *
 * The version is read from uname(2)'s release ("6.1.0-18-amd64"); a
 * release that does not parse is not refused here (the bind still says
 * so: gw_ports.c names XDP_USE_SG when the kernel refuses it). A vendor
 * kernel that backports a feature under an older number is refused by
 * this check, like every kernel of that number.
 *
 * The parser and the decision are pure (unit test: test_kernel_req.c);
 * kreq_check_config() adds uname(2) and SIOCGIFMTU for the ports whose
 * MTU the file leaves to the interface. Any thread; no state.
 */
#ifndef XDPLANE_KERNEL_REQ_H
#define XDPLANE_KERNEL_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xdplane_config;

struct kver {
	unsigned int major, minor, patch;
};

enum kfeat {
	KFEAT_SHARED_UMEM, /* one UMEM, sockets on two devices: 5.10 */
	KFEAT_MULTIBUF, /* AF_XDP multi-buffer (XDP_USE_SG): 6.6 */
	KFEAT_N,
};

struct kfeat_info {
	const char *what; /* "AF_XDP multi-buffer (XDP_USE_SG)" */
	const char *needed_by; /* "an MTU above one UMEM frame" */
	struct kver min;
};

/* "6.1.0-18-amd64", "6.6", "5.15.0-91-generic", "6.10-rc1": 0 and *v
 * filled (patch 0 when absent); -1 when the release does not start with
 * MAJOR.MINOR. */
int kver_parse(const char *release, struct kver *v);

/* <0, 0, >0 as a is older than, the same as, newer than b. */
int kver_cmp(const struct kver *a, const struct kver *b);

const struct kfeat_info *kfeat_info(enum kfeat f);
bool kfeat_has(const struct kver *running, enum kfeat f);

/* The largest MTU one UMEM frame carries: frame_size - 256 (the kernel's
 * XDP headroom) - headroom - 22 (FRAME_L2_MAX: the Ethernet header and two
 * VLAN tags, a QinQ frame), as
 * gw_ports.c counts. */
uint32_t kreq_single_frame_mtu(uint32_t frame_size, uint32_t headroom);

/* What the kernel needs to carry one port. */
struct kreq_port {
	const char *ifname;
	uint32_t mtu; /* the MTU the port will run with */
	bool mtu_from_file; /* ports[i].mtu set; else the interface's */
};

/* The decision: 0 when `release` carries both ports with UMEM frames of
 * frame_size bytes and `headroom`; else -1 and one line in err naming every
 * missing feature, the kernel it needs, and for an MTU the largest MTU that
 * works here, or a port whose MTU needs more frames than a chain holds on
 * any kernel (the message gw_ports.c gives). A release that does not
 * parse is held to the chain limit only. Pure. */
int kreq_check(const char *release, const struct kreq_port port[2],
	       uint32_t frame_size, uint32_t headroom, char *err,
	       size_t errlen);

/* kreq_check() for cfg on the running kernel: uname(2), and SIOCGIFMTU
 * (socket(AF_INET), ioctl, close) for a port without ports[].mtu; such a
 * port that does not exist (--no-system-check) is skipped. 0 or -1 with
 * the reason in err ("PATH: ..."). */
int kreq_check_config(const struct xdplane_config *cfg, char *err,
		      size_t errlen);

#endif
