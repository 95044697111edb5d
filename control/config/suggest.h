/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * suggest.h - "did you mean": the accepted name nearest to a mistyped
 * one, by edit distance, for the configuration loader's keys,
 * enum values and class names and for xdplanectl's verbs, options and
 * arguments. One rule for both: a name is offered when it is at most
 * SUGGEST_NEAR edits away; of several, the first at the smallest
 * distance, so the order of the candidates breaks ties.
 *
 * Pure functions over the caller's strings; struct suggest keeps
 * pointers to them (not copies): they must outlive it. No allocation;
 * names longer than SUGGEST_LEN_MAX are "far" from everything.
 */
#ifndef XDPLANE_SUGGEST_H
#define XDPLANE_SUGGEST_H

#define SUGGEST_NEAR 2 /* edits: the largest distance offered */
#define SUGGEST_FAR 3 /* what suggest_distance() returns above NEAR */
#define SUGGEST_LEN_MAX 32

/* Edit distance: insertions, deletions, substitutions and swaps of two
 * neighbours ("stauts" is 1 from "status"; optimal string alignment),
 * capped: anything above SUGGEST_NEAR is SUGGEST_FAR. */
unsigned int suggest_distance(const char *a, const char *b);

/* The nearest candidate so far to got. */
struct suggest {
	const char *got;
	const char *best; /* NULL: none within SUGGEST_NEAR */
	unsigned int best_d;
};

void suggest_init(struct suggest *s, const char *got);
/* Consider name (kept by pointer). */
void suggest_offer(struct suggest *s, const char *name);
/* The name to offer, or NULL. */
static inline const char *suggest_best(const struct suggest *s)
{
	return s->best;
}

#endif
