// SPDX-License-Identifier: BSD-2-Clause
/*
 * linkwatch.c - see linkwatch.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "linkwatch.h"

static void emit(struct linkwatch *lw, enum lw_event_type type, int port,
		 int ifindex)
{
	struct lw_event ev = {type, port, ifindex};

	if (lw->cb)
		lw->cb(lw->arg, &ev);
}

/* The IFLA_IFNAME of a link message into name (empty if absent). */
static void link_name(const struct nlmsghdr *nh, char *name, size_t size)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int left = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	const struct rtattr *a = IFLA_RTA(ifi);

	name[0] = '\0';
	for (; left > 0 && RTA_OK(a, left); a = RTA_NEXT(a, left)) {
		size_t n = RTA_PAYLOAD(a);

		if (a->rta_type != IFLA_IFNAME)
			continue;
		if (n >= size)
			n = size - 1;
		memcpy(name, RTA_DATA(a), n);
		name[n] = '\0';
		name[strnlen(name, n)] = '\0';
		return;
	}
}

static void on_link(struct linkwatch *lw, const struct nlmsghdr *nh)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	char name[IF_NAMESIZE];
	bool running;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	link_name(nh, name, sizeof(name));
	running = (ifi->ifi_flags & IFF_UP) && (ifi->ifi_flags & IFF_RUNNING);
	for (int p = 0; p < LW_PORTS; p++) {
		struct lw_port *pt = &lw->port[p];

		if (ifi->ifi_index == pt->ifindex && !pt->gone) {
			if (nh->nlmsg_type == RTM_DELLINK) {
				pt->gone = true;
				pt->running = false;
				emit(lw, LW_GONE, p, ifi->ifi_index);
			} else if (running != pt->running) {
				pt->running = running;
				emit(lw, running ? LW_LINK_UP : LW_LINK_DOWN, p,
				     ifi->ifi_index);
			}
		} else if (nh->nlmsg_type == RTM_NEWLINK && pt->gone &&
			   name[0] && !strcmp(name, pt->name)) {
			pt->gone = false; /* reported once */
			pt->ifindex = ifi->ifi_index;
			pt->running = running;
			emit(lw, LW_BACK, p, ifi->ifi_index);
		}
	}
}

void linkwatch_parse(struct linkwatch *lw, const void *buf, size_t len)
{
	size_t off = 0;

	/* NLMSG_OK/NEXT mix signed and unsigned lengths: walk by hand, each
	 * message whole inside the buffer or the walk ends */
	while (len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nh =
			(const struct nlmsghdr *)((const char *)buf + off);

		if (nh->nlmsg_len < sizeof(*nh) || nh->nlmsg_len > len - off)
			break;
		if (nh->nlmsg_type == RTM_NEWLINK ||
		    nh->nlmsg_type == RTM_DELLINK)
			on_link(lw, nh);
		off += NLMSG_ALIGN(nh->nlmsg_len);
		if (off > len)
			break;
	}
}

/* Notifications were lost: compare the ports with what the names say. */
static void resync(struct linkwatch *lw)
{
	for (int p = 0; p < LW_PORTS; p++) {
		struct lw_port *pt = &lw->port[p];
		int idx = (int)if_nametoindex(pt->name);

		if (!pt->gone && idx != pt->ifindex) {
			pt->gone = true;
			pt->running = false;
			emit(lw, LW_GONE, p, pt->ifindex);
		}
		if (pt->gone && idx) {
			pt->gone = false;
			pt->ifindex = idx;
			emit(lw, LW_BACK, p, idx);
		}
	}
}

static void on_readable(struct ev_watch *w, int revents)
{
	struct linkwatch *lw = w->arg;
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;

	if (lw->fd < 0 || revents < 0)
		return; /* closed or cancelled */
	for (;;) {
		n = recv(lw->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			linkwatch_parse(lw, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == ENOBUFS) {
			lw->overruns++;
			resync(lw);
			continue;
		}
		break; /* EAGAIN, or an error the next readiness retries */
	}
	evloop_arm(lw->loop, w, POLLIN);
}

int linkwatch_open(struct linkwatch *lw, struct evloop *loop,
		   const char *const names[LW_PORTS],
		   const int ifindex[LW_PORTS], lw_cb cb, void *arg,
		   char *errbuf, size_t errlen)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
				 .nl_groups = RTMGRP_LINK};
	int err;

	memset(lw, 0, sizeof(*lw));
	lw->loop = loop;
	lw->cb = cb;
	lw->arg = arg;
	for (int p = 0; p < LW_PORTS; p++) {
		snprintf(lw->port[p].name, sizeof(lw->port[p].name), "%s",
			 names[p]);
		lw->port[p].ifindex = ifindex[p];
		lw->port[p].running = true; /* the first change is reported */
	}
	lw->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_ROUTE);
	if (lw->fd < 0 || bind(lw->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		snprintf(errbuf, errlen, "rtnetlink socket: %s",
			 strerror(-err));
		linkwatch_close(lw);
		return err;
	}
	ev_watch_init(&lw->w, lw->fd, on_readable, lw);
	err = evloop_arm(loop, &lw->w, POLLIN);
	if (err) {
		snprintf(errbuf, errlen, "cannot watch rtnetlink: %s",
			 strerror(-err));
		linkwatch_close(lw);
	}
	return err;
}

void linkwatch_close(struct linkwatch *lw)
{
	if (lw->fd < 0)
		return;
	if (lw->loop)
		evloop_cancel(lw->loop, &lw->w);
	close(lw->fd);
	lw->fd = -1;
}
