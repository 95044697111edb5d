// SPDX-License-Identifier: BSD-2-Clause
/*
 * xdplanectl.c - the operator's CLI: one connection to the daemon's control
 * socket, the protocol v1 handshake, one request per verb (a series of
 * "stats" requests for watch), and the answer printed as a table or, with
 * --json, as the server's result object on one line.
 *
 *   xdplanectl [-s SOCKET] [--json] [--timeout SEC] VERB [ARGS]
 *
 * Exit status: 0 success, 1 the daemon answered an error (printed as
 * "xdplanectl: <code>: <message>"), 2 usage, 3 no answer: cannot connect,
 * connection closed before an answer, timeout, or an answer that is not
 * protocol v1. See xdplanectl(8); the protocol is described in
 * ctl_proto.h.
 *
 * Single-threaded. Links only jansson and libc. Memory is bounded by the
 * largest response accepted (RESPONSE_MAX).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <jansson.h>

#ifndef XDPLANE_VERSION
#define XDPLANE_VERSION "unknown"
#endif

#define DEFAULT_SOCKET "/run/xdplane/control.sock"
#define SOCKET_ENV "XDPLANE_CONTROL_SOCKET"
#define PROTO_VERSION 1
#define RESPONSE_MAX (64u << 20) /* bytes of one response line */

enum exit_status {
	EXIT_OK = 0,
	EXIT_DAEMON_ERROR = 1,
	EXIT_USAGE = 2,
	EXIT_NO_ANSWER = 3,
};

struct options {
	const char *socket;
	bool json;
	double timeout_s; /* per request; 0: wait forever */
	double interval_s; /* watch */
	unsigned long count; /* watch refreshes; 0: until SIGINT */
	bool watch_opts; /* --interval or --count was given */
};

struct conn {
	int fd;
	const char *path;
	double timeout_s;
	char *buf; /* received bytes not yet consumed */
	size_t len, cap;
};

static volatile sig_atomic_t interrupted;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xdplanectl [-s SOCKET] [--json] [--timeout SEC] VERB "
		"[ARGS]\n"
		"verbs:\n"
		"  status                         daemon, configuration, "
		"placement\n"
		"  stats [PORT]                   counters per port, queue, "
		"class\n"
		"  classes                        class configuration and "
		"counters\n"
		"  flows                          DCQCN flow state\n"
		"  reload                         re-read the configuration\n"
		"  congestion PORT CLASS [SEVERITY [PREFIX]]  congestion hint "
		"for the DCQCN\n"
		"                                 flows of CLASS leaving PORT "
		"towards PREFIX\n"
		"                                 (severity 0..1, default 1; "
		"prefix: all)\n"
		"  log-level LEVEL                err|warn|notice|info|debug\n"
		"  watch [--interval SEC] [--count N]  live rates, like top\n"
		"options:\n"
		"  -s, --socket SOCKET  control socket (default $" SOCKET_ENV
		" or " DEFAULT_SOCKET ")\n"
		"  -j, --json           print the result as one line of JSON\n"
		"      --timeout SEC    give up waiting after SEC seconds "
		"(default 30, 0: never)\n"
		"  -h, --help           this text\n"
		"  -V, --version        print the version\n");
}

static void say_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void say_error(const char *fmt, ...)
{
	va_list ap;

	fputs("xdplanectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_sigint(int sig)
{
	interrupted = 1;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- connection -------------------------------------------------------- */

static int conn_open(struct conn *c, const char *path, double timeout_s)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->path = path;
	c->timeout_s = timeout_s;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		say_error("cannot connect to %s: the path is longer than %zu "
			  "bytes",
			  path, sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		say_error("cannot create a socket: %s", strerror(errno));
		return -1;
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return 0;
	say_error("cannot connect to %s: %s", path, strerror(errno));
	if (errno == EACCES || errno == EPERM)
		say_error("the socket is mode 0660: run as root or as a member "
			  "of "
			  "its group");
	else
		say_error("is xdplane running? (another socket: -s or "
			  "$" SOCKET_ENV ")");
	close(c->fd);
	c->fd = -1;
	return -1;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
}

/* Wait until fd is ready for `events` or the deadline passes: 0 ready,
 * -1 timed out or interrupted (message printed unless interrupted). */
static int conn_wait(struct conn *c, short events, double deadline)
{
	struct pollfd pfd = {.fd = c->fd, .events = events};
	int ms, n;

	for (;;) {
		if (interrupted)
			return -1;
		if (c->timeout_s > 0) {
			double left = deadline - mono_s();

			if (left <= 0) {
				say_error("no answer from %s within %g s",
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
			say_error("poll: %s", strerror(errno));
			return -1;
		}
	}
}

static int conn_send(struct conn *c, const char *data, size_t len,
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
			say_error("connection closed by the daemon before an "
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
static char *conn_recv_line(struct conn *c, double deadline)
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
				say_error("out of memory");
				return NULL;
			}
			memcpy(line, c->buf, used);
			line[used] = '\0';
			memmove(c->buf, nl + 1, c->len - used - 1);
			c->len -= used + 1;
			return line;
		}
		if (c->len >= RESPONSE_MAX) {
			say_error("the daemon's answer is longer than %u bytes",
				  RESPONSE_MAX);
			return NULL;
		}
		if (c->cap - c->len < 65536) {
			size_t cap = c->cap ? c->cap * 2 : 65536;

			if (cap > RESPONSE_MAX + 1)
				cap = RESPONSE_MAX + 1;
			grown = realloc(c->buf, cap);
			if (!grown) {
				say_error("out of memory");
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
			say_error("connection closed by the daemon before an "
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
static json_t *conn_call(struct conn *c, json_t *req)
{
	double deadline = mono_s() + c->timeout_s;
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
		say_error("out of memory");
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
		say_error(
			"the daemon's answer is not a protocol v1 response%s%s",
			resp ? "" : ": ", resp ? "" : jerr.text);
		json_decref(resp);
		return NULL;
	}
	return resp;
}

/* Print an error response; the exit status for it. */
static int report_error(json_t *resp, const char *verb)
{
	json_t *e = json_object_get(resp, "error"), *reason, *details, *line;
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *msg = json_string_value(json_object_get(e, "message"));

	say_error("%s: %s", code ? code : "error", msg ? msg : "(no message)");
	if (verb && !strcmp(verb, "reload")) {
		/* The message is the reason; print whatever the daemon adds
		 * to it (file:line:col errors, the keys that need a
		 * restart). */
		reason = json_object_get(e, "reason");
		if (json_is_string(reason))
			say_error("reason: %s", json_string_value(reason));
		details = json_object_get(e, "details");
		for (size_t i = 0; (line = json_array_get(details, i)); i++)
			if (json_is_string(line))
				say_error("  %s", json_string_value(line));
	}
	return EXIT_DAEMON_ERROR;
}

static int handshake(struct conn *c)
{
	json_t *resp =
		conn_call(c, json_pack("{s:s,s:i}", "hello", "xdplanectl",
				       "version", PROTO_VERSION));
	int rc;

	if (!resp)
		return EXIT_NO_ANSWER;
	rc = json_is_true(json_object_get(resp, "ok"))
		     ? EXIT_OK
		     : report_error(resp, NULL);
	json_decref(resp);
	return rc;
}

/* ---- formatting ------------------------------------------------------- */

/* Counts: exact below 100000, else three significant digits and an SI
 * prefix ("1.23M"), then the suffix ("B", ...). Negative or unknown: "-". */
static const char *si(char *buf, size_t len, double v, const char *suffix)
{
	static const char prefixes[] = " kMGTPE";
	int p = 0;

	if (!isfinite(v) || v < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (v < 100000) {
		snprintf(buf, len,
			 v == (double)(uint64_t)v ? "%.0f%s" : "%.1f%s", v,
			 suffix);
		return buf;
	}
	while (v >= 1000 && p < 6) {
		v /= 1000;
		p++;
	}
	snprintf(buf, len,
		 v >= 100  ? "%.0f%c%s"
		 : v >= 10 ? "%.1f%c%s"
			   : "%.2f%c%s",
		 v, prefixes[p], suffix);
	return buf;
}

static json_int_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v) && isfinite(json_real_value(v)))
		return (json_int_t)json_real_value(v);
	return 0;
}

static double real_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

/* Sum of the integer members of o[key]. */
static json_int_t sum_of(json_t *o, const char *key)
{
	json_t *obj = json_object_get(o, key);
	json_int_t sum = 0;

	for (void *it = json_object_iter(obj); it;
	     it = json_object_iter_next(obj, it)) {
		json_t *v = json_object_iter_value(it);

		if (json_is_integer(v))
			sum += json_integer_value(v);
	}
	return sum;
}

/* A value as text: strings as they are, numbers exact, booleans yes/no,
 * null "-", the rest as compact JSON. */
static const char *text_of(json_t *v, char *buf, size_t len)
{
	char *s;

	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, len, "%g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	} else if (!v || json_is_null(v)) {
		snprintf(buf, len, "-");
	} else {
		s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, len, "%s", s ? s : "?");
		free(s);
	}
	return buf;
}

/* Cells filled row by row and printed with aligned columns: text columns
 * (bits of left_mask) left aligned, numbers right aligned. */
#define TABLE_MAX_COLS 16

struct table {
	int ncols;
	uint32_t left_mask; /* bit i: column i is left aligned */
	size_t n; /* cells so far */
	char **cells;
};

/* The first `left` columns are text. */
static void table_init(struct table *t, int ncols, int left)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
	t->left_mask = (1u << left) - 1;
}

static void cell(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cell(struct table *t, const char *fmt, ...)
{
	char **cells = realloc(t->cells, (t->n + 1) * sizeof(*cells));
	va_list ap;

	if (!cells)
		return;
	t->cells = cells;
	va_start(ap, fmt);
	if (vasprintf(&cells[t->n], fmt, ap) < 0)
		cells[t->n] = NULL;
	va_end(ap);
	t->n++;
}

static void cell_count(struct table *t, double v, const char *suffix)
{
	char buf[32];

	cell(t, "%s", si(buf, sizeof(buf), v, suffix));
}

static void cell_json(struct table *t, json_t *v)
{
	char buf[256];

	cell(t, "%s", text_of(v, buf, sizeof(buf)));
}

static void table_print(struct table *t)
{
	size_t width[TABLE_MAX_COLS] = {0}, n;
	const char *s;
	int col;

	for (size_t i = 0; i < t->n; i++) {
		n = t->cells[i] ? strlen(t->cells[i]) : 1;
		col = (int)(i % (size_t)t->ncols);
		if (n > width[col])
			width[col] = n;
	}
	for (size_t i = 0; i < t->n; i++) {
		s = t->cells[i] ? t->cells[i] : "-";
		col = (int)(i % (size_t)t->ncols);
		printf(t->left_mask & (1u << col) ? "%-*s" : "%*s",
		       (int)width[col], s);
		fputs(col + 1 < t->ncols && i + 1 < t->n ? "  " : "\n", stdout);
	}
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static void print_key_values(json_t *o)
{
	char buf[1024];

	for (void *it = json_object_iter(o); it;
	     it = json_object_iter_next(o, it))
		printf("%-20s %s\n", json_object_iter_key(it),
		       text_of(json_object_iter_value(it), buf, sizeof(buf)));
}

static void fmt_duration(char *buf, size_t len, double s)
{
	unsigned long long t = isfinite(s) && s > 0 ? (unsigned long long)s : 0;

	if (t >= 86400)
		snprintf(buf, len, "%llud %lluh %llum %llus", t / 86400,
			 t / 3600 % 24, t / 60 % 60, t % 60);
	else if (t >= 3600)
		snprintf(buf, len, "%lluh %llum %llus", t / 3600, t / 60 % 60,
			 t % 60);
	else if (t >= 60)
		snprintf(buf, len, "%llum %llus", t / 60, t % 60);
	else
		snprintf(buf, len, "%llus", t);
}

static void fmt_time(char *buf, size_t len, double unix_s)
{
	struct tm tm;
	time_t t;

	if (!isfinite(unix_s) || unix_s <= 0) {
		snprintf(buf, len, "never");
		return;
	}
	t = (time_t)unix_s;
	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%F %T", &tm))
		snprintf(buf, len, "%.0f", unix_s);
}

/* ---- verbs: human output --------------------------------------------- */

static void print_reload_line(json_t *rel)
{
	bool ok = json_is_true(json_object_get(rel, "last_successful"));
	json_t *why = json_object_get(rel, "last_error");
	char when[64];

	fmt_time(when, sizeof(when),
		 real_of(rel, ok ? "last_success_unix" : "last_attempt_unix"));
	printf("last reload  %s at %s (%" JSON_INTEGER_FORMAT
	       " attempts, %" JSON_INTEGER_FORMAT " failed)",
	       ok ? "ok" : "FAILED", when, num(rel, "attempts_total"),
	       num(rel, "failures_total"));
	if (json_is_string(why))
		printf(": %s", json_string_value(why));
	printf("\n");
}

/* Each line of text, the first after the label, the others indented. */
static void print_lines(const char *label, const char *text)
{
	const char *p = text, *nl;
	bool first = true;

	while (*p) {
		nl = strchr(p, '\n');
		printf("%s%.*s\n", first ? label : "             ",
		       (int)(nl ? nl - p : (ptrdiff_t)strlen(p)), p);
		first = false;
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void print_status(json_t *r)
{
	json_t *cfg = json_object_get(r, "config"), *ports, *placement, *v;
	char up[64], rate[32];
	struct table t;

	fmt_duration(up, sizeof(up), real_of(r, "uptime_s"));
	printf("xdplane %s, pid %" JSON_INTEGER_FORMAT ", up %s\n",
	       str(r, "version"), num(r, "pid"), up);
	printf("config       %s (generation %" JSON_INTEGER_FORMAT ")\n",
	       str(cfg, "path"), num(cfg, "generation"));
	print_reload_line(json_object_get(cfg, "reload"));
	printf("modes        xdp %s, bind %s, failure %s\n", str(r, "xdp_mode"),
	       str(r, "bind_mode"), str(r, "failure_mode"));
	printf("workers      %" JSON_INTEGER_FORMAT
	       ", umem %" JSON_INTEGER_FORMAT
	       " frames, max frame %" JSON_INTEGER_FORMAT " bytes\n",
	       num(r, "workers"), num(r, "umem_frames"), num(r, "max_frame"));
	if (json_is_true(json_object_get(r, "multibuf")))
		printf("multi-buffer on: up to %" JSON_INTEGER_FORMAT
		       " UMEM frames per packet\n",
		       num(r, "max_frags"));
	else
		printf("multi-buffer off: one UMEM frame per packet\n");
	v = json_object_get(r, "mem_node");
	if (json_is_integer(v))
		printf("memory       UMEM bound to NUMA node "
		       "%" JSON_INTEGER_FORMAT "\n",
		       json_integer_value(v));
	if (json_string_length(json_object_get(r, "umem")))
		printf("umem         %s\n", str(r, "umem"));
	if (json_string_length(json_object_get(r, "placement_why")))
		print_lines("placement    ", str(r, "placement_why"));
	ports = json_object_get(r, "ports");
	for (size_t i = 0; (v = json_array_get(ports, i)); i++) {
		if (num(v, "rate_bps"))
			si(rate, sizeof(rate), (double)num(v, "rate_bps"),
			   "bit/s");
		else
			snprintf(rate, sizeof(rate), "unshaped");
		printf("port         %s: %s, %" JSON_INTEGER_FORMAT
		       " queues, %" JSON_INTEGER_FORMAT " classes\n",
		       str(v, "name"), rate, num(v, "queues"),
		       num(v, "classes"));
	}
	printf("\n");
	table_init(&t, 4, 1);
	cell(&t, "PORT");
	cell(&t, "QUEUE");
	cell(&t, "WORKER");
	cell(&t, "CPU");
	placement = json_object_get(r, "placement");
	for (size_t i = 0; (v = json_array_get(placement, i)); i++) {
		cell(&t, "%s", str(v, "port"));
		cell_json(&t, json_object_get(v, "queue"));
		cell_json(&t, json_object_get(v, "worker"));
		cell_json(&t, json_object_get(v, "cpu"));
	}
	table_print(&t);
}

/* Frames the gateway dropped (handoff ring full, invalid descriptors,
 * multi-buffer, malformed) of a port or queue object. */
static json_int_t port_drops(json_t *p)
{
	return sum_of(p, "drops");
}

/* Frames the kernel dropped before the socket. */
static json_int_t xsk_drops(json_t *p)
{
	json_t *x = json_object_get(p, "xsk");

	return num(x, "rx_dropped") + num(x, "rx_ring_full") +
	       num(x, "rx_fill_ring_empty_descs");
}

static void print_header(struct table *t, const char *const *names)
{
	for (int i = 0; i < t->ncols; i++)
		cell(t, "%s", names[i]);
}

/* PFC per port and priority, the rows with anything counted (none: no
 * table). */
static void print_pfc(json_t *ports)
{
	static const char *const cols[] = {"PORT",     "PRIO",	    "RX_PFC",
					   "RX_XON",   "TX_XOFF",   "TX_XON",
					   "PAUSED_S", "WD_STORMS", "WD_DROPS"};
	static const char *const keys[] = {
		"pfc_rx",    "pfc_rx_xon",	"pfc_tx_xoff",	 "pfc_tx_xon",
		"paused_ns", "watchdog_storms", "watchdog_drops"};
	json_t *p;
	struct table t;
	int rows = 0;

	table_init(&t, 9, 2);
	print_header(&t, cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *f = json_object_get(p, "pfc");

		for (size_t prio = 0; prio < 8; prio++) {
			json_int_t v[7], any = 0;

			for (int k = 0; k < 7; k++) {
				v[k] = json_integer_value(json_array_get(
					json_object_get(f, keys[k]), prio));
				any |= v[k];
			}
			if (!any)
				continue;
			rows++;
			cell(&t, "%s", str(p, "name"));
			cell(&t, "%zu", prio);
			cell_count(&t, (double)v[0], "");
			cell_count(&t, (double)v[1], "");
			cell_count(&t, (double)v[2], "");
			cell_count(&t, (double)v[3], "");
			cell(&t, "%.3f", (double)v[4] / 1e9);
			cell_count(&t, (double)v[5], "");
			cell_count(&t, (double)v[6], "");
		}
	}
	if (rows)
		printf("\n");
	else
		t.n = t.ncols; /* the header alone: not printed */
	if (rows)
		table_print(&t);
	for (size_t i = 0; !rows && i < t.n; i++)
		free(t.cells[i]);
	if (!rows)
		free(t.cells);
}

static void print_stats(json_t *r)
{
	static const char *const port_cols[] = {
		"PORT",	    "RX_PKTS", "RX_BYTES",  "TX_PKTS",
		"TX_BYTES", "DROPS",   "XSK_DROPS", "FAILOPEN"};
	static const char *const queue_cols[] = {"PORT",  "QUEUE",    "WORKER",
						 "CPU",	  "RX_PKTS",  "TX_PKTS",
						 "DROPS", "XSK_DROPS"};
	static const char *const class_cols[] = {
		"EGRESS",     "CLASS",	     "SENT_PKTS", "SENT_BYTES",
		"DEPTH_PKTS", "DEPTH_BYTES", "DROPS",	  "ECN_MARKS"};
	json_t *ports = json_object_get(r, "ports"), *p, *v;
	struct table t;

	table_init(&t, 8, 1);
	print_header(&t, port_cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		cell(&t, "%s", str(p, "name"));
		cell_count(&t, (double)num(p, "rx_packets"), "");
		cell_count(&t, (double)num(p, "rx_bytes"), "B");
		cell_count(&t, (double)num(p, "tx_packets"), "");
		cell_count(&t, (double)num(p, "tx_bytes"), "B");
		cell_count(&t, (double)port_drops(p), "");
		cell_count(&t, (double)xsk_drops(p), "");
		cell_count(&t,
			   (double)num(json_object_get(p, "xdp"),
				       "failopen_redirect"),
			   "");
	}
	table_print(&t);

	printf("\n");
	table_init(&t, 8, 1);
	print_header(&t, queue_cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *queues = json_object_get(p, "queues");

		for (size_t j = 0; (v = json_array_get(queues, j)); j++) {
			cell(&t, "%s", str(p, "name"));
			cell_json(&t, json_object_get(v, "queue"));
			cell_json(&t, json_object_get(v, "worker"));
			cell_json(&t, json_object_get(v, "cpu"));
			cell_count(&t, (double)num(v, "rx_packets"), "");
			cell_count(&t, (double)num(v, "tx_packets"), "");
			cell_count(&t, (double)port_drops(v), "");
			cell_count(&t, (double)xsk_drops(v), "");
		}
	}
	table_print(&t);

	printf("\n");
	table_init(&t, 8, 2);
	print_header(&t, class_cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *classes = json_object_get(p, "classes");

		for (size_t j = 0; (v = json_array_get(classes, j)); j++) {
			cell(&t, "%s", str(p, "name"));
			cell(&t, "%s", str(v, "name"));
			cell_count(&t, (double)num(v, "sent_packets"), "");
			cell_count(&t, (double)num(v, "sent_bytes"), "B");
			cell_count(&t, (double)num(v, "depth_packets"), "");
			cell_count(&t, (double)num(v, "depth_bytes"), "B");
			cell_count(&t, (double)sum_of(v, "drops"), "");
			cell_count(&t, (double)num(v, "ecn_marks"), "");
		}
	}
	table_print(&t);
	print_pfc(ports);
}

/* A configured rate; 0 (none): "-". */
static void cell_rate(struct table *t, json_int_t bps)
{
	if (bps)
		cell_count(t, (double)bps, "bit/s");
	else
		cell(t, "-");
}

static void print_classes(json_t *r)
{
	static const char *const cols[] = {
		"EGRESS", "CLASS",     "LEVEL",	     "QUANTUM",	 "CEIL",
		"MIN",	  "LIMIT",     "LIMIT_PKTS", "ECN",	 "LOSSLESS",
		"PCP",	  "SENT_PKTS", "DROPS",	     "ECN_MARKS"};
	json_t *ports = json_object_get(r, "ports"), *p, *v;
	struct table t;

	table_init(&t, 14, 2);
	print_header(&t, cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *classes = json_object_get(p, "classes");

		for (size_t j = 0; (v = json_array_get(classes, j)); j++) {
			cell(&t, "%s", str(p, "name"));
			cell(&t, "%s", str(v, "name"));
			cell_json(&t, json_object_get(v, "level"));
			cell_json(&t, json_object_get(v, "quantum"));
			cell_rate(&t, num(v, "ceil_bps"));
			cell_rate(&t, num(v, "min_bps"));
			cell_count(&t, (double)num(v, "limit_bytes"), "B");
			cell_count(&t, (double)num(v, "limit_packets"), "");
			cell_json(&t, json_object_get(v, "ecn"));
			cell_json(&t, json_object_get(v, "lossless"));
			cell_json(&t, json_object_get(v, "pcp"));
			cell_count(&t, (double)num(v, "sent_packets"), "");
			cell_count(&t, (double)sum_of(v, "drops"), "");
			cell_count(&t, (double)num(v, "ecn_marks"), "");
		}
	}
	table_print(&t);
}

/* The flows as a table, columns from the first flow's keys (at most
 * TABLE_MAX_COLS), upper-cased; other shapes one value per line. */
static void print_flows(json_t *r)
{
	json_t *flows = json_object_get(r, "flows");
	json_t *first = json_array_get(flows, 0), *f;
	const char *keys[TABLE_MAX_COLS];
	char buf[256];
	struct table t;
	int n = 0;

	if (!first) {
		printf("no flows\n");
		return;
	}
	if (!json_is_object(first) || !json_object_size(first)) {
		for (size_t i = 0; (f = json_array_get(flows, i)); i++)
			printf("%s\n", text_of(f, buf, sizeof(buf)));
		return;
	}
	for (void *it = json_object_iter(first); it && n < TABLE_MAX_COLS;
	     it = json_object_iter_next(first, it))
		keys[n++] = json_object_iter_key(it);
	table_init(&t, n, 0);
	for (int c = 0; c < n; c++) {
		if (!json_is_number(json_object_get(first, keys[c])))
			t.left_mask |= 1u << c;
		snprintf(buf, sizeof(buf), "%s", keys[c]);
		for (char *s = buf; *s; s++)
			if (*s >= 'a' && *s <= 'z')
				*s = (char)(*s - 'a' + 'A');
		cell(&t, "%s", buf);
	}
	for (size_t i = 0; (f = json_array_get(flows, i)); i++)
		for (int c = 0; c < n; c++)
			cell_json(&t, json_object_get(f, keys[c]));
	table_print(&t);
}

/* ---- watch ------------------------------------------------------------ */

static json_t *find_named(json_t *arr, const char *name)
{
	json_t *v;

	for (size_t i = 0; (v = json_array_get(arr, i)); i++)
		if (!strcmp(str(v, "name"), name))
			return v;
	return NULL;
}

/* (cur - prev) / dt, never negative (a counter that went back). */
static double per_s(json_int_t cur, json_int_t prev, double dt)
{
	return cur > prev ? (double)(cur - prev) / dt : 0.0;
}

static json_t *class_rates(json_t *c, json_t *pc, double dt)
{
	return json_pack(
		"{s:s,s:f,s:f,s:f,s:f,s:I,s:I}", "name", str(c, "name"),
		"sent_pps",
		per_s(num(c, "sent_packets"), num(pc, "sent_packets"), dt),
		"sent_bps",
		8 * per_s(num(c, "sent_bytes"), num(pc, "sent_bytes"), dt),
		"drops_per_s",
		per_s(sum_of(c, "drops"), sum_of(pc, "drops"), dt),
		"ecn_marks_per_s",
		per_s(num(c, "ecn_marks"), num(pc, "ecn_marks"), dt),
		"depth_packets", num(c, "depth_packets"), "depth_bytes",
		num(c, "depth_bytes"));
}

static json_t *port_rates(json_t *p, json_t *pp, double dt)
{
	json_t *classes = json_array(), *cs = json_object_get(p, "classes");
	json_t *c, *pc;

	for (size_t j = 0; (c = json_array_get(cs, j)); j++) {
		pc = find_named(json_object_get(pp, "classes"), str(c, "name"));
		if (pc)
			json_array_append_new(classes, class_rates(c, pc, dt));
	}
	return json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:o}", "name",
			 str(p, "name"), "rx_pps",
			 per_s(num(p, "rx_packets"), num(pp, "rx_packets"), dt),
			 "rx_bps",
			 8 * per_s(num(p, "rx_bytes"), num(pp, "rx_bytes"), dt),
			 "tx_pps",
			 per_s(num(p, "tx_packets"), num(pp, "tx_packets"), dt),
			 "tx_bps",
			 8 * per_s(num(p, "tx_bytes"), num(pp, "tx_bytes"), dt),
			 "drops_per_s",
			 per_s(port_drops(p) + xsk_drops(p),
			       port_drops(pp) + xsk_drops(pp), dt),
			 "classes", classes);
}

/* Rates between two stats results, over the daemon's clock (the client's
 * when the daemon's did not advance). Ports and classes are matched by
 * name, so a reload that adds a class does not shift the others. */
static json_t *watch_rates(json_t *prev, json_t *cur, double client_dt)
{
	json_int_t t0 = num(prev, "now_mono_ns"), t1 = num(cur, "now_mono_ns");
	double dt = t1 > t0 ? (double)(t1 - t0) / 1e9 : client_dt;
	json_t *ports = json_array(), *cp = json_object_get(cur, "ports");
	json_t *p, *pp;

	if (!(dt > 0))
		dt = 1e-9;
	for (size_t i = 0; (p = json_array_get(cp, i)); i++) {
		pp = find_named(json_object_get(prev, "ports"), str(p, "name"));
		if (pp)
			json_array_append_new(ports, port_rates(p, pp, dt));
	}
	return json_pack("{s:f,s:o}", "interval_s", dt, "ports", ports);
}

static void print_watch(json_t *rates, unsigned long n, bool tty)
{
	static const char *const port_cols[] = {
		"PORT", "RX_PPS", "RX_BIT/S", "TX_PPS", "TX_BIT/S", "DROPS/S"};
	static const char *const class_cols[] = {
		"EGRESS",  "CLASS", "SENT_PPS",	  "SENT_BIT/S",
		"DROPS/S", "ECN/S", "DEPTH_PKTS", "DEPTH_BYTES"};
	json_t *ports = json_object_get(rates, "ports"), *p, *v;
	char when[64];
	struct table t;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (n > 1)
		fputs("\n", stdout);
	fmt_time(when, sizeof(when), (double)time(NULL));
	printf("xdplane watch  %s  interval %.2f s  refresh %lu\n\n", when,
	       real_of(rates, "interval_s"), n);
	table_init(&t, 6, 1);
	print_header(&t, port_cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		cell(&t, "%s", str(p, "name"));
		cell_count(&t, real_of(p, "rx_pps"), "");
		cell_count(&t, real_of(p, "rx_bps"), "");
		cell_count(&t, real_of(p, "tx_pps"), "");
		cell_count(&t, real_of(p, "tx_bps"), "");
		cell_count(&t, real_of(p, "drops_per_s"), "");
	}
	table_print(&t);
	printf("\n");
	table_init(&t, 8, 2);
	print_header(&t, class_cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *classes = json_object_get(p, "classes");

		for (size_t j = 0; (v = json_array_get(classes, j)); j++) {
			cell(&t, "%s", str(p, "name"));
			cell(&t, "%s", str(v, "name"));
			cell_count(&t, real_of(v, "sent_pps"), "");
			cell_count(&t, real_of(v, "sent_bps"), "");
			cell_count(&t, real_of(v, "drops_per_s"), "");
			cell_count(&t, real_of(v, "ecn_marks_per_s"), "");
			cell_count(&t, real_of(v, "depth_packets"), "");
			cell_count(&t, real_of(v, "depth_bytes"), "B");
		}
	}
	table_print(&t);
	fflush(stdout);
}

/* Sleep until `until` (monotonic), or SIGINT: 0 / -1. */
static int sleep_until(double until)
{
	struct timespec ts;
	double left;

	while (!interrupted && (left = until - mono_s()) > 0) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	return interrupted ? -1 : 0;
}

/* The result of one stats request; NULL with *rc set when there is none. */
static json_t *fetch_stats(struct conn *c, int *rc)
{
	json_t *resp = conn_call(c, json_pack("{s:s}", "command", "stats"));
	json_t *result;

	if (!resp) {
		*rc = interrupted ? EXIT_OK : EXIT_NO_ANSWER;
		return NULL;
	}
	if (!json_is_true(json_object_get(resp, "ok"))) {
		*rc = report_error(resp, "stats");
		json_decref(resp);
		return NULL;
	}
	result = json_incref(json_object_get(resp, "result"));
	json_decref(resp);
	if (!result) {
		say_error("the daemon's answer has no result");
		*rc = EXIT_NO_ANSWER;
	}
	return result;
}

static int run_watch(struct conn *c, const struct options *o)
{
	struct sigaction sa = {.sa_handler = on_sigint};
	bool tty = isatty(STDOUT_FILENO);
	json_t *prev, *cur, *rates;
	double t_prev, next;
	char *line;
	int rc = EXIT_OK;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: wake poll/sleep */
	sigaction(SIGTERM, &sa, NULL);
	prev = fetch_stats(c, &rc);
	if (!prev)
		return rc;
	t_prev = mono_s();
	next = t_prev + o->interval_s;
	for (unsigned long n = 1; o->count == 0 || n <= o->count; n++) {
		if (sleep_until(next))
			break;
		next += o->interval_s;
		cur = fetch_stats(c, &rc);
		if (!cur)
			break;
		rates = watch_rates(prev, cur, mono_s() - t_prev);
		t_prev = mono_s();
		if (o->json) {
			line = rates ? json_dumps(rates, JSON_COMPACT) : NULL;
			printf("%s\n", line ? line : "{}");
			fflush(stdout);
			free(line);
		} else if (rates) {
			print_watch(rates, n, tty);
		}
		json_decref(rates);
		json_decref(prev);
		prev = cur;
	}
	json_decref(prev);
	return interrupted ? EXIT_OK : rc;
}

/* ---- main ------------------------------------------------------------- */

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* The request for verb + its arguments, or NULL (usage error printed). */
static json_t *build_request(const char *verb, int argc, char **argv)
{
	json_t *args = json_object();
	char *end;
	double sev;

	if (!strcmp(verb, "status") || !strcmp(verb, "classes") ||
	    !strcmp(verb, "flows") || !strcmp(verb, "reload")) {
		if (argc != 0)
			goto usage;
	} else if (!strcmp(verb, "stats")) {
		if (argc > 1)
			goto usage;
		if (argc == 1)
			json_object_set_new(args, "port", json_string(argv[0]));
	} else if (!strcmp(verb, "congestion")) {
		if (argc < 2 || argc > 4)
			goto usage;
		json_object_set_new(args, "port", json_string(argv[0]));
		json_object_set_new(args, "class", json_string(argv[1]));
		if (argc == 4)
			json_object_set_new(args, "prefix",
					    json_string(argv[3]));
		if (argc >= 3) {
			errno = 0;
			sev = strtod(argv[2], &end);
			if (errno || end == argv[2] || *end || !isfinite(sev)) {
				say_error("severity \"%s\" is not a number",
					  argv[2]);
				goto usage;
			}
			json_object_set_new(args, "severity", json_real(sev));
		}
	} else if (!strcmp(verb, "log-level")) {
		if (argc != 1)
			goto usage;
		json_object_set_new(args, "level", json_string(argv[0]));
	} else {
		say_error("unknown verb \"%s\"", verb);
		goto usage;
	}
	return json_pack("{s:s,s:o}", "command", verb, "args", args);
usage:
	json_decref(args);
	usage(stderr);
	return NULL;
}

static void print_result(const char *verb, json_t *req, json_t *result,
			 bool as_json)
{
	json_t *args = json_object_get(req, "args");
	char *s;

	if (as_json) {
		s = json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s\n", s ? s : "null");
		free(s);
	} else if (!strcmp(verb, "status")) {
		print_status(result);
	} else if (!strcmp(verb, "stats")) {
		print_stats(result);
	} else if (!strcmp(verb, "classes")) {
		print_classes(result);
	} else if (!strcmp(verb, "flows")) {
		print_flows(result);
	} else if (!strcmp(verb, "log-level")) {
		printf("log level %s -> %s\n", str(result, "previous"),
		       str(result, "level"));
	} else if (!strcmp(verb, "reload")) {
		printf("reload applied\n");
		print_key_values(result);
	} else {
		printf("congestion signalled on %s class %s\n",
		       str(args, "port"), str(args, "class"));
		print_key_values(result);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"socket", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 'T'},
		{"interval", required_argument, NULL, 'I'},
		{"count", required_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct options o = {.timeout_s = 30, .interval_s = 1};
	const char *verb;
	json_t *req, *resp;
	struct conn c;
	char *end;
	int opt, rc;

	o.socket = getenv(SOCKET_ENV);
	if (!o.socket || !*o.socket)
		o.socket = DEFAULT_SOCKET;
	while ((opt = getopt_long(argc, argv, "s:jhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			o.socket = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'T':
			if (parse_seconds(optarg, &o.timeout_s)) {
				say_error("--timeout wants seconds, not \"%s\"",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case 'I':
			if (parse_seconds(optarg, &o.interval_s) ||
			    o.interval_s < 0.01) {
				say_error("--interval wants seconds (at least "
					  "0.01), not \"%s\"",
					  optarg);
				return EXIT_USAGE;
			}
			o.watch_opts = true;
			break;
		case 'N':
			errno = 0;
			o.count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-') {
				say_error("--count wants a number, not \"%s\"",
					  optarg);
				return EXIT_USAGE;
			}
			o.watch_opts = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("xdplanectl %s\n", XDPLANE_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	verb = argv[optind++];
	if (!strcmp(verb, "watch")) {
		if (optind != argc) {
			usage(stderr);
			return EXIT_USAGE;
		}
		req = NULL;
	} else {
		if (o.watch_opts) {
			say_error("--interval and --count are for watch");
			return EXIT_USAGE;
		}
		req = build_request(verb, argc - optind, argv + optind);
		if (!req)
			return EXIT_USAGE;
	}

	if (conn_open(&c, o.socket, o.timeout_s)) {
		json_decref(req);
		return EXIT_NO_ANSWER;
	}
	rc = handshake(&c);
	if (rc == EXIT_OK && !req) {
		rc = run_watch(&c, &o);
	} else if (rc == EXIT_OK) {
		resp = conn_call(&c, json_incref(req));
		if (!resp)
			rc = EXIT_NO_ANSWER;
		else if (!json_is_true(json_object_get(resp, "ok")))
			rc = report_error(resp, verb);
		else
			print_result(verb, req, json_object_get(resp, "result"),
				     o.json);
		json_decref(resp);
	}
	json_decref(req);
	conn_close(&c);
	return rc;
}
