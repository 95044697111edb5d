// SPDX-License-Identifier: BSD-2-Clause
/*
 * ctl_client.c - xdplanectl's connection to the daemon; see
 * ctl_client.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "ctl_client.h"

volatile sig_atomic_t cli_interrupted;

/* The run's error for --json (cli_error_json()): the first message
 * printed, or the daemon's error object; the lines after it as details.
 * Owned here, freed at exit with the process. */
static struct {
	json_t *error; /* {"code"?, "message", "details"?, ...} */
} cli_err;

static void record(const char *code, const char *msg)
{
	json_t *details;

	if (!cli_err.error) {
		cli_err.error = json_pack("{s:s}", "message", msg);
		if (code && cli_err.error)
			json_object_set_new(cli_err.error, "code",
					    json_string(code));
		return;
	}
	details = json_object_get(cli_err.error, "details");
	if (!details) {
		details = json_array();
		json_object_set_new(cli_err.error, "details", details);
	}
	json_array_append_new(details, json_string(msg));
}

static void vreport(const char *code, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "xdplanectl: %s\n", msg);
	record(code, msg);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(NULL, fmt, ap);
	va_end(ap);
}

void cli_fail(const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(code, fmt, ap);
	va_end(ap);
}

void cli_error_set(const char *key, const char *value)
{
	if (cli_err.error && value)
		json_object_set_new(cli_err.error, key, json_string(value));
}

void cli_error_reset(void)
{
	json_decref(cli_err.error);
	cli_err.error = NULL;
}

json_t *cli_error_get(void)
{
	return cli_err.error;
}

void cli_error_json(int status)
{
	static const char *const codes[] = {
		[EXIT_DAEMON_ERROR] = "error",
		[EXIT_USAGE] = "usage",
		[EXIT_NO_ANSWER] = "no_answer",
	};
	json_t *e = json_object(), *out = json_pack("{s:o}", "error", e);
	json_t *code = json_object_get(cli_err.error, "code");
	json_t *msg = json_object_get(cli_err.error, "message");
	const char *key;
	json_t *v;
	char *s;

	/* code and message first, then whatever else was recorded */
	if (json_is_string(code))
		json_object_set(e, "code", code);
	else
		json_object_set_new(e, "code",
				    json_string(status > 0 && status <= 3
							? codes[status]
							: "error"));
	json_object_set_new(e, "message",
			    json_is_string(msg) ? json_copy(msg)
						: json_string("failed"));
	json_object_foreach(cli_err.error, key, v) if (!json_object_get(e, key))
		json_object_set(e, key, v);
	s = out ? json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	printf("%s\n", s ? s : "{\"error\":{\"code\":\"internal\"}}");
	free(s);
	json_decref(out);
}

double cli_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* May this user search the directory of path, and those above it? The
 * directory in dir (at least sizeof(sun_path) bytes). */
static bool searchable_dir(const char *path, char *dir)
{
	char *slash;

	snprintf(dir, sizeof(((struct sockaddr_un *)0)->sun_path), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, 2, ".");
	else if (slash == dir)
		dir[1] = '\0'; /* "/x": "/" */
	else
		*slash = '\0';
	return !access(dir, X_OK);
}

int ctl_client_open(struct ctl_client *c, const char *path, double timeout_s)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[sizeof(sa.sun_path)], ro[sizeof(sa.sun_path)];
	struct stat st;
	int e;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->path = path;
	c->timeout_s = timeout_s;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		cli_fail("unreachable",
			 "cannot connect to %s: the path is longer than %zu "
			 "bytes",
			 path, sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		cli_fail("unreachable", "cannot create a socket: %s",
			 strerror(errno));
		return -1;
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return 0;
	e = errno;
	cli_fail("unreachable", "cannot connect to %s: %s", path, strerror(e));
	if ((e == EACCES || e == EPERM) && !searchable_dir(path, dir)) {
		cli_error("cannot search %s (the socket's directory) or a "
			  "directory above it; see xdplane(8), SECURITY",
			  dir);
	} else if (e == EACCES || e == EPERM) {
		cli_error("the socket is mode 0660: run as root or as a member "
			  "of its group");
		if (snprintf(ro, sizeof(ro), "%s.ro", path) < (int)sizeof(ro) &&
		    !stat(ro, &st) && S_ISSOCK(st.st_mode))
			cli_error("%s, the read-only socket, is there: for the "
				  "verbs that only read, add -r",
				  ro);
	} else {
		cli_error("is xdplane running? (another gateway: -i NAME, "
			  "another socket: -s SOCKET or "
			  "$" CTL_CLIENT_SOCKET_ENV ")");
	}
	close(c->fd);
	c->fd = -1;
	return -1;
}

void ctl_client_close(struct ctl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
}

/* Wait until fd is ready for `events` or the deadline passes: 0 ready,
 * -1 timed out or cli_interrupted (message printed unless cli_interrupted). */
static int conn_wait(struct ctl_client *c, short events, double deadline)
{
	struct pollfd pfd = {.fd = c->fd, .events = events};
	int ms, n;

	for (;;) {
		if (cli_interrupted)
			return -1;
		if (c->timeout_s > 0) {
			double left = deadline - cli_mono_s();

			if (left <= 0) {
				cli_fail("timeout",
					 "no answer from %s within %g s",
					 c->path, c->timeout_s);
				return -1;
			}
			ms = left < 1e6 ? (int)(left * 1000) + 1 : 1000000000;
		} else {
			ms = -1;
		}
		n = poll(&pfd, 1, ms);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR) {
			cli_fail("internal", "poll: %s", strerror(errno));
			return -1;
		}
	}
}

static int conn_send(struct ctl_client *c, const char *data, size_t len,
		     double deadline)
{
	ssize_t n;

	while (len) {
		if (conn_wait(c, POLLOUT, deadline))
			return -1;
		n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			cli_fail("closed",
				 "connection closed by the daemon before an "
				 "answer: %s",
				 strerror(errno));
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The next line from the daemon, malloc'd, without its "\n"; NULL with a
 * message on error. */
static char *conn_recv_line(struct ctl_client *c, double deadline)
{
	char *nl, *line, *grown;
	size_t used;
	ssize_t n;

	for (;;) {
		nl = c->buf ? memchr(c->buf, '\n', c->len) : NULL;
		if (nl) {
			used = (size_t)(nl - c->buf);
			line = malloc(used + 1);
			if (!line) {
				cli_fail("internal", "out of memory");
				return NULL;
			}
			memcpy(line, c->buf, used);
			line[used] = '\0';
			memmove(c->buf, nl + 1, c->len - used - 1);
			c->len -= used + 1;
			return line;
		}
		if (c->len >= CTL_CLIENT_RESPONSE_MAX) {
			cli_fail("protocol",
				 "the daemon's answer is longer than %u bytes",
				 CTL_CLIENT_RESPONSE_MAX);
			return NULL;
		}
		if (c->cap - c->len < 65536) {
			size_t cap = c->cap ? c->cap * 2 : 65536;

			if (cap > CTL_CLIENT_RESPONSE_MAX + 1)
				cap = CTL_CLIENT_RESPONSE_MAX + 1;
			grown = realloc(c->buf, cap);
			if (!grown) {
				cli_fail("internal", "out of memory");
				return NULL;
			}
			c->buf = grown;
			c->cap = cap;
		}
		if (conn_wait(c, POLLIN, deadline))
			return NULL;
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			cli_fail("closed",
				 "connection closed by the daemon before an "
				 "answer%s%s",
				 n < 0 ? ": " : "",
				 n < 0 ? strerror(errno) : "");
			return NULL;
		}
		c->len += (size_t)n;
	}
}

/* Send req (reference taken), return the response object; NULL with a
 * message printed when there is no valid answer. */
json_t *ctl_client_call(struct ctl_client *c, json_t *req)
{
	double deadline = cli_mono_s() + c->timeout_s;
	json_error_t jerr;
	char *text, *line;
	json_t *resp;
	size_t n;
	int rc;

	text = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	line = text ? realloc(text, strlen(text) + 2) : NULL;
	if (!line) {
		free(text);
		cli_fail("internal", "out of memory");
		return NULL;
	}
	n = strlen(line);
	line[n] = '\n';
	rc = conn_send(c, line, n + 1, deadline);
	free(line);
	if (rc)
		return NULL;
	line = conn_recv_line(c, deadline);
	if (!line)
		return NULL;
	resp = json_loads(line, 0, &jerr);
	free(line);
	if (!resp || !json_is_object(resp) ||
	    !json_is_boolean(json_object_get(resp, "ok"))) {
		cli_fail(
			"protocol",
			"the daemon's answer is not a protocol v1 response%s%s",
			resp ? "" : ": ", resp ? "" : jerr.text);
		json_decref(resp);
		return NULL;
	}
	return resp;
}

/* Print an error response; the exit status for it. */
int ctl_client_report_error(json_t *resp, const char *verb)
{
	json_t *e = json_object_get(resp, "error"), *reason, *details, *line;
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *msg = json_string_value(json_object_get(e, "message"));

	fprintf(stderr, "xdplanectl: %s: %s\n", code ? code : "error",
		msg ? msg : "(no message)");
	/* for --json: the daemon's error object as it is */
	if (json_is_object(e)) {
		cli_error_reset();
		cli_err.error = json_deep_copy(e);
	} else {
		cli_fail("error", "%s", msg ? msg : "(no message)");
	}
	if (verb && !strcmp(verb, "reload")) {
		/* The message is the reason; print whatever the daemon adds
		 * to it (file:line:col errors, the keys that need a
		 * restart). */
		reason = json_object_get(e, "reason");
		if (json_is_string(reason))
			fprintf(stderr, "xdplanectl: reason: %s\n",
				json_string_value(reason));
		details = json_object_get(e, "details");
		for (size_t i = 0; (line = json_array_get(details, i)); i++)
			if (json_is_string(line))
				fprintf(stderr, "xdplanectl:   %s\n",
					json_string_value(line));
	}
	return EXIT_DAEMON_ERROR;
}

int ctl_client_handshake(struct ctl_client *c)
{
	json_t *resp = ctl_client_call(c, json_pack("{s:s,s:i}", "hello",
						    "xdplanectl", "version",
						    CTL_CLIENT_PROTO_VERSION));
	int rc;

	if (!resp)
		return EXIT_NO_ANSWER;
	rc = json_is_true(json_object_get(resp, "ok"))
		     ? EXIT_OK
		     : ctl_client_report_error(resp, NULL);
	json_decref(resp);
	return rc;
}
