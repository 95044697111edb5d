/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * yaml_loc.c - the libyaml event pass behind yaml_loc.h: a stack of open
 * mappings and sequences gives each node its key path; every node is
 * appended to a flat array with the marks of its key and value.
 */
#include "yaml_loc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YAML_LOC_DEPTH 16

struct frame {
	const char *path; /* the collection's own path (owned by its node) */
	size_t node; /* the collection's index in loc->nodes */
	bool mapping;
	bool want_key; /* mapping: the next node is a key */
	unsigned int index; /* sequence: the next entry's index */
	char *pending; /* mapping: path of the key just read, awaiting value */
	struct yaml_loc_pos pending_pos; /* ... and where that key is */
};

struct parse {
	struct yaml_loc *loc;
	struct yaml_loc_error *err;
	struct frame stack[YAML_LOC_DEPTH];
	unsigned int depth;
};

static struct yaml_loc_pos pos_of(yaml_mark_t m)
{
	return (struct yaml_loc_pos){.line = (unsigned int)m.line + 1,
				     .col = (unsigned int)m.column + 1};
}

/* The innermost path being read, for messages. */
static const char *current_path(const struct parse *p)
{
	const struct frame *top;

	if (!p->depth)
		return "";
	top = &p->stack[p->depth - 1];
	return top->pending ? top->pending : top->path;
}

__attribute__((format(printf, 3, 4))) static int
fail(struct parse *p, struct yaml_loc_pos pos, const char *fmt, ...)
{
	va_list ap;

	p->err->pos = pos;
	snprintf(p->err->path, sizeof(p->err->path), "%s", current_path(p));
	va_start(ap, fmt);
	vsnprintf(p->err->what, sizeof(p->err->what), fmt, ap);
	va_end(ap);
	return -1;
}

static char *copy_text(const unsigned char *s, size_t len)
{
	char *t = malloc(len + 1);

	if (t) {
		memcpy(t, s, len);
		t[len] = '\0';
	}
	return t;
}

/* A child's path: parent.key (key_len bytes of key), or parent[index]. */
static char *child_path(const char *parent, const char *key, size_t key_len,
			unsigned int index)
{
	size_t len = strlen(parent) + key_len + 16;
	char *path = malloc(len);

	if (!path)
		return NULL;
	if (key)
		snprintf(path, len, "%s%s%.*s", parent, *parent ? "." : "",
			 (int)key_len, key);
	else
		snprintf(path, len, "%s[%u]", parent, index);
	return path;
}

static int append(struct parse *p, char *path, const yaml_event_t *ev,
		  struct yaml_loc_pos key)
{
	const struct frame *top = p->depth ? &p->stack[p->depth - 1] : NULL;
	struct yaml_loc *loc = p->loc;
	struct yaml_loc_node *n;
	char *text = NULL;

	if (loc->n == loc->cap) {
		size_t cap = loc->cap ? 2 * loc->cap : 32;
		struct yaml_loc_node *nodes =
			realloc(loc->nodes, cap * sizeof(*nodes));

		if (!nodes)
			goto oom;
		loc->nodes = nodes;
		loc->cap = cap;
	}
	if (ev->type == YAML_SCALAR_EVENT) {
		text = copy_text(ev->data.scalar.value, ev->data.scalar.length);
		if (!text)
			goto oom;
	}
	n = &loc->nodes[loc->n++];
	n->path = path;
	n->text = text;
	n->kind = ev->type == YAML_SCALAR_EVENT		  ? YAML_LOC_SCALAR
		  : ev->type == YAML_SEQUENCE_START_EVENT ? YAML_LOC_SEQUENCE
		  : ev->type == YAML_MAPPING_START_EVENT  ? YAML_LOC_MAPPING
							  : YAML_LOC_ALIAS;
	n->key = key;
	n->val = pos_of(ev->start_mark);
	n->parent = top ? top->node : YAML_LOC_ROOT;
	n->index = top && !top->mapping ? top->index - 1 : 0;
	n->name = top && top->mapping
			  ? path + strlen(top->path) + (*top->path ? 1 : 0)
			  : NULL;
	return 0;
oom:
	free(path);
	return fail(p, pos_of(ev->start_mark), "out of memory");
}

/* The first of the bytes of set in s[0..len), or NULL. */
static const char *strpbrk_n(const char *s, size_t len, const char *set)
{
	for (size_t i = 0; i < len; i++)
		if (strchr(set, s[i]) && s[i])
			return s + i;
	return NULL;
}

/* A scalar, alias or collection start: a key, or a value with a path. */
static int on_node(struct parse *p, const yaml_event_t *ev)
{
	struct frame *top = p->depth ? &p->stack[p->depth - 1] : NULL;
	struct yaml_loc_pos key = pos_of(ev->start_mark);
	const struct yaml_loc_node *dup;
	char *path;

	if (top && top->mapping && top->want_key) {
		if (ev->type != YAML_SCALAR_EVENT)
			return fail(p, key, "a key must be a string");
		/* paths join keys with '.' and '[N]': a key holding one
		 * would stand for another key's path */
		if (strpbrk_n((const char *)ev->data.scalar.value,
			      ev->data.scalar.length, ".[]"))
			return fail(p, key,
				    "key '%.*s' contains '.', '[' or ']'; "
				    "nest it instead (a.b: 1 is written "
				    "a: {b: 1})",
				    (int)(ev->data.scalar.length < 60
						  ? ev->data.scalar.length
						  : 60),
				    (const char *)ev->data.scalar.value);
		top->pending = child_path(top->path,
					  (const char *)ev->data.scalar.value,
					  ev->data.scalar.length, 0);
		if (!top->pending)
			return fail(p, key, "out of memory");
		top->pending_pos = key;
		top->want_key = false;
		return 0;
	}
	if (!top) {
		path = strdup("");
	} else if (top->mapping) {
		dup = yaml_loc_find(p->loc, top->pending);
		if (dup)
			return fail(p, top->pending_pos,
				    "duplicate key (first written at %u:%u)",
				    dup->key.line, dup->key.col);
		path = top->pending;
		top->pending = NULL;
		key = top->pending_pos;
		/* a collection flips want_key back when it ends */
		top->want_key = ev->type == YAML_SCALAR_EVENT ||
				ev->type == YAML_ALIAS_EVENT;
	} else {
		path = child_path(top->path, NULL, 0, top->index++);
	}
	if (!path)
		return fail(p, key, "out of memory");
	if (append(p, path, ev, key))
		return -1;
	if (ev->type != YAML_SEQUENCE_START_EVENT &&
	    ev->type != YAML_MAPPING_START_EVENT)
		return 0;
	if (p->depth == YAML_LOC_DEPTH)
		return fail(p, key, "nested more than %d levels deep",
			    YAML_LOC_DEPTH);
	p->stack[p->depth++] = (struct frame){
		.path = path,
		.node = p->loc->n - 1,
		.mapping = ev->type == YAML_MAPPING_START_EVENT,
		.want_key = true,
	};
	return 0;
}

static void on_end(struct parse *p)
{
	struct frame *top;

	if (!p->depth)
		return;
	top = &p->stack[--p->depth];
	free(top->pending);
	if (p->depth && p->stack[p->depth - 1].mapping)
		p->stack[p->depth - 1].want_key = true;
}

static int syntax_error(struct parse *p, const yaml_parser_t *yp)
{
	const char *problem = yp->problem ? yp->problem : "cannot parse";

	if (yp->error == YAML_MEMORY_ERROR)
		return fail(p, pos_of(yp->problem_mark), "out of memory");
	if (!yp->context)
		return fail(p, pos_of(yp->problem_mark),
			    "YAML syntax error: %s", problem);
	return fail(p, pos_of(yp->problem_mark),
		    "YAML syntax error: %s (%s at %zu:%zu)", problem,
		    yp->context, yp->context_mark.line + 1,
		    yp->context_mark.column + 1);
}

int yaml_loc_parse(struct yaml_loc *loc, const char *buf, size_t len,
		   struct yaml_loc_error *err)
{
	struct parse p = {.loc = loc, .err = err};
	yaml_parser_t yp;
	yaml_event_t ev;
	unsigned int docs = 0;
	bool done = false;
	int rc = 0;

	memset(loc, 0, sizeof(*loc));
	if (!yaml_parser_initialize(&yp))
		return fail(&p, (struct yaml_loc_pos){1, 1}, "out of memory");
	yaml_parser_set_input_string(&yp, (const unsigned char *)buf, len);
	while (!done && !rc) {
		if (!yaml_parser_parse(&yp, &ev)) {
			rc = syntax_error(&p, &yp);
			break;
		}
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
		case YAML_ALIAS_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			rc = on_node(&p, &ev);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			on_end(&p);
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (docs++)
				rc = fail(&p, pos_of(ev.start_mark),
					  "a second YAML document; write one "
					  "document only");
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	while (p.depth)
		on_end(&p);
	yaml_parser_delete(&yp);
	return rc;
}

const struct yaml_loc_node *yaml_loc_find(const struct yaml_loc *loc,
					  const char *path)
{
	for (size_t i = 0; i < loc->n; i++)
		if (!strcmp(loc->nodes[i].path, path))
			return &loc->nodes[i];
	return NULL;
}

void yaml_loc_free(struct yaml_loc *loc)
{
	for (size_t i = 0; i < loc->n; i++) {
		free(loc->nodes[i].path);
		free(loc->nodes[i].text);
	}
	free(loc->nodes);
	memset(loc, 0, sizeof(*loc));
}
