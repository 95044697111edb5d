// SPDX-License-Identifier: BSD-2-Clause
/*
 * gw_ports.c - the gateway's two ports: the lock that keeps a second
 * xdplane off an interface, its MTU and what it means in UMEM frames per
 * packet, its channels against the queues (at start, and watched while
 * running: frames on an RX queue without a socket), their promiscuous mode
 * and VLAN tag stripping (set at start, put back at close), and the AF_XDP socket
 * of each of its queues. Control thread only (gw_internal.h).
 */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "frame.h"
#include "frame_chain.h"
#include "gw_internal.h"
#include "log.h"
#include "nic_channels.h"
#include "nic_features.h"

/* One xdplane per interface per network namespace: an abstract socket
 * name is the lock; the kernel releases it when the process dies. */
static int lock_port(struct gw_port *pt, char *errbuf, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len;
	int n;

	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "xdplane/port/%s", pt->name);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	pt->lock_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (pt->lock_fd < 0 || bind(pt->lock_fd, (struct sockaddr *)&sa, len)) {
		int err = errno;

		snprintf(errbuf, errlen, "%s: %s", pt->name,
			 err == EADDRINUSE
				 ? "another xdplane is already running on this "
				   "interface"
				 : strerror(err));
		return -err;
	}
	return 0;
}

void gw_ports_unlock(struct gateway *gw)
{
	for (int i = 0; i < GW_PORTS; i++)
		if (gw->port[i].lock_fd >= 0)
			close(gw->port[i].lock_fd);
}

/* Match the queues with the NICs' channels (nic_channels.h): resolve
 * auto, set the channels (queues_set_channels) or refuse with the reason
 * and the fix. The channel counts are left as set at stop, like
 * ports[].mtu: the log line says what they were; a refused start puts
 * them back (gw_ports_restore). */
int gw_ports_resolve_queues(struct gateway *gw, char *errbuf, size_t errlen)
{
	struct queue_plan_in in = {
		.queues = gw->p.queues,
		.set_channels = gw->p.set_channels,
		.max_queues = GW_MAX_QUEUES,
	};
	struct queue_plan plan;
	char cmd[80];
	int err;

	for (int i = 0; i < GW_PORTS; i++) {
		in.name[i] = gw->port[i].name;
		nic_channels_get(gw->port[i].name, &in.ch[i]);
	}
	if (queue_plan_decide(&in, &plan, errbuf, errlen))
		return -EINVAL;
	for (int i = 0; i < GW_PORTS; i++) {
		struct nic_channels now;
		uint32_t was = nic_channels_count(&in.ch[i]);

		if (!plan.set_to[i])
			continue;
		nic_channels_cmd(&in.ch[i], gw->port[i].name, plan.set_to[i],
				 cmd, sizeof(cmd));
		/* a refused set may still have changed something */
		gw->port[i].channels_was = in.ch[i];
		gw->port[i].channels_set = true;
		err = nic_channels_set(gw->port[i].name, &in.ch[i],
				       plan.set_to[i]);
		if (!err && nic_channels_get(gw->port[i].name, &now) == 0 &&
		    nic_channels_count(&now) != plan.set_to[i])
			err = -EIO;
		if (err) {
			snprintf(errbuf, errlen,
				 "%s: cannot set the channels from %u to %u "
				 "(queues_set_channels; '%s'): %s%s",
				 gw->port[i].name, was, plan.set_to[i], cmd,
				 err == -EIO ? "the NIC kept another count"
					     : strerror(-err),
				 err == -EINVAL
					 ? " (a veth bounds its channels by "
					   "its peer's while either has an "
					   "XDP program: ethtool -l both ends)"
					 : "");
			return err;
		}
		in.ch[i] = now;
		log_info("%s: channels set from %u to %u (queues_set_channels: "
			 "'%s'; left so at stop)",
			 gw->port[i].name, was, plan.set_to[i], cmd);
	}
	if (plan.note[0])
		log_warn("%s", plan.note);
	for (int i = 0; i < GW_PORTS; i++)
		gw->port[i].channels_now = nic_channels_count(&in.ch[i]);
	log_info("queues: %u per port%s (%s: %u channels, %s: %u channels%s)",
		 plan.queues, gw->p.queues ? "" : " (auto)", gw->port[0].name,
		 gw->port[0].channels_now, gw->port[1].name,
		 gw->port[1].channels_now,
		 gw->port[0].channels_now && gw->port[1].channels_now
			 ? ""
			 : "; 0: the driver does not say");
	gw->p.queues = plan.queues;
	return 0;
}

static int check_port(struct gateway *gw, struct gw_port *pt, char *errbuf,
		      size_t errlen)
{
	struct ifreq ifr = {0};
	uint32_t want, mtu, frames;
	int fd;

	pt->ifindex = if_nametoindex(pt->name);
	if (!pt->ifindex) {
		snprintf(errbuf, errlen, "%s: no such interface", pt->name);
		return -ENODEV;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", pt->name);
	if (fd < 0 || ioctl(fd, SIOCGIFMTU, &ifr)) {
		snprintf(errbuf, errlen, "%s: cannot read the MTU: %s",
			 pt->name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	pt->mtu = ifr.ifr_mtu;
	want = gw->p.mtu[pt - gw->port];
	mtu = want ? want : (uint32_t)pt->mtu;
	/* Frames per packet, decided before the interface is touched: a
	 * refused MTU leaves it as it was. */
	frames = frame_chain_frames(mtu, gw->max_frame);
	if (frames > 1 && frames + 1 > FRAME_CHAIN_MAX) {
		snprintf(
			errbuf, errlen,
			"%s: MTU %u needs %u frames of %u B per packet, but "
			"AF_XDP multi-buffer carries at most %d (a %u-byte "
			"UMEM frame holds %u after %d bytes of kernel headroom "
			"and umem.headroom %u): lower the MTU to %u or less, "
			"or raise umem.frame_size",
			pt->name, mtu, frames, gw->p.frame_size,
			FRAME_CHAIN_MAX - 1, gw->p.frame_size, gw->max_frame,
			GW_XDP_HEADROOM, gw->p.frame_headroom,
			(FRAME_CHAIN_MAX - 1) * gw->max_frame - FRAME_L2_MAX);
		close(fd);
		return -EMSGSIZE;
	}
	if (mtu != (uint32_t)pt->mtu) {
		/* ports[].mtu: the interface takes it (refused above the
		 * driver's max_mtu) */
		ifr.ifr_mtu = (int)mtu;
		if (ioctl(fd, SIOCSIFMTU, &ifr)) {
			int err = errno;

			snprintf(errbuf, errlen,
				 "%s: cannot set the MTU to %u (ports[].mtu; "
				 "now %d): %s%s",
				 pt->name, mtu, pt->mtu, strerror(err),
				 err == EINVAL
					 ? " (above the driver's max_mtu, "
					   "see ip -d link show)"
					 : "");
			close(fd);
			return -err;
		}
		log_info("%s: MTU set to %u (was %d)", pt->name, mtu, pt->mtu);
		pt->mtu_was = pt->mtu;
		pt->mtu = (int)mtu;
	}
	close(fd);
	pt->frames = frames;
	if (frames > 1) {
		/* one frame of slack: a driver may fill frames less */
		gw->multibuf = true;
		gw->max_frags = MAX(gw->max_frags, frames + 1);
	}
	return 0;
}

/* IFF_PROMISC of the interface (the flag user space sets, not the
 * kernel's count of promiscuous users such as packet sockets) to on. */
static int set_promisc(int fd, const char *name, bool on, bool *was)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		return -errno;
	if (was)
		*was = ifr.ifr_flags & IFF_PROMISC;
	if (!!(ifr.ifr_flags & IFF_PROMISC) == on)
		return 0;
	ifr.ifr_flags =
		on ? ifr.ifr_flags | IFF_PROMISC : ifr.ifr_flags & ~IFF_PROMISC;
	return ioctl(fd, SIOCSIFFLAGS, &ifr) ? -errno : 0;
}

/* Promiscuous mode on: the frames of a bump in the wire are addressed to
 * the hosts beyond it, not to the port's MAC. */
static int promisc_on(struct gw_port *pt, char *errbuf, size_t errlen)
{
	bool was = false;
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = fd < 0 ? -errno : set_promisc(fd, pt->name, true, &was);
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(errbuf, errlen,
			 "%s: cannot set promiscuous mode (frames to the hosts "
			 "beyond the gateway would not pass the NIC's unicast "
			 "filter): %s",
			 pt->name, strerror(-err));
		return err;
	}
	pt->promisc_set = !was;
	if (was)
		log_info("%s: promiscuous mode already on; left on at stop",
			 pt->name);
	else
		log_info("%s: promiscuous mode on, for frames to the hosts "
			 "beyond the gateway (the NIC's unicast filter would "
			 "drop them); off again at stop",
			 pt->name);
	return 0;
}

void gw_ports_promisc_off(struct gateway *gw)
{
	int fd = -1, err;

	for (int i = 0; i < GW_PORTS; i++) {
		struct gw_port *pt = &gw->port[i];

		if (!pt->promisc_set)
			continue;
		pt->promisc_set = false;
		if (fd < 0)
			fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		err = fd < 0 ? -errno : set_promisc(fd, pt->name, false, NULL);
		if (err)
			log_err("%s: promiscuous mode could not be turned off "
				"again: %s ('ip link set %s promisc off')",
				pt->name, strerror(-err), pt->name);
		else
			log_info("%s: promiscuous mode off again", pt->name);
	}
	if (fd >= 0)
		close(fd);
}

/* The NIC features that take a VLAN tag out of the frame on receive (its
 * kernel name, and the row `ethtool -k` shows): XDP and AF_XDP see the
 * frame without it, and the gateway would forward it untagged. */
static const struct {
	const char *name, *row;
} gw_strip_features[] = {
	{"rx-vlan-hw-parse", "rx-vlan-offload"},
	{"rx-vlan-stag-hw-parse", "rx-vlan-stag-hw-parse"},
};

/* Turn off what strips tags; a driver that cannot is warned about. */
static void strip_off(struct gw_port *pt)
{
	for (unsigned i = 0; i < ARRAY_SIZE(gw_strip_features); i++) {
		const char *row = gw_strip_features[i].row;
		struct nic_feature f;
		int err;

		if (nic_feature_get(pt->name, gw_strip_features[i].name, &f) ||
		    !f.active)
			continue;
		err = f.changeable ? nic_feature_set(pt->name, &f, false)
				   : -EOPNOTSUPP;
		if (err) {
			log_warn("%s: the NIC strips VLAN tags on receive and "
				 "%s cannot be turned off (%s): tagged frames "
				 "are forwarded without their tag",
				 pt->name, row, strerror(-err));
			continue;
		}
		pt->strip_off |= 1U << i;
		log_info("%s: %s off, so that VLAN-tagged frames keep their "
			 "tag (the NIC would strip it before XDP sees the "
			 "frame); on again at stop (as 'ethtool -K %s %s off' "
			 "does)",
			 pt->name, row, pt->name, row);
	}
}

/* Turn on again the features of `bits` (bit i: gw_strip_features[i]) on
 * ifname; 0 or the first error, each logged. */
static int strip_on(const char *ifname, uint32_t bits)
{
	int rc = 0;

	for (unsigned j = 0; j < ARRAY_SIZE(gw_strip_features); j++) {
		const char *row = gw_strip_features[j].row;
		struct nic_feature f;
		int err;

		if (!(bits & (1U << j)))
			continue;
		err = nic_feature_get(ifname, gw_strip_features[j].name, &f);
		if (!err)
			err = nic_feature_set(ifname, &f, true);
		if (err) {
			log_err("%s: %s could not be turned on again: %s "
				"('ethtool -K %s %s on')",
				ifname, row, strerror(-err), ifname, row);
			rc = rc ? rc : err;
		} else {
			log_info("%s: %s on again", ifname, row);
		}
	}
	return rc;
}

void gw_ports_strip_restore(struct gateway *gw)
{
	for (int i = 0; i < GW_PORTS; i++) {
		strip_on(gw->port[i].name, gw->port[i].strip_off);
		gw->port[i].strip_off = 0;
	}
}

void gw_ports_record(struct gateway *gw, struct gw_port *pt)
{
	uint32_t stale;
	int err;

	(void)gw;
	if (!pt->promisc_set &&
	    (pt->prog.stale_flags & STEER_CONF_PROMISC_SET)) {
		pt->promisc_set = true;
		log_info("%s: promiscuous mode was turned on by the previous "
			 "run; off again at stop",
			 pt->name);
	}
	stale = (pt->prog.stale_flags & STEER_CONF_STRIP_MASK) >>
		STEER_CONF_STRIP_SHIFT;
	if (stale & ~pt->strip_off) {
		pt->strip_off |= stale;
		log_info("%s: VLAN tag stripping was turned off by the "
			 "previous run; on again at stop",
			 pt->name);
	}
	err = steer_set_flags(
		&pt->prog,
		(pt->promisc_set ? STEER_CONF_PROMISC_SET : 0) |
			((uint32_t)pt->strip_off << STEER_CONF_STRIP_SHIFT));
	if (err)
		log_warn("%s: cannot record the port's state in the program "
			 "(xdplane --detach would leave promiscuous mode on "
			 "and VLAN tag stripping off): %s",
			 pt->name, strerror(-err));
}

/* Called without a gateway, after the daemon is gone (gateway.h). */
int gateway_detach_port(const char *ifname, char *msg, size_t msglen)
{
	struct gw_port pt = {.lock_fd = -1};
	uint32_t flags = 0;
	int ifindex, rc, fd, err;
	size_t n;

	snprintf(pt.name, sizeof(pt.name), "%s", ifname);
	ifindex = (int)if_nametoindex(ifname);
	if (!ifindex) {
		snprintf(msg, msglen,
			 "%s: no such interface; nothing to detach", ifname);
		return 0;
	}
	rc = lock_port(&pt, msg, msglen);
	if (rc)
		return rc == -EADDRINUSE ? -EBUSY : rc;
	rc = steer_detach_left(ifindex, ifname, &flags, msg, msglen);
	if (rc != 1) /* not detached: nothing of ours to put back */
		flags = 0;
	if (flags & STEER_CONF_PROMISC_SET) {
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		err = fd < 0 ? -errno : set_promisc(fd, ifname, false, NULL);
		if (fd >= 0)
			close(fd);
		n = strlen(msg);
		if (err) {
			snprintf(msg + n, msglen - n,
				 "; promiscuous mode, which xdplane had set, "
				 "could not be turned off: %s ('ip link set %s "
				 "promisc off')",
				 strerror(-err), ifname);
			rc = err;
		} else {
			snprintf(msg + n, msglen - n,
				 "; promiscuous mode, which xdplane had set, "
				 "off again");
		}
	}
	if (flags & STEER_CONF_STRIP_MASK) {
		err = strip_on(ifname, (flags & STEER_CONF_STRIP_MASK) >>
					       STEER_CONF_STRIP_SHIFT);
		n = strlen(msg);
		snprintf(msg + n, msglen - n,
			 err ? "; VLAN tag stripping, which xdplane had turned "
			       "off, could not be turned on again (see above)"
			     : "; VLAN tag stripping, which xdplane had turned "
			       "off, on again");
		if (err && rc > 0)
			rc = err;
	}
	close(pt.lock_fd);
	return rc < 0 ? rc : 0;
}

int gw_ports_open(struct gateway *gw, char *errbuf, size_t errlen)
{
	int err;

	for (int i = 0; i < GW_PORTS; i++) {
		gw->port[i].lock_fd = -1;
		gw->port[i].prog.prog_fd = -1;
		gw->port[i].prog.xsks_map_fd = -1;
		gw->port[i].prog.verdicts_fd = -1;
		gw->port[i].prog.nosock_fd = -1;
		snprintf(gw->port[i].name, sizeof(gw->port[i].name), "%s",
			 gw->p.ifname[i]);
	}
	for (int i = 0; i < GW_PORTS; i++) {
		/* locked first: check_port() may set the MTU */
		err = lock_port(&gw->port[i], errbuf, errlen);
		if (!err)
			err = check_port(gw, &gw->port[i], errbuf, errlen);
		if (!err)
			err = promisc_on(&gw->port[i], errbuf, errlen);
		if (err)
			return err;
		strip_off(&gw->port[i]);
	}
	return 0;
}

void gw_ports_restore(struct gateway *gw)
{
	struct ifreq ifr = {0};
	int fd, err;

	for (int i = 0; i < GW_PORTS; i++) {
		struct gw_port *pt = &gw->port[i];

		if (!pt->channels_set)
			continue;
		pt->channels_set = false;
		err = nic_channels_restore(pt->name, &pt->channels_was);
		if (err < 0)
			log_err("%s: start refused, but the channels could not "
				"be put back to %u: %s",
				pt->name, nic_channels_count(&pt->channels_was),
				strerror(-err));
		else if (err > 0)
			log_info("%s: start refused: channels put back to %u",
				 pt->name,
				 nic_channels_count(&pt->channels_was));
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (int i = 0; i < GW_PORTS; i++) {
		struct gw_port *pt = &gw->port[i];

		if (!pt->mtu_was)
			continue;
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", pt->name);
		ifr.ifr_mtu = pt->mtu_was;
		if (fd < 0 || ioctl(fd, SIOCSIFMTU, &ifr)) {
			log_err("%s: start refused, but the MTU could not be "
				"put back to %d: %s",
				pt->name, pt->mtu_was, strerror(errno));
			continue;
		}
		log_info("%s: start refused: MTU put back to %d", pt->name,
			 pt->mtu_was);
		pt->mtu = pt->mtu_was;
		pt->mtu_was = 0;
	}
	if (fd >= 0)
		close(fd);
}

/* The start-up log line of each port's frame decision. */
void gw_ports_log_frames(const struct gateway *gw)
{
	for (int i = 0; i < GW_PORTS; i++) {
		const struct gw_port *pt = &gw->port[i];

		if (pt->frames > 1)
			log_info("%s: MTU %d, multi-buffer on, up to %u frames "
				 "of %u B per packet",
				 pt->name, pt->mtu, pt->frames,
				 gw->umem.frame_size);
		else
			log_info("%s: MTU %d, single-buffer (multi-buffer %s: "
				 "a %u B frame holds %u B)",
				 pt->name, pt->mtu,
				 gw->multibuf ? "on for the other port" : "off",
				 gw->umem.frame_size, gw->max_frame);
	}
}

void gw_sockets_close(struct gateway *gw)
{
	for (int p = 0; p < GW_PORTS; p++)
		for (uint32_t q = 0; q < gw->p.queues; q++)
			xsk_queue_close(&gw->port[p].q[q]);
	xsk_umem_reg_fini(&gw->reg);
}

/* The bind with XDP_USE_SG failed with EINVAL: a kernel without AF_XDP
 * multi-buffer (< 6.6). Names the port that needs it and the way out. */
static void sg_refused(const struct gateway *gw, int err, char *errbuf,
		       size_t errlen)
{
	const struct gw_port *pt = &gw->port[0];

	if (gw->port[1].frames > pt->frames)
		pt = &gw->port[1];
	snprintf(errbuf, errlen,
		 "%s: MTU %d needs AF_XDP multi-buffer (XDP_USE_SG), which "
		 "the kernel refused: %s; lower the MTU to %u or upgrade to "
		 "Linux >= 6.6",
		 pt->name, pt->mtu, strerror(-err),
		 gw->max_frame - FRAME_L2_MAX);
}

/* The zero-copy bind with XDP_USE_SG failed with EOPNOTSUPP: the driver
 * has no multi-buffer zero-copy (NETDEV_XDP_ACT_ZC_SG; virtio_net and igb
 * have zero-copy without it), or no zero-copy at all. Names the port whose
 * MTU needs the chains and the MTU that fits one frame. */
static void zc_sg_refused(const struct gateway *gw, int p, uint32_t q, int err,
			  char *errbuf, size_t errlen)
{
	const struct gw_port *pt = &gw->port[0];

	if (gw->port[1].frames > pt->frames)
		pt = &gw->port[1];
	snprintf(errbuf, errlen,
		 "%s queue %u: AF_XDP bind (zero-copy, multi-buffer): %s: "
		 "the driver has no zero-copy for multi-buffer packets (or "
		 "none at all); %s at MTU %d needs up to %u frames per packet, "
		 "an MTU up to %u fits one frame",
		 gw->port[p].name, q, strerror(-err), pt->name, pt->mtu,
		 pt->frames, gw->max_frame - FRAME_L2_MAX);
}

/* Create every socket in one bind mode; all or nothing. */
static int open_sockets(struct gateway *gw, bool zerocopy, char *errbuf,
			size_t errlen)
{
	struct xsk_ring_sizes sz = {gw->p.fill_size, gw->p.comp_size,
				    gw->p.rx_size, gw->p.tx_size};
	int err;

	err = xsk_umem_reg_init(&gw->reg, &gw->umem, &sz, &gw->port[0].q[0]);
	if (err) {
		snprintf(
			errbuf, errlen,
			"cannot register the UMEM (%u frames of %u bytes): "
			"%s%s",
			gw->umem.n_frames, gw->umem.frame_size, strerror(-err),
			err == -ENOBUFS || err == -ENOMEM
				? " (raise RLIMIT_MEMLOCK or keep CAP_IPC_LOCK)"
				: "");
		return err;
	}
	for (int p = 0; p < GW_PORTS; p++) {
		for (uint32_t q = 0; q < gw->p.queues; q++) {
			/* A socket closed by a previous run is torn down
			 * asynchronously: EBUSY for a moment. */
			for (int tries = 0; tries < 30; tries++) {
				err = xsk_queue_open(&gw->port[p].q[q],
						     &gw->reg, gw->port[p].name,
						     q, &sz, zerocopy,
						     gw->multibuf);
				if (err != -EBUSY)
					break;
				gw_sleep_ms(100);
			}
			if (err && gw->multibuf && err == -EINVAL)
				sg_refused(gw, err, errbuf, errlen);
			else if (err && gw->multibuf && zerocopy &&
				 err == -EOPNOTSUPP)
				zc_sg_refused(gw, p, q, err, errbuf, errlen);
			else if (err)
				snprintf(errbuf, errlen,
					 "%s queue %u: AF_XDP bind (%s%s): %s",
					 gw->port[p].name, q,
					 zerocopy ? "zero-copy" : "copy",
					 gw->multibuf ? ", multi-buffer" : "",
					 strerror(-err));
			if (err) {
				gw_sockets_close(gw);
				return err;
			}
		}
	}
	gw->zerocopy = zerocopy;
	for (int p = 0; p < GW_PORTS; p++)
		for (uint32_t q = 0; q < gw->p.queues; q++)
			xsk_starve_init(&gw->port[p].starve[q], 0, 0);
	for (uint32_t q = 0;
	     gw->p.test_starve && gw->p.test_starve_port >= 0 &&
	     gw->p.test_starve_port < GW_PORTS && q < gw->p.queues;
	     q++) {
		if (gw->p.test_starve_queue != UINT32_MAX &&
		    gw->p.test_starve_queue != q)
			continue;
		gw->port[gw->p.test_starve_port].q[q].mute = true;
		log_warn("TEST FAULT (XDPLANE_TEST_STARVE): %s queue %u: the "
			 "worker never wakes the driver to fill this socket%s",
			 gw->port[gw->p.test_starve_port].name, q,
			 gw->p.test_starve_nokick
				 ? ", nor does the starvation detector"
				 : "");
	}
	return 0;
}

/* bind_mode: 0 zero-copy, else copy; 1 zero-copy only; 2 copy only. */
int gw_sockets_open(struct gateway *gw, char *errbuf, size_t errlen)
{
	int err;

	if (gw->p.bind_mode != 2) {
		err = open_sockets(gw, true, errbuf, errlen);
		if (!err || gw->p.bind_mode == 1)
			return err;
		log_info("zero-copy not available (%s); using copy mode",
			 errbuf);
	}
	return open_sockets(gw, false, errbuf, errlen);
}

const char *gateway_port_name(const struct gateway *gw, int port)
{
	return gw->port[port].name;
}

int gateway_port_ifindex(const struct gateway *gw, int port)
{
	return gw->port[port].ifindex;
}

void gateway_port_set_down(struct gateway *gw, int port, bool down)
{
	for (uint32_t u = 0; gw->eg && u < gw->n_units; u++) {
		if (gw->eg[u].port != port)
			continue;
		__atomic_store_n(&gw->eg[u].port_down, down, __ATOMIC_RELAXED);
		if (gw->w)
			worker_wake(&gw->w[gw->plc.unit_worker[u]]);
	}
}

/* "2-3,7": the set bits of a queue mask, as ranges; "64+" for the slot
 * beyond STEER_MAX_QUEUES. */
static void queue_ranges(const bool *set, char *buf, size_t size)
{
	size_t len = 0;
	int lo, hi;

	buf[0] = '\0';
	for (lo = 0; lo < STEER_NOSOCK_SLOTS && len < size; lo = hi + 1) {
		hi = lo;
		if (!set[lo])
			continue;
		while (hi + 1 < STEER_MAX_QUEUES && set[hi + 1])
			hi++;
		if (lo == STEER_MAX_QUEUES)
			len += snprintf(buf + len, size - len, "%s%d+",
					len ? "," : "", lo);
		else
			len += snprintf(buf + len, size - len,
					hi > lo ? "%s%d-%d" : "%s%d",
					len ? "," : "", lo, hi);
	}
}

/* Warn at once, then at most once a minute while frames keep coming. */
#define GW_NOSOCK_WARN_NS (60 * 1000000000ull)

static uint32_t watch_port(struct gateway *gw, struct gw_port *pt,
			   uint64_t now_ns)
{
	uint64_t cnt[STEER_NOSOCK_SLOTS], total = 0, fresh = 0;
	bool set[STEER_NOSOCK_SLOTS] = {false}, arrived[STEER_NOSOCK_SLOTS];
	struct nic_channels ch;
	uint32_t n = 0, q = gw->p.queues;
	char which[128], cmd[80];

	nic_channels_get(pt->name, &ch);
	if (nic_channels_count(&ch) &&
	    nic_channels_count(&ch) != pt->channels_now)
		log_warn("%s: the NIC now has %u channels (%u before), the "
			 "gateway has sockets on %u queue%s%s",
			 pt->name, nic_channels_count(&ch), pt->channels_now, q,
			 q > 1 ? "s" : "",
			 nic_channels_count(&ch) > q
				 ? ": frames on the others take the "
				   "failure_mode path; restart xdplane to "
				   "follow (queues: auto)"
				 : "");
	if (nic_channels_count(&ch))
		pt->channels_now = nic_channels_count(&ch);
	if (steer_read_nosock(&pt->prog, cnt))
		return pt->queues_without_socket;
	for (uint32_t s = 0; s < STEER_NOSOCK_SLOTS; s++) {
		arrived[s] = cnt[s] > pt->nosock_seen[s];
		set[s] = arrived[s] || (s >= q && s < pt->channels_now);
		n += set[s];
		total += cnt[s];
		fresh += cnt[s] - pt->nosock_seen[s];
		pt->nosock_seen[s] = cnt[s];
	}
	pt->queues_without_socket = n;
	if (!fresh || total == pt->nosock_warned ||
	    (pt->warn_ns && now_ns - pt->warn_ns < GW_NOSOCK_WARN_NS))
		return n;
	queue_ranges(arrived, which, sizeof(which));
	if (pt->channels_now > q)
		nic_channels_cmd(&ch, pt->name, q, cmd, sizeof(cmd));
	else
		snprintf(cmd, sizeof(cmd), "ethtool -l %s", pt->name);
	log_warn("%s: %llu frame%s arrived on RX queue %s, which has no "
		 "AF_XDP socket (the gateway has sockets on %u queue%s, the "
		 "NIC has %u channels): they took the failure_mode path, "
		 "unclassified and unshaped (rx_no_socket %llu in all); "
		 "restart with queues: auto, or run '%s'",
		 pt->name, (unsigned long long)(total - pt->nosock_warned),
		 total - pt->nosock_warned > 1 ? "s" : "", which, q,
		 q > 1 ? "s" : "", pt->channels_now, (unsigned long long)total,
		 cmd);
	pt->nosock_warned = total;
	pt->warn_ns = now_ns ? now_ns : 1;
	return n;
}

uint32_t gateway_watch_queues(struct gateway *gw, uint64_t now_ns)
{
	uint32_t n = 0;

	for (int i = 0; i < GW_PORTS; i++)
		n += watch_port(gw, &gw->port[i], now_ns);
	return n;
}
