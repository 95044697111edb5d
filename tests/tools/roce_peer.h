/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * roce_peer.h - what the parts of roce_peer (roce_peer.c: options and
 * main; roce_peer_wire.c: endpoints, the pseudo headers the ICRC covers and
 * the payloads; roce_peer_send.c: the constant-rate sender;
 * roce_peer_recv.c: the responder; roce_peer_selftest.c) share. The packets
 * and the JSON of each mode are described at the top of roce_peer.c.
 * Ownership: one thread, no shared state besides the SIGINT/SIGTERM flag.
 */
#ifndef XDPLANE_ROCE_PEER_H
#define XDPLANE_ROCE_PEER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
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
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include "netutil.h"
#include "pkt_parse.h"
#include "roce.h"
#include "roce_udp.h"

#define RP_MAX_PAYLOAD 9000
#define RP_HEADROOM 48 /* pseudo IPv6 (40) + UDP (8) header for the ICRC */
#define RP_BATCH 32
#define RP_MAX_DEBT 64 /* largest catch-up burst, packets */
#define RP_MAX_FLOWS 256
#define RP_FLOW_SLOTS 512 /* open addressing, at most half full */
#define RP_SERIES_NS (100 * 1000 * 1000ull)
#define RP_MAX_DURATION 3600.0 /* seconds */
#define RP_MAX_SERIES ((size_t)(RP_MAX_DURATION * 10) + 64)
#define RP_DEF_ACKREQ_EVERY 8
#define RP_DEF_ACK_EVERY 8
#define RP_DEF_CNP_INTERVAL_US 50
#define RP_DEF_LINGER_MS 200
#define RP_DEF_TOS 0x6a /* DSCP 26, ECT(0) */
#define RP_FRAME_MAX 65536
#define RP_SOCKBUF (8 << 20)
/* Longest wait in ppoll(). SIGINT/SIGTERM are not blocked: a signal that
 * lands just before a wait is seen at most this late. */
#define RP_POLL_NS (100 * 1000 * 1000ull)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* An IP address and port; IPv4 in addr[0..4), the rest zero. */
struct endpoint {
	int family; /* 4 or 6 */
	uint8_t addr[16];
	uint16_t port;
};

#define RP_ACK_LEN (BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN)
#define RP_CNP_LEN (BTH_LEN + ROCE_CNP_PAD_LEN + ROCE_ICRC_LEN)

/* The options of every mode, parsed in roce_peer.c. */
struct opts {
	const char *to, *from, *bind, *ifname;
	uint64_t qpn, dqpn, peer_qpn, size, tos, opcode, ackreq_every, sport;
	uint64_t ack_every, cnp_interval_us, reply_port, linger_ms;
	double rate, duration;
	bool have_qpn, have_dqpn, have_peer_qpn, have_sport, cnp_on_ce;
	bool json, series, follow_cnp;
};

/* The receiver's flows, by source address and port (roce_peer_recv.c). */
struct flow {
	bool used;
	struct endpoint src; /* sender address and UDP source port */
	uint64_t packets, bytes, ce, acks, cnps, cnps_suppressed;
	uint64_t last_cnp_ns;
	uint32_t since_ack, msn, last_psn;
	bool cnp_sent;
};

struct flow_table {
	struct flow slot[RP_FLOW_SLOTS];
	unsigned int n;
	uint64_t overflow; /* packets of flows that did not fit */
};

/* roce_peer.c */
/* Prints msg (and arg) and the usage on stderr, exits with status 2. */
__attribute__((noreturn)) void bad_usage(const char *msg, const char *arg);
bool parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
bool parse_rate(const char *s, double *out);
bool parse_seconds(const char *s, double *out);
bool parse_ip(const char *s, int family, struct endpoint *e);

/* roce_peer_wire.c */
bool ep_equal_addr(const struct endpoint *a, const struct endpoint *b);
void ep_from_sa(const struct sockaddr_storage *ss, struct endpoint *e);
socklen_t ep_to_sa(const struct endpoint *e, int sock_family, uint32_t scope,
		   struct sockaddr_storage *ss);
const char *ep_str(const struct endpoint *e, char *buf, size_t n);
size_t l2_l4_len(int family);
size_t pseudo_hdr_len(int family);
void wr16(uint8_t *p, uint32_t v);
void write_pseudo_hdr(uint8_t *h, const struct endpoint *src,
		      const struct endpoint *dst, size_t n);
bool icrc_seal(uint8_t *p, size_t n, const struct endpoint *src,
	       const struct endpoint *dst);
size_t build_ack(uint8_t *p, uint32_t dqpn, uint32_t psn, uint32_t msn);
size_t build_cnp_payload(uint8_t *p, uint32_t dqpn);
void build_data(uint8_t *p, size_t n, uint8_t opcode, uint32_t dqpn,
		uint64_t seq, bool ackreq);

/* roce_peer_send.c */
void set_df(int fd, int family);
int do_send(const struct opts *o);

/* roce_peer_recv.c */
struct flow *flow_get(struct flow_table *t, const struct endpoint *e);
bool np_allow(struct flow *f, uint64_t now, uint64_t interval);
int do_recv(const struct opts *o);

/* roce_peer_selftest.c */
int do_selftest(void);

#endif
