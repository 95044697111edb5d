/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctl_server.h - the Unix control socket: newline-delimited JSON sessions
 * (ctl_proto.h) on a stream socket, served by the control thread's event
 * loop (conn.h).
 *
 * Access: the socket file is mode 0660, owned by the daemon's user (or
 * `owner`) and the control group, in a directory the daemon creates (0751)
 * when missing and lets a configured control group search (adding o+x). Path rule (xdplane(8), SECURITY): the directory is not a
 * symlink, belongs to root, the daemon's user or `owner` and is not
 * writable by others; the directories above it belong to those users and
 * are writable by others only when sticky; anything but a stale socket at
 * the path stops the start and is never unlinked. The kernel refuses
 * connect() to whoever may not write the file; on top, each accepted
 * client's credentials (SO_PEERCRED, SO_PEERGROUPS: any number of groups)
 * are checked: root, the daemon's effective user, or a
 * member of the control group. Anyone else gets one JSON error line
 * (code "permission") as the answer to whatever it sends first, and is
 * disconnected (at the latest after 1-2 s). A client must say hello within
 * 10 s; a session idle for 10 minutes is closed.
 *
 * Thread: the control thread only. Its sessions run in the event loop's
 * callbacks (conn.h), which add getsockopt(SO_PEERGROUPS) to conn.h's
 * list and issue what the backend's commands do (the daemon's).
 *
 * Errors: 0 or -errno, with a one-line message in (err, errlen).
 */
#ifndef XDPLANE_CTL_SERVER_H
#define XDPLANE_CTL_SERVER_H

#include <sys/types.h>
#include "conn.h"
#include "ctl_proto.h"
#include "log.h"

struct ctl_server {
	struct conn_server cs;
	const struct ctl_backend *be;
	gid_t group; /* the control group; (gid_t)-1: the daemon's */
	bool readonly; /* its sessions may not change anything (ctl_proto.h) */
	char path[108];
	struct log_ratelimit refuse_rl;
};

/* Create (replacing a stale socket, refusing one a live daemon answers
 * on) and listen. owner: chown the socket (and a directory it creates) to
 * this user; (uid_t)-1 keeps the daemon's. 0, or -errno with err filled:
 * -ENAMETOOLONG, -EPERM or -ENOTDIR (the path rule), -EEXIST (not a
 * socket), -EADDRINUSE (a live daemon answers), or the failed call's.
 * Syscalls: lstat, stat, mkdir + chown + chmod, chmod (the directories:
 * xdplane(8), SECURITY, the path rule), socket +
 * connect + close (is a daemon alive?), unlink (a stale socket),
 * socket(AF_UNIX), bind, chmod, chown, listen, close + unlink on failure;
 * logs; loop (conn.h). */
int ctl_server_open(struct ctl_server *s, struct evloop *loop, const char *path,
		    uid_t owner, gid_t group, bool readonly,
		    const struct ctl_backend *be, char *err, size_t errlen);
/* May the peer of the connected Unix socket fd, whose SO_PEERCRED is
 * peer, use a socket of the control group `group` ((gid_t)-1: the daemon's
 * effective group)? Root, the daemon's effective user, or a member of the
 * group: as its primary group or among its supplementary groups
 * (SO_PEERGROUPS), however many (up to NGROUPS_MAX). false also when the
 * groups cannot be read. Syscalls: geteuid, getegid, getsockopt; malloc
 * for a peer in more than 256 groups. */
bool ctl_peer_allowed(int fd, const struct ucred *peer, gid_t group);
/* Close every session and the listener, remove the socket file.
 * Syscalls: as conn_server_stop(), unlink. */
void ctl_server_close(struct ctl_server *s);

#endif
