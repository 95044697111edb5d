// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_l4_csum.c - libFuzzer target: completing partial TCP/UDP checksums
 * (dataplane/pkt/l4_csum.c).
 *
 * Every input is a frame, copied to a heap buffer of exactly its size (a
 * read or write at or past frame + len is an ASan heap-buffer-overflow):
 *   1. pkt_parse(), then l4_csum_fix(): a known result; a completed frame
 *      differs from the input in its checksum field only (2 bytes inside
 *      the L4 header) and verifies when given again; any other result
 *      leaves every byte as it was;
 *   2. the same bytes as a multi-buffer packet: cut in three heap buffers
 *      of exact size at places taken from the input's last bytes,
 *      pkt_parse_head() on the first: unless refused (the checksum field
 *      not in the first buffer), the same result and the same bytes as
 *      the linear frame;
 *   3. a pkt_meta that does not describe the frame (offsets, protocol and
 *      family taken from the input: a caller's bug) must not make it read
 *      or write outside the frame either.
 *
 * Single-threaded, no state between inputs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "l4_csum.h"
#include "pkt_parse.h"
#include "fuzz_check.h"

static uint8_t *dup_exact(const uint8_t *p, uint32_t n)
{
	uint8_t *h = malloc(n ? n : 1);

	CHECK(h != NULL);
	memcpy(h, p, n);
	return h;
}

/* Bytes that differ between a and b, and the first of them. */
static uint32_t diff(const uint8_t *a, const uint8_t *b, uint32_t n,
		     uint32_t *first)
{
	uint32_t d = 0;

	*first = n;
	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i]) {
			if (!d)
				*first = i;
			d++;
		}
	return d;
}

/* Linear frame; returns the result, the fixed bytes in out[0..len). */
static int check_linear(const uint8_t *data, uint32_t len, uint8_t *out,
			struct pkt_meta *m)
{
	uint8_t *f = dup_exact(data, len);
	uint32_t first, d;
	int r;

	if (pkt_parse(f, len, m) != PKT_OK) {
		free(f);
		return -1;
	}
	r = l4_csum_fix(f, len, m);
	CHECK(r >= 0 && r < L4_CSUM_RESULT_MAX);
	d = diff(f, data, len, &first);
	if (r == L4_CSUM_COMPLETED) {
		CHECK(d <= 2);
		CHECK(!d || first >= m->l4_off);
		CHECK(!d || first < m->l4_off + 18u);
		CHECK(l4_csum_fix(f, len, m) == L4_CSUM_VALID);
	} else {
		CHECK(d == 0);
	}
	memcpy(out, f, len);
	free(f);
	return r;
}

static void check_segs(const uint8_t *data, uint32_t len, int lin_r,
		       const uint8_t *lin)
{
	struct l4_csum_seg seg[3];
	uint32_t cut[4], a, b;
	struct pkt_meta m;
	int r;

	if (len < 4)
		return;
	a = (uint32_t)data[len - 1] << 8 | data[len - 2];
	b = (uint32_t)data[len - 3] << 8 | data[len - 4];
	cut[0] = 0;
	cut[1] = a % (len + 1);
	cut[2] = cut[1] + b % (len - cut[1] + 1);
	cut[3] = len;
	for (int i = 0; i < 3; i++) {
		seg[i].len = cut[i + 1] - cut[i];
		seg[i].data = dup_exact(data + cut[i], seg[i].len);
	}
	if (pkt_parse_head(seg[0].data, seg[0].len, len, &m) == PKT_OK) {
		r = l4_csum_fix_segs(seg, 3, &m);
		CHECK(r >= 0 && r < L4_CSUM_RESULT_MAX);
		if (r != L4_CSUM_INVALID && lin_r >= 0) {
			CHECK(r == lin_r);
			for (int i = 0; i < 3; i++)
				CHECK(!memcmp(seg[i].data, lin + cut[i],
					      seg[i].len));
		}
	}
	for (int i = 0; i < 3; i++)
		free(seg[i].data);
}

static void check_lies(const uint8_t *data, uint32_t len,
		       const struct pkt_meta *good)
{
	struct pkt_meta m = *good;
	uint8_t *f;

	if (len < 4)
		return;
	m.l3_off = (uint16_t)(data[len - 2] | (data[len - 4] & 1) << 8);
	m.l4_off = (uint16_t)(m.l3_off + data[len - 3]);
	m.l3 = data[len - 4] & 2 ? PKT_L3_IPV6 : PKT_L3_IPV4;
	m.proto = data[len - 4] & 4 ? 17 : 6;
	m.flags |= PKT_F_PORTS;
	f = dup_exact(data, len);
	(void)l4_csum_fix(f, len, &m);
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len = (uint32_t)size;
	struct pkt_meta m;
	uint8_t *lin;
	int r;

	if (size > 65535 + 64)
		return -1;
	lin = malloc(size ? size : 1);
	CHECK(lin != NULL);
	r = check_linear(data, len, lin, &m);
	check_segs(data, len, r, lin);
	if (r < 0)
		memset(&m, 0, sizeof(m));
	check_lies(data, len, &m);
	free(lin);
	return 0;
}
