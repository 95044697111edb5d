// SPDX-License-Identifier: BSD-2-Clause
/*
 * kernel_req.c - the kernel each feature needs, and the start-up check
 * (kernel_req.h).
 */
#include "kernel_req.h"

#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "config.h"
#include "frame_chain.h" /* FRAME_CHAIN_MAX, FRAME_L2_MAX */

#define XDP_HEADROOM 256 /* the kernel's XDP_PACKET_HEADROOM */

static const struct kfeat_info feats[KFEAT_N] = {
	[KFEAT_SHARED_UMEM] = {"AF_XDP sockets of two devices sharing one UMEM",
			       "every configuration",
			       {5, 10, 0}},
	[KFEAT_MULTIBUF] = {"AF_XDP multi-buffer (XDP_USE_SG)",
			    "an MTU above one UMEM frame",
			    {6, 6, 0}},
};

/* A decimal number of at most 5 digits at *s; advances *s. */
static int parse_num(const char **s, unsigned int *out)
{
	unsigned int n = 0;
	int digits = 0;

	while (**s >= '0' && **s <= '9') {
		if (++digits > 5)
			return -1;
		n = n * 10 + (unsigned int)(**s - '0');
		(*s)++;
	}
	if (!digits)
		return -1;
	*out = n;
	return 0;
}

int kver_parse(const char *release, struct kver *v)
{
	const char *s = release;
	struct kver k = {0};

	if (!s || parse_num(&s, &k.major) || *s++ != '.' ||
	    parse_num(&s, &k.minor))
		return -1;
	if (*s == '.') {
		s++;
		if (parse_num(&s, &k.patch))
			return -1;
	}
	/* what follows is the build's: "-18-amd64", "+", "-rc1", "" */
	if (*s && *s != '-' && *s != '+' && *s != '_' && *s != '~')
		return -1;
	*v = k;
	return 0;
}

int kver_cmp(const struct kver *a, const struct kver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return 0;
}

const struct kfeat_info *kfeat_info(enum kfeat f)
{
	return f < KFEAT_N ? &feats[f] : NULL;
}

bool kfeat_has(const struct kver *running, enum kfeat f)
{
	return f < KFEAT_N && kver_cmp(running, &feats[f].min) >= 0;
}

uint32_t kreq_single_frame_mtu(uint32_t frame_size, uint32_t headroom)
{
	uint32_t room = XDP_HEADROOM + headroom + FRAME_L2_MAX;

	return frame_size > room ? frame_size - room : 0;
}

/* Appends to err at *off; "; " between items. */
static void add(char *err, size_t errlen, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= errlen)
		return;
	if (*off) {
		n = snprintf(err + *off, errlen - *off, "; ");
		*off += n > 0 ? (size_t)n : 0;
		if (*off >= errlen)
			return;
	}
	va_start(ap, fmt);
	n = vsnprintf(err + *off, errlen - *off, fmt, ap);
	va_end(ap);
	*off += n > 0 ? (size_t)n : 0;
}

int kreq_check(const char *release, const struct kreq_port port[2],
	       uint32_t frame_size, uint32_t headroom, char *err, size_t errlen)
{
	const struct kfeat_info *mb = &feats[KFEAT_MULTIBUF];
	const struct kfeat_info *su = &feats[KFEAT_SHARED_UMEM];
	uint32_t single = kreq_single_frame_mtu(frame_size, headroom);
	char items[900] = "";
	size_t off = 0;
	struct kver k;

	if (errlen)
		err[0] = '\0';
	/* the chain limit holds on every kernel (frame_chain.h); the same
	 * words as gw_ports.c, which checks it again at start */
	for (int i = 0; i < 2 && single; i++) {
		uint32_t room = single + FRAME_L2_MAX;
		uint32_t frames = frame_chain_frames(port[i].mtu, room);

		if (frames <= FRAME_CHAIN_MAX - 1)
			continue;
		add(items, sizeof(items), &off,
		    "%s: MTU %u needs %u frames of %u B per packet, but AF_XDP "
		    "multi-buffer carries at most %d (a %u-byte UMEM frame "
		    "holds %u after %d bytes of kernel headroom and "
		    "umem.headroom %u): lower the MTU to %u or less, or raise "
		    "umem.frame_size",
		    port[i].ifname, port[i].mtu, frames, frame_size,
		    FRAME_CHAIN_MAX - 1, frame_size, room, XDP_HEADROOM,
		    headroom, (FRAME_CHAIN_MAX - 1) * room - FRAME_L2_MAX);
	}
	if (kver_parse(release, &k))
		goto out;
	if (!kfeat_has(&k, KFEAT_SHARED_UMEM))
		add(items, sizeof(items), &off, "%s needs %s, Linux >= %u.%u",
		    su->needed_by, su->what, su->min.major, su->min.minor);
	for (int i = 0; i < 2; i++) {
		const struct kreq_port *p = &port[i];

		if (p->mtu <= single || kfeat_has(&k, KFEAT_MULTIBUF))
			continue;
		if (p->mtu_from_file)
			add(items, sizeof(items), &off,
			    "ports[%d].mtu %u (%s) needs %s, Linux >= %u.%u; "
			    "the largest MTU this kernel carries is %u (one "
			    "%u-byte UMEM frame): lower ports[%d].mtu to %u or "
			    "upgrade the kernel",
			    i, p->mtu, p->ifname, mb->what, mb->min.major,
			    mb->min.minor, single, frame_size, i, single);
		else
			add(items, sizeof(items), &off,
			    "%s has MTU %u (ports[%d].mtu unset: the "
			    "interface's), which needs %s, Linux >= %u.%u; the "
			    "largest MTU this kernel carries is %u (one "
			    "%u-byte UMEM frame): set ports[%d].mtu: %u, lower "
			    "the interface's MTU, or upgrade the kernel",
			    p->ifname, p->mtu, i, mb->what, mb->min.major,
			    mb->min.minor, single, frame_size, i, single);
	}
out:
	if (!off)
		return 0;
	snprintf(err, errlen, "Linux %s cannot carry this configuration: %s",
		 release, items);
	return -1;
}

/* The interface's MTU, or 0 when it cannot be read (no such interface). */
static uint32_t if_mtu(const char *name)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t mtu = 0;

	if (fd < 0)
		return 0;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (!ioctl(fd, SIOCGIFMTU, &ifr) && ifr.ifr_mtu > 0)
		mtu = (uint32_t)ifr.ifr_mtu;
	close(fd);
	return mtu;
}

int kreq_check_config(const struct xdplane_config *cfg, char *err,
		      size_t errlen)
{
	struct kreq_port port[2];
	struct utsname u;
	char msg[1024];

	if (uname(&u))
		return 0;
	for (int i = 0; i < 2; i++) {
		port[i].ifname = cfg->ports[i].interface;
		port[i].mtu_from_file = cfg->ports[i].mtu != 0;
		port[i].mtu = cfg->ports[i].mtu
				      ? cfg->ports[i].mtu
				      : if_mtu(cfg->ports[i].interface);
	}
	if (!kreq_check(u.release, port, cfg->umem.frame_size,
			cfg->umem.headroom, msg, sizeof(msg)))
		return 0;
	snprintf(err, errlen, "%s: %s", cfg->path, msg);
	return -1;
}
