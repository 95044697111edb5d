// SPDX-License-Identifier: BSD-2-Clause
/*
 * gw_csum.c - ports[].checksum: which ports complete partial TCP/UDP
 * checksums (pkt/l4_csum.h), decided once at start and logged per port.
 *
 *   complete  every TCP/UDP frame received on the port is checked, and a
 *             partial checksum completed;
 *   trust     frames cross as they are (a physical NIC always delivers
 *             full checksums: no cost);
 *   auto      complete when the port's device is virtual, trust
 *             otherwise.
 *
 * "Virtual" is what can hand the gateway a frame whose checksum the
 * sender's stack left to offload: a device whose driver is veth, tun
 * (tap), virtio_net, netkit, xen-netfront, hv_netvsc or vmxnet3 (the
 * paravirtual NICs of VMs), or any device that sits on no bus
 * (ETHTOOL_GDRVINFO bus_info empty or "N/A": bridges, bonds, VLANs,
 * macvlans, dummies...). If the driver cannot be read, a device without
 * /sys/class/net/IF/device is virtual. A physical NIC's driver has a bus
 * (PCI, ...) and the wire carries full checksums.
 *
 * Thread: the control thread, at open (after the units are set up,
 * before the workers start). Syscalls: socket(2), ioctl(2) SIOCETHTOOL,
 * close(2), access(2) (the /sys fallback), write(2) of log.h.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "gw_internal.h"
#include "log.h"

static const char *const virtual_drivers[] = {
	"veth",		"tun",	     "virtio_net", "netkit",
	"xen-netfront", "hv_netvsc", "vmxnet3",	   NULL,
};

/* Is the port's device virtual? msg: a few words for the log. */
static bool port_is_virtual(const char *ifname, char *msg, size_t msglen)
{
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr;
	char path[64];
	int fd, err;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&di;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr) ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (!err) {
		di.driver[sizeof(di.driver) - 1] = '\0';
		di.bus_info[sizeof(di.bus_info) - 1] = '\0';
		for (int i = 0; virtual_drivers[i]; i++)
			if (!strcmp(di.driver, virtual_drivers[i])) {
				snprintf(msg, msglen, "driver %s: virtual",
					 di.driver);
				return true;
			}
		if (!di.bus_info[0] || !strcmp(di.bus_info, "N/A")) {
			snprintf(msg, msglen, "driver %s on no bus: virtual",
				 di.driver);
			return true;
		}
		snprintf(msg, msglen, "driver %s at %s: physical", di.driver,
			 di.bus_info);
		return false;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (access(path, F_OK)) {
		snprintf(msg, msglen, "no driver info (%s), no %s: virtual",
			 strerror(err), path);
		return true;
	}
	snprintf(msg, msglen, "no driver info (%s), %s exists: physical",
		 strerror(err), path);
	return false;
}

void gw_csum_setup(struct gateway *gw)
{
	static const char *const modes[] = {"auto", "complete", "trust"};
	bool on[GW_PORTS];
	char why[160];

	for (int p = 0; p < GW_PORTS; p++) {
		uint8_t mode = gw->p.checksum[p];

		if (mode == GW_CSUM_COMPLETE) {
			on[p] = true;
			snprintf(why, sizeof(why), "as configured");
		} else if (mode == GW_CSUM_TRUST) {
			on[p] = false;
			snprintf(why, sizeof(why), "as configured");
		} else {
			mode = GW_CSUM_AUTO;
			on[p] = port_is_virtual(gw->port[p].name, why,
						sizeof(why));
		}
		log_info("%s: checksum %s -> %s (%s)", gw->port[p].name,
			 modes[mode],
			 on[p] ? "complete partial TCP/UDP checksums" : "trust",
			 why);
	}
	for (uint32_t u = 0; u < gw->n_units; u++)
		gw->rx[u].csum = on[gw_unit_port(gw, u)];
}
