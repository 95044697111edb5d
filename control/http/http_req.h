/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * http_req.h - the metrics endpoint's HTTP/1.x: parse one request head
 * (http_req.c) and build the whole response (http_respond.c). Both are
 * pure: no sockets, no clock, no global state; the caller (the control
 * thread's metrics server) owns the connection and its buffer.
 *
 * Parsing is stateless: http_req_parse() is called with everything
 * received so far, as often as bytes arrive, and re-reads from the start
 * (O(len) per call, len <= HTTP_REQ_MAX). It never reads past buf[len)
 * and never writes past *req. It answers
 *   HTTP_NEED_MORE  no error so far and the head has not ended;
 *   HTTP_DONE       the head ended (an empty line) at head_len; anything
 *                   after it is ignored (no body, no pipelining);
 *   HTTP_BAD        req->status says what to answer.
 * The first offending byte decides: a result found for a prefix is the
 * result for every longer buffer with that prefix (a request is rejected
 * as soon as its bytes cannot start a valid one, without waiting).
 *
 * What is accepted (RFC 9112, strict):
 *   *(CRLF) request-line *(field-line) CRLF, where every CRLF may be a bare
 *   LF (a CR must be followed by LF);
 *   request-line = token SP origin-form SP "HTTP/1." ("0" | "1");
 *   origin-form  = "/" followed by pchar / "/" / "?" (pct-encoding checked,
 *                  not decoded); the path is the part before "?";
 *   field-line   = token ":" value, value = VCHAR, obs-text, SP, HTAB.
 * Status of a rejection:
 *   400  syntax (incl. obs-fold, whitespace before ":", control bytes, a
 *        target not in origin-form such as "*" or an absolute URI),
 *        Content-Length other than 0, any Transfer-Encoding (no bodies);
 *   414  the path does not fit in req->path (255 bytes);
 *   431  no end of head within HTTP_REQ_MAX bytes;
 *   501  a method longer than 7 bytes (none of ours is);
 *   505  a well-formed version other than HTTP/1.0 and HTTP/1.1.
 * The Host field is not required (no virtual hosts here).
 *
 * Thread: any (no shared state). Syscalls: none, but http_respond()
 * allocates (malloc/free: brk, mmap, munmap) and calls take_snapshot and
 * release, which issue their own. Errors: 0 or -errno.
 */
#ifndef XDPLANE_HTTP_REQ_H
#define XDPLANE_HTTP_REQ_H

#include <stddef.h>

#define HTTP_REQ_MAX 8192

enum http_parse { HTTP_NEED_MORE, HTTP_DONE, HTTP_BAD };

struct http_req {
	char method[8]; /* as received, NUL-terminated; "" if too long */
	char path[256]; /* request-target before '?', NUL-terminated */
	int version_minor; /* HTTP/1.<minor>, 0 or 1 with HTTP_DONE */
	int status; /* with HTTP_BAD: 400, 414, 431, 501 or 505 */
	size_t head_len; /* with HTTP_DONE: bytes of the head incl. the
			  * blank line, <= HTTP_REQ_MAX */
};

/* req is always fully written (zeroed first). buf may be NULL if len is 0.
 * A NULL req returns HTTP_BAD. */
enum http_parse http_req_parse(const char *buf, size_t len,
			       struct http_req *req);

struct stats_snapshot;

struct http_reply {
	char *data; /* malloc'd head + body; the caller frees it */
	size_t len;
};

/*
 * The response to one request, with "Connection: close" (one request per
 * connection), Content-Length, and an HTTP/1.<minor> status line mirroring
 * the request (HTTP/1.1 when req is NULL).
 *
 *   GET|HEAD /metrics   200, text/plain; version=0.0.4; charset=utf-8, the
 *                       metrics_render() of take_snapshot(ctx), which is
 *                       then given back with release(ctx, snap) (release
 *                       may be NULL); 503 if take_snapshot is NULL or
 *                       returns NULL, 500 if rendering fails;
 *   GET|HEAD /healthz   200 "ok\n";
 *   GET|HEAD /          200, a short index naming /metrics and /healthz;
 *   GET|HEAD other      404;
 *   other methods       405 with "Allow: GET, HEAD";
 *   req NULL            bad_status (400 if it is not one of the parser's
 *                       statuses) with a one-line text body.
 * HEAD gets the head only, with the Content-Length of the GET body.
 * take_snapshot is called for /metrics only. The query string is ignored.
 *
 * Returns 0 with out filled, or -ENOMEM / -EINVAL (out NULL) with
 * out->data NULL.
 */
int http_respond(const struct http_req *req, int bad_status,
		 struct stats_snapshot *(*take_snapshot)(void *ctx),
		 void (*release)(void *ctx, struct stats_snapshot *snap),
		 void *ctx, struct http_reply *out);

#endif
