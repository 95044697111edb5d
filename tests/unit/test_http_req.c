// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_http_req.c - the metrics endpoint's HTTP: http_req_parse() on whole
 * requests, byte-by-byte feeding, bare LF, every rejection status (400,
 * 414, 431, 501, 505) incl. early rejection before the head ends, and
 * http_respond() on every route (HEAD Content-Length = GET body length,
 * 405 with Allow, 503 without a snapshot, parse failures).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "http_req.h"
#include "snapshot.h"

static enum http_parse parse_str(const char *s, struct http_req *req)
{
	return http_req_parse(s, strlen(s), req);
}

static void assert_bad(const char *s, int status)
{
	struct http_req req;

	assert_int_equal(parse_str(s, &req), HTTP_BAD);
	assert_int_equal(req.status, status);
}

static void test_complete_request(void **state)
{
	static const char head[] =
		"GET /metrics?name%5B%5D=x&y=/?@ HTTP/1.1\r\n"
		"Host: 127.0.0.1:9470\r\n"
		"User-Agent: Prometheus/2.42.0\r\n"
		"Accept: text/plain;q=0.9, */*;q=0.1\r\n"
		"\r\n";
	char buf[sizeof(head) + 16];
	struct http_req req;

	assert_int_equal(parse_str(head, &req), HTTP_DONE);
	assert_string_equal(req.method, "GET");
	assert_string_equal(req.path, "/metrics");
	assert_int_equal(req.version_minor, 1);
	assert_int_equal(req.head_len, strlen(head));

	/* bytes after the head (a body, a pipelined request) are ignored */
	snprintf(buf, sizeof(buf), "%sGET / HTTP/1.1", head);
	assert_int_equal(parse_str(buf, &req), HTTP_DONE);
	assert_int_equal(req.head_len, strlen(head));
}

static void test_byte_by_byte(void **state)
{
	static const char head[] = "HEAD /healthz HTTP/1.0\r\n"
				   "Host: gw\r\n"
				   "X-Empty:\r\n"
				   "\r\n";
	size_t total = strlen(head);
	struct http_req req;

	for (size_t n = 0; n < total; n++)
		assert_int_equal(http_req_parse(head, n, &req), HTTP_NEED_MORE);
	assert_int_equal(http_req_parse(head, total, &req), HTTP_DONE);
	assert_int_equal(req.head_len, total);
	assert_string_equal(req.method, "HEAD");
	assert_string_equal(req.path, "/healthz");
	assert_int_equal(req.version_minor, 0);
	assert_int_equal(http_req_parse(NULL, 0, &req), HTTP_NEED_MORE);
	assert_int_equal(http_req_parse(head, total, NULL), HTTP_BAD);
}

static void test_bare_lf_and_leading_empty_lines(void **state)
{
	struct http_req req;

	assert_int_equal(parse_str("GET / HTTP/1.1\nHost: x\n\nrest", &req),
			 HTTP_DONE);
	assert_int_equal(req.head_len, 24);
	assert_string_equal(req.path, "/");
	/* mixed CRLF and LF */
	assert_int_equal(parse_str("GET /a HTTP/1.1\r\nA: b\n\r\n", &req),
			 HTTP_DONE);
	assert_int_equal(req.head_len, 24);
	/* RFC 9112 2.2: empty lines before the request line are skipped */
	assert_int_equal(parse_str("\r\n\nGET /b HTTP/1.1\r\n\r\n", &req),
			 HTTP_DONE);
	assert_string_equal(req.path, "/b");
	assert_int_equal(req.head_len, 22);
	/* a CR must be followed by LF */
	assert_int_equal(parse_str("GET / HTTP/1.1\r", &req), HTTP_NEED_MORE);
	assert_bad("GET / HTTP/1.1\rX", 400);
	assert_bad("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", 400);
}

static void test_oversize_431(void **state)
{
	static const char start[] = "GET / HTTP/1.1\r\nX-Pad: ";
	char *buf = malloc(HTTP_REQ_MAX + 16);
	struct http_req req;
	size_t n = strlen(start);

	assert_non_null(buf);
	memcpy(buf, start, n);
	memset(buf + n, 'a', HTTP_REQ_MAX + 16 - n);
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX - 1, &req),
			 HTTP_NEED_MORE);
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX, &req), HTTP_BAD);
	assert_int_equal(req.status, 431);
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX + 16, &req),
			 HTTP_BAD);
	assert_int_equal(req.status, 431);

	/* a head of exactly HTTP_REQ_MAX bytes is accepted ... */
	memcpy(buf + HTTP_REQ_MAX - 4, "\r\n\r\n", 4);
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX + 16, &req),
			 HTTP_DONE);
	assert_int_equal(req.head_len, HTTP_REQ_MAX);
	/* ... one byte more is not */
	memcpy(buf + HTTP_REQ_MAX - 4, "a\r\n\r", 4);
	buf[HTTP_REQ_MAX] = '\n';
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX + 16, &req),
			 HTTP_BAD);
	assert_int_equal(req.status, 431);
	free(buf);
}

static void test_long_target_414(void **state)
{
	char buf[600];
	struct http_req req;

	/* 255 bytes of path fit (plus NUL) */
	snprintf(buf, sizeof(buf), "GET /%0254d HTTP/1.1\r\n\r\n", 7);
	assert_int_equal(parse_str(buf, &req), HTTP_DONE);
	assert_int_equal(strlen(req.path), 255);
	/* 256 do not, rejected at the 256th byte, before the line ends */
	snprintf(buf, sizeof(buf), "GET /%0255d", 7);
	assert_bad(buf, 414);
	/* a long query is not part of the path */
	snprintf(buf, sizeof(buf), "GET /m?%0500d HTTP/1.1\r\n\r\n", 7);
	assert_int_equal(parse_str(buf, &req), HTTP_DONE);
	assert_string_equal(req.path, "/m");
}

static void test_version_505(void **state)
{
	assert_bad("GET / HTTP/1.2\r\n\r\n", 505);
	assert_bad("GET / HTTP/2.0\r\n\r\n", 505);
	assert_bad("GET / HTTP/0.9\r\n\r\n", 505);
	assert_bad("GET / HTTP/3.0", 505); /* decided without the line end */
	assert_bad("GET / HTTP/1.10\r\n\r\n", 400);
	assert_bad("GET / http/1.1\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1 \r\n\r\n", 400);
	assert_bad("GET /\r\n\r\n", 400); /* HTTP/0.9 simple request */
}

static void test_http2_preface(void **state)
{
	static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	struct http_req req;

	assert_bad(preface, 400);
	/* rejected as soon as the target cannot be origin-form */
	assert_int_equal(http_req_parse(preface, 5, &req), HTTP_BAD);
	assert_int_equal(req.status, 400);
	assert_int_equal(http_req_parse(preface, 4, &req), HTTP_NEED_MORE);
}

static void test_bad_syntax_400(void **state)
{
	static const char nul_in_field[] =
		"GET / HTTP/1.1\r\nX-A: a\0b\r\n\r\n";
	static const char nul_in_method[] = "GE\0T / HTTP/1.1\r\n\r\n";
	struct http_req req;

	assert_int_equal(
		http_req_parse(nul_in_field, sizeof(nul_in_field) - 1, &req),
		HTTP_BAD);
	assert_int_equal(req.status, 400);
	/* early: the first three bytes already cannot start a request */
	assert_int_equal(http_req_parse(nul_in_method, 3, &req), HTTP_BAD);
	assert_int_equal(req.status, 400);
	assert_bad("G@", 400);
	assert_bad(" GET / HTTP/1.1\r\n\r\n", 400);
	assert_bad("GET  / HTTP/1.1\r\n\r\n", 400);
	assert_bad("GET http://h/ HTTP/1.1\r\n\r\n", 400);
	assert_bad("OPTIONS * HTTP/1.1\r\n\r\n", 400);
	assert_bad("GET /a b HTTP/1.1\r\n\r\n", 400);
	assert_bad("GET /%zz HTTP/1.1\r\n\r\n", 400);
	assert_bad("GET /m?a[]=1 HTTP/1.1\r\n\r\n", 400); /* not pchar */
	assert_int_equal(parse_str("GET /%4", &req), HTTP_NEED_MORE);
	assert_bad("GET /\x7f HTTP/1.1\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nX-A: \x01\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nX-A: \x7f\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nX-A : b\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\n: b\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400);
	/* obs-fold, and whitespace before the first field */
	assert_bad("GET / HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\n\tX-A: b\r\n\r\n", 400);
	/* obs-text, HTAB and SP are fine in values */
	assert_int_equal(
		parse_str("GET / HTTP/1.1\r\nX-A: \t\xc3\xa9 b\r\n\r\n", &req),
		HTTP_DONE);
	/* method tokens are case-sensitive and kept as received */
	assert_int_equal(parse_str("get / HTTP/1.1\r\n\r\n", &req), HTTP_DONE);
	assert_string_equal(req.method, "get");
}

static void test_method_too_long_501(void **state)
{
	struct http_req req;

	assert_int_equal(parse_str("OPTIONS /x HTTP/1.1\r\n\r\n", &req),
			 HTTP_DONE);
	assert_string_equal(req.method, "OPTIONS");
	assert_bad("PROPFIND / HTTP/1.1\r\n\r\n", 501);
	assert_int_equal(parse_str("PROPFIN", &req), HTTP_NEED_MORE);
	assert_bad("PROPFINDX", 501);
}

static void test_body_rejected(void **state)
{
	struct http_req req;

	assert_bad("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 400);
	assert_bad("GET / HTTP/1.1\r\ncontent-length:1\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nContent-Length: 0, 0\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nContent-Length: \r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nContent-Length: -0\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
	assert_bad("GET / HTTP/1.1\r\nTRANSFER-ENCODING: identity\r\n\r\n",
		   400);
	assert_int_equal(
		parse_str("GET / HTTP/1.1\r\nContent-Length:  00 \r\n\r\n",
			  &req),
		HTTP_DONE);
	/* a name that only starts like Content-Length is another field */
	assert_int_equal(
		parse_str("GET / HTTP/1.1\r\nContent-Lengthy: 5\r\n\r\n", &req),
		HTTP_DONE);
}

/* Snapshot provider that counts calls. */
struct provider {
	struct stats_snapshot *snap;
	int takes, releases;
	struct stats_snapshot *released;
};

static struct stats_snapshot *take(void *ctx)
{
	struct provider *p = ctx;

	p->takes++;
	return p->snap;
}

static void give_back(void *ctx, struct stats_snapshot *snap)
{
	struct provider *p = ctx;

	p->releases++;
	p->released = snap;
}

/* Parsed response: status line, a header's value, the body. */
struct response {
	char status_line[80];
	size_t head_len;
	long content_length;
	const char *body;
	size_t body_len;
};

static void split_response(const struct http_reply *r, struct response *out)
{
	const char *end, *cl, *eol;

	assert_non_null(r->data);
	end = strstr(r->data, "\r\n\r\n");
	assert_non_null(end);
	out->head_len = (size_t)(end - r->data) + 4;
	eol = strstr(r->data, "\r\n");
	snprintf(out->status_line, sizeof(out->status_line), "%.*s",
		 (int)(eol - r->data), r->data);
	cl = strstr(r->data, "\r\nContent-Length: ");
	assert_non_null(cl);
	assert_true(cl < end);
	out->content_length = strtol(cl + 18, NULL, 10);
	out->body = r->data + out->head_len;
	out->body_len = r->len - out->head_len;
	/* every response closes the connection */
	assert_non_null(strstr(r->data, "\r\nConnection: close\r\n"));
}

static bool head_has(const struct http_reply *r, const char *line)
{
	const char *end = strstr(r->data, "\r\n\r\n");
	const char *at = strstr(r->data, line);

	return at && at < end;
}

static void respond(const char *request, struct provider *p,
		    struct http_reply *reply, struct response *resp)
{
	struct http_req req;

	assert_int_equal(parse_str(request, &req), HTTP_DONE);
	assert_int_equal(http_respond(&req, 0, take, give_back, p, reply), 0);
	split_response(reply, resp);
}

static void test_respond_metrics(void **state)
{
	struct stats_snapshot *snap = calloc(1, sizeof(*snap));
	struct provider p = {.snap = snap};
	struct http_reply get, head;
	struct response rg, rh;

	assert_non_null(snap);
	snap->version = "9.8.7";
	snprintf(snap->ports[0].ifname, sizeof(snap->ports[0].ifname), "eth1");
	respond("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", &p, &get, &rg);
	assert_string_equal(rg.status_line, "HTTP/1.1 200 OK");
	assert_true(head_has(&get, "\r\nContent-Type: text/plain; "
				   "version=0.0.4; charset=utf-8\r\n"));
	assert_int_equal(rg.content_length, rg.body_len);
	assert_true(rg.body_len > 1000);
	assert_memory_equal(rg.body, "# HELP xdplane_build_info ", 26);
	assert_non_null(strstr(rg.body, "version=\"9.8.7\""));
	assert_int_equal(rg.body[rg.body_len - 1], '\n');
	assert_int_equal(p.takes, 1);
	assert_int_equal(p.releases, 1);
	assert_ptr_equal(p.released, snap);

	respond("HEAD /metrics HTTP/1.0\r\n\r\n", &p, &head, &rh);
	assert_string_equal(rh.status_line, "HTTP/1.0 200 OK");
	assert_int_equal(rh.content_length, rg.body_len);
	assert_int_equal(rh.body_len, 0);
	assert_int_equal(head.len, rh.head_len);
	assert_int_equal(p.takes, 2);
	assert_int_equal(p.releases, 2);
	free(get.data);
	free(head.data);
	free(snap);
}

static void test_respond_503_without_snapshot(void **state)
{
	struct provider p = {.snap = NULL};
	struct http_reply r;
	struct response resp;
	struct http_req req;

	respond("GET /metrics HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line,
			    "HTTP/1.1 503 Service Unavailable");
	assert_int_equal(resp.content_length, resp.body_len);
	assert_int_equal(p.takes, 1);
	assert_int_equal(p.releases, 0); /* nothing to give back */
	free(r.data);

	/* no provider at all */
	assert_int_equal(parse_str("GET /metrics HTTP/1.1\r\n\r\n", &req),
			 HTTP_DONE);
	assert_int_equal(http_respond(&req, 0, NULL, NULL, NULL, &r), 0);
	split_response(&r, &resp);
	assert_string_equal(resp.status_line,
			    "HTTP/1.1 503 Service Unavailable");
	free(r.data);
}

static void test_respond_simple_routes(void **state)
{
	struct stats_snapshot *snap = calloc(1, sizeof(*snap));
	struct provider p = {.snap = snap};
	struct http_reply r;
	struct response resp;
	size_t get_len;
	static const char degraded[] =
		"degraded: port_down: link down: gw1; reload_failed: last "
		"reload refused: x\n";

	assert_non_null(snap);
	/* /healthz: the snapshot's health decision (health.h) */
	respond("GET /healthz HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line, "HTTP/1.1 200 OK");
	assert_int_equal(resp.body_len, 3);
	assert_memory_equal(resp.body, "ok\n", 3);
	assert_int_equal(resp.content_length, 3);
	assert_int_equal(p.takes, 1);
	assert_int_equal(p.releases, 1);
	free(r.data);

	respond("HEAD /healthz HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line, "HTTP/1.1 200 OK");
	assert_int_equal(resp.content_length, 3);
	assert_int_equal(resp.body_len, 0);
	free(r.data);

	snap->health.degraded =
		1u << HEALTH_PORT_DOWN | 1u << HEALTH_RELOAD_FAILED;
	snprintf(snap->health.line, sizeof(snap->health.line), "%s",
		 "port_down: link down: gw1; reload_failed: last reload "
		 "refused: x");
	respond("GET /healthz HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line,
			    "HTTP/1.1 503 Service Unavailable");
	assert_int_equal(resp.body_len, strlen(degraded));
	assert_memory_equal(resp.body, degraded, strlen(degraded));
	free(r.data);
	snap->health.degraded = 0;

	/* no snapshot: 503 */
	p.snap = NULL;
	respond("GET /healthz HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line,
			    "HTTP/1.1 503 Service Unavailable");
	free(r.data);
	p.snap = snap;

	respond("GET / HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line, "HTTP/1.1 200 OK");
	assert_true(head_has(&r, "\r\nContent-Type: text/plain; "
				 "charset=utf-8\r\n"));
	assert_int_equal(resp.content_length, resp.body_len);
	assert_non_null(strstr(resp.body, "/metrics"));
	assert_non_null(strstr(resp.body, "/healthz"));
	get_len = resp.body_len;
	free(r.data);

	respond("HEAD / HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_int_equal(resp.content_length, get_len);
	assert_int_equal(resp.body_len, 0);
	free(r.data);

	respond("GET /metrics/ HTTP/1.1\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line, "HTTP/1.1 404 Not Found");
	assert_int_equal(resp.content_length, resp.body_len);
	free(r.data);

	respond("HEAD /nope HTTP/1.0\r\n\r\n", &p, &r, &resp);
	assert_string_equal(resp.status_line, "HTTP/1.0 404 Not Found");
	assert_true(resp.content_length > 0);
	assert_int_equal(resp.body_len, 0);
	free(r.data);
	/* only /metrics and /healthz take a snapshot, and give it back */
	assert_int_equal(p.takes, 4);
	assert_int_equal(p.releases, 3);
	free(snap);
}

static void test_respond_405(void **state)
{
	static const char *const methods[] = {"POST", "PUT", "DELETE", "get",
					      "OPTIONS"};
	struct provider p = {0};
	struct http_reply r;
	struct response resp;
	char request[64];

	for (size_t i = 0; i < sizeof(methods) / sizeof(*methods); i++) {
		snprintf(request, sizeof(request),
			 "%s /metrics HTTP/1.1\r\n\r\n", methods[i]);
		respond(request, &p, &r, &resp);
		assert_string_equal(resp.status_line,
				    "HTTP/1.1 405 Method Not Allowed");
		assert_true(head_has(&r, "\r\nAllow: GET, HEAD\r\n"));
		assert_int_equal(resp.content_length, resp.body_len);
		assert_true(resp.body_len > 0);
		free(r.data);
	}
	assert_int_equal(p.takes, 0);
}

static void test_respond_parse_failure(void **state)
{
	static const struct {
		int in;
		const char *status_line;
	} cases[] = {
		{400, "HTTP/1.1 400 Bad Request"},
		{414, "HTTP/1.1 414 URI Too Long"},
		{431, "HTTP/1.1 431 Request Header Fields Too Large"},
		{501, "HTTP/1.1 501 Not Implemented"},
		{505, "HTTP/1.1 505 HTTP Version Not Supported"},
		{200, "HTTP/1.1 400 Bad Request"}, /* not a parse status */
		{-1, "HTTP/1.1 400 Bad Request"},
	};
	struct http_reply r;
	struct response resp;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_int_equal(http_respond(NULL, cases[i].in, take,
					      give_back, NULL, &r),
				 0);
		split_response(&r, &resp);
		assert_string_equal(resp.status_line, cases[i].status_line);
		assert_int_equal(resp.content_length, resp.body_len);
		assert_true(resp.body_len > 0);
		free(r.data);
	}
	assert_int_equal(http_respond(NULL, 400, NULL, NULL, NULL, NULL),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete_request),
		cmocka_unit_test(test_byte_by_byte),
		cmocka_unit_test(test_bare_lf_and_leading_empty_lines),
		cmocka_unit_test(test_oversize_431),
		cmocka_unit_test(test_long_target_414),
		cmocka_unit_test(test_version_505),
		cmocka_unit_test(test_http2_preface),
		cmocka_unit_test(test_bad_syntax_400),
		cmocka_unit_test(test_method_too_long_501),
		cmocka_unit_test(test_body_rejected),
		cmocka_unit_test(test_respond_metrics),
		cmocka_unit_test(test_respond_503_without_snapshot),
		cmocka_unit_test(test_respond_simple_routes),
		cmocka_unit_test(test_respond_405),
		cmocka_unit_test(test_respond_parse_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
