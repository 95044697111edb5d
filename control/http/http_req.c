// SPDX-License-Identifier: BSD-2-Clause
/*
 * http_req.c - stateless parser of one HTTP/1.x request head (grammar,
 * statuses and guarantees in http_req.h).
 *
 * One forward pass over buf[0..limit), limit = min(len, HTTP_REQ_MAX),
 * with a cursor. Every step returns STEP_OK (continue), STEP_MORE (the
 * cursor reached limit before the element ended) or STEP_BAD (req->status
 * set at the offending byte). Because each byte is judged only on the
 * bytes before it, a verdict for a prefix holds for every extension of
 * that prefix. STEP_MORE turns into 431 when the caller's buffer is
 * already HTTP_REQ_MAX bytes long, else into HTTP_NEED_MORE.
 *
 * No allocation; the only writes are into *req, bounded by its arrays.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include "http_req.h"

enum step { STEP_OK, STEP_MORE, STEP_BAD };

struct cursor {
	const unsigned char *buf;
	size_t limit; /* bytes that may be examined */
	size_t pos;
};

static int peek(const struct cursor *c)
{
	return c->pos < c->limit ? c->buf[c->pos] : -1;
}

static enum step fail(struct http_req *req, int status)
{
	req->status = status;
	return STEP_BAD;
}

static bool is_digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_hexdig(int ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

/* RFC 9110 tchar */
static bool is_tchar(int ch)
{
	return is_alpha(ch) || is_digit(ch) ||
	       (ch > 0 && strchr("!#$%&'*+-.^_`|~", ch));
}

/* RFC 3986 pchar without pct-encoded (checked by the caller) */
static bool is_pchar(int ch)
{
	return is_alpha(ch) || is_digit(ch) ||
	       (ch > 0 && strchr("-._~!$&'()*+,;=:@", ch));
}

/* field-value bytes: VCHAR, obs-text, SP, HTAB */
static bool is_field_byte(int ch)
{
	return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

/* At a CR or LF: consume CRLF or a bare LF. */
static enum step line_end(struct cursor *c, struct http_req *req)
{
	if (c->buf[c->pos] == '\n') {
		c->pos++;
		return STEP_OK;
	}
	if (c->pos + 1 >= c->limit)
		return STEP_MORE;
	if (c->buf[c->pos + 1] != '\n')
		return fail(req, 400); /* bare CR */
	c->pos += 2;
	return STEP_OK;
}

/* token SP, copied into req->method */
static enum step parse_method(struct cursor *c, struct http_req *req)
{
	size_t n = 0;
	int ch;

	while ((ch = peek(c)) != ' ') {
		if (ch < 0)
			return STEP_MORE;
		if (!is_tchar(ch))
			return fail(req, 400);
		if (n + 1 >= sizeof(req->method)) {
			req->method[0] = '\0';
			return fail(req, 501);
		}
		req->method[n++] = (char)ch;
		c->pos++;
	}
	if (n == 0)
		return fail(req, 400);
	c->pos++;
	return STEP_OK;
}

/* origin-form SP; the part before '?' into req->path */
static enum step parse_target(struct cursor *c, struct http_req *req)
{
	bool in_query = false;
	int pct_digits = 0; /* hex digits still owed to a '%' */
	size_t n = 0;
	int ch;

	if (peek(c) < 0)
		return STEP_MORE;
	if (peek(c) != '/')
		return fail(req, 400); /* "*", absolute-form, a second SP */
	for (;;) {
		ch = peek(c);
		if (ch < 0)
			return STEP_MORE;
		if (pct_digits) {
			if (!is_hexdig(ch))
				return fail(req, 400);
			pct_digits--;
		} else if (ch == ' ') {
			break;
		} else if (ch == '%') {
			pct_digits = 2;
		} else if (ch == '?') {
			in_query = true;
		} else if (!is_pchar(ch) && ch != '/') {
			return fail(req, 400);
		}
		if (!in_query) {
			if (n + 1 >= sizeof(req->path))
				return fail(req, 414);
			req->path[n++] = (char)ch;
		}
		c->pos++;
	}
	c->pos++;
	return STEP_OK;
}

/* "HTTP/" DIGIT "." DIGIT, then the line end */
static enum step parse_version(struct cursor *c, struct http_req *req)
{
	static const char prefix[] = "HTTP/";
	int major, ch;

	for (size_t i = 0; i < sizeof(prefix) - 1; i++, c->pos++) {
		ch = peek(c);
		if (ch < 0)
			return STEP_MORE;
		if (ch != prefix[i])
			return fail(req, 400);
	}
	ch = peek(c);
	if (ch < 0)
		return STEP_MORE;
	if (!is_digit(ch))
		return fail(req, 400);
	major = ch - '0';
	c->pos++;
	ch = peek(c);
	if (ch < 0)
		return STEP_MORE;
	if (ch != '.')
		return fail(req, 400);
	c->pos++;
	ch = peek(c);
	if (ch < 0)
		return STEP_MORE;
	if (!is_digit(ch))
		return fail(req, 400);
	if (major != 1 || ch > '1')
		return fail(req, 505);
	req->version_minor = ch - '0';
	c->pos++;
	ch = peek(c);
	if (ch < 0)
		return STEP_MORE;
	if (ch != '\r' && ch != '\n')
		return fail(req, 400);
	return line_end(c, req);
}

static bool name_is(const unsigned char *name, size_t len, const char *want)
{
	return len == strlen(want) &&
	       strncasecmp((const char *)name, want, len) == 0;
}

/* A request body is not supported: only "Content-Length: 0" passes. */
static enum step check_field(const unsigned char *name, size_t name_len,
			     const unsigned char *value, size_t value_len,
			     struct http_req *req)
{
	if (name_is(name, name_len, "transfer-encoding"))
		return fail(req, 400);
	if (!name_is(name, name_len, "content-length"))
		return STEP_OK;
	while (value_len && (*value == ' ' || *value == '\t'))
		value++, value_len--;
	while (value_len &&
	       (value[value_len - 1] == ' ' || value[value_len - 1] == '\t'))
		value_len--;
	if (!value_len)
		return fail(req, 400);
	for (size_t i = 0; i < value_len; i++) {
		if (value[i] != '0')
			return fail(req, 400); /* nonzero, list or garbage */
	}
	return STEP_OK;
}

/* token ":" field-value line-end */
static enum step parse_field(struct cursor *c, struct http_req *req)
{
	const unsigned char *name = c->buf + c->pos, *value;
	size_t name_len, value_len;
	enum step st;
	int ch;

	while ((ch = peek(c)) != ':') {
		if (ch < 0)
			return STEP_MORE;
		if (!is_tchar(ch))
			return fail(req, 400); /* incl. SP before ':' */
		c->pos++;
	}
	name_len = (size_t)(c->buf + c->pos - name);
	if (!name_len)
		return fail(req, 400);
	c->pos++;
	value = c->buf + c->pos;
	while ((ch = peek(c)) != '\r' && ch != '\n') {
		if (ch < 0)
			return STEP_MORE;
		if (!is_field_byte(ch))
			return fail(req, 400);
		c->pos++;
	}
	value_len = (size_t)(c->buf + c->pos - value);
	st = line_end(c, req);
	if (st != STEP_OK)
		return st;
	return check_field(name, name_len, value, value_len, req);
}

static enum step parse_head(struct cursor *c, struct http_req *req)
{
	enum step st;
	int ch;

	/* RFC 9112 2.2: empty lines before the request-line are ignored */
	while ((ch = peek(c)) == '\r' || ch == '\n') {
		st = line_end(c, req);
		if (st != STEP_OK)
			return st;
	}
	st = parse_method(c, req);
	if (st == STEP_OK)
		st = parse_target(c, req);
	if (st == STEP_OK)
		st = parse_version(c, req);
	while (st == STEP_OK) {
		ch = peek(c);
		if (ch < 0)
			return STEP_MORE;
		if (ch == '\r' || ch == '\n')
			return line_end(c, req); /* the empty line: done */
		if (ch == ' ' || ch == '\t')
			return fail(req, 400); /* obs-fold */
		st = parse_field(c, req);
	}
	return st;
}

enum http_parse http_req_parse(const char *buf, size_t len,
			       struct http_req *req)
{
	struct cursor c = {
		.buf = (const unsigned char *)buf,
		.limit = len < HTTP_REQ_MAX ? len : HTTP_REQ_MAX,
	};

	if (!req)
		return HTTP_BAD;
	memset(req, 0, sizeof(*req));
	if (!buf && len) {
		req->status = 400;
		return HTTP_BAD;
	}
	switch (parse_head(&c, req)) {
	case STEP_OK:
		req->head_len = c.pos;
		return HTTP_DONE;
	case STEP_BAD:
		return HTTP_BAD;
	case STEP_MORE:
	default:
		if (len < HTTP_REQ_MAX)
			return HTTP_NEED_MORE;
		req->status = 431;
		return HTTP_BAD;
	}
}
