/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctl_client.h - xdplanectl's side of the control socket: one connection,
 * the protocol v1 handshake, one request line out and one response line
 * back per call (the protocol is ctl_proto.h), error answers printed.
 *
 * Single-threaded (the CLI's one thread). Memory is bounded by the
 * largest response accepted (CTL_CLIENT_RESPONSE_MAX). System calls:
 * socket(2), connect(2), poll(2), send(2), recv(2), close(2),
 * clock_gettime(2), stat(2); messages go to stderr (and, for --json, to
 * the error kept below).
 *
 * A SIGINT handler (cli_watch.c) sets cli_interrupted: a call waiting
 * for the daemon then gives up without a message.
 */
#ifndef XDPLANE_CTL_CLIENT_H
#define XDPLANE_CTL_CLIENT_H

#include <signal.h>
#include <stddef.h>
#include <jansson.h>

#define CTL_CLIENT_PROTO_VERSION 1
#define CTL_CLIENT_RESPONSE_MAX (64u << 20) /* bytes of one response line */
#define CTL_CLIENT_SOCKET_ENV "XDPLANE_CONTROL_SOCKET"

/* xdplanectl's exit status (xdplanectl(8)). */
enum cli_exit {
	EXIT_OK = 0,
	EXIT_DAEMON_ERROR = 1, /* the daemon answered an error */
	EXIT_USAGE = 2,
	EXIT_NO_ANSWER = 3, /* cannot connect, closed, timeout, not v1 */
};

struct ctl_client {
	int fd;
	const char *path;
	double timeout_s; /* per request; 0: wait forever */
	char *buf; /* received bytes not yet consumed */
	size_t len, cap;
};

extern volatile sig_atomic_t cli_interrupted;

/*
 * Errors: each message goes to stderr as "xdplanectl: <message>" and is
 * kept for --json, which prints the run's error on stdout at exit as
 *   {"error":{"code":"...","message":"...","details":["..."],...}}
 * The first message is the error, the later ones its details (hints),
 * appended to a daemon's error object kept as it came.
 * Codes: the daemon's own (exit 1),
 * "usage" (exit 2), "unreachable", "timeout", "closed", "protocol",
 * "internal" (exit 3); a message without a code takes the exit status's
 * ("error", "usage", "no_answer").
 */
/* A message: the error, or a detail of the one before. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The error, with its code (a detail when there is one already). */
void cli_fail(const char *code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Add key: value (a string) to the error, when there is one. */
void cli_error_set(const char *key, const char *value);
/* The error so far (borrowed; NULL: none), and forgetting it. */
json_t *cli_error_get(void);
void cli_error_reset(void);
/* Print {"error":{...}} on stdout for exit status `status`. */
void cli_error_json(int status);
/* CLOCK_MONOTONIC in seconds. */
double cli_mono_s(void);

/* Connect to path: 0, or -1 with the reason (and the likely way out)
 * printed. */
int ctl_client_open(struct ctl_client *c, const char *path, double timeout_s);
void ctl_client_close(struct ctl_client *c);
/* Send req (reference taken), return the response object (the caller
 * owns it); NULL with a message printed when there is no valid answer
 * (none when interrupted). */
json_t *ctl_client_call(struct ctl_client *c, json_t *req);
/* The hello exchange: EXIT_OK, or the exit status with the reason
 * printed. */
int ctl_client_handshake(struct ctl_client *c);
/* Print an error response (for reload, the reason and details too) and
 * keep it as the run's error; returns EXIT_DAEMON_ERROR. verb may be
 * NULL. */
int ctl_client_report_error(json_t *resp, const char *verb);

#endif
