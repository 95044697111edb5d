// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpcheck_wire.c - the content of udpcheck's datagram i, fully
 * determined by (seed, i, len) as described at the top of udpcheck.c: its
 * length, its pseudo-random bytes and keyed checksum, and the receiver's
 * verdict on a datagram it regenerates and compares.
 */
#include "udpcheck.h"

/* ---- deterministic content ---------------------------------------------- */

uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rotl64(uint64_t x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	nu_put_be32(p, (uint32_t)(v >> 32));
	nu_put_be32(p + 4, (uint32_t)v);
}

uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned int)p[0] << 8 | p[1]);
}

static uint64_t get_le64(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t k = 0; k < n && k < 8; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

bool sweep_sizes; /* --sweep: len(i) = min + i mod span */

/* Payload length of datagram i; min <= result <= max. */
uint32_t pkt_len(uint64_t seed, uint64_t i, uint32_t min, uint32_t max)
{
	uint64_t span = (uint64_t)max - min + 1;

	if (sweep_sizes)
		return min + (uint32_t)(i % span);

	if (i == 0 || min == max)
		return min;
	if (i == 1)
		return max;
	return min +
	       (uint32_t)(splitmix64(seed ^ splitmix64(i ^ SALT_LEN)) % span);
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed, uint32_t seq,
			uint32_t len)
{
	uint64_t x =
		splitmix64(seed ^ splitmix64((uint64_t)seq ^
					     (uint64_t)len << 32 ^ SALT_DATA));

	if (x == 0)
		x = SALT_DATA;
	while (n > 0) {
		uint64_t r;
		size_t k = n < 8 ? n : 8;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		r = x * 0x2545f4914f6cdd1dull;
		for (size_t b = 0; b < k; b++)
			p[b] = (uint8_t)(r >> (8 * b));
		p += k;
		n -= k;
	}
}

/*
 * Each step h = rotl(h ^ w, 31) * K is a bijection of h and of w, so any
 * change confined to one 64-bit word always changes the result.
 */
uint64_t payload_csum(uint64_t seed, uint32_t seq, uint32_t len,
		      const uint8_t *p, size_t n)
{
	const uint64_t k = 0x9fb21c651e98df25ull;
	uint64_t h = splitmix64(seed ^ SALT_CSUM) ^ ((uint64_t)seq << 16) ^ len;

	for (size_t off = 0; off < n; off += 8) {
		size_t w = n - off < 8 ? n - off : 8;

		h = rotl64(h ^ get_le64(p + off, w), 31) * k;
	}
	return splitmix64(h ^ n);
}

/* buf must hold len bytes, UC_HDR_LEN <= len <= 65535. */
void build_pkt(uint8_t *buf, uint64_t seed, uint32_t seq, uint32_t len)
{
	size_t n = len - UC_HDR_LEN;

	fill_random(buf + UC_HDR_LEN, n, seed, seq, len);
	nu_put_be32(buf, UC_MAGIC);
	nu_put_be32(buf + 4, seq);
	put_be16(buf + 8, (uint16_t)len);
	put_be64(buf + 10, payload_csum(seed, seq, len, buf + UC_HDR_LEN, n));
}

/* ---- verification ------------------------------------------------------- */

const char *const verdict_str[] = {
	[V_OK] = "ok",
	[V_SHORT] = "shorter than header",
	[V_TRUNC] = "truncated",
	[V_MAGIC] = "bad magic",
	[V_LENFIELD] = "size does not match length field",
	[V_SEQ] = "seq out of range",
	[V_POLICY] = "length differs from len(seq) for --min/--max",
	[V_DATA] = "content mismatch",
};

enum verdict verify_pkt(const struct verifier *v, const uint8_t *p, size_t n,
			bool trunc, uint32_t *seqp, size_t *diffp)
{
	uint32_t seq, len;

	*seqp = UINT32_MAX;
	*diffp = 0;
	if (trunc)
		return V_TRUNC;
	if (n < UC_HDR_LEN)
		return V_SHORT;
	if (nu_get_be32(p) != UC_MAGIC)
		return V_MAGIC;
	seq = nu_get_be32(p + 4);
	len = get_be16(p + 8);
	*seqp = seq;
	if (len != n)
		return V_LENFIELD;
	if (seq >= v->expect)
		return V_SEQ;
	if (v->max && len != pkt_len(v->seed, seq, v->min, v->max))
		return V_POLICY;
	build_pkt(v->scratch, v->seed, seq, len);
	if (memcmp(v->scratch, p, n) != 0) {
		size_t d = 0;

		while (d < n && v->scratch[d] == p[d])
			d++;
		*diffp = d;
		return V_DATA;
	}
	return V_OK;
}
