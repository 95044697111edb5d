// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_frame.c - the test frame and the option parsing of bench/fwd's
 * generators (gen_frame.h).
 */
#include "gen_frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gen_opt_name(const struct option *o, int val)
{
	for (; o->name; o++) {
		if (o->val == val)
			return o->name;
	}
	return "?";
}

int gen_parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

int gen_parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	if (errno || end == s || *end || *out > max)
		return -1;
	return 0;
}

void gen_opts_init(struct gen_opts *g, unsigned long min_size,
		   unsigned long max_size)
{
	memset(g, 0, sizeof(*g));
	g->sport = 1024;
	g->dport = 5001;
	g->sport_range = 1;
	g->cpu = -1;
	g->min_size = min_size;
	g->max_size = max_size;
}

int gen_opts_parse(struct gen_opts *g, int c, const char *arg)
{
	unsigned long v;
	char *end;

	switch (c) {
	case 'i':
		g->dev = arg;
		return 1;
	case 'S':
		g->have_smac = !gen_parse_mac(arg, g->smac);
		return g->have_smac ? 1 : -1;
	case 'D':
		g->have_dmac = !gen_parse_mac(arg, g->dmac);
		return g->have_dmac ? 1 : -1;
	case 's':
		g->have_sip = inet_pton(AF_INET, arg, &g->sip) == 1;
		return g->have_sip ? 1 : -1;
	case 'd':
		g->have_dip = inet_pton(AF_INET, arg, &g->dip) == 1;
		return g->have_dip ? 1 : -1;
	case 'p':
		return gen_parse_ulong(arg, 65535, &g->sport) ? -1 : 1;
	case 'P':
		return gen_parse_ulong(arg, 65535, &g->dport) ? -1 : 1;
	case 'R':
		return gen_parse_ulong(arg, 65535, &g->sport_range) ||
				       !g->sport_range
			       ? -1
			       : 1;
	case 'z':
		return gen_parse_ulong(arg, g->max_size, &g->size) ||
				       g->size < g->min_size
			       ? -1
			       : 1;
	case 'r':
		return gen_parse_ulong(arg, 1000000000ul, &g->rate) ? -1 : 1;
	case 't':
		errno = 0;
		g->duration = strtod(arg, &end);
		return errno || end == arg || *end || g->duration <= 0 ? -1 : 1;
	case 'c':
		if (gen_parse_ulong(arg, CPU_SETSIZE - 1, &v))
			return -1;
		g->cpu = (long)v;
		return 1;
	default:
		return 0;
	}
}

const char *gen_opts_check(const struct gen_opts *g)
{
	if (!g->dev || !g->have_smac || !g->have_dmac || !g->have_sip ||
	    !g->have_dip || !g->size || g->duration <= 0)
		return "";
	if (g->sport + g->sport_range - 1 > 65535)
		return "--sport + --sport-range exceeds 65535";
	return NULL;
}

static uint16_t ip_checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void gen_build_frame(uint8_t *f, size_t size, const uint8_t *smac,
		     const uint8_t *dmac, struct in_addr sip,
		     struct in_addr dip, uint16_t sport, uint16_t dport)
{
	uint16_t ip_len = (uint16_t)(size - 14);
	uint16_t udp_len = (uint16_t)(size - 34);
	uint16_t csum;
	size_t i;

	memset(f, 0, size);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x45;
	f[16] = ip_len >> 8;
	f[17] = ip_len & 0xff;
	f[20] = 0x40; /* DF */
	f[22] = 64; /* TTL */
	f[23] = 17; /* UDP */
	memcpy(f + 26, &sip, 4);
	memcpy(f + 30, &dip, 4);
	csum = ip_checksum(f + 14, 20);
	f[24] = csum >> 8;
	f[25] = csum & 0xff;
	f[34] = sport >> 8;
	f[35] = sport & 0xff;
	f[36] = dport >> 8;
	f[37] = dport & 0xff;
	f[38] = udp_len >> 8;
	f[39] = udp_len & 0xff;
	for (i = GEN_HDR_LEN; i < size; i++)
		f[i] = (uint8_t)i;
}
