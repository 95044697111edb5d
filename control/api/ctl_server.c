// SPDX-License-Identifier: BSD-2-Clause
/*
 * ctl_server.c - see ctl_server.h.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "ctl_server.h"

#define CTL_HELLO_NS (10 * 1000000000ull)
#define CTL_REFUSED_NS 1000000000ull
#define CTL_IDLE_NS (600 * 1000000000ull)
#define CTL_MAX_SESSIONS 32
#define CTL_OUT_MAX (4u << 20)

struct ctl_conn {
	struct ctl_session sess;
	bool discarding; /* inside a line longer than CTL_LINE_MAX */
};

/* Is group among the supplementary groups of fd's peer (SO_PEERGROUPS)?
 * Most peers' groups fit on the stack; for more, the kernel answers
 * ERANGE with the length it needs, and the list is read again into a
 * buffer of that length (at most NGROUPS_MAX gids; the peer's groups are
 * those of its connect() and do not change, a few tries are a bound). */
static bool peer_in_group(int fd, gid_t group)
{
	gid_t stack[256], *groups = stack;
	socklen_t len = sizeof(stack);
	bool found = false;
	int tries = 0;

	while (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len)) {
		if (errno != ERANGE || ++tries > 3 ||
		    len > NGROUPS_MAX * sizeof(gid_t))
			goto out;
		if (groups != stack)
			free(groups);
		groups = malloc(len);
		if (!groups)
			return false;
	}
	for (size_t i = 0; i < len / sizeof(gid_t) && !found; i++)
		found = groups[i] == group;
out:
	if (groups != stack)
		free(groups);
	return found;
}

bool ctl_peer_allowed(int fd, const struct ucred *peer, gid_t group)
{
	if (peer->uid == 0 || peer->uid == geteuid())
		return true;
	if (group == (gid_t)-1)
		group = getegid();
	return peer->gid == group || peer_in_group(fd, group);
}

static int ctl_accept(struct conn *c)
{
	struct ctl_server *s = c->srv->ctx;
	struct ctl_conn *cc;
	char line[256];

	if (!ctl_peer_allowed(c->fd, &c->peer, s->group)) {
		log_ratelimited(&s->refuse_rl, 5, LOG_LVL_WARN,
				"control socket: refused uid %u gid %u pid %d "
				"(not root, the daemon's user or the %s "
				"group)",
				(unsigned int)c->peer.uid,
				(unsigned int)c->peer.gid, (int)c->peer.pid,
				s->readonly ? "read-only" : "control");
		snprintf(line, sizeof(line),
			 "{\"ok\":false,\"error\":{\"code\":\"permission\","
			 "\"message\":\"permission denied: uid %u is not "
			 "root, the daemon's user or in the %s "
			 "group\"}}\n",
			 (unsigned int)c->peer.uid,
			 s->readonly ? "read-only" : "control");
		conn_write(c, line, strlen(line));
		/* kept open until the client has sent its first bytes (or a
		 * second has passed), so that it reads this answer instead of
		 * failing to send its hello to a closed socket */
		c->srv->st.refused++;
		c->deadline_ns = conn_now_ns() + CTL_REFUSED_NS;
		return 0;
	}
	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return -ENOMEM;
	ctl_session_init(&cc->sess);
	cc->sess.readonly = s->readonly;
	c->proto = cc;
	c->deadline_ns = conn_now_ns() + CTL_HELLO_NS;
	return 0;
}

static void reply(struct conn *c, char *resp)
{
	if (!resp || conn_write(c, resp, strlen(resp)))
		c->closing = true;
	free(resp);
}

static void ctl_input(struct conn *c)
{
	struct ctl_server *s = c->srv->ctx;
	struct ctl_conn *cc = c->proto;
	char *nl;
	size_t len;

	if (!cc) { /* refused: the answer is queued already */
		conn_consume(c, c->in_len);
		c->closing = true;
		return;
	}

	while (!c->closing && c->in_len) {
		nl = memchr(c->in, '\n', c->in_len);
		if (!nl) {
			if (c->in_len < c->srv->in_max)
				break; /* wait for the rest */
			if (!cc->discarding)
				reply(c, ctl_session_too_long(&cc->sess));
			cc->discarding = true;
			conn_consume(c, c->in_len);
			break;
		}
		len = (size_t)(nl - c->in);
		if (cc->discarding)
			cc->discarding = false; /* the end of the long line */
		else
			reply(c,
			      ctl_session_handle(&cc->sess, c->in, len, s->be));
		conn_consume(c, len + 1);
		if (cc->sess.closing)
			c->closing = true;
		if (cc->sess.greeted)
			c->deadline_ns = 0;
	}
	if (c->eof)
		c->closing = true;
}

static void ctl_closed(struct conn *c)
{
	free(c->proto);
	c->proto = NULL;
}

static const struct conn_ops ctl_ops = {
	.on_accept = ctl_accept,
	.on_input = ctl_input,
	.on_close = ctl_closed,
};

/* Is a daemon answering on this path? */
static bool socket_alive(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return false;
	alive = !connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	return alive;
}

/* May a directory (or a symlink on the way) owned by uid lead to the
 * socket? Root's, the daemon's and the run-as user's only. */
static bool trusted_uid(uid_t uid, uid_t owner)
{
	return uid == 0 || uid == geteuid() ||
	       (owner != (uid_t)-1 && uid == owner);
}

/* "control socket: <what>: <strerror(errno)>" in err; -errno. */
static int sys_err(char *err, size_t errlen, const char *what)
{
	int e = errno;

	snprintf(err, errlen, "control socket: %s: %s", what, strerror(e));
	return -e;
}

/* One directory on the way to the socket (not the socket's own): a
 * directory, through symlinks that trusted users own, owned by a trusted
 * user and writable by others only with the sticky bit (as /tmp).
 * 0, or -errno (-EPERM: not trusted) with err filled. */
static int check_ancestor(const char *dir, uid_t owner, char *err,
			  size_t errlen)
{
	struct stat st;

	if (lstat(dir, &st))
		return sys_err(err, errlen, dir);
	if (S_ISLNK(st.st_mode) && !trusted_uid(st.st_uid, owner)) {
		snprintf(err, errlen,
			 "control socket: %s is a symlink owned by uid %u; "
			 "only root's or the daemon's may lead to the socket",
			 dir, (unsigned int)st.st_uid);
		return -EPERM;
	}
	if (S_ISLNK(st.st_mode) && stat(dir, &st))
		return sys_err(err, errlen, dir);
	if (!S_ISDIR(st.st_mode) || !trusted_uid(st.st_uid, owner) ||
	    ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))) {
		snprintf(err, errlen,
			 "control socket: %s is not a directory that only root "
			 "or the daemon's user controls (uid %u, mode %04o)",
			 dir, (unsigned int)st.st_uid,
			 (unsigned int)(st.st_mode & 07777));
		return S_ISDIR(st.st_mode) ? -EPERM : -ENOTDIR;
	}
	return 0;
}

/*
 * The socket's directory (xdplane(8), FILES, the path rule): every
 * directory above it passes check_ancestor(); the directory itself is not
 * a symlink, is owned by root, the daemon's or the run-as user, and is not
 * writable by others. When missing (the last component only), it is
 * created 0751 and given to (owner, group). A configured group (not
 * (gid_t)-1, the daemon's own) must be able to search it, as connect()
 * needs: when neither the others' bit nor, the directory being of that
 * group, the group's bit lets its members through, the others' search bit
 * is added (S_IXOTH: open a name, not list; the sockets are guarded by
 * their own mode, group and the credential check) and that is logged.
 * 0, or -errno with err filled.
 */
static int socket_dir(const char *path, uid_t owner, gid_t group, char *err,
		      size_t errlen)
{
	char dir[108];
	struct stat st;
	char *slash;
	int rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	if (slash == dir)
		return check_ancestor("/", owner, err, errlen);
	/* "/", then "/a", "/a/b", ... up to the socket's directory */
	rc = check_ancestor("/", owner, err, errlen);
	if (rc)
		return rc;
	for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		rc = check_ancestor(dir, owner, err, errlen);
		*p = '/';
		if (rc)
			return rc;
	}
	if (!mkdir(dir, 0751)) {
		if (chown(dir, owner, group))
			log_warn("control socket: chown %s: %s", dir,
				 strerror(errno));
		if (chmod(dir, 0751)) /* whatever the umask */
			log_warn("control socket: chmod %s: %s", dir,
				 strerror(errno));
	} else if (errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "control socket: cannot create %s: %s",
			 dir, strerror(-rc));
		return rc;
	}
	if (lstat(dir, &st))
		return sys_err(err, errlen, dir);
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
			 "control socket: %s is %s, not a directory; the "
			 "socket's directory must be a real one",
			 dir, S_ISLNK(st.st_mode) ? "a symlink" : "a file");
		return -ENOTDIR;
	}
	if (!trusted_uid(st.st_uid, owner) || (st.st_mode & S_IWOTH)) {
		snprintf(
			err, errlen,
			"control socket: %s is owned by uid %u with mode %04o; "
			"the socket's directory must belong to root or the "
			"daemon's user and not be writable by others",
			dir, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	if (group != (gid_t)-1 && !(st.st_mode & S_IXOTH) &&
	    !(st.st_gid == group && (st.st_mode & S_IXGRP))) {
		mode_t mode = (st.st_mode & 07777) | S_IXOTH;

		if (chmod(dir, mode))
			log_warn("control socket: %s: mode %04o, and chmod "
				 "%04o failed (%s): members of group %u "
				 "other than root cannot reach %s",
				 dir, (unsigned int)(st.st_mode & 07777),
				 (unsigned int)mode, strerror(errno),
				 (unsigned int)group, path);
		else
			log_notice("control socket: %s: mode %04o -> %04o, "
				   "so that members of group %u reach %s",
				   dir, (unsigned int)(st.st_mode & 07777),
				   (unsigned int)mode, (unsigned int)group,
				   path);
	}
	return 0;
}

int ctl_server_open(struct ctl_server *s, struct evloop *loop, const char *path,
		    uid_t owner, gid_t group, bool readonly,
		    const struct ctl_backend *be, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, rc;

	memset(s, 0, sizeof(*s));
	s->be = be;
	s->group = group;
	s->readonly = readonly;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "control socket: path too long: %s",
			 path);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	rc = socket_dir(path, owner, group, err, errlen);
	if (rc)
		return rc;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen,
				 "control socket: %s exists and is not a "
				 "socket",
				 path);
			return -EEXIST;
		}
		if (socket_alive(&sa)) {
			snprintf(err, errlen,
				 "control socket: %s is in use (is another "
				 "xdplane running?)",
				 path);
			return -EADDRINUSE;
		}
		unlink(path); /* stale, from a crashed run */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(path, 0660) || chown(path, owner, group) || listen(fd, 64)) {
		rc = -errno;
		snprintf(err, errlen, "control socket %s: %s", path,
			 strerror(-rc));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return rc;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->cs.name = "control socket";
	s->cs.ops = &ctl_ops;
	s->cs.ctx = s;
	s->cs.in_max = CTL_LINE_MAX + 1;
	s->cs.out_max = CTL_OUT_MAX;
	s->cs.max_conns = CTL_MAX_SESSIONS;
	s->cs.idle_ns = CTL_IDLE_NS;
	rc = conn_server_start(&s->cs, loop, fd);
	if (rc) {
		snprintf(err, errlen, "control socket: event loop full");
		close(fd);
		unlink(path);
		return rc;
	}
	log_info("control socket: %s (mode 0660%s)", path,
		 readonly ? ", read-only" : "");
	return 0;
}

void ctl_server_close(struct ctl_server *s)
{
	if (!s->path[0])
		return;
	conn_server_stop(&s->cs);
	unlink(s->path);
	s->path[0] = '\0';
}
