// SPDX-License-Identifier: BSD-2-Clause
/*
 * cli_jobs.c - see cli_jobs.h: the jobs verb as a table, one row a job:
 *   JOB  SOURCE  HOSTS  DSCP  CLASS  GPUS  FLOWS  CREATED  LAST_SEEN
 * HOSTS is a registered job's prefixes (comma-separated) or a passive
 * job's number of hosts; "-" for what a job does not have.
 */
#include <stdio.h>
#include <string.h>
#include "cli_jobs.h"
#include "cli_table.h"

static const char *const header[] = {"JOB",   "SOURCE",	 "HOSTS",
				     "DSCP",  "CLASS",	 "GPUS",
				     "FLOWS", "CREATED", "LAST_SEEN"};

#define N_COLS ((int)(sizeof(header) / sizeof(header[0])))

static void cell_hosts(struct cli_table *t, json_t *j)
{
	json_t *pfx = json_object_get(j, "prefixes"), *p;
	char buf[1024] = "";
	size_t len;

	if (json_is_integer(json_object_get(j, "hosts"))) {
		cli_cell(t, "%" JSON_INTEGER_FORMAT " hosts",
			 cli_num(j, "hosts"));
		return;
	}
	for (size_t i = 0; (p = json_array_get(pfx, i)); i++) {
		len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "",
			 json_is_string(p) ? json_string_value(p) : "?");
	}
	cli_cell(t, "%s", buf[0] ? buf : "any");
}

void cli_print_jobs(json_t *r)
{
	json_t *jobs = json_object_get(r, "jobs"), *j;
	struct cli_table t;
	char when[64];

	if (json_array_size(jobs)) {
		cli_table_init(&t, N_COLS, 3);
		t.left_mask |= 1u << 4; /* CLASS */
		cli_header(&t, header);
		for (size_t i = 0; (j = json_array_get(jobs, i)); i++) {
			cli_cell(&t, "%s", cli_str(j, "id"));
			cli_cell(&t, "%s", cli_str(j, "source"));
			cell_hosts(&t, j);
			cli_cell_json(&t, json_object_get(j, "dscp"));
			cli_cell_json(&t, json_object_get(j, "class"));
			cli_cell_json(&t, json_object_get(j, "gpus"));
			cli_cell_json(&t, json_object_get(j, "flows_seen"));
			cli_fmt_time(when, sizeof(when),
				     cli_real(j, "created_unix"));
			cli_cell(&t, "%s", when);
			cli_fmt_time(when, sizeof(when),
				     cli_real(j, "last_seen_unix"));
			cli_cell(&t, "%s", when);
		}
		cli_table_print(&t);
	} else {
		printf("no jobs\n");
	}
	printf("jobs: %s, %" JSON_INTEGER_FORMAT
	       " registered (of %" JSON_INTEGER_FORMAT
	       "), %" JSON_INTEGER_FORMAT " passive (of %" JSON_INTEGER_FORMAT
	       "), %" JSON_INTEGER_FORMAT " hosts\n",
	       cli_str(r, "mode"), cli_num(r, "registered"),
	       cli_num(r, "max_registered"), cli_num(r, "passive"),
	       cli_num(r, "max_passive"), cli_num(r, "hosts"));
}

void cli_print_job_change(const char *verb, json_t *r)
{
	const char *what = "unregistered";

	if (!strcmp(verb, "job-register"))
		what = json_is_true(json_object_get(r, "updated"))
			       ? "updated"
			       : "registered";
	printf("job %s %s\n", cli_str(r, "job"), what);
}
