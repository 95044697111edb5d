/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * units.h - numbers written with their units, read and printed exactly:
 * rates ("100Gbit", "1.5Gbps"), sizes ("64KiB", "10MB"), times ("55us",
 * "1.5ms"), shares and probabilities ("5%", "0.01"), ratios ("1/256").
 * The one parser of the configuration (control/config_*.c), the DCQCN
 * simulator (bench/dcqcn-sim/units.c wraps it) and the CLI.
 *
 * The grammar of a number, everywhere: plain ASCII decimal digits with at
 * most one '.' between digits; no sign, no exponent, no leading zero
 * before another digit ("0.5" yes, "05" and ".5" no); at most
 * UNITS_DIGITS digits. A unit follows without a space and is matched
 * without regard to case ("us" may also be written "µs"). The value is
 * kept exact (an integer mantissa and a decimal scale) until the caller
 * asks for a whole number (a fraction of the base unit is an error, never
 * rounded) or a double (correctly rounded: strtod() of the plain digits;
 * the daemon never calls setlocale(), so the decimal point is '.').
 *
 * Pure functions of their text: no state, no allocation, any thread.
 * Parsers return UNITS_OK (0) or one of enum units_err (nothing is written
 * to the results then); units_strerror() names the problem in a few words.
 * Printers write the shortest text their parser reads back as the same
 * value, NUL terminated, truncated to size.
 */
#ifndef XDPLANE_UNITS_H
#define XDPLANE_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNITS_DIGITS 30 /* at most, in one number */
#define UNITS_SHARE_ONE 65536u /* shares: parts of this (QOS_PROB_ONE) */

typedef unsigned __int128 units_u128;

enum units_err {
	UNITS_OK = 0,
	UNITS_ESYNTAX, /* not a number with one of the units */
	UNITS_ERANGE, /* out of the allowed range */
	UNITS_EFRACTION, /* a fraction of the base unit (ns, byte, bit/s) */
	UNITS_EZERO, /* a share that rounds to 0 parts of UNITS_SHARE_ONE */
};

/* "not understood", "out of range", "not a whole number of the base unit",
 * "less than one part in 65536". */
const char *units_strerror(int e);

struct units_unit {
	const char *name; /* "" for a bare number, if the table allows it */
	uint64_t mult; /* in the base unit */
};

struct units_table {
	const struct units_unit *unit;
	size_t n;
	bool cased; /* names matched exactly, not without regard to case */
};

/* bit/s, tc's bit units without regard to case: bit, kbit, Mbit, Gbit,
 * Tbit (1000s), Kibit, Mibit, Gibit, Tibit (1024s), or bare. No "bps":
 * tc reads "Mbps" as megabytes per second, most people as megabits
 * (units_rate_misread()). */
extern const struct units_table units_rate;
/* bytes, exactly as written: B, kB or KB, MB, GB (1000s), KiB, MiB, GiB
 * (1024s), or bare. A lower-case b is a bit (units_size_misread()). */
extern const struct units_table units_size;
/* ns: ns, us (µs), ms, s. No bare number: "0" is units_time_get()'s. */
extern const struct units_table units_time;
/* ns as units_time, and a bare number in ns (the simulator's times). */
extern const struct units_table units_time_ns;

/* The number at the start of s; its value is *num / 10^*scale. Returns
 * the characters it takes (0: s does not start with one), and the number
 * of digits in *digits if digits is not NULL. */
size_t units_decimal(const char *s, units_u128 *num, unsigned int *scale,
		     unsigned int *digits);

/* A number and one of t's units, the whole of s: the value in the base
 * unit, exactly, as *num / 10^*scale. ERANGE above 10^26 before the unit.
 * digits as units_decimal(). */
int units_parse(const char *s, const struct units_table *t, units_u128 *num,
		unsigned int *scale, unsigned int *digits);
/* ...as a whole number of the base unit up to max: EFRACTION, ERANGE. */
int units_get(const char *s, const struct units_table *t, uint64_t max,
	      uint64_t *out);
/* A time in whole ns up to max: units_time, and "0" without a unit. */
int units_time_get(const char *s, uint64_t max, uint64_t *ns);

/* A rate written in bytes per second ("100MBps", and "100Mbps", which
 * tc reads as bytes, most people as bits) or a size written in bits
 * ("4Mb", which tc reads as 4 MiB; "64kbit"): true, and in buf one
 * sentence that quotes s, names its readings in the right unit and what
 * to write instead. false for anything else (not such a spelling). */
bool units_rate_misread(const char *s, char *buf, size_t size);
bool units_size_misread(const char *s, char *buf, size_t size);

/* num / den (<= 1) in parts of UNITS_SHARE_ONE, the nearest, halves up. */
uint32_t units_share(units_u128 num, units_u128 den);
/* "N%" or, with decimal_ok, a plain decimal, the whole of s: its value as
 * the exact fraction *num / *den, not range checked. */
int units_fraction(const char *s, bool decimal_ok, units_u128 *num,
		   units_u128 *den);
/* "N%", 0 < N <= 100, as a share: ERANGE outside, EZERO below 1 part. */
int units_percent(const char *s, uint32_t *share);
/* "N%" or a decimal, in (0, 1], as a share: ERANGE, EZERO. */
int units_prob(const char *s, uint32_t *share);

/* A plain decimal, the whole of s, correctly rounded. */
int units_real(const char *s, double *out);
/* "N%" (N / 100) or, with decimal_ok, a plain decimal, correctly rounded
 * (a percentage is read as the decimal it stands for, "12.5%" as
 * "0.125", so that it is rounded once). Not range checked. */
int units_real_fraction(const char *s, bool decimal_ok, double *out);
/* A plain decimal, or "A/B" with A and B whole numbers of at most 16
 * digits up to 2^53 (exact as doubles, so the quotient is rounded once):
 * ERANGE for B = 0. Not otherwise range checked. */
int units_ratio(const char *s, double *out);

/* true or false, without regard to case (YAML 1.2's core schema). */
int units_bool(const char *s, bool *b);

/* Printers. rate: "100Gbit", "1.5Gbit", "999bit" (the largest unit that
 * keeps it exact). size: "4MiB", "2500KB", "1500" (the largest unit that
 * divides it). time: "55us", "100ms", "0". share: the shortest
 * percentage that units_percent() reads back the same, "10%", "1%".
 * fixed: num / 10^scale without trailing zeros, "25", "1.5". */
void units_rate_text(char *buf, size_t size, uint64_t bps);
void units_size_text(char *buf, size_t size, uint64_t bytes);
void units_time_text(char *buf, size_t size, uint64_t ns);
void units_share_text(char *buf, size_t size, uint32_t share);
void units_fixed_text(char *buf, size_t size, uint64_t num, unsigned int scale);
/* The shortest "%.Nf" of v * mult (N <= UNITS_DIGITS), with suffix, that
 * parse reads back as exactly v; false (buf undefined) if there is none. */
bool units_real_text(char *buf, size_t size, double v, double mult,
		     const char *suffix, int (*parse)(const char *, double *));

#endif
