/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * udpcheck.h - what the parts of udpcheck share (udpcheck.c: the
 * protocol's description, usage and main; udpcheck_wire.c: the
 * deterministic content of datagram i and its verification;
 * udpcheck_send.c; udpcheck_recv.c; udpcheck_selftest.c). One thread; the
 * two flags below are set before a mode starts.
 */
#ifndef XDPLANE_UDPCHECK_H
#define XDPLANE_UDPCHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "netutil.h"

#define UC_MAGIC 0x55445043u /* "UDPC" */
#define UC_HDR_LEN 18u
#define UC_MAX_V4 65507u /* 65535 - 20 (IPv4) - 8 (UDP) */
#define UC_MAX_V6 65527u /* 65535 - 8 (UDP); IPv6 payload length excl. hdr */
#define UC_DEF_MAX_V4 1472u /* MTU 1500 - 28 */
#define UC_DEF_MAX_V6 1452u /* MTU 1500 - 48 */
#define UC_DEF_SEED 1u
#define UC_DEF_RATE 20000u
#define UC_DEF_TIMEOUT_MS 3000u
#define UC_BATCH 64
#define UC_MAX_DEBT 256 /* paced: largest catch-up burst, datagrams */
#define UC_RXBUF 65536u /* > largest UDP payload: MSG_TRUNC never expected */
#define UC_SOCKBUF (32 << 20)
#define UC_MAX_REPORTS 10 /* corrupt datagrams described on stderr */

#define SALT_LEN 0x6c656e6774685f5full
#define SALT_DATA 0x646174615f5f5f5full
#define SALT_CSUM 0x63686b73756d5f5full

enum verdict {
	V_OK,
	V_SHORT, /* shorter than the header */
	V_TRUNC, /* larger than the receive buffer */
	V_MAGIC,
	V_LENFIELD, /* size differs from the length field */
	V_SEQ, /* seq >= expected count */
	V_POLICY, /* length is not len(seq) for --min/--max */
	V_DATA, /* content differs */
};

struct verifier {
	uint64_t seed;
	uint64_t expect; /* valid seqs are 0..expect-1 */
	uint32_t min, max; /* max == 0: length policy not checked */
	uint8_t *scratch; /* UC_RXBUF bytes */
};

struct send_opts {
	struct sockaddr_storage to;
	socklen_t tolen;
	bool have_to;
	uint64_t count;
	uint64_t min, max, rate, seed;
	bool frag;
};

struct recv_opts {
	struct sockaddr_storage bind;
	socklen_t bindlen;
	bool have_bind;
	uint64_t expect;
	uint64_t timeout_ms, linger_ms, seed, min, max;
	bool json;
};

struct recv_stats {
	uint64_t received, ok, corrupt, duplicate, reordered;
	uint64_t content_mismatch; /* corrupt ones with a valid header */
	uint64_t min_size, max_size, first_ns, last_ns;
	uint64_t highest; /* highest intact seq + 1; 0 = none yet */
};

/* udpcheck_wire.c */
/* --sweep: len(i) = min + i mod span (set by main) */
extern bool sweep_sizes;
/* each verdict in words */
extern const char *const verdict_str[];
uint64_t splitmix64(uint64_t x);
uint16_t get_be16(const uint8_t *p);
uint32_t pkt_len(uint64_t seed, uint64_t i, uint32_t min, uint32_t max);
uint64_t payload_csum(uint64_t seed, uint32_t seq, uint32_t len,
		      const uint8_t *p, size_t n);
void build_pkt(uint8_t *buf, uint64_t seed, uint32_t seq, uint32_t len);
enum verdict verify_pkt(const struct verifier *v, const uint8_t *p, size_t n,
			bool trunc, uint32_t *seqp, size_t *diffp);

/* udpcheck_send.c */
int do_send(const struct send_opts *o);

/* udpcheck_recv.c */
/* no stderr report per corrupt datagram (set by the selftest) */
extern bool quiet_reports;
void account(struct recv_stats *st, const struct verifier *v, uint8_t *bitmap,
	     const uint8_t *p, size_t n, bool trunc);
int do_recv(const struct recv_opts *o);

/* udpcheck_selftest.c */
int do_selftest(void);

#endif
