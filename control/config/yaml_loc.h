/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * yaml_loc.h - where things are in a YAML document. One libyaml event pass
 * over the text records every node with its key path ("" for the root,
 * "rings.fill", "ports[1].interface", "workers.cpus[0]") and the 1-based
 * line/column of its key and of its value, so that errors found after
 * loading can point into the file, and "was this key written?" can choose
 * defaults. It also reports what libyaml alone does not: duplicate keys and
 * keys that are not scalars. Each node knows its parent and its key (or
 * index), so that a schema can be walked down the tree whatever the keys
 * hold.
 *
 * Owns: struct yaml_loc and everything it points to. A stream of more than
 * one document is an error.
 */
#ifndef XDPLANE_YAML_LOC_H
#define XDPLANE_YAML_LOC_H

#include <stddef.h>

enum yaml_loc_kind {
	YAML_LOC_SCALAR,
	YAML_LOC_SEQUENCE,
	YAML_LOC_MAPPING,
	YAML_LOC_ALIAS,
};

struct yaml_loc_pos {
	unsigned int line; /* 1-based */
	unsigned int col; /* 1-based */
};

#define YAML_LOC_ROOT ((size_t)-1) /* the root's parent */

struct yaml_loc_node {
	char *path; /* "" for the root */
	char *text; /* a scalar's value, NUL terminated; NULL otherwise */
	/* a mapping entry's key: the end of path (whatever it holds, '.'
	 * and '[' included); NULL for sequence entries and the root */
	const char *name;
	size_t parent; /* index in yaml_loc.nodes; YAML_LOC_ROOT for the root */
	unsigned int index; /* a sequence entry's index */
	enum yaml_loc_kind kind;
	struct yaml_loc_pos key; /* sequence entries and the root: == val */
	struct yaml_loc_pos val;
};

struct yaml_loc {
	struct yaml_loc_node *nodes; /* in document order */
	size_t n;
	size_t cap;
};

struct yaml_loc_error {
	struct yaml_loc_pos pos;
	char path[128]; /* key path being read when it failed; "" at the top */
	char what[256]; /* "mapping values are not allowed in this context" */
};

/* Parse buf. Returns 0, or -1 with *err filled (syntax error, duplicate or
 * non-scalar key, nesting deeper than 16, a second document, no memory).
 * Either way *loc is initialised and must be released with yaml_loc_free(). */
int yaml_loc_parse(struct yaml_loc *loc, const char *buf, size_t len,
		   struct yaml_loc_error *err);
/* The node at exactly this path, or NULL if it was not written. */
const struct yaml_loc_node *yaml_loc_find(const struct yaml_loc *loc,
					  const char *path);
void yaml_loc_free(struct yaml_loc *loc);

#endif
