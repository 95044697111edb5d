// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ctl_server.c - the control socket's credential check,
 * ctl_peer_allowed(), on a real socket: a peer (the test process, after
 * setgroups(), on a socketpair it then creates: SO_PEERGROUPS reports the
 * creator's groups) in 3, 256, 257, 300, 1000 and 65536 (the kernel's
 * NGROUPS_MAX) supplementary groups is let in when the control group is
 * its first, its last or any one of them, and refused when the group is
 * none of them; uid root and the daemon's own uid always pass, a primary
 * group equal to the control group passes.
 *
 * The peer's uid and primary gid are SO_PEERCRED's as conn.c would have
 * read it, here made up (nobody, nogroup): the test runs as root (it needs
 * CAP_SETGID for setgroups()) and only the groups come from the kernel. The
 * tests are skipped when not root. Each restores the process's groups.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <grp.h>
#include <unistd.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "ctl_server.h"

#define GID_BASE 200000u /* the peer's supplementary groups: GID_BASE + i */
#define GID_ABSENT 199999u /* in none of them */

static const struct ucred nobody = {.pid = 1, .uid = 65534, .gid = 65534};

struct verdicts {
	bool first, last, middle, absent, primary, root, self, own_group;
};

/* With the process in n supplementary groups GID_BASE..GID_BASE+n-1, the
 * verdicts of ctl_peer_allowed() on a socketpair created then. */
static struct verdicts verdicts_with_groups(size_t n)
{
	gid_t *want = calloc(n, sizeof(*want));
	gid_t saved[NGROUPS_MAX > 1024 ? 1024 : NGROUPS_MAX];
	struct ucred peer = nobody;
	struct verdicts v;
	int n_saved, sv[2];

	assert_non_null(want);
	for (size_t i = 0; i < n; i++)
		want[i] = GID_BASE + (gid_t)i;
	n_saved = getgroups((int)(sizeof(saved) / sizeof(saved[0])), saved);
	assert_true(n_saved >= 0);
	assert_int_equal(setgroups(n, want), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(setgroups((size_t)n_saved, saved), 0);

	v.first = ctl_peer_allowed(sv[0], &peer, want[0]);
	v.last = ctl_peer_allowed(sv[0], &peer, want[n - 1]);
	v.middle = ctl_peer_allowed(sv[0], &peer, want[n / 2]);
	v.absent = ctl_peer_allowed(sv[0], &peer, GID_ABSENT);
	/* the daemon's group: root's, in none of the peer's groups */
	v.own_group = ctl_peer_allowed(sv[0], &peer, (gid_t)-1);
	peer.gid = GID_ABSENT;
	v.primary = ctl_peer_allowed(sv[0], &peer, GID_ABSENT);
	peer = nobody;
	peer.uid = 0;
	v.root = ctl_peer_allowed(sv[0], &peer, GID_ABSENT);
	peer.uid = geteuid();
	v.self = ctl_peer_allowed(sv[0], &peer, GID_ABSENT);
	close(sv[0]);
	close(sv[1]);
	free(want);
	return v;
}

static void check_groups(size_t n)
{
	struct verdicts v;

	if (geteuid() != 0)
		skip();
	v = verdicts_with_groups(n);
	print_message("%zu groups: first %d last %d middle %d absent %d\n", n,
		      v.first, v.last, v.middle, v.absent);
	assert_true(v.first);
	assert_true(v.last);
	assert_true(v.middle);
	assert_false(v.absent);
	assert_false(v.own_group);
	assert_true(v.primary);
	assert_true(v.root);
	assert_true(v.self);
}

static void test_3_groups(void **state)
{
	check_groups(3);
}

static void test_256_groups(void **state)
{
	check_groups(256);
}

static void test_257_groups(void **state)
{
	check_groups(257);
}

static void test_300_groups(void **state)
{
	check_groups(300);
}

static void test_1000_groups(void **state)
{
	check_groups(1000);
}

static void test_ngroups_max(void **state)
{
	check_groups(NGROUPS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_3_groups),
		cmocka_unit_test(test_256_groups),
		cmocka_unit_test(test_257_groups),
		cmocka_unit_test(test_300_groups),
		cmocka_unit_test(test_1000_groups),
		cmocka_unit_test(test_ngroups_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
