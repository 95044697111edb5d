// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * netutil.c - helpers shared by the traffic tools in tests/tools; see
 * netutil.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include "netutil.h"

volatile sig_atomic_t nu_stop_requested;

bool nu_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* A numeric host of family (AF_UNSPEC: either) and port into *ss; s is
 * what the caller parsed, for the message. */
static bool numeric_host(const char *prog, const char *s, const char *host,
			 const char *port, int family,
			 struct sockaddr_storage *ss, socklen_t *sslen)
{
	struct addrinfo hints = {
		.ai_family = family,
		.ai_socktype = SOCK_DGRAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	};
	struct addrinfo *ai;
	struct in_addr a4;
	int err;

	/* IPv4 as A.B.C.D only: getaddrinfo() would take inet_aton()'s
	 * shorthands ("10.1" = 10.0.0.1) */
	if (!strchr(host, ':') && inet_pton(AF_INET, host, &a4) != 1) {
		if (prog)
			fprintf(stderr, "%s: %s: not an IPv4 address A.B.C.D\n",
				prog, s);
		return false;
	}
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		if (prog)
			fprintf(stderr, "%s: %s: %s\n", prog, s,
				gai_strerror(err));
		return false;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sslen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return true;
}

bool nu_parse_addr(const char *prog, const char *s, struct sockaddr_storage *ss,
		   socklen_t *sslen)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	const char *hs, *port;
	size_t hl;
	uint64_t pn;
	int family;

	if (s[0] == '[') {
		const char *e = strchr(s, ']');

		if (!e || e[1] != ':')
			return false;
		hs = s + 1;
		hl = (size_t)(e - hs);
		port = e + 2;
		family = AF_INET6;
	} else {
		const char *c = strrchr(s, ':');

		if (!c || memchr(s, ':', (size_t)(c - s)))
			return false; /* bare IPv6 must be bracketed */
		hs = s;
		hl = (size_t)(c - s);
		port = c + 1;
		family = AF_INET;
	}
	if (hl == 0 || hl >= sizeof(host) || !nu_parse_u64(port, 1, 65535, &pn))
		return false;
	memcpy(host, hs, hl);
	host[hl] = '\0';
	return numeric_host(prog, s, host, port, family, ss, sslen);
}

bool nu_parse_ip(const char *prog, const char *s, struct sockaddr_storage *ss,
		 socklen_t *sslen)
{
	if (!s[0] || strchr(s, '[') || strchr(s, ']'))
		return false;
	return numeric_host(prog, s, s, "0", AF_UNSPEC, ss, sslen);
}

void nu_set_sockbuf(int fd, int opt, int bytes, const char *prog)
{
	int force_opt = opt == SO_RCVBUF ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;
	const char *name = opt == SO_RCVBUF ? "SO_RCVBUF" : "SO_SNDBUF";
	int got = 0;
	socklen_t gl = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, force_opt, &bytes, sizeof(bytes)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes)) < 0 && prog)
		fprintf(stderr, "%s: setsockopt(%s): %s\n", prog, name,
			strerror(errno));
	if (!prog)
		return;
	/* The kernel reports twice the usable size it granted. */
	if (getsockopt(fd, SOL_SOCKET, opt, &got, &gl) == 0 && got < bytes)
		fprintf(stderr,
			"%s: note: %s is %d bytes, wanted %d (run as "
			"root or raise net.core.%s)\n",
			prog, name, got / 2, bytes,
			opt == SO_RCVBUF ? "rmem_max" : "wmem_max");
}

uint64_t nu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NU_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

struct timespec nu_ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NU_NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NU_NSEC_PER_SEC),
	};

	return ts;
}

static void on_signal(int sig)
{
	(void)sig;
	/* both signals are blocked while this runs: no increment is lost */
	if (nu_stop_requested < SIG_ATOMIC_MAX)
		nu_stop_requested++;
}

void nu_install_signals(sigset_t *oldmask)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!oldmask)
		return;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, oldmask);
}

int nu_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void nu_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint32_t nu_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}
