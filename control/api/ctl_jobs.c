// SPDX-License-Identifier: BSD-2-Clause
/*
 * ctl_jobs.c - the job table's verbs of the control protocol (ctl_proto.h:
 * jobs, job-register, job-unregister). The arguments are checked here in
 * full, as the job table checks a registration (job_reg_check()), before
 * the backend, which owns the table, is called; the listing is rendered
 * from a snapshot (ctl_json_jobs()). Control thread only.
 */
#include <stdio.h>
#include <string.h>
#include "ctl_json.h"
#include "ctl_proto_int.h"
#include "prefix.h"

#define JOBS_OFF "jobs are off (jobs.mode: off)"

/* args[key] as an integer in lo..hi into *v; 0 if absent. */
static int int_arg(json_t *args, const char *key, json_int_t lo, json_int_t hi,
		   json_int_t *v, struct ctl_err *err)
{
	json_t *j = json_object_get(args, key);

	if (!j)
		return 0;
	if (!json_is_integer(j)) {
		ctl_err_set(err, "bad_request",
			    "argument \"%s\" must be an integer, not %s", key,
			    ctl_type_name(j));
		return -1;
	}
	*v = json_integer_value(j);
	if (*v < lo || *v > hi) {
		ctl_err_set(err, "bad_request",
			    "job-register: %s %" JSON_INTEGER_FORMAT
			    " is out of range (%" JSON_INTEGER_FORMAT
			    "..%" JSON_INTEGER_FORMAT ")",
			    key, *v, lo, hi);
		return -1;
	}
	return 0;
}

static int prefixes_arg(json_t *args, struct job_reg *r, struct ctl_err *err)
{
	json_t *a = json_object_get(args, "prefixes"), *v;
	char why[200];
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a)) {
		ctl_err_set(err, "bad_request",
			    "argument \"prefixes\" must be an array, not %s",
			    ctl_type_name(a));
		return -1;
	}
	if (json_array_size(a) > JOB_PREFIXES_MAX) {
		ctl_err_set(err, "bad_request",
			    "job-register: prefixes: %zu given, at most %d",
			    json_array_size(a), JOB_PREFIXES_MAX);
		return -1;
	}
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v)) {
			ctl_err_set(err, "bad_request",
				    "job-register: prefixes[%zu] must be a "
				    "string, not %s",
				    i, ctl_type_name(v));
			return -1;
		}
		if (prefix_check(json_string_value(v), &r->prefixes[i], why,
				 sizeof(why))) {
			ctl_err_set(err, "bad_request",
				    "job-register: prefixes[%zu]: %s", i, why);
			return -1;
		}
		r->n_prefixes++;
	}
	return 0;
}

/* The registration in args, checked, into r. */
static int reg_args(json_t *args, struct job_reg *r, struct ctl_err *err)
{
	static const char *const allowed[] = {"id", "prefixes", "dscp", "class",
					      "gpus"};
	const char *id, *cls;
	json_int_t dscp = -1, gpus = 0;
	char why[200];

	memset(r, 0, sizeof(*r));
	if (ctl_only_keys(args, allowed, 5, "bad_request", "argument", err) ||
	    ctl_string_arg(args, "id", true, &id, err) ||
	    ctl_string_arg(args, "class", false, &cls, err) ||
	    int_arg(args, "dscp", 0, 63, &dscp, err) ||
	    int_arg(args, "gpus", 0, CTL_JOB_GPUS_MAX, &gpus, err) ||
	    prefixes_arg(args, r, err))
		return -1;
	if (strlen(id) >= sizeof(r->id)) {
		ctl_err_set(err, "bad_request",
			    "job-register: id is longer than %zu characters",
			    sizeof(r->id) - 1);
		return -1;
	}
	if (cls && strlen(cls) >= sizeof(r->prio_class)) {
		ctl_err_set(err, "bad_request",
			    "job-register: class is longer than %zu characters",
			    sizeof(r->prio_class) - 1);
		return -1;
	}
	snprintf(r->id, sizeof(r->id), "%s", id);
	snprintf(r->prio_class, sizeof(r->prio_class), "%s", cls ? cls : "");
	r->dscp = dscp < 0 ? JOB_DSCP_NONE : (uint8_t)dscp;
	r->gpus = (uint32_t)gpus;
	if (job_reg_check(r, why, sizeof(why))) {
		ctl_err_set(err, "bad_request", "job-register: %s", why);
		return -1;
	}
	return 0;
}

/* "a, b, c": the classes of the snapshot's first port. */
static void class_list(const struct stats_snapshot *s, char *buf, size_t len)
{
	const struct snap_port *p = &s->ports[0];
	uint32_t n =
		p->n_classes < QOS_MAX_CLASSES ? p->n_classes : QOS_MAX_CLASSES;
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t k = 0; k < n && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%.*s",
				       k ? ", " : "", QOS_NAME_MAX,
				       p->cls[k].name);
}

json_t *ctl_verb_jobs(const struct ctl_backend *be, json_t *args,
		      struct ctl_err *err)
{
	struct stats_snapshot *s;
	json_t *r = NULL;

	if (args &&
	    ctl_only_keys(args, NULL, 0, "bad_request", "argument", err))
		return NULL;
	if (!(s = ctl_take_snapshot(be, err)))
		return NULL;
	if (!s->jobs)
		ctl_err_set(err, "unavailable", JOBS_OFF);
	else if (!(r = ctl_json_jobs(s->jobs)))
		ctl_out_of_memory(err);
	ctl_drop_snapshot(be, s);
	return r;
}

json_t *ctl_verb_job_register(const struct ctl_backend *be, json_t *args,
			      struct ctl_err *err)
{
	struct stats_snapshot *s;
	struct job_reg r;
	char classes[QOS_MAX_CLASSES * (QOS_NAME_MAX + 2)];

	if (!args) {
		ctl_err_set(err, "bad_request", "missing argument \"id\"");
		return NULL;
	}
	if (reg_args(args, &r, err))
		return NULL;
	if (!(s = ctl_take_snapshot(be, err)))
		return NULL;
	if (!s->jobs || !be->job_register) {
		ctl_err_set(err, "unavailable", JOBS_OFF);
	} else if (r.prio_class[0] &&
		   !ctl_port_has_class(&s->ports[0], r.prio_class)) {
		class_list(s, classes, sizeof(classes));
		ctl_err_set(err, "bad_request",
			    "job-register: no class '%s'; the classes are: %s",
			    r.prio_class, classes);
	}
	ctl_drop_snapshot(be, s);
	if (err->code[0])
		return NULL;
	return ctl_backend_object(be->job_register(be->ctx, &r, err), err);
}

json_t *ctl_verb_job_unregister(const struct ctl_backend *be, json_t *args,
				struct ctl_err *err)
{
	static const char *const allowed[] = {"id"};
	const char *id;

	if ((args &&
	     ctl_only_keys(args, allowed, 1, "bad_request", "argument", err)) ||
	    ctl_string_arg(args, "id", true, &id, err))
		return NULL;
	if (!be->job_unregister) {
		ctl_err_set(err, "unavailable", JOBS_OFF);
		return NULL;
	}
	return ctl_backend_object(be->job_unregister(be->ctx, id, err), err);
}
