// SPDX-License-Identifier: BSD-2-Clause
/*
 * scenario.c - see scenario.h. yaml_loc parses the text and lists every
 * node with its key path and position; one pass in document order matches
 * each node's path with its list indices stripped ("flows[].sent[].at")
 * against the key table below and stores the value; then defaults,
 * required keys, cross-key rules and the work estimate are checked. Only
 * the keys that the others depend on (profile, line_rate, whether there is
 * a bottleneck) are read before that pass.
 *
 * Every index taken from a path is bounds-checked against what the first
 * count found: a mapping key may itself look like "flows[7]".
 */
#include "scenario_load.h"

static const char *const kind_names[] = {
	[YAML_LOC_SCALAR] = "a value",
	[YAML_LOC_SEQUENCE] = "a list",
	[YAML_LOC_MAPPING] = "a mapping",
	[YAML_LOC_ALIAS] = "an alias (not supported)",
};

/* 'text' (first 40 characters, non-printable ones as '?') or the kind. */
static void got_text(const struct yaml_loc_node *n, char *buf, size_t size)
{
	char t[48];
	size_t i;

	if (n->kind != YAML_LOC_SCALAR) {
		snprintf(buf, size, "%s", kind_names[n->kind]);
		return;
	}
	if (!n->text[0]) {
		snprintf(buf, size, "nothing");
		return;
	}
	for (i = 0; i < 40 && n->text[i]; i++) {
		unsigned char ch = (unsigned char)n->text[i];

		t[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	t[i] = '\0';
	snprintf(buf, size, "'%s%s'", t, n->text[i] ? "..." : "");
}

/* "FILE:LINE:COL: PATH: message", at the node's key or value (n may be
 * NULL: the top of the file). Returns -1. */
int fail(struct ctx *c, const struct yaml_loc_node *n, bool at_key,
	 const char *fmt, ...)
{
	struct yaml_loc_pos pos = {1, 1};
	const char *path = "";
	size_t len;
	va_list ap;

	if (n) {
		pos = at_key ? n->key : n->val;
		path = n->path;
	}
	snprintf(c->err, c->errlen, "%s:%u:%u: %.*s%s", c->name, pos.line,
		 pos.col, 100, *path ? path : "", *path ? ": " : "");
	len = strlen(c->err);
	if (len < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + len, c->errlen - len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* "expected WHAT[: detail] (got ...)" at the value. */
int bad_value(struct ctx *c, const struct yaml_loc_node *n, const char *what,
	      const char *detail)
{
	char got[64];

	got_text(n, got, sizeof(got));
	return fail(c, n, false, "expected %s%s%s (got %s)", what,
		    detail ? ": " : "", detail ? detail : "", got);
}

int unit_fail(struct ctx *c, const struct yaml_loc_node *n, const char *what,
	      int rc)
{
	char why[256];

	/* a rate in bytes per second or a size in bits: say what it reads
	 * as (the two spellings never overlap) */
	if (rc == UNIT_ESYNTAX &&
	    (units_rate_misread(n->text, why, sizeof(why)) ||
	     units_size_misread(n->text, why, sizeof(why))))
		return fail(c, n, false, "%s", why);
	return bad_value(c, n, what,
			 rc == UNIT_ESYNTAX ? NULL : unit_strerror(rc));
}

/* The path with every "[digits]" replaced by "[]", the indices in idx.
 * Returns the number of indices, or -1 (too long, too many indices, or an
 * index that does not fit: no key of the table). */
int normalise(const char *path, char *out, size_t size, uint32_t *idx)
{
	size_t o = 0;
	int n = 0;

	for (const char *p = path; *p;) {
		if (*p == '[') {
			const char *q = p + 1;
			uint64_t v = 0;

			while (*q >= '0' && *q <= '9' && q - p < 10)
				v = v * 10 + (uint64_t)(*q++ - '0');
			if (*q != ']' || q == p + 1 || n == MAX_IDX ||
			    v > UINT32_MAX)
				return -1;
			idx[n++] = (uint32_t)v;
			if (o + 3 > size)
				return -1;
			out[o++] = '[';
			out[o++] = ']';
			p = q + 1;
			continue;
		}
		if (o + 2 > size)
			return -1;
		out[o++] = *p++;
	}
	out[o] = '\0';
	return n;
}

static int read_first(struct ctx *c)
{
	const struct yaml_loc_node *root = yaml_loc_find(&c->loc, "");
	const struct yaml_loc_node *n;
	enum dcqcn_profile prof = DCQCN_PAPER;
	double line;

	if (!root)
		return fail(c, NULL, false,
			    "empty scenario; it needs at least line_rate, "
			    "duration and flows");
	if (root->kind != YAML_LOC_MAPPING)
		return bad_value(c, root, keys[0].expect, NULL);
	n = yaml_loc_find(&c->loc, "profile");
	if (n) {
		int pr = n->kind == YAML_LOC_SCALAR
				 ? dcqcn_profile_from_name(n->text)
				 : -1;

		if (pr < 0)
			return bad_value(c, n, "paper or connectx", NULL);
		prof = (enum dcqcn_profile)pr;
	}
	n = yaml_loc_find(&c->loc, "line_rate");
	if (!n)
		return fail(c, root, false,
			    "line_rate missing (the flows' line rate, such as "
			    "line_rate: 40Gbit)");
	if (n->kind != YAML_LOC_SCALAR)
		return bad_value(c, n, E_RATE, NULL);
	if (get_rate(c, n, &line))
		return -1;
	dcqcn_params_default(&c->sc->params, prof, line);
	c->sc->closed_loop = yaml_loc_find(&c->loc, "bottleneck") != NULL;
	return 0;
}

/* Count flow entries and inputs, and allocate for them. */
static int count_nodes(struct ctx *c)
{
	char pattern[MAX_PATH];
	uint32_t idx[MAX_IDX];

	for (size_t i = 0; i < c->loc.n; i++) {
		if (normalise(c->loc.nodes[i].path, pattern, sizeof(pattern),
			      idx) < 0)
			continue;
		if (!strcmp(pattern, "flows[]"))
			c->n_entries++;
		else if (!strcmp(pattern, "flows[].cnp[]") ||
			 !strcmp(pattern, "flows[].marked[]") ||
			 !strcmp(pattern, "flows[].sent[]"))
			c->n_inputs++;
	}
	if (c->n_entries > SCN_MAX_FLOWS)
		return fail(c, yaml_loc_find(&c->loc, "flows"), false,
			    "more than %d flows", SCN_MAX_FLOWS);
	if (c->n_inputs > SCN_MAX_INPUTS)
		return fail(c, yaml_loc_find(&c->loc, "flows"), false,
			    "more than %d scripted inputs", SCN_MAX_INPUTS);
	c->entries = calloc(c->n_entries + 1, sizeof(*c->entries));
	c->srcs = calloc(c->n_inputs + 1, sizeof(*c->srcs));
	c->sc->inputs = calloc(c->n_inputs + 1, sizeof(*c->sc->inputs));
	if (!c->entries || !c->srcs || !c->sc->inputs)
		return fail(c, NULL, false, "out of memory");
	for (size_t i = 0; i < c->n_entries; i++)
		c->entries[i].count = 1;
	return 0;
}

static void set_defaults(struct scenario *sc)
{
	sc->seed = 1;
	sc->packet_bytes = DEF_PACKET;
	sc->bottleneck.buffer_bytes = DEF_BUFFER;
	sc->bottleneck.mark_at = SCN_MARK_ENQUEUE;
	sc->summary.bin_ns = DEF_BIN_NS;
	sc->summary.window_ns = DEF_WINDOW_NS;
	sc->summary.band = DEF_BAND;
	sc->summary.avg_ns = DEF_AVG_NS;
	sc->summary.hold_ns = DEF_HOLD_NS;
	sc->summary.util_target = DEF_UTIL_TARGET;
	sc->gateway.poll_ns = DEF_GW_POLL_NS;
	sc->gateway.buffer_bytes = DEF_BUFFER;
}

int scenario_load_buf(struct scenario *sc, const char *name, const char *buf,
		      size_t len, char *err, size_t errlen)
{
	struct ctx c = {.name = name, .err = err, .errlen = errlen, .sc = sc};
	struct yaml_loc_error yerr;
	int rc = -1;

	memset(sc, 0, sizeof(*sc));
	set_defaults(sc);
	if (len > SCN_MAX_FILE) {
		fail(&c, NULL, false, "larger than %u bytes", SCN_MAX_FILE);
		return -1;
	}
	if (yaml_loc_parse(&c.loc, buf, len, &yerr)) {
		snprintf(err, errlen, "%s:%u:%u: %s%s%s", name, yerr.pos.line,
			 yerr.pos.col, yerr.path, yerr.path[0] ? ": " : "",
			 yerr.what);
		goto out;
	}
	if (read_first(&c) || count_nodes(&c))
		goto out;
	for (size_t i = 0; i < c.loc.n; i++)
		if (visit(&c, &c.loc.nodes[i]))
			goto out;
	if (need(&c, "duration", "the simulated time, such as 150ms") ||
	    need(&c, "flows", "a list of flows") || check_params(&c) ||
	    (sc->closed_loop && check_bottleneck(&c)) ||
	    (sc->gateway.enabled && check_gateway(&c)) || make_flows(&c) ||
	    check_summary(&c) || check_inputs(&c) || check_work(&c))
		goto out;
	rc = 0;
out:
	free(c.entries);
	free(c.srcs);
	yaml_loc_free(&c.loc);
	if (rc)
		scenario_free(sc);
	return rc;
}

int scenario_load_file(struct scenario *sc, const char *path, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t len;
	int rc;

	memset(sc, 0, sizeof(*sc));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf = malloc(SCN_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	len = fread(buf, 1, SCN_MAX_FILE + 1, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	} else {
		rc = scenario_load_buf(sc, path, buf, len, err, errlen);
	}
	fclose(f);
	free(buf);
	return rc;
}

void scenario_free(struct scenario *sc)
{
	free(sc->flows);
	free(sc->inputs);
	sc->flows = NULL;
	sc->inputs = NULL;
	sc->n_flows = 0;
	sc->n_inputs = 0;
}
