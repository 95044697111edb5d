// SPDX-License-Identifier: BSD-2-Clause
/*
 * http_respond.c - the metrics endpoint's routes: one parsed request (or a
 * parse failure) in, one complete HTTP/1.x response out (routes and
 * contract in http_req.h).
 *
 * Kept apart from http_req.c so the parser has no link-time dependency
 * (the fuzz target builds http_req.c alone); this file calls
 * metrics_render().
 *
 * Ownership: the snapshot comes from take_snapshot() and goes back through
 * release() before http_respond() returns; the reply buffer is malloc'd
 * here and owned by the caller. The head is at most a few hundred bytes;
 * the body is the rendered metrics or a constant.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http_req.h"
#include "metrics.h"
#include "snapshot.h"

#define CONTENT_TYPE_TEXT "text/plain; charset=utf-8"
#define CONTENT_TYPE_METRICS "text/plain; version=0.0.4; charset=utf-8"

static const char index_body[] =
	"xdplane\n"
	"/metrics  Prometheus metrics (text format 0.0.4)\n"
	"/healthz  health: 200 \"ok\", or 503 \"degraded: <reasons>\"\n";

struct response {
	int status;
	const char *content_type;
	const char *extra_header; /* "Name: value\r\n" or "" */
	const char *body; /* body[0..body_len) */
	size_t body_len;
	char *owned_body; /* freed after the reply is built */
	bool head_only;
};

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Unknown";
	}
}

/* arr[0..size) holds a NUL-terminated string equal to s */
static bool array_equals(const char *arr, size_t size, const char *s)
{
	return strnlen(arr, size) < size && strcmp(arr, s) == 0;
}

static bool is_parse_status(int status)
{
	return status == 400 || status == 414 || status == 431 ||
	       status == 501 || status == 505;
}

/* A text body that is the status line's reason, e.g. "404 Not Found\n". */
static void error_response(struct response *r, int status, char *buf,
			   size_t size)
{
	int n = snprintf(buf, size, "%d %s\n", status, reason_phrase(status));

	r->status = status;
	r->content_type = CONTENT_TYPE_TEXT;
	r->body = buf;
	r->body_len = n > 0 && (size_t)n < size ? (size_t)n : 0;
}

static void metrics_response(struct response *r,
			     struct stats_snapshot *(*take)(void *ctx),
			     void (*release)(void *, struct stats_snapshot *),
			     void *ctx, char *errbuf, size_t errsize)
{
	struct stats_snapshot *snap = take ? take(ctx) : NULL;
	char *text = NULL;
	size_t text_len = 0;
	FILE *f;
	int rc;

	if (!snap) {
		error_response(r, 503, errbuf, errsize);
		return;
	}
	f = open_memstream(&text, &text_len);
	rc = f ? metrics_render(snap, f) : -ENOMEM;
	if (f && fclose(f) && !rc)
		rc = -EIO;
	if (release)
		release(ctx, snap);
	if (rc) {
		free(text);
		error_response(r, 500, errbuf, errsize);
		return;
	}
	r->status = 200;
	r->content_type = CONTENT_TYPE_METRICS;
	r->body = text;
	r->body_len = text_len;
	r->owned_body = text;
}

/* 200 "ok", or 503 "degraded: <reason>: <message>; ..." on one line:
 * the daemon's health decision (health.h) in a fresh snapshot. */
static void health_response(struct response *r,
			    struct stats_snapshot *(*take)(void *ctx),
			    void (*release)(void *, struct stats_snapshot *),
			    void *ctx, char *errbuf, size_t errsize)
{
	struct stats_snapshot *snap = take ? take(ctx) : NULL;
	char *text = NULL;
	int n;

	if (!snap) {
		error_response(r, 503, errbuf, errsize);
		return;
	}
	if (health_ok(&snap->health))
		n = asprintf(&text, "ok\n");
	else
		n = asprintf(&text, "degraded: %.*s\n",
			     (int)sizeof(snap->health.line), snap->health.line);
	r->status = health_ok(&snap->health) ? 200 : 503;
	if (release)
		release(ctx, snap);
	if (n < 0) {
		error_response(r, 500, errbuf, errsize);
		return;
	}
	r->body = text;
	r->body_len = (size_t)n;
	r->owned_body = text;
}

static int build_reply(const struct response *r, int minor,
		       struct http_reply *out)
{
	char head[512];
	size_t body_len = r->head_only ? 0 : r->body_len;
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.%d %d %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "%s"
		     "Connection: close\r\n"
		     "\r\n",
		     minor, r->status, reason_phrase(r->status),
		     r->content_type, r->body_len, r->extra_header);
	if (n < 0 || (size_t)n >= sizeof(head))
		return -EINVAL; /* cannot happen: every field is ours */
	out->data = malloc((size_t)n + body_len + 1);
	if (!out->data)
		return -ENOMEM;
	memcpy(out->data, head, (size_t)n);
	if (body_len)
		memcpy(out->data + n, r->body, body_len);
	out->data[(size_t)n + body_len] = '\0'; /* for printing in tests */
	out->len = (size_t)n + body_len;
	return 0;
}

int http_respond(const struct http_req *req, int bad_status,
		 struct stats_snapshot *(*take_snapshot)(void *ctx),
		 void (*release)(void *ctx, struct stats_snapshot *snap),
		 void *ctx, struct http_reply *out)
{
	struct response r = {.content_type = CONTENT_TYPE_TEXT,
			     .extra_header = ""};
	char errbuf[64];
	int minor = 1, rc;
	bool get, head;

	if (!out)
		return -EINVAL;
	out->data = NULL;
	out->len = 0;
	if (!req) {
		error_response(&r,
			       is_parse_status(bad_status) ? bad_status : 400,
			       errbuf, sizeof(errbuf));
		return build_reply(&r, minor, out);
	}
	if (req->version_minor == 0)
		minor = 0;
	get = array_equals(req->method, sizeof(req->method), "GET");
	head = array_equals(req->method, sizeof(req->method), "HEAD");
	r.head_only = head;
	if (!get && !head) {
		error_response(&r, 405, errbuf, sizeof(errbuf));
		r.extra_header = "Allow: GET, HEAD\r\n";
	} else if (array_equals(req->path, sizeof(req->path), "/metrics")) {
		metrics_response(&r, take_snapshot, release, ctx, errbuf,
				 sizeof(errbuf));
	} else if (array_equals(req->path, sizeof(req->path), "/healthz")) {
		health_response(&r, take_snapshot, release, ctx, errbuf,
				sizeof(errbuf));
	} else if (array_equals(req->path, sizeof(req->path), "/")) {
		r.status = 200;
		r.body = index_body;
		r.body_len = sizeof(index_body) - 1;
	} else {
		error_response(&r, 404, errbuf, sizeof(errbuf));
	}
	rc = build_reply(&r, minor, out);
	free(r.owned_body);
	return rc;
}
