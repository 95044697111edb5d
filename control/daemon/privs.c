// SPDX-License-Identifier: BSD-2-Clause
/*
 * privs.c - the drop from set-up to run-time privileges: user switch,
 * capability sets, bounding set, ambient set, no_new_privs.
 * See privs.h for the run-time set, the evidence behind it and the rules.
 *
 * Order inside privs_drop(): every check first (one thread, names resolve,
 * the capabilities needed to drop and to keep are there), then the changes:
 * groups and gid, uid (with PR_SET_KEEPCAPS so the permitted set survives),
 * the bounding set (needs CAP_SETPCAP in the effective set, raised again
 * after the uid change cleared it), the ambient set, the final
 * effective/permitted/inheritable sets, no_new_privs; last, a read-back of
 * everything that was promised.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "config.h"
#include "privs.h"

#ifndef CAP_BPF
#define CAP_BPF 39 /* Linux 5.8; older libcap headers lack it */
#endif

#define CAPS_IN_MASK 64

/* What privs_drop() is asked to become. */
struct target {
	bool has_user; /* a user was named: uid and supplementary groups */
	bool has_group; /* a group was named, or implied by the user */
	uid_t uid;
	gid_t gid;
	char user[CONFIG_USER_NAME_MAX]; /* the user's name, for initgroups() */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static bool is_set(const char *s)
{
	return s && *s;
}

static int resolve_user(const char *name, struct target *t, char *err,
			size_t errlen)
{
	struct config_user u;

	if (config_lookup_user(name, &u, err, errlen))
		return -1;
	t->has_user = true;
	t->has_group = true;
	t->uid = u.uid;
	t->gid = u.gid;
	memcpy(t->user, u.name, sizeof(t->user));
	return 0;
}

static int resolve_group(const char *name, struct target *t, char *err,
			 size_t errlen)
{
	if (config_lookup_group(name, &t->gid, err, errlen))
		return -1;
	t->has_group = true;
	return 0;
}

static int resolve(const char *user, const char *group, struct target *t,
		   char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->uid = getuid();
	t->gid = getgid();
	if (is_set(user) && resolve_user(user, t, err, errlen))
		return -1;
	if (is_set(group) && resolve_group(group, t, err, errlen))
		return -1;
	return 0;
}

int privs_lookup(const char *user, const char *group, uid_t *uid, gid_t *gid,
		 char *err, size_t errlen)
{
	struct target t;

	if (resolve(user, group, &t, err, errlen))
		return -1;
	if (uid)
		*uid = t.uid;
	if (gid)
		*gid = t.gid;
	return 0;
}

/* --- the CAP_BPF probe (see privs.h) --- */

static pthread_once_t bpf_probe_once = PTHREAD_ONCE_INIT;
static bool bpf_ops_need_cap = true; /* until probed: keep CAP_BPF */

/* Runs in its own thread: clears that thread's effective set only. */
static void *bpf_gate_probe(void *arg)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0, /* this thread */
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	union bpf_attr attr;
	bool *gated = arg;

	if (syscall(SYS_capget, &hdr, data))
		return NULL; /* cannot tell: stay conservative */
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		data[i].effective = 0;
	if (syscall(SYS_capset, &hdr, data))
		return NULL;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)-1;
	if (syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)) == 0)
		*gated = false;
	else
		*gated = errno == EPERM || errno == EACCES;
	return NULL;
}

static void probe_bpf_gate(void)
{
	bool gated = true;
	pthread_t t;

	if (pthread_create(&t, NULL, bpf_gate_probe, &gated) == 0 &&
	    pthread_join(t, NULL) == 0)
		bpf_ops_need_cap = gated;
}

uint64_t privs_runtime_mask(void)
{
	pthread_once(&bpf_probe_once, probe_bpf_gate);
	return (1ull << CAP_NET_ADMIN) |
	       (bpf_ops_need_cap ? 1ull << CAP_BPF : 0);
}

void privs_describe(char *buf, size_t len)
{
	uint64_t mask = privs_runtime_mask();
	size_t off = 0;

	if (!buf || !len)
		return;
	buf[0] = '\0';
	for (int c = 0; c < CAPS_IN_MASK; c++) {
		char *name;
		int n;

		if (!(mask & (1ull << c)))
			continue;
		name = cap_to_name(c);
		n = snprintf(buf + off, len - off, "%s%s", off ? "," : "",
			     name ? name : "cap_?");
		cap_free(name);
		if (n < 0 || (size_t)n >= len - off)
			return; /* truncated, still NUL-terminated */
		off += (size_t)n;
	}
}

/* --- privs_drop() --- */

/* Entries of /proc/self/task, or -1. */
static int count_threads(char *err, size_t errlen)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d) {
		set_err(err, errlen,
			"cannot count threads: /proc/self/task: %s",
			strerror(errno));
		return -1;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int refuse_if_threaded(char *err, size_t errlen)
{
	int n = count_threads(err, errlen);

	if (n < 0)
		return -1;
	if (n != 1) {
		set_err(err, errlen,
			"refusing to drop privileges with %d threads running "
			"(capabilities are per thread): drop before starting "
			"threads",
			n);
		return -1;
	}
	return 0;
}

/* The probe thread is joined, but its task may stay listed for a moment
 * after the join: wait up to a second for it to go. */
static int wait_single_thread(char *err, size_t errlen)
{
	const struct timespec tick = {.tv_nsec = 1000000};

	for (int i = 0; i < 1000; i++) {
		int n = count_threads(err, errlen);

		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		nanosleep(&tick, NULL);
	}
	return refuse_if_threaded(err, errlen);
}

static bool has_flag(cap_t caps, cap_value_t c, cap_flag_t which)
{
	cap_flag_value_t v = CAP_CLEAR;

	return cap_get_flag(caps, c, which, &v) == 0 && v == CAP_SET;
}

static const char *cap_label(cap_value_t c, char *buf, size_t len)
{
	char *name = cap_to_name(c);

	snprintf(buf, len, "%s", name ? name : "cap_?");
	cap_free(name);
	return buf;
}

/* Do the ids change at all? When the process already runs as the target
 * (e.g. systemd's User=), nothing is switched and no capability needed. */
static bool ids_change(const struct target *t)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		return true;
	if (t->has_user && (ru != t->uid || eu != t->uid || su != t->uid))
		return true;
	return t->has_group && (rg != t->gid || eg != t->gid || sg != t->gid);
}

static bool uid_changes(const struct target *t)
{
	uid_t ru, eu, su;

	if (getresuid(&ru, &eu, &su))
		return true;
	return t->has_user && (ru != t->uid || eu != t->uid || su != t->uid);
}

/* Everything privs_drop() will need, checked before changing anything. */
static int check_possible(const struct target *t, uint64_t keep,
			  bool switch_ids, char *err, size_t errlen)
{
	cap_value_t max = cap_max_bits();
	bool trim_bound = false;
	char label[64];
	cap_t caps;
	int rc = -1;

	caps = cap_get_proc();
	if (!caps) {
		set_err(err, errlen, "cannot read capabilities: %s",
			strerror(errno));
		return -1;
	}
	for (cap_value_t c = 0; c < CAPS_IN_MASK; c++) {
		if (!(keep & (1ull << c)))
			continue;
		if (c >= max || !has_flag(caps, c, CAP_PERMITTED) ||
		    cap_get_bound(c) != 1) {
			set_err(err, errlen,
				"%s is needed at run time but the process "
				"does not hold it",
				cap_label(c, label, sizeof(label)));
			goto out;
		}
	}
	for (cap_value_t c = 0; c < max; c++)
		if ((c >= CAPS_IN_MASK || !(keep & (1ull << c))) &&
		    cap_get_bound(c) == 1)
			trim_bound = true;
	if (trim_bound && !has_flag(caps, CAP_SETPCAP, CAP_PERMITTED)) {
		set_err(err, errlen,
			"cannot trim the bounding set without cap_setpcap");
		goto out;
	}
	if (switch_ids && t->has_user && uid_changes(t) &&
	    !has_flag(caps, CAP_SETUID, CAP_PERMITTED)) {
		set_err(err, errlen,
			"cannot switch to user '%s' without "
			"cap_setuid",
			t->user);
		goto out;
	}
	if (switch_ids && !has_flag(caps, CAP_SETGID, CAP_PERMITTED)) {
		set_err(err, errlen, "cannot switch groups without cap_setgid");
		goto out;
	}
	rc = 0;
out:
	cap_free(caps);
	return rc;
}

/* Groups first (needs CAP_SETGID, effective until the uid changes), then
 * the uid with KEEPCAPS so that the permitted set survives it. */
static int switch_ids(const struct target *t, char *err, size_t errlen)
{
	bool new_uid = uid_changes(t);

	if (new_uid && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		set_err(err, errlen, "PR_SET_KEEPCAPS: %s", strerror(errno));
		return -1;
	}
	if (t->has_user ? initgroups(t->user, t->gid) : setgroups(1, &t->gid)) {
		set_err(err, errlen, "supplementary groups of gid %u: %s",
			(unsigned int)t->gid, strerror(errno));
		return -1;
	}
	if (setresgid(t->gid, t->gid, t->gid)) {
		set_err(err, errlen, "setresgid(%u): %s", (unsigned int)t->gid,
			strerror(errno));
		return -1;
	}
	if (new_uid && setresuid(t->uid, t->uid, t->uid)) {
		set_err(err, errlen, "setresuid(%u): %s", (unsigned int)t->uid,
			strerror(errno));
		return -1;
	}
	if (new_uid && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)) {
		set_err(err, errlen, "PR_SET_KEEPCAPS: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* effective := permitted (a uid change away from 0 cleared it). */
static int raise_effective(char *err, size_t errlen)
{
	cap_t caps = cap_get_proc();
	int rc = -1;

	if (!caps || cap_fill(caps, CAP_EFFECTIVE, CAP_PERMITTED) ||
	    cap_set_proc(caps))
		set_err(err, errlen, "raising the effective set: %s",
			strerror(errno));
	else
		rc = 0;
	cap_free(caps);
	return rc;
}

static int trim_bounding_set(uint64_t keep, char *err, size_t errlen)
{
	cap_value_t max = cap_max_bits();
	char label[64];

	for (cap_value_t c = 0; c < max; c++) {
		if (c < CAPS_IN_MASK && (keep & (1ull << c)))
			continue;
		if (cap_get_bound(c) != 1)
			continue;
		if (cap_drop_bound(c)) {
			set_err(err, errlen,
				"dropping %s from the bounding set: %s",
				cap_label(c, label, sizeof(label)),
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* effective = permitted = keep, inheritable = 0. */
static int set_final_caps(uint64_t keep, char *err, size_t errlen)
{
	cap_value_t vals[CAPS_IN_MASK];
	cap_t caps = cap_init();
	int n = 0, rc = -1;

	for (cap_value_t c = 0; c < CAPS_IN_MASK; c++)
		if (keep & (1ull << c))
			vals[n++] = c;
	if (!caps ||
	    (n && (cap_set_flag(caps, CAP_EFFECTIVE, n, vals, CAP_SET) ||
		   cap_set_flag(caps, CAP_PERMITTED, n, vals, CAP_SET))) ||
	    cap_set_proc(caps))
		set_err(err, errlen, "setting the run-time capabilities: %s",
			strerror(errno));
	else
		rc = 0;
	cap_free(caps);
	return rc;
}

/* Read back everything privs.h promises. */
static int verify(const struct target *t, uint64_t keep, char *err,
		  size_t errlen)
{
	cap_value_t max = cap_max_bits();
	cap_t caps = cap_get_proc();
	char label[64];
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int rc = -1;

	if (!caps) {
		set_err(err, errlen, "cannot read capabilities back: %s",
			strerror(errno));
		return -1;
	}
	for (cap_value_t c = 0; c < max; c++) {
		bool want = c < CAPS_IN_MASK && (keep & (1ull << c));

		if (has_flag(caps, c, CAP_EFFECTIVE) != want ||
		    has_flag(caps, c, CAP_PERMITTED) != want ||
		    has_flag(caps, c, CAP_INHERITABLE) ||
		    (cap_get_bound(c) == 1) != want ||
		    cap_get_ambient(c) == 1) {
			set_err(err, errlen,
				"after the drop %s is not as expected",
				cap_label(c, label, sizeof(label)));
			goto out;
		}
	}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		set_err(err, errlen, "after the drop no_new_privs is not set");
		goto out;
	}
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg) ||
	    (t->has_user && (ru != t->uid || eu != t->uid || su != t->uid)) ||
	    (t->has_group && (rg != t->gid || eg != t->gid || sg != t->gid))) {
		set_err(err, errlen,
			"after the drop the uid/gid are not "
			"%u/%u",
			(unsigned int)t->uid, (unsigned int)t->gid);
		goto out;
	}
	rc = 0;
out:
	cap_free(caps);
	return rc;
}

int privs_drop(const char *user, const char *group, char *err, size_t errlen)
{
	struct target t;
	bool switching;
	uint64_t keep;

	if (err && errlen)
		err[0] = '\0';
	/* Checks: nothing changes if any fails. */
	if (refuse_if_threaded(err, errlen))
		return -1;
	if (resolve(user, group, &t, err, errlen))
		return -1;
	keep = privs_runtime_mask(); /* may run the probe thread */
	if (wait_single_thread(err, errlen))
		return -1;
	switching = (t.has_user || t.has_group) && ids_change(&t);
	if (check_possible(&t, keep, switching, err, errlen))
		return -1;

	/* Changes. */
	if (switching && switch_ids(&t, err, errlen))
		return -1;
	if (raise_effective(err, errlen))
		return -1;
	if (trim_bounding_set(keep, err, errlen))
		return -1;
	if (cap_reset_ambient()) {
		set_err(err, errlen, "clearing the ambient set: %s",
			strerror(errno));
		return -1;
	}
	if (set_final_caps(keep, err, errlen))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		set_err(err, errlen, "PR_SET_NO_NEW_PRIVS: %s",
			strerror(errno));
		return -1;
	}
	return verify(&t, keep, err, errlen);
}
