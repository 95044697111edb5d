// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_linkwatch.c - the rtnetlink link-event parser of the daemon
 * (control/daemon/linkwatch.c) on crafted netlink buffers: a port's link going
 * down and up, its interface deleted, an interface of the same name
 * created again, unrelated interfaces, and buffers whose lengths lie.
 * No socket: linkwatch_parse() is fed directly. Single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "linkwatch.h"

#define MAX_EV 16

static struct lw_event got[MAX_EV];
static int n_got;

static void record(void *arg, const struct lw_event *ev)
{
	(void)arg;
	if (n_got < MAX_EV)
		got[n_got] = *ev;
	n_got++;
}

static void setup_lw(struct linkwatch *lw)
{
	memset(lw, 0, sizeof(*lw));
	lw->fd = -1;
	lw->cb = record;
	snprintf(lw->port[0].name, IF_NAMESIZE, "gw0");
	snprintf(lw->port[1].name, IF_NAMESIZE, "gw1");
	lw->port[0].ifindex = 2;
	lw->port[1].ifindex = 3;
	lw->port[0].running = lw->port[1].running = true;
	n_got = 0;
}

/* Append one RTM_NEWLINK/DELLINK message to buf at *off. name may be
 * NULL (no IFLA_IFNAME); name_len bytes of it are copied (no NUL when
 * name_len == strlen(name)). */
static void put_link(uint8_t *buf, size_t *off, uint16_t type, int ifindex,
		     unsigned int flags, const char *name, size_t name_len)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(buf + *off);
	struct ifinfomsg *ifi;
	struct rtattr *a;

	memset(nh, 0, NLMSG_SPACE(sizeof(*ifi)) + RTA_SPACE(IF_NAMESIZE));
	nh->nlmsg_type = type;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	ifi = NLMSG_DATA(nh);
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	if (name) {
		a = (struct rtattr *)((uint8_t *)nh +
				      NLMSG_ALIGN(nh->nlmsg_len));
		a->rta_type = IFLA_IFNAME;
		a->rta_len = RTA_LENGTH(name_len);
		memcpy(RTA_DATA(a), name, name_len);
		nh->nlmsg_len =
			NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(a->rta_len);
	}
	*off += NLMSG_ALIGN(nh->nlmsg_len);
}

#define UP (IFF_UP | IFF_RUNNING)

static void test_down_up(void **state)
{
	struct linkwatch lw;
	uint8_t buf[1024] __attribute__((aligned(4)));
	size_t off = 0;

	(void)state;
	setup_lw(&lw);
	put_link(buf, &off, RTM_NEWLINK, 2, IFF_UP, "gw0", 4); /* no carrier */
	put_link(buf, &off, RTM_NEWLINK, 2, IFF_UP, "gw0", 4); /* same: quiet */
	put_link(buf, &off, RTM_NEWLINK, 2, UP, "gw0", 4);
	put_link(buf, &off, RTM_NEWLINK, 7, 0, "eth9", 5); /* not ours */
	linkwatch_parse(&lw, buf, off);
	assert_int_equal(n_got, 2);
	assert_int_equal(got[0].type, LW_LINK_DOWN);
	assert_int_equal(got[0].port, 0);
	assert_int_equal(got[1].type, LW_LINK_UP);
	assert_int_equal(got[1].port, 0);
}

static void test_gone_and_back(void **state)
{
	struct linkwatch lw;
	uint8_t buf[1024] __attribute__((aligned(4)));
	size_t off = 0;

	(void)state;
	setup_lw(&lw);
	put_link(buf, &off, RTM_DELLINK, 3, 0, "gw1", 4);
	put_link(buf, &off, RTM_DELLINK, 3, 0, "gw1", 4); /* reported once */
	put_link(buf, &off, RTM_NEWLINK, 9, UP, "gw10", 5); /* other name */
	put_link(buf, &off, RTM_NEWLINK, 11, UP, "gw1", 4);
	put_link(buf, &off, RTM_NEWLINK, 11, UP, "gw1", 4); /* once */
	linkwatch_parse(&lw, buf, off);
	assert_int_equal(n_got, 2);
	assert_int_equal(got[0].type, LW_GONE);
	assert_int_equal(got[0].port, 1);
	assert_int_equal(got[0].ifindex, 3);
	assert_int_equal(got[1].type, LW_BACK);
	assert_int_equal(got[1].port, 1);
	assert_int_equal(got[1].ifindex, 11);
	assert_int_equal(lw.port[1].ifindex, 11);
	assert_false(lw.port[1].gone);
}

/* An IFLA_IFNAME without its NUL still names the interface; a name that
 * only starts like the port's does not. */
static void test_name_without_nul(void **state)
{
	struct linkwatch lw;
	uint8_t buf[1024] __attribute__((aligned(4)));
	size_t off = 0;

	(void)state;
	setup_lw(&lw);
	lw.port[0].gone = true;
	put_link(buf, &off, RTM_NEWLINK, 20, UP, "gw0x", 4);
	put_link(buf, &off, RTM_NEWLINK, 21, UP, "gw0", 3);
	linkwatch_parse(&lw, buf, off);
	assert_int_equal(n_got, 1);
	assert_int_equal(got[0].type, LW_BACK);
	assert_int_equal(got[0].ifindex, 21);
}

/* Lengths that lie: nothing read past the buffer (ASan would say), no
 * event from a truncated message. */
static void test_lying_lengths(void **state)
{
	struct linkwatch lw;
	uint8_t buf[1024] __attribute__((aligned(4)));
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct rtattr *a;
	size_t off = 0, cut;

	(void)state;
	setup_lw(&lw);
	put_link(buf, &off, RTM_DELLINK, 3, 0, "gw1", 4);
	for (cut = 0; cut < off; cut++) { /* every truncation */
		setup_lw(&lw);
		linkwatch_parse(&lw, buf, cut);
		assert_int_equal(n_got, 0);
	}
	nh->nlmsg_len = 4096; /* claims more than there is */
	setup_lw(&lw);
	linkwatch_parse(&lw, buf, off);
	assert_int_equal(n_got, 0);
	/* an attribute longer than its message */
	off = 0;
	put_link(buf, &off, RTM_NEWLINK, 30, UP, "gw0", 4);
	a = (struct rtattr *)(buf + NLMSG_LENGTH(sizeof(struct ifinfomsg)));
	a->rta_len = 900;
	setup_lw(&lw);
	lw.port[0].gone = true;
	linkwatch_parse(&lw, buf, off);
	assert_int_equal(n_got, 0);
	/* a message shorter than its ifinfomsg */
	nh->nlmsg_len = NLMSG_LENGTH(4);
	setup_lw(&lw);
	linkwatch_parse(&lw, buf, NLMSG_ALIGN(nh->nlmsg_len));
	assert_int_equal(n_got, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_down_up),
		cmocka_unit_test(test_gone_and_back),
		cmocka_unit_test(test_name_without_nul),
		cmocka_unit_test(test_lying_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
