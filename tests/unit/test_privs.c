// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_privs.c - the privilege drop and the sd_notify client.
 *
 * privs_drop() changes the calling process for good, so every drop runs in
 * a forked child. The child does the work, reads /proc/self/task/<tid>/
 * status of every thread and what a few system calls answer afterwards,
 * and sends one struct child_report through a pipe; the parent asserts on
 * it. The drop tests need root and are skipped otherwise; name lookups,
 * refusals and sd_notify run as anyone.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <net/if.h>
#include <cmocka.h>
#include "unused_ids.h"
#include "config.h"
#include "privs.h"
#include "sd_notify.h"

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define MAX_THREADS 8
#define MAX_GROUPS 32
#define NO_SUCH_USER "xdplane-no-such-user"
#define NO_SUCH_GROUP "xdplane-no-such-group"

struct task_status {
	uint64_t eff, prm, bnd, inh, amb;
	int nnp;
	unsigned int uid[4], gid[4];
	int n_groups;
	unsigned int groups[MAX_GROUPS];
	int fields; /* lines parsed: 5 Cap*, NoNewPrivs, Uid, Gid, Groups */
};

struct child_report {
	int rc;
	char err[256];
	struct task_status before; /* the main thread, before privs_drop() */
	int initial_threads; /* in the child before it starts any (1, or more
			      * under a sanitizer runtime) */
	int n_threads;
	struct task_status th[MAX_THREADS];
	int setuid_rc, setuid_errno; /* setuid(0) or setuid(nobody) after */
	int map_update_rc, map_lookup_rc;
	uint64_t map_value;
	int map_create_errno; /* 0: creation worked */
	int xsk_errno; /* socket(AF_XDP) after the drop; 0: it worked */
};

/* --- /proc parsing --- */

static int read_status(const char *path, struct task_status *ts)
{
	char line[512];
	FILE *f = fopen(path, "r");

	memset(ts, 0, sizeof(*ts));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (sscanf(line, "CapEff:\t%" SCNx64, &ts->eff) == 1 ||
		    sscanf(line, "CapPrm:\t%" SCNx64, &ts->prm) == 1 ||
		    sscanf(line, "CapBnd:\t%" SCNx64, &ts->bnd) == 1 ||
		    sscanf(line, "CapInh:\t%" SCNx64, &ts->inh) == 1 ||
		    sscanf(line, "CapAmb:\t%" SCNx64, &ts->amb) == 1 ||
		    sscanf(line, "NoNewPrivs:\t%d", &ts->nnp) == 1 ||
		    sscanf(line, "Uid:\t%u\t%u\t%u\t%u", &ts->uid[0],
			   &ts->uid[1], &ts->uid[2], &ts->uid[3]) == 4 ||
		    sscanf(line, "Gid:\t%u\t%u\t%u\t%u", &ts->gid[0],
			   &ts->gid[1], &ts->gid[2], &ts->gid[3]) == 4) {
			ts->fields++;
			continue;
		}
		if (strncmp(line, "Groups:", 7))
			continue;
		ts->fields++;
		p = line + 7;
		while (ts->n_groups < MAX_GROUPS) {
			char *end;
			unsigned long g = strtoul(p, &end, 10);

			if (end == p)
				break;
			ts->groups[ts->n_groups++] = (unsigned int)g;
			p = end;
		}
	}
	fclose(f);
	return 0;
}

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int read_all_threads(struct child_report *r)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	char path[300];

	if (!d)
		return -1;
	while ((e = readdir(d)) && r->n_threads < MAX_THREADS) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 e->d_name);
		read_status(path, &r->th[r->n_threads++]);
	}
	closedir(d);
	return 0;
}

/* --- helpers run in the child --- */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int array_map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int map_elem(int cmd, int fd, uint32_t key, uint64_t *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)value;
	return sys_bpf(cmd, &a);
}

/* After a drop: what the daemon must still do, and what it must not. */
static void probe_runtime(struct child_report *r, int map_fd)
{
	uint64_t v = 0x1234abcd, got = 0;
	int fd;

	r->map_update_rc = map_elem(BPF_MAP_UPDATE_ELEM, map_fd, 0, &v);
	r->map_lookup_rc = map_elem(BPF_MAP_LOOKUP_ELEM, map_fd, 0, &got);
	r->map_value = got;
	fd = array_map_create();
	r->map_create_errno = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	fd = socket(AF_XDP, SOCK_RAW, 0);
	r->xsk_errno = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
}

/* Start like a systemd unit with AmbientCapabilities=: CAP_NET_ADMIN and
 * CAP_NET_RAW inheritable and ambient. */
static void raise_ambient(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		_exit(93);
	data[0].inheritable |= 1u << CAP_NET_ADMIN | 1u << CAP_NET_RAW;
	if (syscall(SYS_capset, &hdr, data) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0, 0) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0))
		_exit(94);
}

static int release_pipe[2];

static void *idle_thread(void *arg)
{
	char c;

	while (read(release_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void start_idle_threads(pthread_t *t, int n)
{
	if (pipe(release_pipe))
		_exit(90);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, idle_thread, NULL))
			_exit(91);
}

static void stop_idle_threads(pthread_t *t, int n)
{
	close(release_pipe[1]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	close(release_pipe[0]);
}

/* Which scenario the child plays. */
enum scenario {
	DROP_KEEP_ROOT,
	DROP_TO_NOBODY,
	THREAD_FIRST,
	UNKNOWN_USER,
	UNKNOWN_GROUP,
};

static void child_main(enum scenario s, struct child_report *r)
{
	struct passwd *nobody = getpwnam("nobody");
	pthread_t t[2];
	int map_fd = -1;

	r->initial_threads = count_threads();
	if (r->initial_threads != 1)
		return; /* cannot drop; the parent skips */
	if (s == DROP_KEEP_ROOT || s == DROP_TO_NOBODY)
		raise_ambient();
	read_status("/proc/self/status", &r->before);
	switch (s) {
	case DROP_KEEP_ROOT:
	case DROP_TO_NOBODY:
		map_fd = array_map_create(); /* as root, like the daemon */
		r->rc = privs_drop(s == DROP_TO_NOBODY ? "nobody" : NULL, NULL,
				   r->err, sizeof(r->err));
		/* Threads started now inherit the reduced sets. */
		start_idle_threads(t, 2);
		read_all_threads(r);
		probe_runtime(r, map_fd);
		r->setuid_rc = s == DROP_TO_NOBODY
				       ? setuid(0)
				       : setuid(nobody ? nobody->pw_uid : 1);
		r->setuid_errno = errno;
		stop_idle_threads(t, 2);
		break;
	case THREAD_FIRST:
		start_idle_threads(t, 1);
		r->rc = privs_drop(NULL, NULL, r->err, sizeof(r->err));
		read_all_threads(r);
		stop_idle_threads(t, 1);
		break;
	case UNKNOWN_USER:
		r->rc = privs_drop(NO_SUCH_USER, NULL, r->err, sizeof(r->err));
		read_all_threads(r);
		break;
	case UNKNOWN_GROUP:
		r->rc = privs_drop("nobody", NO_SUCH_GROUP, r->err,
				   sizeof(r->err));
		read_all_threads(r);
		break;
	}
}

/* Fork, play the scenario in the child, return its report. */
static void run_child(enum scenario s, struct child_report *out)
{
	int fds[2], status = -1;
	size_t got = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct child_report r;
		const char *p = (const char *)&r;
		size_t off = 0;

		memset(&r, 0, sizeof(r));
		close(fds[0]);
		child_main(s, &r);
		while (off < sizeof(r)) {
			ssize_t n = write(fds[1], p + off, sizeof(r) - off);

			if (n <= 0)
				_exit(92);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	while (got < sizeof(*out)) {
		ssize_t n = read(fds[0], (char *)out + got, sizeof(*out) - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(got, sizeof(*out));
}

/* privs_drop() refuses to run with other threads: a runtime that starts
 * its own (TSan) makes the drop untestable. */
static void skip_unless_single_threaded(const struct child_report *r)
{
	if (r->initial_threads != 1)
		skip();
}

static int unpriv_bpf_disabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static void assert_runtime_thread(const struct task_status *ts, uint64_t mask,
				  unsigned int uid, unsigned int gid)
{
	assert_int_equal(ts->fields, 9);
	assert_int_equal(ts->eff, mask);
	assert_int_equal(ts->prm, mask);
	assert_int_equal(ts->bnd, mask);
	assert_int_equal(ts->inh, 0);
	assert_int_equal(ts->amb, 0);
	assert_int_equal(ts->nnp, 1);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ts->uid[i], uid);
		assert_int_equal(ts->gid[i], gid);
	}
}

static void assert_runtime_works(const struct child_report *r, uint64_t mask)
{
	/* Map access through an fd made before the drop still works. */
	assert_int_equal(r->map_update_rc, 0);
	assert_int_equal(r->map_lookup_rc, 0);
	assert_int_equal(r->map_value, 0x1234abcd);
	/* CAP_NET_RAW is gone: no new AF_XDP socket. */
	assert_int_equal(r->xsk_errno, EPERM);
	/* CAP_BPF is gone when not kept: no new map. */
	if (!(mask & (1ull << CAP_BPF)) && unpriv_bpf_disabled())
		assert_int_equal(r->map_create_errno, EPERM);
}

/* --- the drop, as root --- */

static void test_drop_keeps_root_uid(void **state)
{
	uint64_t mask = privs_runtime_mask();
	struct child_report r;

	if (geteuid() != 0)
		skip();
	run_child(DROP_KEEP_ROOT, &r);
	skip_unless_single_threaded(&r);
	assert_int_equal(r.before.amb,
			 1ull << CAP_NET_ADMIN | 1ull << CAP_NET_RAW);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(r.n_threads, 3); /* main + 2 started after */
	for (int i = 0; i < r.n_threads; i++)
		assert_runtime_thread(&r.th[i], mask, 0, 0);
	assert_runtime_works(&r, mask);
	/* Uid 0 without CAP_SETUID cannot become anyone else. */
	assert_int_equal(r.setuid_rc, -1);
	assert_int_equal(r.setuid_errno, EPERM);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

static void test_drop_to_nobody(void **state)
{
	uint64_t mask = privs_runtime_mask();
	gid_t want_groups[MAX_GROUPS];
	int n_want = MAX_GROUPS;
	struct child_report r;
	struct passwd *pw;

	if (geteuid() != 0)
		skip();
	pw = getpwnam("nobody");
	assert_non_null(pw);
	assert_true(getgrouplist("nobody", pw->pw_gid, want_groups, &n_want) >=
		    0);
	qsort(want_groups, (size_t)n_want, sizeof(gid_t), cmp_uint);
	run_child(DROP_TO_NOBODY, &r);
	skip_unless_single_threaded(&r);
	assert_int_equal(r.before.amb,
			 1ull << CAP_NET_ADMIN | 1ull << CAP_NET_RAW);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(r.n_threads, 3);
	for (int i = 0; i < r.n_threads; i++) {
		struct task_status *ts = &r.th[i];

		assert_runtime_thread(ts, mask, pw->pw_uid, pw->pw_gid);
		/* Supplementary groups: nobody's, root's are gone. */
		assert_int_equal(ts->n_groups, n_want);
		qsort(ts->groups, (size_t)ts->n_groups, sizeof(unsigned int),
		      cmp_uint);
		for (int g = 0; g < n_want; g++)
			assert_int_equal(ts->groups[g], want_groups[g]);
	}
	assert_runtime_works(&r, mask);
	assert_int_equal(r.setuid_rc, -1);
	assert_int_equal(r.setuid_errno, EPERM);
}

/* --- refusals: nothing may change --- */

static void assert_unchanged(const struct child_report *r)
{
	assert_int_equal(r->rc, -1);
	assert_true(r->n_threads >= 1);
	for (int i = 0; i < r->n_threads; i++) {
		const struct task_status *ts = &r->th[i];

		assert_int_equal(ts->fields, 9);
		assert_int_equal(ts->eff, r->before.eff);
		assert_int_equal(ts->prm, r->before.prm);
		assert_int_equal(ts->bnd, r->before.bnd);
		assert_int_equal(ts->inh, r->before.inh);
		assert_int_equal(ts->amb, r->before.amb);
		assert_int_equal(ts->nnp, r->before.nnp);
		assert_int_equal(ts->uid[1], r->before.uid[1]);
		assert_int_equal(ts->gid[1], r->before.gid[1]);
	}
}

static void test_refuses_with_threads(void **state)
{
	struct child_report r;

	if (geteuid() != 0)
		skip();
	run_child(THREAD_FIRST, &r);
	skip_unless_single_threaded(&r);
	assert_int_equal(r.n_threads, 2);
	assert_unchanged(&r);
	assert_non_null(strstr(r.err, "2 threads"));
	/* As root with every capability, not a no-op check. */
	assert_int_not_equal(r.th[0].eff, privs_runtime_mask());
	assert_int_equal(r.th[0].nnp, 0);
}

static void test_unknown_user_changes_nothing(void **state)
{
	struct child_report r;

	run_child(UNKNOWN_USER, &r);
	skip_unless_single_threaded(&r);
	assert_int_equal(r.n_threads, 1);
	assert_unchanged(&r);
	assert_string_equal(
		r.err,
		"no such user '" NO_SUCH_USER
		"'; check the name with 'getent passwd " NO_SUCH_USER "'");
}

static void test_unknown_group_changes_nothing(void **state)
{
	struct child_report r;

	run_child(UNKNOWN_GROUP, &r);
	skip_unless_single_threaded(&r);
	assert_int_equal(r.n_threads, 1);
	assert_unchanged(&r);
	assert_string_equal(
		r.err,
		"no such group '" NO_SUCH_GROUP
		"'; check the name with 'getent group " NO_SUCH_GROUP "'");
}

/* --- lookups --- */

static void test_lookup(void **state)
{
	struct passwd *nobody = getpwnam("nobody");
	struct group *root_group = getgrgid(0);
	char err[128] = "unchanged";
	uid_t uid = 7;
	gid_t gid = 7;

	assert_non_null(nobody);
	assert_non_null(root_group);
	/* Nothing named: the current ids. */
	assert_int_equal(privs_lookup(NULL, "", &uid, &gid, err, sizeof(err)),
			 0);
	assert_int_equal(uid, getuid());
	assert_int_equal(gid, getgid());
	/* A user alone: the user's primary group. */
	assert_int_equal(
		privs_lookup("nobody", NULL, &uid, &gid, err, sizeof(err)), 0);
	assert_int_equal(uid, nobody->pw_uid);
	assert_int_equal(gid, nobody->pw_gid);
	/* A group overrides it. */
	assert_int_equal(privs_lookup("nobody", root_group->gr_name, &uid, &gid,
				      err, sizeof(err)),
			 0);
	assert_int_equal(uid, nobody->pw_uid);
	assert_int_equal(gid, 0);
	/* Numeric ids: a user must exist, a gid need not. */
	assert_int_equal(
		privs_lookup("0", "54321", &uid, &gid, err, sizeof(err)), 0);
	assert_int_equal(uid, 0);
	assert_int_equal(gid, 54321);
	assert_int_equal(
		privs_lookup("4294967295", NULL, &uid, &gid, err, sizeof(err)),
		-1);
	assert_string_equal(err, "no such user '4294967295'; check the name "
				 "with 'getent passwd 4294967295'");
	assert_int_equal(
		privs_lookup("nobody", "12x", &uid, &gid, err, sizeof(err)),
		-1);
	assert_string_equal(err, "no such group '12x'; check the name with "
				 "'getent group 12x'");
	/* Errors are truncated, never overflow; NULL err is allowed. */
	assert_int_equal(privs_lookup(NO_SUCH_USER, NULL, &uid, &gid, err, 8),
			 -1);
	assert_string_equal(err, "no such");
	assert_int_equal(privs_lookup(NO_SUCH_USER, NULL, NULL, NULL, NULL, 0),
			 -1);
}

/* One rule for both callers (config.h): what the configuration check
 * (config_load() with check_system) accepts for user, group and
 * control.socket_group, privs_lookup() - and so privs_drop() and the
 * control socket's chown - accepts, and a number is that id; what one
 * refuses the other refuses with the same reason, config_daemon.c adding
 * file:line:col: key.
 * A name, a numeric id with an entry, a numeric id without one (a uid
 * needs a passwd entry, a gid needs no group entry), an unknown name. */
static void test_lookup_agrees_with_config(void **state)
{
	struct passwd *nobody = getpwnam("nobody");
	struct group *root_group = getgrgid(0);
	char nobody_uid[16], nx_uid[16], nx_gid[16];
	struct {
		const char *user, *group;
		const char *where; /* of the refusal; NULL: accepted */
	} cases[] = {
		{"nobody", NULL, NULL},
		{NULL, NULL, NULL}, /* nobody's uid */
		{"0", "0", NULL},
		{"root", NULL, NULL}, /* root's group, by name */
		{"root", NULL, NULL}, /* a gid without an entry */
		{NULL, NULL, "4:7: user"}, /* a uid without an entry */
		{NO_SUCH_USER, NULL, "4:7: user"},
		{"root", NO_SUCH_GROUP, "6:25: control.socket_group"},
		{"root", "12x", "6:25: control.socket_group"},
	};
	struct if_nameindex *ifs = if_nameindex();
	const char *other = NULL;
	struct config_error cerr;
	struct xdplane_config *cfg;
	char yaml[512], err[320], want[512];
	uid_t uid;
	gid_t gid, sgid;
	int rc;

	(void)state;
	assert_non_null(nobody);
	assert_non_null(root_group);
	for (struct if_nameindex *i = ifs; i && i->if_name && !other; i++)
		if (strcmp(i->if_name, "lo"))
			other = i->if_name;
	if (!other) { /* check_system needs two real ports */
		if_freenameindex(ifs);
		skip();
	}
	snprintf(nobody_uid, sizeof(nobody_uid), "%u",
		 (unsigned int)nobody->pw_uid);
	snprintf(nx_uid, sizeof(nx_uid), "%u", unused_uid());
	snprintf(nx_gid, sizeof(nx_gid), "%u", unused_gid());
	cases[1].user = nobody_uid;
	cases[3].group = root_group->gr_name;
	cases[4].group = nx_gid;
	cases[5].user = nx_uid;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *g = cases[i].group ? cases[i].group : "";

		/* the group as group and as control.socket_group */
		snprintf(yaml, sizeof(yaml),
			 "ports:\n  - interface: lo\n  - interface: '%s'\n"
			 "user: '%s'\ngroup: '%s'\n"
			 "control: {socket_group: '%s'}\n",
			 other, cases[i].user, g, g);
		cfg = config_load_string("t.yaml", yaml, true, &cerr);
		err[0] = '\0';
		rc = privs_lookup(cases[i].user, cases[i].group, &uid, &gid,
				  err, sizeof(err));
		if (!rc && cases[i].group)
			rc = privs_lookup(NULL, cases[i].group, NULL, &sgid,
					  err, sizeof(err));
		if (!cases[i].where != !!cfg || !cases[i].where != !rc)
			fail_msg("user '%s' group '%s': config %s (%s), privs "
				 "%s (%s)",
				 cases[i].user, g, cfg ? "accepts" : "refuses",
				 cfg ? "" : cerr.msg,
				 rc ? "refuses" : "accepts", err);
		if (cfg) {
			assert_string_equal(cfg->user, cases[i].user);
			assert_string_equal(cfg->group, g);
			config_free(cfg);
			/* a number is that id, entry or not (gid) */
			if (strspn(cases[i].user, "0123456789") ==
			    strlen(cases[i].user))
				assert_int_equal(
					uid, strtoul(cases[i].user, NULL, 10));
			if (cases[i].group &&
			    strspn(g, "0123456789") == strlen(g))
				assert_int_equal(gid, strtoul(g, NULL, 10));
			if (cases[i].group)
				assert_int_equal(sgid, gid);
			continue;
		}
		/* the same reason, config_daemon.c adding where (socket_group,
		 * on line 6, is one of the errors when group is one too) */
		snprintf(want, sizeof(want), "t.yaml:%s: %s", cases[i].where,
			 err);
		for (rc = 0; rc < (int)cerr.n; rc++)
			if (!strcmp(config_error_at(&cerr, (unsigned int)rc),
				    want))
				break;
		if (rc == (int)cerr.n)
			fail_msg("no '%s' in the %u errors, the first: %s",
				 want, cerr.n, cerr.msg);
	}
	if_freenameindex(ifs);
}

/* --- the run-time set --- */

/* The documented rule (privs.h): map operations through an fd need CAP_BPF
 * only before 5.19 and with kernel.unprivileged_bpf_disabled set. */
static void test_runtime_mask_matches_kernel_rule(void **state)
{
	uint64_t mask = privs_runtime_mask();
	struct utsname u;
	int major = 0, minor = 0;
	bool gated;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &major, &minor), 2);
	gated = (major < 5 || (major == 5 && minor < 19)) &&
		unpriv_bpf_disabled() != 0;
	assert_int_equal(mask & ~((1ull << CAP_NET_ADMIN) | (1ull << CAP_BPF)),
			 0);
	assert_int_equal(mask & (1ull << CAP_NET_ADMIN), 1ull << CAP_NET_ADMIN);
	assert_int_equal(!!(mask & (1ull << CAP_BPF)), gated);
	/* Cached: the same answer every time. */
	assert_int_equal(privs_runtime_mask(), mask);
}

static void test_describe(void **state)
{
	uint64_t mask = privs_runtime_mask();
	char buf[64], tiny[5];

	memset(buf, 'x', sizeof(buf));
	privs_describe(buf, sizeof(buf));
	if (mask & (1ull << CAP_BPF))
		assert_string_equal(buf, "cap_net_admin,cap_bpf");
	else
		assert_string_equal(buf, "cap_net_admin");
	memset(tiny, 'x', sizeof(tiny));
	privs_describe(tiny, sizeof(tiny));
	assert_string_equal(tiny, "cap_");
	privs_describe(NULL, 0);
	tiny[0] = 'x';
	privs_describe(tiny, 0);
	assert_int_equal(tiny[0], 'x');
}

/* --- sd_notify --- */

struct listener {
	char dir[48];
	char path[96]; /* fits sun_path */
	int fd;
};

static void listen_path(struct listener *l)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 1};

	snprintf(l->dir, sizeof(l->dir), "/tmp/test_privs.XXXXXX");
	assert_non_null(mkdtemp(l->dir));
	snprintf(l->path, sizeof(l->path), "%s/notify", l->dir);
	memcpy(sa.sun_path, l->path, strlen(l->path) + 1);
	l->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(l->fd >= 0);
	assert_int_equal(bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setsockopt(l->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void listener_close(struct listener *l)
{
	close(l->fd);
	if (l->path[0])
		unlink(l->path);
	if (l->dir[0])
		rmdir(l->dir);
	unsetenv("NOTIFY_SOCKET");
}

/* Receive one datagram and compare it byte for byte. */
static void expect_datagram(int fd, const char *want)
{
	char buf[512];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);

	assert_int_equal(n, (ssize_t)strlen(want));
	assert_memory_equal(buf, want, strlen(want));
}

static void test_notify_unset(void **state)
{
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(sdn_notify("READY=1"), 1);
	assert_int_equal(sdn_reloading(), 1);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(sdn_notify("READY=1"), 1);
	unsetenv("NOTIFY_SOCKET");
}

static void test_notify_path(void **state)
{
	struct listener l = {.fd = -1};

	listen_path(&l);
	setenv("NOTIFY_SOCKET", l.path, 1);
	assert_int_equal(sdn_notify("READY=1"), 0);
	expect_datagram(l.fd, "READY=1");
	assert_int_equal(sdn_notify("STATUS=forwarding, 2 ports\nWATCHDOG=1"),
			 0);
	expect_datagram(l.fd, "STATUS=forwarding, 2 ports\nWATCHDOG=1");
	assert_int_equal(sdn_notify(NULL), -EINVAL);
	assert_int_equal(sdn_notify(""), -EINVAL);
	listener_close(&l);
}

static void test_notify_abstract(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 1};
	char name[64];
	socklen_t len;
	int fd;

	/* "@name": sun_path is NUL then the name, no trailing NUL. */
	snprintf(name, sizeof(name), "@xdplane-test-%d", (int)getpid());
	memcpy(sa.sun_path + 1, name + 1, strlen(name) - 1);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			  strlen(name));
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, len), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(sdn_notify("STOPPING=1"), 0);
	expect_datagram(fd, "STOPPING=1");
	close(fd);
	/* Nobody bound to it any more. */
	assert_int_equal(sdn_notify("STOPPING=1"), -ECONNREFUSED);
	unsetenv("NOTIFY_SOCKET");
}

static void test_notify_reloading(void **state)
{
	struct listener l = {.fd = -1};
	unsigned long long usec = 0, lo, hi;
	struct timespec ts;
	char buf[128];
	ssize_t n;
	int end = 0;

	listen_path(&l);
	setenv("NOTIFY_SOCKET", l.path, 1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	lo = (unsigned long long)ts.tv_sec * 1000000ull +
	     (unsigned long long)ts.tv_nsec / 1000ull;
	assert_int_equal(sdn_reloading(), 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	hi = (unsigned long long)ts.tv_sec * 1000000ull +
	     (unsigned long long)ts.tv_nsec / 1000ull;
	n = recv(l.fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(
		sscanf(buf, "RELOADING=1\nMONOTONIC_USEC=%llu%n", &usec, &end),
		1);
	assert_int_equal(end, n); /* nothing after the number */
	assert_true(usec >= lo && usec <= hi);
	listener_close(&l);
}

static void test_notify_bad_addresses(void **state)
{
	char longpath[200];
	char dir[64];

	setenv("NOTIFY_SOCKET", "relative/notify", 1);
	assert_int_equal(sdn_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	assert_int_equal(sdn_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "@", 1);
	assert_int_equal(sdn_notify("READY=1"), -EAFNOSUPPORT);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longpath, 1);
	assert_int_equal(sdn_notify("READY=1"), -ENAMETOOLONG);
	longpath[0] = '@';
	setenv("NOTIFY_SOCKET", longpath, 1);
	assert_int_equal(sdn_notify("READY=1"), -ENAMETOOLONG);
	/* A path where nothing listens. */
	snprintf(dir, sizeof(dir), "/tmp/test_privs.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(longpath, sizeof(longpath), "%s/absent", dir);
	setenv("NOTIFY_SOCKET", longpath, 1);
	assert_int_equal(sdn_notify("READY=1"), -ENOENT);
	rmdir(dir);
	unsetenv("NOTIFY_SOCKET");
}

static void test_watchdog_usec(void **state)
{
	char pid[32];

	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_int_equal(sdn_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "10000000", 1);
	assert_int_equal(sdn_watchdog_usec(), 10000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(sdn_watchdog_usec(), 10000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(sdn_watchdog_usec(), 0); /* meant for another */
	setenv("WATCHDOG_PID", "", 1);
	assert_int_equal(sdn_watchdog_usec(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "12x", 1);
	assert_int_equal(sdn_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "-5", 1);
	assert_int_equal(sdn_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "0", 1);
	assert_int_equal(sdn_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "18446744073709551616", 1); /* 2^64 */
	assert_int_equal(sdn_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "18446744073709551615", 1);
	assert_int_equal(sdn_watchdog_usec(), UINT64_MAX);
	unsetenv("WATCHDOG_USEC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_keeps_root_uid),
		cmocka_unit_test(test_drop_to_nobody),
		cmocka_unit_test(test_refuses_with_threads),
		cmocka_unit_test(test_unknown_user_changes_nothing),
		cmocka_unit_test(test_unknown_group_changes_nothing),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_lookup_agrees_with_config),
		cmocka_unit_test(test_runtime_mask_matches_kernel_rule),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_notify_unset),
		cmocka_unit_test(test_notify_path),
		cmocka_unit_test(test_notify_abstract),
		cmocka_unit_test(test_notify_reloading),
		cmocka_unit_test(test_notify_bad_addresses),
		cmocka_unit_test(test_watchdog_usec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
