/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctl_proto_int.h - what the protocol's files share (ctl_proto.c: the
 * sessions, the dispatch and the gateway's verbs; ctl_jobs.c: the job
 * table's verbs): argument checks and snapshots on the backend. Not for
 * use outside control/api/. Everything runs on the control thread.
 */
#ifndef XDPLANE_CTL_PROTO_INT_H
#define XDPLANE_CTL_PROTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "ctl_proto.h"

/* A verb: a result object, or NULL with err. */
typedef json_t *(*verb_fn)(const struct ctl_backend *be, json_t *args,
			   struct ctl_err *err);

/* "an object", "a string", "a number"...: what v is, for messages. */
const char *ctl_type_name(const json_t *v);
/* -1 (with err) if obj has a key not in allowed[]. what: "argument". */
int ctl_only_keys(json_t *obj, const char *const *allowed, size_t n,
		  const char *code, const char *what, struct ctl_err *err);
/* args[key] as a string: -1 with err if missing (when required) or not a
 * string; 0 with *out NULL if absent and optional. */
int ctl_string_arg(json_t *args, const char *key, bool required,
		   const char **out, struct ctl_err *err);
/* A fresh snapshot from the backend, or NULL with "unavailable". */
struct stats_snapshot *ctl_take_snapshot(const struct ctl_backend *be,
					 struct ctl_err *err);
void ctl_drop_snapshot(const struct ctl_backend *be, struct stats_snapshot *s);
void ctl_out_of_memory(struct ctl_err *err);
const struct snap_port *ctl_find_port(const struct stats_snapshot *s,
				      const char *name);
bool ctl_port_has_class(const struct snap_port *p, const char *name);
/* A backend result: an object, or NULL with a normalized err. */
json_t *ctl_backend_object(json_t *r, struct ctl_err *err);

/* The job table's verbs (ctl_jobs.c). */
json_t *ctl_verb_jobs(const struct ctl_backend *be, json_t *args,
		      struct ctl_err *err);
json_t *ctl_verb_job_register(const struct ctl_backend *be, json_t *args,
			      struct ctl_err *err);
json_t *ctl_verb_job_unregister(const struct ctl_backend *be, json_t *args,
				struct ctl_err *err);

#endif
