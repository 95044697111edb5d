/* SPDX-License-Identifier: GPL-2.0 */
/*
 * storgen.h - what the parts of storgen share, private to them:
 *   storgen.c        the command: options, outputs, addresses, waits,
 *                    socket marks, main (its header comment is the manual:
 *                    command line, outputs, exit statuses, invariants)
 *   storgen_serve.c  the receiver (TCP and UDP, timeline)
 *   storgen_tcp.c    bulk TCP flows
 *   storgen_udp.c    paced UDP bursts
 * Clocks, number and address parsing, socket buffers and signals come from
 * the test tools' helpers (tests/tools/netutil.h, xdplane_tooling).
 *
 * Ownership: one process, one thread; every part's state is static and
 * owned by the main thread, its buffers fixed at start.
 */
#ifndef STORGEN_H
#define STORGEN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/tcp.h>
#include <sys/socket.h>
#include "netutil.h"

#define TL_IV_NS 10000000ull /* timeline interval: 10 ms */
#define RBUF_LEN (1u << 20) /* TCP read buffer */
#define WBUF_LEN (1u << 20) /* TCP write chunk */
#define MAX_CONNS 1024 /* serve: open TCP connections */
#define MAX_SRCS 256 /* serve: UDP senders tracked for loss */
#define MAX_FLOWS 256 /* tcp: parallel flows */
#define UDP_BATCH 64 /* recvmmsg / sendmmsg batch */
#define UDP_MAX_DGRAM 9216
#define UDP_MAX_FRAME (9000 + 14) /* MTU 9000 + Ethernet header */
#define PACE_MIN_SLEEP_NS 250000ull /* at most 4000 wake-ups/s in a burst */
/* tcp: wait for the receiver after the end, ... after a signal */
#define DRAIN_NS (30 * NU_NSEC_PER_SEC)
#define DRAIN_SIG_NS (2 * NU_NSEC_PER_SEC)

struct opts {
	const char *mode;
	const char *bind, *to, *timeline, *out;
	uint16_t tcp_port, udp_port;
	double duration_s; /* 0: none */
	uint64_t start_at, bytes, burst_bytes, rate, size, sndbuf;
	unsigned int flows, period_ms;
	int tos, prio;
};

/*
 * Signals: SIGINT/SIGTERM are blocked but inside the waits, which take
 * wait_mask (ppoll, epoll_pwait), so a signal is never lost between a check
 * and a sleep; nu_stop_requested counts them.
 */
extern sigset_t wait_mask;

/* Bad usage: "storgen: " fmt (with arg), a hint, exit 2. */
__attribute__((noreturn)) void die_usage(const char *fmt, const char *arg);
/* "IP:P", "[IPv6]:P" (--to); exits 2 on a bad one. */
void parse_hostport(const char *s, struct sockaddr_storage *ss, socklen_t *len);
/* "IP" (--bind); false on a bad one. */
bool parse_ip(const char *s, struct sockaddr_storage *ss, socklen_t *len);
void set_port(struct sockaddr_storage *ss, uint16_t port);
/* "IP:PORT" (no brackets around IPv6, as the JSON has always had it). */
void addr_str(const struct sockaddr_storage *ss, char *buf, size_t len);

/* --out: stdout for NULL or "-"; exits 2 when it cannot be opened. */
FILE *open_out(const char *path);
/* 0, or -1 with the reason on stderr. */
int close_out(FILE *f, const char *path);

/* Socket marks for the testbed: IP TOS (DSCP/ECN byte), SO_PRIORITY. */
void set_marks(int fd, int family, const struct opts *o);
/* TCP_INFO of a connected socket (zeroed first: an older kernel fills
 * less); false when it cannot be read. */
bool get_tcp_info(int fd, struct tcp_info *ti);

/*
 * Sleep until deadline (CLOCK_MONOTONIC ns) or until fd (if >= 0) has
 * events ev, whichever comes first; a signal ends the wait too.
 * Returns true if fd became ready.
 */
bool wait_until(uint64_t deadline, int fd, short ev);
/* Sleep until --start-at; false if a signal came first. */
bool wait_start(const struct opts *o);

/* The modes: the exit status. */
int run_serve(const struct opts *o);
int run_tcp(const struct opts *o);
int run_udp(const struct opts *o);

#endif /* STORGEN_H */
