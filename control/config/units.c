// SPDX-License-Identifier: BSD-2-Clause
/*
 * units.c - see units.h. A number is read into an exact integer mantissa
 * and a decimal scale (value = num / 10^scale); a unit multiplies it;
 * whole results are checked by divisibility, so "1.5ms" is exactly
 * 1500000 ns and "0.5ns" is refused rather than rounded. Doubles come from
 * strtod() on the digits alone, so they are rounded once.
 */
#include "units.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define DEC_BIG 26 /* numbers above 10^26 are out of any range */
#define EXACT_MAX (1ull << 53) /* whole numbers exact as doubles */

/* tc's bit units (tc(8), "RATES"); matched without regard to case */
static const struct units_unit rate_units[] = {
	{"", 1},
	{"bit", 1},
	{"kbit", 1000},
	{"mbit", 1000000},
	{"gbit", 1000000000},
	{"tbit", 1000000000000},
	{"kibit", 1ull << 10},
	{"mibit", 1ull << 20},
	{"gibit", 1ull << 30},
	{"tibit", 1ull << 40},
};

/* matched exactly: a byte is B, never b (a bit) */
static const struct units_unit size_units[] = {
	{"", 1},	   {"B", 1},	      {"kB", 1000},
	{"KB", 1000},	   {"MB", 1000000},   {"GB", 1000000000},
	{"KiB", 1u << 10}, {"MiB", 1u << 20}, {"GiB", 1u << 30},
};

static const struct units_unit time_units[] = {
	{"ns", 1},	 {"us", 1000},	    {"\xc2\xb5s", 1000}, /* µs */
	{"ms", 1000000}, {"s", 1000000000},
};

static const struct units_unit time_ns_units[] = {
	{"", 1},	 {"ns", 1},	    {"us", 1000}, {"\xc2\xb5s", 1000},
	{"ms", 1000000}, {"s", 1000000000},
};

const struct units_table units_rate = {rate_units, ARRAY_LEN(rate_units),
				       false};
const struct units_table units_size = {size_units, ARRAY_LEN(size_units), true};
const struct units_table units_time = {time_units, ARRAY_LEN(time_units),
				       false};
const struct units_table units_time_ns = {time_ns_units,
					  ARRAY_LEN(time_ns_units), false};

const char *units_strerror(int e)
{
	switch (e) {
	case UNITS_OK:
		return "ok";
	case UNITS_ESYNTAX:
		return "not understood";
	case UNITS_ERANGE:
		return "out of range";
	case UNITS_EFRACTION:
		return "not a whole number of the base unit";
	case UNITS_EZERO:
		return "less than one part in 65536";
	default:
		return "unknown error";
	}
}

static units_u128 pow10_of(unsigned int n)
{
	units_u128 p = 1;

	while (n--)
		p *= 10;
	return p;
}

size_t units_decimal(const char *s, units_u128 *num, unsigned int *scale,
		     unsigned int *digits)
{
	unsigned int n = 0;
	bool point = false;
	size_t i;

	*num = 0;
	*scale = 0;
	if (digits)
		*digits = 0;
	if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		return 0;
	for (i = 0;; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (++n > UNITS_DIGITS)
				return 0;
			*num = *num * 10 + (unsigned int)(s[i] - '0');
			*scale += point;
		} else if (s[i] == '.' && !point && n && s[i + 1] >= '0' &&
			   s[i + 1] <= '9') {
			point = true;
		} else {
			break;
		}
	}
	if (digits)
		*digits = n;
	return n ? i : 0;
}

int units_parse(const char *s, const struct units_table *t, units_u128 *num,
		unsigned int *scale, unsigned int *digits)
{
	units_u128 v;
	unsigned int sc;
	size_t len = units_decimal(s, &v, &sc, digits), i;

	if (!len)
		return UNITS_ESYNTAX;
	for (i = 0; i < t->n; i++)
		if (!(t->cased ? strcmp : strcasecmp)(s + len, t->unit[i].name))
			break;
	if (i == t->n)
		return UNITS_ESYNTAX;
	if (v > pow10_of(DEC_BIG))
		return UNITS_ERANGE;
	*num = v * t->unit[i].mult; /* <= 10^26 * 10^12 < 2^128 */
	*scale = sc;
	return UNITS_OK;
}

int units_get(const char *s, const struct units_table *t, uint64_t max,
	      uint64_t *out)
{
	unsigned int scale;
	units_u128 v, p;
	int rc = units_parse(s, t, &v, &scale, NULL);

	if (rc)
		return rc;
	p = pow10_of(scale);
	if (v % p)
		return UNITS_EFRACTION;
	v /= p;
	if (v > max)
		return UNITS_ERANGE;
	*out = (uint64_t)v;
	return UNITS_OK;
}

int units_time_get(const char *s, uint64_t max, uint64_t *ns)
{
	if (!strcmp(s, "0")) {
		*ns = 0;
		return UNITS_OK;
	}
	return units_get(s, &units_time, max, ns);
}

/* An optional prefix k, M, G or T (any case), then an optional i (1024s):
 * its length, its letter in upper case ('\0': none) and its multiple. */
static size_t unit_prefix(const char *u, char *letter, bool *iec,
			  units_u128 *mult)
{
	static const char letters[] = "KMGT";
	char up = (char)toupper((unsigned char)*u);
	const char *at = up ? strchr(letters, up) : NULL;
	unsigned int n;

	*letter = '\0';
	*iec = false;
	*mult = 1;
	if (!at)
		return 0;
	*letter = *at;
	*iec = u[1] == 'i' || u[1] == 'I';
	for (n = (unsigned int)(at - letters) + 1; n; n--)
		*mult *= *iec ? 1024 : 1000;
	return *iec ? 2 : 1;
}

/* v / 10^scale as a whole number up to UINT64_MAX into *out, if it is
 * one. */
static bool whole(units_u128 v, unsigned int scale, uint64_t *out)
{
	units_u128 p = pow10_of(scale);

	if (v % p || v / p > UINT64_MAX)
		return false;
	*out = (uint64_t)(v / p);
	return true;
}

bool units_rate_misread(const char *s, char *buf, size_t size)
{
	char letter, bits[64], eight[48], pre[3] = "";
	unsigned int scale;
	units_u128 num, mult;
	size_t len = units_decimal(s, &num, &scale, NULL), pl;
	const char *rest;
	uint64_t bps;
	bool iec;

	if (!len)
		return false;
	pl = unit_prefix(s + len, &letter, &iec, &mult);
	rest = s + len + pl;
	if ((rest[0] != 'B' && rest[0] != 'b') || strcasecmp(rest + 1, "ps"))
		return false;
	/* the number as written, in bits: 100Mbit, 1kbit, 2Kibit */
	pre[0] = letter == 'K' && !iec ? 'k' : letter;
	pre[1] = letter && iec ? 'i' : '\0';
	snprintf(bits, sizeof(bits), "%.*s%sbit", (int)len, s, pre);
	if (num > pow10_of(DEC_BIG) || !whole(num * mult * 8, scale, &bps)) {
		snprintf(buf, size,
			 "'%.40s' is %sbytes per second%s; rates are in bits "
			 "(8 to a byte), e.g. %s",
			 s, rest[0] == 'b' ? "bits or " : "",
			 rest[0] == 'b' ? " (tc)" : "", bits);
		return true;
	}
	units_rate_text(eight, sizeof(eight), bps);
	if (rest[0] == 'B')
		snprintf(buf, size,
			 "'%.40s' is bytes per second (%s); rates are in "
			 "bits: write %s, or %s if bits were meant",
			 s, eight, eight, bits);
	else
		snprintf(buf, size,
			 "'%.40s' is bits per second to most (%s) but bytes "
			 "per second to tc (%s); rates are in bits: write %s "
			 "or %s",
			 s, bits, eight, bits, eight);
	return true;
}

bool units_size_misread(const char *s, char *buf, size_t size)
{
	char letter, as_bits[48], as_tc[48], write[112] = "", tmp[48];
	unsigned int scale;
	units_u128 num, mult, tc_mult = 1;
	size_t len = units_decimal(s, &num, &scale, NULL), pl;
	uint64_t bytes, milli;
	const char *rest;
	bool iec, tc;

	if (!len)
		return false;
	pl = unit_prefix(s + len, &letter, &iec, &mult);
	rest = s + len + pl;
	if (!strcmp(rest, "b"))
		tc = !iec; /* tc: b bytes, kb/mb/gb 1024s of bytes */
	else if (!strcasecmp(rest, "bit") || !strcasecmp(rest, "bits"))
		tc = false;
	else
		return false;
	if (num > pow10_of(DEC_BIG)) {
		snprintf(buf, size,
			 "'%.40s' is bits; sizes are in bytes, e.g. 64KB or "
			 "4MiB",
			 s);
		return true;
	}
	/* the bits as bytes: num * mult / 8 / 10^scale */
	if (whole(num * mult, scale, &bytes) && !(bytes % 8)) {
		bytes /= 8;
		snprintf(as_bits, sizeof(as_bits), "%" PRIu64 " bytes", bytes);
		units_size_text(write, sizeof(write), bytes);
	} else if (scale + 3 <= 19 && whole(num * mult * 125, 0, &milli)) {
		units_fixed_text(as_bits, sizeof(as_bits) - 6, milli,
				 scale + 3);
		strcat(as_bits, " bytes");
	} else {
		snprintf(as_bits, sizeof(as_bits), "not whole bytes");
	}
	if (tc) {
		for (const char *l = "KMGT"; letter && *l; l++) {
			tc_mult *= 1024;
			if (*l == letter)
				break;
		}
		if (letter)
			snprintf(as_tc, sizeof(as_tc), "%.*s%ciB", (int)len, s,
				 letter);
		else
			snprintf(as_tc, sizeof(as_tc), "%.*s bytes", (int)len,
				 s);
		if (whole(num * tc_mult, scale, &bytes)) {
			if (letter)
				snprintf(tmp, sizeof(tmp), "%s", as_tc);
			else
				units_size_text(tmp, sizeof(tmp), bytes);
			len = strlen(write);
			snprintf(write + len, sizeof(write) - len, "%s%s",
				 len ? " or " : "", tmp);
		}
		snprintf(buf, size, "'%.40s' is bits (%s) but bytes to tc (%s)",
			 s, as_bits, as_tc);
	} else {
		snprintf(buf, size, "'%.40s' is bits (%s)", s, as_bits);
	}
	len = strlen(buf);
	if (*write)
		snprintf(buf + len, size - len,
			 "; sizes are in bytes: write %s", write);
	else
		snprintf(buf + len, size - len,
			 "; sizes are in bytes, e.g. 64KB or 4MiB");
	return true;
}

uint32_t units_share(units_u128 num, units_u128 den)
{
	return (uint32_t)((2 * num * UNITS_SHARE_ONE + den) / (2 * den));
}

int units_fraction(const char *s, bool decimal_ok, units_u128 *num,
		   units_u128 *den)
{
	unsigned int scale;
	units_u128 v;
	size_t len = units_decimal(s, &v, &scale, NULL);

	if (!len)
		return UNITS_ESYNTAX;
	if (!strcmp(s + len, "%")) {
		*den = 100 * pow10_of(scale);
	} else if (!s[len] && decimal_ok) {
		*den = pow10_of(scale);
	} else {
		return UNITS_ESYNTAX;
	}
	*num = v;
	return UNITS_OK;
}

int units_percent(const char *s, uint32_t *share)
{
	units_u128 num, den;
	uint32_t v;

	if (units_fraction(s, false, &num, &den))
		return UNITS_ESYNTAX;
	if (!num || num > den)
		return UNITS_ERANGE;
	v = units_share(num, den);
	if (!v)
		return UNITS_EZERO;
	*share = v;
	return UNITS_OK;
}

int units_prob(const char *s, uint32_t *share)
{
	units_u128 num, den;
	uint32_t v;

	if (*s && s[strlen(s) - 1] == '%')
		return units_percent(s, share);
	if (units_fraction(s, true, &num, &den))
		return UNITS_ESYNTAX;
	if (!num || num > den)
		return UNITS_ERANGE;
	v = units_share(num, den);
	if (!v)
		return UNITS_EZERO;
	*share = v;
	return UNITS_OK;
}

int units_real(const char *s, double *out)
{
	unsigned int scale;
	units_u128 num;
	size_t len = units_decimal(s, &num, &scale, NULL);

	if (!len || s[len])
		return UNITS_ESYNTAX;
	*out = strtod(s, NULL); /* digits and at most one '.' only */
	return UNITS_OK;
}

int units_real_fraction(const char *s, bool decimal_ok, double *out)
{
	char digits[UNITS_DIGITS + 1], text[2 * UNITS_DIGITS + 8];
	unsigned int scale, n = 0;
	units_u128 num;
	size_t len = units_decimal(s, &num, &scale, NULL);

	if (!len)
		return UNITS_ESYNTAX;
	if (!s[len])
		return decimal_ok ? units_real(s, out) : UNITS_ESYNTAX;
	if (strcmp(s + len, "%"))
		return UNITS_ESYNTAX;
	for (size_t i = 0; i < len; i++)
		if (s[i] != '.')
			digits[n++] = s[i];
	digits[n] = '\0';
	/* the value is the digits / 10^(scale + 2) */
	scale += 2;
	if (n > scale)
		snprintf(text, sizeof(text), "%.*s.%s", (int)(n - scale),
			 digits, digits + n - scale);
	else
		snprintf(text, sizeof(text), "0.%.*s%s", (int)(scale - n),
			 "00000000000000000000000000000000", digits);
	*out = strtod(text, NULL);
	return UNITS_OK;
}

/* Plain decimal digits without a leading zero, at most 2^53 (exact as a
 * double). */
static bool exact_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 16 || (s[0] == '0' && len > 1))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > EXACT_MAX)
		return false;
	*out = v;
	return true;
}

int units_ratio(const char *s, double *out)
{
	const char *slash = strchr(s, '/');
	uint64_t a, b;

	if (!slash)
		return units_real(s, out);
	if (!exact_count(s, (size_t)(slash - s), &a) ||
	    !exact_count(slash + 1, strlen(slash + 1), &b))
		return UNITS_ESYNTAX;
	if (!b)
		return UNITS_ERANGE;
	*out = (double)a / (double)b; /* both exact: rounded once */
	return UNITS_OK;
}

int units_bool(const char *s, bool *b)
{
	if (!strcasecmp(s, "true"))
		*b = true;
	else if (!strcasecmp(s, "false"))
		*b = false;
	else
		return UNITS_ESYNTAX;
	return UNITS_OK;
}

void units_fixed_text(char *buf, size_t size, uint64_t num, unsigned int scale)
{
	uint64_t p = (uint64_t)pow10_of(scale), frac = num % p;
	int digits = (int)scale;

	while (digits && !(frac % 10)) {
		frac /= 10;
		digits--;
	}
	if (digits)
		snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64, num / p, digits,
			 frac);
	else
		snprintf(buf, size, "%" PRIu64, num / p);
}

void units_rate_text(char *buf, size_t size, uint64_t bps)
{
	static const struct {
		const char *name;
		unsigned int scale;
	} units[] = {{"Tbit", 12}, {"Gbit", 9}, {"Mbit", 6}, {"kbit", 3}};
	size_t len;

	for (size_t i = 0; i < ARRAY_LEN(units); i++)
		if (bps >= (uint64_t)pow10_of(units[i].scale)) {
			units_fixed_text(buf, size, bps, units[i].scale);
			len = strlen(buf);
			snprintf(buf + len, size - len, "%s", units[i].name);
			return;
		}
	snprintf(buf, size, "%" PRIu64 "bit", bps);
}

void units_size_text(char *buf, size_t size, uint64_t bytes)
{
	static const struct units_unit units[] = {
		{"GiB", 1u << 30}, {"GB", 1000000000}, {"MiB", 1u << 20},
		{"MB", 1000000},   {"KiB", 1024},      {"KB", 1000},
	};

	for (size_t i = 0; bytes && i < ARRAY_LEN(units); i++)
		if (!(bytes % units[i].mult)) {
			snprintf(buf, size, "%" PRIu64 "%s",
				 bytes / units[i].mult, units[i].name);
			return;
		}
	snprintf(buf, size, "%" PRIu64, bytes);
}

void units_time_text(char *buf, size_t size, uint64_t ns)
{
	static const struct units_unit units[] = {
		{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}};

	for (size_t i = 0; ns && i < ARRAY_LEN(units); i++)
		if (!(ns % units[i].mult)) {
			snprintf(buf, size, "%" PRIu64 "%s", ns / units[i].mult,
				 units[i].name);
			return;
		}
	snprintf(buf, size, "0");
}

void units_share_text(char *buf, size_t size, uint32_t share)
{
	units_u128 p, n;
	size_t len;

	for (unsigned int d = 0; d <= 4; d++) {
		p = pow10_of(d);
		n = (2 * (units_u128)share * 100 * p + UNITS_SHARE_ONE) /
		    (2 * UNITS_SHARE_ONE);
		if (units_share(n, 100 * p) == share || d == 4) {
			units_fixed_text(buf, size, (uint64_t)n, d);
			break;
		}
	}
	len = strlen(buf);
	snprintf(buf + len, size - len, "%%");
}

bool units_real_text(char *buf, size_t size, double v, double mult,
		     const char *suffix, int (*parse)(const char *, double *))
{
	double back;

	for (int prec = 0; prec <= UNITS_DIGITS; prec++) {
		snprintf(buf, size, "%.*f%s", prec, v * mult, suffix);
		if (parse(buf, &back) == UNITS_OK && back == v)
			return true;
	}
	return false;
}
