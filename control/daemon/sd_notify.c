// SPDX-License-Identifier: BSD-2-Clause
/*
 * sd_notify.c - sd_notify(3) datagrams to $NOTIFY_SOCKET, no libsystemd.
 * See sd_notify.h for the protocol subset and the rules.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "sd_notify.h"

/* $NOTIFY_SOCKET as a sockaddr_un. Returns 0, 1 (unset) or -errno. */
static int notify_address(struct sockaddr_un *sa, socklen_t *salen)
{
	const char *path = getenv("NOTIFY_SOCKET");
	size_t len;

	if (!path || !*path)
		return 1;
	if (path[0] != '/' && path[0] != '@')
		return -EAFNOSUPPORT;
	len = strlen(path);
	if (len > sizeof(sa->sun_path) ||
	    (path[0] == '/' && len == sizeof(sa->sun_path)))
		return -ENAMETOOLONG; /* a path needs room for its NUL */
	if (path[0] == '@' && len == 1)
		return -EAFNOSUPPORT; /* the empty abstract name: autobind */
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, len);
	if (path[0] == '@') {
		/* Abstract: the name is exactly len bytes, NUL first. */
		sa->sun_path[0] = '\0';
		*salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     len);
	} else {
		*salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     len + 1);
	}
	return 0;
}

int sdn_notify(const char *state)
{
	struct sockaddr_un sa;
	socklen_t salen = 0;
	size_t len;
	ssize_t n;
	int fd, rc;

	rc = notify_address(&sa, &salen);
	if (rc)
		return rc;
	if (!state || !*state)
		return -EINVAL;
	len = strlen(state);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, len, MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	rc = n < 0 ? -errno : (size_t)n == len ? 0 : -EMSGSIZE;
	close(fd);
	return rc;
}

int sdn_reloading(void)
{
	struct timespec ts;
	char buf[64];

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return -errno;
	snprintf(buf, sizeof(buf), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ull +
			 (unsigned long long)ts.tv_nsec / 1000ull);
	return sdn_notify(buf);
}

/* A positive decimal below 2^64, nothing else (no sign, no spaces). */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (*s < '0' || *s > '9' || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

uint64_t sdn_watchdog_usec(void)
{
	const char *pid = getenv("WATCHDOG_PID");
	uint64_t usec, p;

	if (parse_u64(getenv("WATCHDOG_USEC"), &usec) || usec == 0)
		return 0;
	if (pid && (parse_u64(pid, &p) || p != (uint64_t)getpid()))
		return 0;
	return usec;
}
