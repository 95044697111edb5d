/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gen_frame.h - what bench/fwd's two generators share (xgen: BPF_PROG_RUN
 * with live frames; xskgen: AF_XDP TX where that is refused): the test
 * frame they both send and the parsing of their common options. So the
 * two send the same bytes, whichever bench/fwd falls back to.
 *
 * The frame: Ethernet + IPv4 (TTL 64, DF, header checksum) + UDP (checksum
 * 0) + a byte pattern (byte i holds i & 0xff) after the GEN_HDR_LEN
 * header bytes. size is the Ethernet frame without FCS, >= GEN_HDR_LEN.
 */
#ifndef XDPLANE_BENCH_GEN_FRAME_H
#define XDPLANE_BENCH_GEN_FRAME_H

#include <getopt.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define GEN_HDR_LEN 42 /* Ethernet 14 + IPv4 20 + UDP 8 */

void gen_build_frame(uint8_t *f, size_t size, const uint8_t *smac,
		     const uint8_t *dmac, struct in_addr sip,
		     struct in_addr dip, uint16_t sport, uint16_t dport);

/* The options both generators take, for their struct option tables: the
 * vals 'i' 'S' 'D' 's' 'd' 'p' 'P' 'R' 'z' 'r' 't' 'c'; a generator's own
 * options use other vals. */
#define GEN_COMMON_OPTIONS                                                     \
	{"dev", required_argument, NULL, 'i'},                                 \
		{"src-mac", required_argument, NULL, 'S'},                     \
		{"dst-mac", required_argument, NULL, 'D'},                     \
		{"src-ip", required_argument, NULL, 's'},                      \
		{"dst-ip", required_argument, NULL, 'd'},                      \
		{"sport", required_argument, NULL, 'p'},                       \
		{"dport", required_argument, NULL, 'P'},                       \
		{"sport-range", required_argument, NULL, 'R'},                 \
		{"size", required_argument, NULL, 'z'},                        \
		{"rate", required_argument, NULL, 'r'},                        \
		{"duration", required_argument, NULL, 't'},                    \
	{                                                                      \
		"cpu", required_argument, NULL, 'c'                            \
	}

/* Their values. sport 1024, dport 5001, sport_range 1, rate 0 (flat out),
 * cpu -1 (not pinned) unless given; the others are required. */
struct gen_opts {
	const char *dev;
	uint8_t smac[6], dmac[6];
	struct in_addr sip, dip;
	bool have_smac, have_dmac, have_sip, have_dip;
	unsigned long sport, dport, sport_range, size, rate;
	long cpu;
	double duration;
	unsigned long min_size, max_size; /* --size's range */
};

void gen_opts_init(struct gen_opts *g, unsigned long min_size,
		   unsigned long max_size);
/* getopt_long's val c with its argument: 1 taken, 0 not a common option,
 * -1 a bad value (say so with gen_opt_name()). */
int gen_opts_parse(struct gen_opts *g, int c, const char *arg);
/* After the options: NULL if every required one was given and the ports
 * fit, else what is wrong ("" for a missing option: print the usage). */
const char *gen_opts_check(const struct gen_opts *g);

/* The long name of the option whose val is val, "?" if none. */
const char *gen_opt_name(const struct option *o, int val);
/* "aa:bb:cc:dd:ee:ff" into mac: 0, or -1. */
int gen_parse_mac(const char *s, uint8_t *mac);
/* A whole number 0..max (decimal, 0x hex, 0 octal) into *out: 0, or -1. */
int gen_parse_ulong(const char *s, unsigned long max, unsigned long *out);

#endif
