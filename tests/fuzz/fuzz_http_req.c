// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_http_req.c - libFuzzer target for http_req_parse() on arbitrary
 * bytes. Invariants checked (abort on violation):
 *  - DONE: 0 < head_len <= min(len, HTTP_REQ_MAX), the head ends in LF,
 *    method and path are NUL-terminated, path starts with '/', the method
 *    is non-empty, version_minor is 0 or 1;
 *  - BAD: status is one of 400, 414, 431, 501, 505;
 *  - prefixes: a prefix's DONE or BAD is the result of the whole buffer
 *    too (same head_len / status), and every prefix shorter than a head
 *    of the whole buffer is NEED_MORE; each prefix is parsed from its own
 *    exact-size copy, so reading past len trips ASan;
 *  - the input tiled past HTTP_REQ_MAX is never NEED_MORE (reaches 431).
 * All prefixes are checked for inputs up to ALL_PREFIXES bytes, a spread
 * of them beyond.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http_req.h"

#define ALL_PREFIXES 512
#define SAMPLED_PREFIXES 64

#define check(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "invariant failed: %s (line %d)\n",    \
				#cond, __LINE__);                              \
			abort();                                               \
		}                                                              \
	} while (0)

static enum http_parse parse_copy(const uint8_t *data, size_t len,
				  struct http_req *req)
{
	char *copy = malloc(len ? len : 1);
	enum http_parse r;

	check(copy != NULL);
	memcpy(copy, data, len);
	memset(req, 0xa5, sizeof(*req)); /* the parser must overwrite */
	r = http_req_parse(len ? copy : NULL, len, req);
	free(copy);
	return r;
}

static void check_result(const uint8_t *data, size_t len, enum http_parse r,
			 const struct http_req *req)
{
	switch (r) {
	case HTTP_NEED_MORE:
		check(len < HTTP_REQ_MAX);
		break;
	case HTTP_DONE:
		check(req->head_len > 0);
		check(req->head_len <= len);
		check(req->head_len <= HTTP_REQ_MAX);
		check(data[req->head_len - 1] == '\n');
		check(strnlen(req->method, sizeof(req->method)) <
		      sizeof(req->method));
		check(req->method[0] != '\0');
		check(strnlen(req->path, sizeof(req->path)) <
		      sizeof(req->path));
		check(req->path[0] == '/');
		check(req->version_minor == 0 || req->version_minor == 1);
		break;
	case HTTP_BAD:
		check(req->status == 400 || req->status == 414 ||
		      req->status == 431 || req->status == 501 ||
		      req->status == 505);
		break;
	default:
		check(!"unknown result");
	}
}

/* The prefix data[0..n) against the whole buffer's result. */
static void check_prefix(const uint8_t *data, size_t n, enum http_parse full,
			 const struct http_req *whole)
{
	struct http_req req;
	enum http_parse r = parse_copy(data, n, &req);

	check_result(data, n, r, &req);
	if (r == HTTP_DONE) {
		check(full == HTTP_DONE);
		check(req.head_len == whole->head_len);
	} else if (r == HTTP_BAD) {
		check(full == HTTP_BAD);
		check(req.status == whole->status);
	} else if (full == HTTP_DONE) {
		check(n < whole->head_len);
	}
	if (full == HTTP_DONE && n < whole->head_len)
		check(r == HTTP_NEED_MORE);
}

static void check_buffer(const uint8_t *data, size_t len)
{
	struct http_req whole;
	enum http_parse full = parse_copy(data, len, &whole);
	size_t step;

	check_result(data, len, full, &whole);
	if (len <= ALL_PREFIXES) {
		for (size_t n = 0; n < len; n++)
			check_prefix(data, n, full, &whole);
		return;
	}
	step = len / SAMPLED_PREFIXES;
	for (size_t n = 0; n < len; n += step)
		check_prefix(data, n, full, &whole);
	if (full == HTTP_DONE) {
		check_prefix(data, whole.head_len - 1, full, &whole);
		check_prefix(data, whole.head_len, full, &whole);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t tiled[HTTP_REQ_MAX + 1];
	struct http_req req;
	enum http_parse r;

	check_buffer(data, size);
	if (size == 0)
		return 0;
	for (size_t i = 0; i < sizeof(tiled); i++)
		tiled[i] = data[i % size];
	r = parse_copy(tiled, sizeof(tiled), &req);
	check(r != HTTP_NEED_MORE);
	check_result(tiled, sizeof(tiled), r, &req);
	return 0;
}
