// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_errors.c - the loader's messages (cfg_walk.h): one line,
 * "file:line:col: key: problem (got x); fix", where line and col come from
 * the yaml_loc node of the key or value, what a key accepts from the
 * schema (or, for the text-valued keys, from the SYN_* texts), and a
 * suggestion from the accepted names (suggest.h).
 */
#include "cfg_walk.h"
#include "prefix.h"
#include "suggest.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *config_error_at(const struct config_error *err, unsigned int i)
{
	return i ? err->more[i - 1] : err->msg;
}

void cfg_error_reset(struct config_error *err)
{
	err->msg[0] = '\0';
	err->n = 0;
	err->found = 0;
}

void cfg_error_add(struct config_error *err, const char *msg)
{
	/* the same message twice (one cause met by two checks) once */
	for (unsigned int i = 0; i < err->n; i++)
		if (!strcmp(config_error_at(err, i), msg))
			return;
	err->found++;
	if (err->n == CONFIG_ERRORS_MAX)
		return;
	snprintf(err->n ? err->more[err->n - 1] : err->msg, CONFIG_ERROR_LEN,
		 "%s", msg);
	err->n++;
}

int cfg_fail(const struct load_ctx *c, struct yaml_loc_pos pos, const char *fmt,
	     ...)
{
	char msg[CONFIG_ERROR_LEN];
	int len = snprintf(msg, sizeof(msg), "%s:%u:%u: ", c->name, pos.line,
			   pos.col);
	va_list ap;

	if (len < 0 || (size_t)len >= sizeof(msg)) {
		cfg_error_add(c->err, msg);
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(msg + len, sizeof(msg) - (size_t)len, fmt, ap);
	va_end(ap);
	/* one line: text quoted from the file (a multi-line scalar, a key
	 * with a tab) must not start a line of its own in a log */
	for (char *p = msg + len; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	cfg_error_add(c->err, msg);
	return -1;
}

struct yaml_loc_pos cfg_val_pos(const struct load_ctx *c, const char *path)
{
	const struct yaml_loc_node *n = yaml_loc_find(&c->loc, path);

	if (!n)
		n = yaml_loc_find(&c->loc, "");
	return n ? n->val : (struct yaml_loc_pos){1, 1};
}

static const char *name_of(const char *path)
{
	return *path ? path : "document";
}

void cfg_got_text(const struct yaml_loc_node *n, char *buf, size_t size)
{
	static const char *const kinds[] = {
		[YAML_LOC_SEQUENCE] = "a list",
		[YAML_LOC_MAPPING] = "a mapping",
		[YAML_LOC_ALIAS] = "an alias",
	};

	if (n->kind == YAML_LOC_SCALAR && !n->text[0])
		snprintf(buf, size, "nothing");
	else if (n->kind == YAML_LOC_SCALAR)
		snprintf(buf, size, "'%.40s%s'", n->text,
			 strlen(n->text) > 40 ? "..." : "");
	else
		snprintf(buf, size, "%s", kinds[n->kind]);
}

int cfg_bad_value(const struct load_ctx *c, const struct key *k,
		  const char *syntax)
{
	char got[64];

	cfg_got_text(k->n, got, sizeof(got));
	return cfg_fail(c, k->n->val, "%s: expected %s (got %s)", k->path,
			syntax, got);
}

/* The i-th name a mapping (its keys) or an enum (its strings) accepts. */
static const char *name_at(const struct cfg_schema *v, unsigned int i)
{
	if (v->type == CFG_MAP)
		return v->fields[i].key;
	return v->names[i].str;
}

static void list_names(const struct cfg_schema *v, char *buf, size_t size)
{
	const char *name;
	size_t len;

	for (unsigned int i = 0; (name = name_at(v, i)); i++) {
		len = strlen(buf);
		if (len < size)
			snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				 name);
	}
}

/* The accepted name closest to got, within an edit distance of 2. */
static const char *suggest(const struct cfg_schema *v, const char *got)
{
	struct suggest s;
	const char *name;

	suggest_init(&s, got);
	for (unsigned int i = 0; (name = name_at(v, i)); i++)
		suggest_offer(&s, name);
	return suggest_best(&s);
}

static void describe(const struct cfg_schema *v, char *buf, size_t size)
{
	switch (v->type) {
	case CFG_UINT:
		snprintf(buf, size,
			 "a plain decimal number from %u to %" PRIu32,
			 v->max ? v->min : 0, v->max ? v->max : UINT32_MAX);
		break;
	case CFG_STRING:
		snprintf(buf, size, "a string of %u to %u characters", v->min,
			 v->max);
		break;
	case CFG_ENUM:
		snprintf(buf, size, "one of ");
		list_names(v, buf, size);
		break;
	case CFG_MAP:
		snprintf(buf, size, "a mapping with the keys ");
		list_names(v, buf, size);
		break;
	default: /* CFG_SEQ */
		snprintf(buf, size, "a list");
		break;
	}
}

/* The syntax a text-valued key accepts, by the last name in its path;
 * NULL for the keys whose schema describes them well enough. */
static const char *syntax_of(const char *path)
{
	static const struct {
		const char *key, *syntax;
	} keys[] = {
		{"rate", SYN_RATE},
		{"burst", SYN_SIZE},
		{"ceil", SYN_RATE_PCT},
		{"min", SYN_RATE_PCT},
		{"ceil_burst", SYN_SIZE},
		{"min_burst", SYN_SIZE},
		{"limit_bytes", SYN_SIZE},
		{"kmin", SYN_SIZE},
		{"kmax", SYN_SIZE},
		{"pmax", SYN_PROB},
		{"name", SYN_NAME},
		{"class", SYN_NAME},
		{"default_class", SYN_NAME},
		{"ethertype", SYN_ETHERTYPE},
		{"src", PREFIX_SYNTAX},
		{"dst", PREFIX_SYNTAX},
		{"proto", SYN_PROTO},
		{"sport", SYN_PORT},
		{"dport", SYN_PORT},
		{"bth_opcode", SYN_OPCODE},
		{"socket", SYN_SOCKET},
		{"metrics_listen", SYN_LISTEN},
		{"socket_group", SYN_ACCOUNT},
		{"readonly_group", SYN_ACCOUNT},
		{"user", SYN_ACCOUNT},
		{"group", SYN_ACCOUNT},
		{"dcqcn", SYN_BOOL}, /* classes[].dcqcn */
		{"line_rate", SYN_LINE},
		{"min_rate", SYN_RATE},
		{"rate_ai", SYN_RATE},
		{"rate_hai", SYN_RATE},
		{"g", SYN_GAIN},
		{"alpha_init", SYN_GAIN},
		{"alpha_timer", SYN_TIME},
		{"increase_timer", SYN_TIME},
		{"decrease_period", SYN_TIME},
		{"byte_counter", SYN_SIZE},
		{"min_decrease", SYN_DECREASE},
		{"cnp_interval", SYN_TIME},
		{"flow_idle", SYN_TIME},
		{"first_cnp_rate", SYN_FIRST_CNP},
		{"alpha_before_cut", SYN_BOOL},
		{"cp_loop", SYN_BOOL},
		{"enabled", SYN_BOOL},
		{"queues", SYN_QUEUES},
		{"hugepages", SYN_BOOL}, /* umem.hugepages */
		{"lossless", SYN_BOOL}, /* classes[].lossless */
		{"link_speed", SYN_RATE}, /* ports[].link_speed */
		{"xoff", SYN_PFC_SIZE}, /* pfc.xoff */
		{"xon", SYN_PFC_SIZE}, /* pfc.xon */
		{"watchdog", SYN_TIME_IN("milliseconds")},
		{"watchdog_restore", SYN_TIME_IN("milliseconds")},
		{"busy_us", SYN_TIME_IN("microseconds")},
		{"coalesce_us", SYN_TIME_IN("microseconds")},
		{"shaper_spin_us", SYN_TIME_IN("microseconds")},
		{"stats_interval_ms", SYN_TIME_IN("milliseconds")},
	};
	const char *key = strrchr(path, '.');

	if (strncmp(path, "ports", 5) && strncmp(path, "classes", 7) &&
	    strncmp(path, "rules", 5) && strcmp(path, "default_class") &&
	    strncmp(path, "control.", 8) && strcmp(path, "user") &&
	    strcmp(path, "group") && strncmp(path, "dcqcn.", 6) &&
	    strcmp(path, "queues") && strcmp(path, "umem.hugepages") &&
	    strncmp(path, "pfc.", 4) && strncmp(path, "poll.", 5))
		return NULL;
	key = key ? key + 1 : path;
	for (size_t i = 0; i < CFG_ARRAY_LEN(keys); i++)
		if (!strcmp(keys[i].key, key))
			return keys[i].syntax;
	return NULL;
}

int cfg_type_error(const struct load_ctx *c, const struct yaml_loc_node *n,
		   const struct cfg_schema *v)
{
	const char *near = NULL, *syntax = syntax_of(n->path);
	char want[384], got[64];

	if (syntax)
		snprintf(want, sizeof(want), "%s", syntax);
	else
		describe(v, want, sizeof(want));
	cfg_got_text(n, got, sizeof(got));
	if (n->kind == YAML_LOC_SCALAR && n->text[0] && v->type == CFG_ENUM)
		near = suggest(v, n->text);
	if (near)
		return cfg_fail(c, n->val,
				"%s: expected %s (got %s); did you mean '%s'?",
				name_of(n->path), want, got, near);
	return cfg_fail(c, n->val, "%s: expected %s (got %s)", name_of(n->path),
			want, got);
}

int cfg_unknown_key(const struct load_ctx *c, const struct yaml_loc_node *n,
		    const struct cfg_schema *v, const char *parent_path)
{
	const char *dot = *parent_path ? "." : "";
	const char *near = suggest(v, n->name);
	char names[384] = "";

	if (near)
		return cfg_fail(c, n->key,
				"unknown key '%.299s' (did you mean '%s%s%s'?)",
				n->path, parent_path, dot, near);
	list_names(v, names, sizeof(names));
	return cfg_fail(c, n->key,
			"unknown key '%.299s'; the keys %s%s are: %s", n->path,
			*parent_path ? "under " : "at the top", parent_path,
			names);
}
