// SPDX-License-Identifier: BSD-2-Clause
/*
 * lat_hist.c - log-linear latency histogram; see lat_hist.h.
 */
#include "lat_hist.h"

#include <string.h>

void lat_hist_init(struct lat_hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned int lat_hist_bucket(uint64_t ns)
{
	/* q: sixteenths of a microsecond */
	uint64_t q = ns / 1000 * LAT_SUB + (ns % 1000) * LAT_SUB / 1000;
	unsigned int e, s, i;

	if (q < LAT_SUB)
		return 0;
	e = (unsigned int)(63 - __builtin_clzll(q)) - 4; /* 16 = 2^4 */
	s = (unsigned int)(q >> e) - LAT_SUB;
	i = 1 + e * LAT_SUB + s;
	return i < LAT_NBUCKETS ? i : LAT_NBUCKETS - 1;
}

double lat_hist_upper_us(unsigned int i)
{
	unsigned int e, s;

	if (i == 0)
		return 1.0;
	e = (i - 1) / LAT_SUB;
	s = (i - 1) % LAT_SUB;
	return (double)(1ull << e) * (double)(LAT_SUB + s + 1) / LAT_SUB;
}

void lat_hist_add(struct lat_hist *h, uint64_t ns)
{
	h->count[lat_hist_bucket(ns)]++;
	h->n++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

double lat_hist_quantile_us(const struct lat_hist *h, double q)
{
	uint64_t want, acc = 0;
	double max_us = (double)h->max_ns / 1000.0;

	if (!h->n)
		return 0;
	want = (uint64_t)(q * (double)h->n + 0.999999);
	if (want < 1)
		want = 1;
	for (unsigned int i = 0; i < LAT_NBUCKETS; i++) {
		acc += h->count[i];
		if (acc >= want) {
			double u = lat_hist_upper_us(i);

			return u < max_us ? u : max_us;
		}
	}
	return max_us;
}

void lat_hist_merge(struct lat_hist *a, const struct lat_hist *b)
{
	for (unsigned int i = 0; i < LAT_NBUCKETS; i++)
		a->count[i] += b->count[i];
	a->n += b->n;
	if (b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
}
