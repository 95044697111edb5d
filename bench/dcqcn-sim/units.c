// SPDX-License-Identifier: BSD-2-Clause
/*
 * units.c - see units.h. A number is read into an exact integer mantissa
 * and a decimal scale (value = num / 10^scale); a unit multiplies it;
 * whole-unit results are checked by divisibility, so "1.5ms" is exactly
 * 1500000 ns and "0.5ns" is refused rather than rounded.
 */
#include "units.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#define DEC_DIGITS 18

typedef unsigned __int128 u128;

struct unit {
	const char *name; /* compared without regard to case */
	uint64_t mult;
};

static const struct unit rate_units[] = {
	{"", 1},
	{"bit", 1},
	{"bps", 1},
	{"kbit", 1000},
	{"kbps", 1000},
	{"mbit", 1000000},
	{"mbps", 1000000},
	{"gbit", 1000000000},
	{"gbps", 1000000000},
	{"tbit", 1000000000000},
	{"tbps", 1000000000000},
};

static const struct unit time_units[] = {
	{"", 1},	 {"ns", 1},	    {"us", 1000}, {"\xc2\xb5s", 1000},
	{"ms", 1000000}, {"s", 1000000000},
};

static const struct unit size_units[] = {
	{"", 1},
	{"b", 1},
	{"kb", 1000},
	{"kib", 1024},
	{"mb", 1000000},
	{"mib", 1u << 20},
	{"gb", 1000000000},
	{"gib", 1u << 30},
};

const char *unit_strerror(int e)
{
	switch (e) {
	case 0:
		return "ok";
	case UNIT_ESYNTAX:
		return "not understood";
	case UNIT_ERANGE:
		return "out of range";
	case UNIT_EFRACTION:
		return "not a whole number of the base unit";
	default:
		return "unknown error";
	}
}

static u128 pow10_of(unsigned int n)
{
	u128 p = 1;

	while (n--)
		p *= 10;
	return p;
}

/* The decimal number at the start of s ("0", "25", "1.5": no sign, no
 * exponent, no leading zero before other digits); its value is
 * *num / 10^*scale. Returns how many characters it takes, 0 if s does not
 * start with one. */
static size_t parse_decimal(const char *s, uint64_t *num, unsigned int *scale)
{
	size_t i, digits = 0;
	bool point = false;

	*num = 0;
	*scale = 0;
	if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		return 0;
	for (i = 0;; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (++digits > DEC_DIGITS)
				return 0;
			*num = *num * 10 + (unsigned int)(s[i] - '0');
			*scale += point;
		} else if (s[i] == '.' && !point && digits && s[i + 1] >= '0' &&
			   s[i + 1] <= '9') {
			point = true;
		} else {
			break;
		}
	}
	return digits ? i : 0;
}

/* num * mult / 10^scale: the unit, or -UNIT_ESYNTAX if the rest of s
 * names none of units. */
static int parse_unit(const char *s, const struct unit *units, size_t n,
		      u128 *prod, unsigned int *scale)
{
	uint64_t num;
	size_t len = parse_decimal(s, &num, scale), i;

	if (!len)
		return UNIT_ESYNTAX;
	for (i = 0; i < n && strcasecmp(s + len, units[i].name); i++)
		;
	if (i == n)
		return UNIT_ESYNTAX;
	*prod = (u128)num * units[i].mult; /* < 10^18 * 10^12 */
	return 0;
}

/* A whole multiple of the base unit, <= max. */
static int parse_whole(const char *s, const struct unit *units, size_t n,
		       uint64_t max, uint64_t *out)
{
	unsigned int scale;
	u128 prod, p;
	int rc = parse_unit(s, units, n, &prod, &scale);

	if (rc)
		return rc;
	p = pow10_of(scale);
	if (prod % p)
		return UNIT_EFRACTION;
	prod /= p;
	if (prod > max)
		return UNIT_ERANGE;
	*out = (uint64_t)prod;
	return 0;
}

int unit_rate(const char *s, double *bps)
{
	unsigned int scale;
	u128 prod, p;
	double v;
	int rc = parse_unit(s, rate_units,
			    sizeof(rate_units) / sizeof(rate_units[0]), &prod,
			    &scale);

	if (rc)
		return rc;
	p = pow10_of(scale);
	/* exact when the rate is a whole number of bit/s */
	v = prod % p ? (double)prod / (double)p : (double)(prod / p);
	if (!(v > 0) || v > UNIT_MAX_RATE)
		return UNIT_ERANGE;
	*bps = v;
	return 0;
}

int unit_time(const char *s, uint64_t *ns)
{
	return parse_whole(s, time_units,
			   sizeof(time_units) / sizeof(time_units[0]),
			   UNIT_MAX_TIME_NS, ns);
}

int unit_size(const char *s, uint64_t *bytes)
{
	return parse_whole(s, size_units,
			   sizeof(size_units) / sizeof(size_units[0]),
			   UNIT_MAX_SIZE, bytes);
}

int unit_prob(const char *s, double *p, uint32_t *share)
{
	unsigned int scale;
	uint64_t num;
	size_t len = parse_decimal(s, &num, &scale);
	u128 den;

	if (!len)
		return UNIT_ESYNTAX;
	den = pow10_of(scale);
	if (!strcmp(s + len, "%"))
		den *= 100;
	else if (s[len])
		return UNIT_ESYNTAX;
	if (num > den)
		return UNIT_ERANGE;
	*p = (double)num / (double)den;
	if (share)
		*share = (uint32_t)((2 * (u128)num * 65536 + den) / (2 * den));
	return 0;
}

int unit_real(const char *s, double max, double *v)
{
	unsigned int scale, dscale;
	uint64_t num, dnum;
	size_t len = parse_decimal(s, &num, &scale), dlen;
	double r;

	if (!len)
		return UNIT_ESYNTAX;
	r = (double)num / (double)pow10_of(scale);
	if (s[len] == '/') {
		dlen = parse_decimal(s + len + 1, &dnum, &dscale);
		if (!dlen || s[len + 1 + dlen])
			return UNIT_ESYNTAX;
		if (!dnum)
			return UNIT_ERANGE;
		/* (num / 10^scale) / (dnum / 10^dscale) */
		r = ((double)num * (double)pow10_of(dscale)) /
		    ((double)dnum * (double)pow10_of(scale));
	} else if (s[len]) {
		return UNIT_ESYNTAX;
	}
	if (r > max)
		return UNIT_ERANGE;
	*v = r;
	return 0;
}

int unit_count(const char *s, uint64_t max, uint64_t *v)
{
	unsigned int scale;
	uint64_t num;
	size_t len = parse_decimal(s, &num, &scale);

	if (!len || s[len] || scale)
		return UNIT_ESYNTAX;
	if (num > max)
		return UNIT_ERANGE;
	*v = num;
	return 0;
}

int unit_bool(const char *s, bool *b)
{
	static const char *const yes[] = {"true", "yes", "on"};
	static const char *const no[] = {"false", "no", "off"};

	for (size_t i = 0; i < 3; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return UNIT_ESYNTAX;
}
