/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unused_ids.h - ids no account has on this machine, for the tests of the
 * user and group lookup (test_config.c, test_privs.c).
 */
#ifndef XDPLANE_TEST_UNUSED_IDS_H
#define XDPLANE_TEST_UNUSED_IDS_H

#include <grp.h>
#include <pwd.h>

/* The first id from 54321 up that has no passwd (or group) entry. */
static inline unsigned int unused_uid(void)
{
	unsigned int id = 54321;

	while (getpwuid(id))
		id++;
	return id;
}

static inline unsigned int unused_gid(void)
{
	unsigned int id = 54321;

	while (getgrgid(id))
		id++;
	return id;
}

#endif
