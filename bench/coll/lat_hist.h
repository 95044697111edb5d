/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lat_hist.h - a log-linear latency histogram: LAT_SUB buckets per power of
 * two from 1 us to 2^LAT_OCTAVES us (16.8 s), one bucket below 1 us, the
 * last bucket also holding everything above. Bucket i > 0 of octave e and
 * sub-bucket s holds [2^e (1 + s/16), 2^e (1 + (s+1)/16)) us, so a
 * percentile read from it is at most 1/16 (6.25 %) above the true value.
 *
 * Pure, fixed size, no allocation; one owner thread.
 */
#ifndef COLL_LAT_HIST_H
#define COLL_LAT_HIST_H

#include <stdint.h>

#define LAT_SUB 16
#define LAT_OCTAVES 24
#define LAT_NBUCKETS (1 + LAT_SUB * LAT_OCTAVES)

struct lat_hist {
	uint64_t count[LAT_NBUCKETS];
	uint64_t n, max_ns;
};

void lat_hist_init(struct lat_hist *h);
void lat_hist_add(struct lat_hist *h, uint64_t ns);
/* The bucket a latency falls in. */
unsigned int lat_hist_bucket(uint64_t ns);
/* The upper bound of bucket i, in us. */
double lat_hist_upper_us(unsigned int i);
/* The upper bound of the bucket holding the q-quantile (0 < q <= 1), in
 * us, capped at the maximum seen; 0 when empty. */
double lat_hist_quantile_us(const struct lat_hist *h, double q);
/* Add b's counts to a. */
void lat_hist_merge(struct lat_hist *a, const struct lat_hist *b);

#endif
