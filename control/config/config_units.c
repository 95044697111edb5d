// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_units.c - the values of written keys (cfg_walk.h): rates,
 * sizes and times parsed by control/config/units.h into exact integers (bits/s,
 * bytes, ns), shares of the port rate, booleans, ranges of uint keys;
 * each problem reported at the key's value, saying what the key accepts
 * or which limit it passes.
 */
#include "cfg_walk.h"

#include <string.h>

#define QOS_MAX_RATE 10000000000000ull /* 10 Tbit/s */
#define QOS_BURST_MIN 32768 /* default bursts: at least 32 KiB... */
#define QOS_BURST_TIME 40000 /* ...or rate * 200 us / 8 = rate / 40000 */

uint32_t cfg_default_burst(uint64_t bps)
{
	uint64_t b = (bps + QOS_BURST_TIME - 1) / QOS_BURST_TIME;

	return b < QOS_BURST_MIN ? QOS_BURST_MIN : (uint32_t)b;
}

units_u128 cfg_scaled(uint64_t bps, uint32_t share, uint64_t rate)
{
	return bps ? (units_u128)bps * QOS_PROB_ONE : (units_u128)share * rate;
}

static bool has_port_rate(const struct qos_policy *q)
{
	return q->port[0].rate_bps || q->port[1].rate_bps;
}

/* "N%" of the port rate into *share. */
static int get_share(const struct load_ctx *c, const struct key *k,
		     const struct qos_policy *q, uint32_t *share)
{
	const char *s = k->n->text;

	switch (units_percent(s, share)) {
	case UNITS_ESYNTAX:
		return cfg_bad_value(c, k, SYN_RATE_PCT);
	case UNITS_ERANGE:
		return cfg_fail(c, k->n->val,
				"%s: a percentage must be above 0%% and at "
				"most 100%% (got '%s')",
				k->path, s);
	case UNITS_EZERO:
		return cfg_fail(c, k->n->val,
				"%s: '%s' is less than one part in %u of the "
				"port rate; use at least 0.0008%%",
				k->path, s, QOS_PROB_ONE);
	default:
		break;
	}
	if (!has_port_rate(q))
		return cfg_fail(c, k->n->val,
				"%s: a percentage needs ports[].rate; set the "
				"rate of the ports, or write a rate such as "
				"5Gbit",
				k->path);
	for (unsigned int p = 0; p < CONFIG_PORTS; p++)
		if (q->port[p].rate_bps &&
		    !(cfg_scaled(0, *share, q->port[p].rate_bps) >> 16))
			return cfg_fail(c, k->n->val,
					"%s: '%s' of ports[%u].rate is less "
					"than 1 bit/s",
					k->path, s, p);
	return 0;
}

int cfg_get_rate(const struct load_ctx *c, const struct key *k,
		 const struct qos_policy *q, uint64_t *bps, uint32_t *share,
		 const char *none)
{
	const char *s = k->n->text;
	char why[256];
	uint64_t v = 0;

	if (share && *s && s[strlen(s) - 1] == '%')
		return get_share(c, k, q, share);
	switch (units_get(s, &units_rate, QOS_MAX_RATE, &v)) {
	case UNITS_OK:
		break;
	case UNITS_EFRACTION:
		return cfg_fail(c, k->n->val,
				"%s: not a whole number of bits/s (got '%s')",
				k->path, s);
	case UNITS_ERANGE:
		return cfg_fail(c, k->n->val,
				"%s: above the largest rate, 10Tbit (got '%s')",
				k->path, s);
	default:
		if (units_rate_misread(s, why, sizeof(why)))
			return cfg_fail(c, k->n->val, "%s: %s", k->path, why);
		return cfg_bad_value(c, k, share ? SYN_RATE_PCT : SYN_RATE);
	}
	if (!v)
		return cfg_fail(c, k->n->val,
				"%s: a rate of 0 (got '%s'); leave the key out "
				"for %s",
				k->path, s, none);
	*bps = v;
	return 0;
}

int cfg_get_size(const struct load_ctx *c, const struct key *k, uint32_t min,
		 const char *why, uint32_t *bytes)
{
	const char *s = k->n->text;
	char text[256];
	uint64_t v = 0;

	switch (units_get(s, &units_size, UINT32_MAX, &v)) {
	case UNITS_OK:
		break;
	case UNITS_EFRACTION:
		return cfg_fail(c, k->n->val,
				"%s: not a whole number of bytes (got '%s')",
				k->path, s);
	case UNITS_ERANGE:
		return cfg_fail(c, k->n->val,
				"%s: above the largest size, 4294967295 bytes "
				"(got '%s')",
				k->path, s);
	default:
		if (units_size_misread(s, text, sizeof(text)))
			return cfg_fail(c, k->n->val, "%s: %s", k->path, text);
		return cfg_bad_value(c, k, SYN_SIZE);
	}
	if (v < min)
		return cfg_fail(c, k->n->val,
				"%s: must be at least %u bytes, %s (got '%s')",
				k->path, min, why, s);
	*bytes = (uint32_t)v;
	return 0;
}

int cfg_get_frame_size(const struct load_ctx *c, const struct key *k,
		       const struct xdplane_config *cfg, uint32_t *bytes)
{
	return cfg_get_size(c, k, cfg->umem.frame_size,
			    "umem.frame_size, to hold the largest frame",
			    bytes);
}

int cfg_get_time(const struct load_ctx *c, const struct key *k, uint64_t min,
		 uint64_t max, uint64_t *ns)
{
	const char *s = k->n->text;
	char lo[32], hi[32];
	uint64_t v = 0;

	switch (units_time_get(s, UINT64_MAX, &v)) {
	case UNITS_OK:
		break;
	case UNITS_EFRACTION:
		return cfg_fail(c, k->n->val,
				"%s: not a whole number of nanoseconds (got "
				"'%s')",
				k->path, s);
	case UNITS_ERANGE:
		v = UINT64_MAX;
		break;
	default:
		return cfg_bad_value(c, k, SYN_TIME);
	}
	if (v < min || v > max) {
		units_time_text(lo, sizeof(lo), min);
		units_time_text(hi, sizeof(hi), max);
		return cfg_fail(c, k->n->val,
				"%s: must be between %s and %s (got '%s')",
				k->path, lo, hi, s);
	}
	*ns = v;
	return 0;
}

int cfg_get_time_in(const struct load_ctx *c, const struct key *k,
		    uint64_t unit_ns, const char *unit_name, uint32_t min,
		    uint32_t max, uint32_t *v)
{
	const char *s = k->n->text;
	char lo[32], hi[32], syntax[160];
	unsigned int scale;
	units_u128 num;
	size_t len = units_decimal(s, &num, &scale, NULL);
	uint64_t ns = UINT64_MAX;
	int rc = UNITS_OK;

	snprintf(syntax, sizeof(syntax), SYN_TIME_IN("%s"), unit_name);
	if (len && !s[len]) { /* bare: that many units */
		if (scale)
			return cfg_bad_value(c, k, syntax);
		if (num <= UINT32_MAX)
			ns = (uint64_t)num * unit_ns;
	} else {
		rc = units_time_get(s, UINT64_MAX, &ns);
	}
	if (rc == UNITS_EFRACTION || (rc == UNITS_OK && ns % unit_ns))
		return cfg_fail(c, k->n->val,
				"%s: not a whole number of %s (got '%s')",
				k->path, unit_name, s);
	if (rc == UNITS_ERANGE)
		ns = UINT64_MAX;
	else if (rc)
		return cfg_bad_value(c, k, syntax);
	if (ns / unit_ns < min || ns / unit_ns > max) {
		units_time_text(lo, sizeof(lo), (uint64_t)min * unit_ns);
		units_time_text(hi, sizeof(hi), (uint64_t)max * unit_ns);
		return cfg_fail(c, k->n->val,
				"%s: must be between %u and %u %s, %s to %s "
				"(got '%s')",
				k->path, min, max, unit_name, lo, hi, s);
	}
	*v = (uint32_t)(ns / unit_ns);
	return 0;
}

int cfg_get_uint(const struct load_ctx *c, const struct key *k, uint32_t min,
		 uint32_t max, const char *unit, uint32_t *v)
{
	uint32_t got = cfg_key_uint(k);

	if (got < min || got > max)
		return cfg_fail(c, k->n->val,
				"%s: must be between %u and %u%s (got %u)",
				k->path, min, max, unit, got);
	*v = got;
	return 0;
}

int cfg_get_bool(const struct load_ctx *c, const struct key *k, bool *b)
{
	return units_bool(k->n->text, b) ? cfg_bad_value(c, k, SYN_BOOL) : 0;
}
