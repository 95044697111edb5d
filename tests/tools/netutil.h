/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * netutil.h - helpers shared by the traffic tools in tests/tools (udpcheck,
 * udprtt, flowgen), built as the static library xdplane_tooling.
 *
 *   nu_parse_u64       strict decimal number in a range
 *   nu_parse_addr      numeric "A.B.C.D:PORT" or "[V6]:PORT" (V6 may carry
 *                      %scope), through getaddrinfo(AI_NUMERICHOST)
 *   nu_parse_ip        the same without a port: "A.B.C.D" or "V6"
 *   nu_set_sockbuf     SO_RCVBUF/SO_SNDBUF: the FORCE variant first, then
 *                      the plain one
 *   nu_now_ns          CLOCK_MONOTONIC in nanoseconds
 *   nu_ns_to_ts        nanoseconds to a struct timespec
 *   nu_install_signals SIGINT/SIGTERM count in nu_stop_requested
 *   nu_cmp_u64         qsort() comparator, ascending uint64_t
 *   nu_put_be32/nu_get_be32  32-bit big-endian store/load
 *
 * Messages go to stderr prefixed with "PROG: ", PROG being the prog
 * argument; nothing here exits.
 */
#ifndef XDPLANE_TOOLS_NETUTIL_H
#define XDPLANE_TOOLS_NETUTIL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/socket.h>

#define NU_NSEC_PER_SEC 1000000000ull

/* The SIGINT/SIGTERM received since the handlers nu_install_signals()
 * installs (0: none; saturates). A tool that stops on the first tests it
 * for non-zero; one that reacts to a second (storgen) compares counts. */
extern volatile sig_atomic_t nu_stop_requested;

/*
 * Parse s as a decimal number (digits only: no sign, no blank, no base
 * prefix) with lo <= value <= hi into *out. False, *out untouched, if not.
 */
bool nu_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/*
 * Parse "A.B.C.D:PORT" or "[V6]:PORT" (numeric only: four decimal parts,
 * not inet_aton()'s shorthands; V6 may carry %scope, a bare V6 must be
 * bracketed; PORT 1..65535) into *ss and *sslen; the family is AF_INET or
 * AF_INET6 accordingly. False on a malformed string; when the host is
 * refused, also says why on stderr (prog NULL: silent).
 */
bool nu_parse_addr(const char *prog, const char *s, struct sockaddr_storage *ss,
		   socklen_t *sslen);

/*
 * Parse a numeric IPv4 or IPv6 address alone ("A.B.C.D", "V6", V6 may
 * carry %scope; no brackets, no port) into *ss and *sslen, port 0 (set it
 * with sin_port/sin6_port). False as nu_parse_addr().
 */
bool nu_parse_ip(const char *prog, const char *s, struct sockaddr_storage *ss,
		 socklen_t *sslen);

/*
 * Ask for a socket buffer of bytes: opt is SO_RCVBUF or SO_SNDBUF. The
 * FORCE variant (SO_RCVBUFFORCE/SO_SNDBUFFORCE, needs CAP_NET_ADMIN)
 * bypasses net.core.rmem_max/wmem_max; when it fails the plain option is
 * tried. With prog non-NULL, a failure and a buffer smaller than asked
 * for are reported on stderr; with prog NULL it is silent.
 */
void nu_set_sockbuf(int fd, int opt, int bytes, const char *prog);

uint64_t nu_now_ns(void); /* CLOCK_MONOTONIC */
struct timespec nu_ns_to_ts(uint64_t ns);

/*
 * SIGINT/SIGTERM count in nu_stop_requested (no SA_RESTART: blocking calls
 * return EINTR). With oldmask non-NULL they are also blocked, the previous
 * mask going to *oldmask: pass it to ppoll(..., oldmask) so that a signal
 * is taken only inside the wait and cannot slip in before it.
 */
void nu_install_signals(sigset_t *oldmask);

int nu_cmp_u64(const void *a, const void *b);

void nu_put_be32(uint8_t *p, uint32_t v);
uint32_t nu_get_be32(const uint8_t *p);

#endif /* XDPLANE_TOOLS_NETUTIL_H */
