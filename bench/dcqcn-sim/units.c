// SPDX-License-Identifier: BSD-2-Clause
/*
 * units.c - see units.h: the simulator's limits and words around the one
 * parser of control/config/units.c.
 */
#include "units.h"

#include <string.h>
#include <strings.h>

#define SIM_DIGITS 18

/* At most SIM_DIGITS digits in the number at the start of s. */
static bool short_enough(const char *s)
{
	unsigned int n = 0;

	for (; (*s >= '0' && *s <= '9') || *s == '.' || *s == '/'; s++)
		n = *s == '/' ? 0 : n + (*s != '.');
	return n <= SIM_DIGITS;
}

const char *unit_strerror(int e)
{
	return units_strerror(e);
}

int unit_rate(const char *s, double *bps)
{
	unsigned int scale;
	units_u128 num, p = 1;
	double v;
	int rc = short_enough(s)
			 ? units_parse(s, &units_rate, &num, &scale, NULL)
			 : UNIT_ESYNTAX;

	if (rc)
		return rc;
	while (scale--)
		p *= 10;
	/* exact when the rate is a whole number of bit/s */
	v = num % p ? (double)num / (double)p : (double)(num / p);
	if (!(v > 0) || v > UNIT_MAX_RATE)
		return UNIT_ERANGE;
	*bps = v;
	return 0;
}

int unit_time(const char *s, uint64_t *ns)
{
	if (!short_enough(s))
		return UNIT_ESYNTAX;
	return units_get(s, &units_time_ns, UNIT_MAX_TIME_NS, ns);
}

int unit_size(const char *s, uint64_t *bytes)
{
	if (!short_enough(s))
		return UNIT_ESYNTAX;
	return units_get(s, &units_size, UNIT_MAX_SIZE, bytes);
}

int unit_prob(const char *s, double *p, uint32_t *share)
{
	units_u128 num, den;
	double v;

	if (!short_enough(s) || units_fraction(s, true, &num, &den) ||
	    units_real_fraction(s, true, &v))
		return UNIT_ESYNTAX;
	if (num > den)
		return UNIT_ERANGE;
	*p = v;
	if (share)
		*share = units_share(num, den);
	return 0;
}

int unit_real(const char *s, double max, double *v)
{
	double r;
	int rc = short_enough(s) ? units_ratio(s, &r) : UNIT_ESYNTAX;

	if (rc)
		return rc;
	if (r > max)
		return UNIT_ERANGE;
	*v = r;
	return 0;
}

int unit_count(const char *s, uint64_t max, uint64_t *v)
{
	unsigned int scale;
	units_u128 num;
	size_t len = short_enough(s) ? units_decimal(s, &num, &scale, NULL) : 0;

	if (!len || s[len] || scale)
		return UNIT_ESYNTAX;
	if (num > max)
		return UNIT_ERANGE;
	*v = (uint64_t)num;
	return 0;
}

int unit_bool(const char *s, bool *b)
{
	static const char *const yes[] = {"yes", "on"};
	static const char *const no[] = {"no", "off"};

	if (!units_bool(s, b))
		return 0;
	for (size_t i = 0; i < 2; i++) {
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
