// SPDX-License-Identifier: BSD-2-Clause
/*
 * cfg_walk.c - what the loader's files share (cfg_walk.h): the names of
 * the enum keys, and the written keys read from the located document by
 * their path (cfg_key_at() and its kin). Messages are config_errors.c's,
 * values of text keys config_units.c's.
 */
#include "cfg_walk.h"
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cfg_name cfg_xdp_modes[] = {
	{"native", XDP_ATTACH_NATIVE},
	{"generic", XDP_ATTACH_GENERIC},
	{"auto", XDP_ATTACH_AUTO},
	{NULL, 0},
};

const struct cfg_name cfg_bind_modes[] = {
	{"zerocopy", XSK_BIND_ZEROCOPY},
	{"copy", XSK_BIND_COPY},
	{"auto", XSK_BIND_AUTO},
	{NULL, 0},
};

const struct cfg_name cfg_failure_modes[] = {
	{"open", FAILURE_OPEN},
	{"closed", FAILURE_CLOSED},
	{NULL, 0},
};

const struct cfg_name cfg_shaper_waits[] = {
	{"sleep", 0},
	{"spin", 1},
	{NULL, 0},
};

const struct cfg_name cfg_checksum_modes[] = {
	{"auto", PORT_CSUM_AUTO},
	{"complete", PORT_CSUM_COMPLETE},
	{"trust", PORT_CSUM_TRUST},
	{NULL, 0},
};

const struct cfg_name cfg_nonect_modes[] = {
	{"drop", QOS_NONECT_DROP},
	{"pass", QOS_NONECT_PASS},
	{NULL, 0},
};

const struct cfg_name cfg_malformed_modes[] = {
	{"default", QOS_MALFORMED_DEFAULT},
	{"drop", QOS_MALFORMED_DROP},
	{NULL, 0},
};

const struct cfg_name cfg_dcqcn_profiles[] = {
	{"paper", DCQCN_PAPER},
	{"connectx", DCQCN_CONNECTX},
	{NULL, 0},
};

/* clamp: absent (0) keeps the profile's own */
const struct cfg_name cfg_clamp_modes[] = {
	{"always", CFG_CLAMP_ALWAYS},
	{"after_increase", CFG_CLAMP_AFTER_INC},
	{"never", CFG_CLAMP_NEVER},
	{NULL, 0},
};

const struct cfg_name cfg_flow_keys[] = {
	{"host", QOS_FLOW_HOST},
	{"qp", QOS_FLOW_QP},
	{NULL, 0},
};

const struct cfg_name cfg_cnp_actions[] = {
	{"forward", QOS_CNP_FORWARD},
	{"absorb", QOS_CNP_ABSORB},
	{NULL, 0},
};

const struct cfg_name cfg_log_levels[] = {
	{"err", LOG_LVL_ERR},	    {"warn", LOG_LVL_WARN},
	{"notice", LOG_LVL_NOTICE}, {"info", LOG_LVL_INFO},
	{"debug", LOG_LVL_DEBUG},   {NULL, 0},
};

const struct cfg_name cfg_adaptive_modes[] = {
	{"off", 0},
	{"on", 1},
	{NULL, 0},
};

const struct cfg_name cfg_jobs_modes[] = {
	{"off", CONFIG_JOBS_OFF},
	{"observe", CONFIG_JOBS_OBSERVE},
	{NULL, 0},
};

/* rules[].match.proto by name (not a schema enum: numbers too) */
const struct cfg_name cfg_protos[] = {
	{"udp", 17}, {"tcp", 6}, {"icmp", 1}, {"icmpv6", 58}, {NULL, 0},
};

const char *cfg_name(const struct cfg_name *t, int v)
{
	for (; t->str; t++)
		if (t->val == v)
			return t->str;
	return "invalid";
}

const struct cfg_name *cfg_find_name(const struct cfg_name *t, const char *s)
{
	for (; t->str; t++)
		if (!strcmp(t->str, s))
			return t;
	return NULL;
}

bool cfg_key_at(const struct load_ctx *c, struct key *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->path, sizeof(k->path), fmt, ap);
	va_end(ap);
	k->n = yaml_loc_find(&c->loc, k->path);
	return k->n != NULL;
}

uint32_t cfg_key_uint(const struct key *k)
{
	return (uint32_t)strtoul(k->n->text, NULL, 10);
}

int cfg_enum_at(const struct load_ctx *c, const char *path,
		const struct cfg_name *t, int def)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);
	const struct cfg_name *name = n ? cfg_find_name(t, n->text) : NULL;

	return name ? name->val : def;
}

unsigned int cfg_count_at(const struct load_ctx *c, const char *path)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);
	unsigned int count = 0;
	size_t at;

	if (!n)
		return 0;
	at = (size_t)(n - c->loc.nodes);
	for (size_t i = at + 1; i < c->loc.n; i++)
		count += c->loc.nodes[i].parent == at;
	return count;
}
