/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * units.h - the values of a dcqcn-sim scenario written with their units:
 * rates ("40Gbit", "2.5Gbit", "100Mbit"), times ("55us", "1.5ms", "300ns"),
 * sizes ("5KB", "10MB", "64KiB", "1000"), probabilities ("1%", "0.01"),
 * non-negative reals ("0.5", "1/256"), counts and booleans.
 *
 * The parser is the daemon's (control/config/units.h: the grammar of a number,
 * the unit tables, exact results, the error codes and their texts); what
 * is the simulator's own is said here. Numbers have at most 18 digits
 * (more: UNIT_ESYNTAX). A bare number is in the base unit (bit/s, ns,
 * bytes), times included. Rates are doubles, exact whenever the value in
 * bit/s is an integer; times and sizes must come out as whole nanoseconds
 * / bytes. Ratios "A/B" are of whole numbers. Booleans are also yes/no and
 * on/off.
 *
 * Pure functions of their text: no state, no allocation. Every function
 * returns 0 on success, or one of the UNIT_E* codes (nothing is written to
 * the result then); unit_strerror() names the problem.
 */
#ifndef DCQCN_SIM_UNITS_H
#define DCQCN_SIM_UNITS_H

#include <stdbool.h>
#include <stdint.h>
#include "../../control/config/units.h"

#define UNIT_MAX_RATE 1e13 /* 10 Tbit/s */
#define UNIT_MAX_TIME_NS 1000000000000ull /* 1000 s */
#define UNIT_MAX_SIZE 1000000000000ull /* 1 TB */

enum unit_error {
	UNIT_ESYNTAX = UNITS_ESYNTAX, /* not a number with one of the units */
	UNIT_ERANGE = UNITS_ERANGE, /* out of the allowed range */
	UNIT_EFRACTION = UNITS_EFRACTION, /* a fraction of a ns / byte */
};

const char *unit_strerror(int e);

/* A rate in bit/s, 0 < rate <= UNIT_MAX_RATE. */
int unit_rate(const char *s, double *bps);
/* A time in whole nanoseconds, <= UNIT_MAX_TIME_NS (0 allowed). */
int unit_time(const char *s, uint64_t *ns);
/* A size in whole bytes, <= UNIT_MAX_SIZE (0 allowed). */
int unit_size(const char *s, uint64_t *bytes);
/* "N%" (0 <= N <= 100) or a decimal in [0, 1]: *p as a double and, if
 * share is not NULL, *share in parts of 65536 (nearest, halves up). */
int unit_prob(const char *s, double *p, uint32_t *share);
/* A decimal or "A/B" (B > 0), >= 0 and <= max. */
int unit_real(const char *s, double max, double *v);
/* A decimal integer <= max. */
int unit_count(const char *s, uint64_t max, uint64_t *v);
/* true/false, yes/no, on/off. */
int unit_bool(const char *s, bool *b);

#endif
