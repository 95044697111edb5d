/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prefix.h - IP prefixes as written by an operator: "10.1.0.0/16",
 * "fd00::/8", "10.1.2.3" (a host: /32, or /128 for IPv6). The one parser
 * of the configuration's rules (match.src, match.dst) and of the
 * congestion hints (the control API's congestion verb, xdplanectl).
 *
 * Grammar: an address inet_pton() reads (IPv6 if it holds a ':'), then
 * optionally '/' and a length of plain decimal digits without a leading
 * zero, 0..32 or 0..128. A prefix whose host bits are set ("10.1.2.3/16")
 * is refused, naming the prefix meant.
 *
 * Pure functions: no state, no allocation, any thread.
 */
#ifndef XDPLANE_PREFIX_H
#define XDPLANE_PREFIX_H

#include <stdbool.h>
#include <stddef.h>
#include "qos.h" /* struct qos_prefix */

/* What the parser accepts, for messages ("expected " PREFIX_SYNTAX). */
#define PREFIX_SYNTAX                                                          \
	"an IPv4 or IPv6 address or prefix, e.g. 10.1.0.0/16, fd00::/8 or "    \
	"10.1.2.3"

#define PREFIX_TEXT_MAX 64 /* prefix_text(), with the NUL */

/* s into *p, host bits cleared; *host_bits tells whether any were set.
 * false if s is not a prefix (then *p is undefined). */
bool prefix_parse(const char *s, struct qos_prefix *p, bool *host_bits);

/* s into *p, or -1 and the reason, without a position, in err (truncated
 * to errlen, NUL-terminated when errlen > 0):
 *   expected <PREFIX_SYNTAX> (got 's')
 *   S has host bits set; did you mean P?
 * (the config prefixes "file:line:col: key: ", the daemon its verb). */
int prefix_check(const char *s, struct qos_prefix *p, char *err, size_t errlen);

/* "10.1.0.0/16", "fd00::/8": what prefix_parse() reads back the same. */
void prefix_text(const struct qos_prefix *p, char *buf, size_t size);

#endif
