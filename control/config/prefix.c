// SPDX-License-Identifier: BSD-2-Clause
/*
 * prefix.c - see prefix.h.
 */
#include "prefix.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* A length 0..max: plain decimal digits without a leading zero. */
static bool parse_len(const char *s, unsigned int max, unsigned int *out)
{
	unsigned int v = 0;
	size_t i;

	if (!*s || (s[0] == '0' && s[1]))
		return false;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 3)
			return false;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

bool prefix_parse(const char *s, struct qos_prefix *p, bool *host_bits)
{
	char buf[PREFIX_TEXT_MAX], *slash;
	unsigned int len, max;
	int af;

	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	af = strchr(buf, ':') ? AF_INET6 : AF_INET;
	max = af == AF_INET ? 32 : 128;
	memset(p, 0, sizeof(*p));
	if (inet_pton(af, buf, p->addr) != 1)
		return false;
	if (slash && !parse_len(slash, max, &len))
		return false;
	p->family = af == AF_INET ? 4 : 6;
	p->len = (uint8_t)(slash ? len : max);
	*host_bits = false;
	for (unsigned int bit = p->len; bit < max; bit++) {
		uint8_t m = (uint8_t)(0x80u >> (bit % 8));

		if (p->addr[bit / 8] & m)
			*host_bits = true;
		p->addr[bit / 8] &= (uint8_t)~m;
	}
	return true;
}

int prefix_check(const char *s, struct qos_prefix *p, char *err, size_t errlen)
{
	char want[PREFIX_TEXT_MAX];
	bool host;

	if (!prefix_parse(s, p, &host)) {
		if (!errlen)
			return -1;
		if (!*s)
			snprintf(err, errlen,
				 "expected " PREFIX_SYNTAX " (got nothing)");
		else
			snprintf(err, errlen,
				 "expected " PREFIX_SYNTAX " (got '%.40s%s')",
				 s, strlen(s) > 40 ? "..." : "");
		return -1;
	}
	if (!host)
		return 0;
	prefix_text(p, want, sizeof(want));
	if (errlen)
		snprintf(err, errlen,
			 "%.64s has host bits set; did you mean %s?", s, want);
	return -1;
}

void prefix_text(const struct qos_prefix *p, char *buf, size_t size)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(p->family == 4 ? AF_INET : AF_INET6, p->addr, addr,
		  sizeof(addr));
	snprintf(buf, size, "%s/%u", addr, p->len);
}
