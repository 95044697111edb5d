/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nic_features.h - one named netdev feature of a NIC (a row of
 * `ethtool -k`, by its kernel name: "rx-vlan-hw-parse" is the row
 * ethtool shows as rx-vlan-offload), read and set through the ethtool
 * ioctl (ETH_SS_FEATURES strings, ETHTOOL_GFEATURES, ETHTOOL_SFEATURES).
 *
 * Why: the gateway forwards frames as they are on the wire, and a NIC
 * that strips the 802.1Q/802.1ad tag on receive hands XDP and AF_XDP
 * the frame without it (the tag goes to the descriptor's metadata, which
 * AF_XDP does not carry): tagged traffic would leave the other port
 * untagged. The gateway turns such features off at start and on again
 * at stop (gw_ports.c).
 *
 * Thread: any (the control thread at start and at close).
 * Syscalls: socket(AF_INET, SOCK_DGRAM), ioctl SIOCETHTOOL
 * (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GFEATURES; set: also
 * ETHTOOL_SFEATURES, needs CAP_NET_ADMIN), close. Allocates the strings
 * table for the length of a call.
 */
#ifndef XDPLANE_NIC_FEATURES_H
#define XDPLANE_NIC_FEATURES_H

#include <stdbool.h>

struct nic_feature {
	int bit; /* its index in the kernel's feature strings */
	bool active; /* on now */
	bool changeable; /* the driver lets user space turn it on and off */
};

/* Read feature `name` of ifname into *f: 0; -ENOENT when the kernel
 * knows no feature of that name; -errno when the ioctl fails
 * (-EOPNOTSUPP: the driver has no ethtool features). */
int nic_feature_get(const char *ifname, const char *name,
		    struct nic_feature *f);

/* Turn f (from nic_feature_get() on ifname) on or off and read back
 * whether it took: 0 when f->active now equals on, -EOPNOTSUPP when the
 * driver kept it as it was, -errno when an ioctl fails. */
int nic_feature_set(const char *ifname, struct nic_feature *f, bool on);

#endif
