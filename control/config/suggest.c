// SPDX-License-Identifier: BSD-2-Clause
/*
 * suggest.c - the nearest accepted name to a mistyped one; see
 * suggest.h.
 */
#include <string.h>
#include "suggest.h"

static unsigned int min2(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

/* d[i][j]: the distance between a's first i and b's first j characters;
 * three rows of it (i - 2, i - 1, i) for the transposition. */
unsigned int suggest_distance(const char *a, const char *b)
{
	unsigned int rows[3][SUGGEST_LEN_MAX + 1], *d2, *d1, *d0, j, i;
	size_t la = strlen(a), lb = strlen(b);

	if (la > SUGGEST_LEN_MAX || lb > SUGGEST_LEN_MAX)
		return SUGGEST_FAR;
	for (j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (i = 1; i <= la; i++) {
		d2 = rows[(i + 1) % 3];
		d1 = rows[(i - 1) % 3];
		d0 = rows[i % 3];
		d0[0] = i;
		for (j = 1; j <= lb; j++) {
			d0[j] = min2(d1[j - 1] + (a[i - 1] != b[j - 1]),
				     min2(d1[j], d0[j - 1]) + 1);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				d0[j] = min2(d0[j], d2[j - 2] + 1);
		}
	}
	return min2(rows[la % 3][lb], SUGGEST_FAR);
}

void suggest_init(struct suggest *s, const char *got)
{
	s->got = got;
	s->best = NULL;
	s->best_d = SUGGEST_FAR;
}

void suggest_offer(struct suggest *s, const char *name)
{
	unsigned int d = suggest_distance(s->got, name);

	if (d < s->best_d) {
		s->best = name;
		s->best_d = d;
	}
}
