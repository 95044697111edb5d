// SPDX-License-Identifier: BSD-2-Clause
/*
 * xdplanectl.c - the operator's CLI: one connection to the daemon's control
 * socket, the protocol v1 handshake, one request per verb (a series of
 * "stats" requests for watch), and the answer printed as a table or, with
 * --json, as the server's result object on one line.
 *
 *   xdplanectl [-i NAME | -s SOCKET] [-r] [--json] [--timeout SEC] VERB
 *              [ARGS]
 *
 * Exit status: 0 success, 1 the daemon answered an error (printed as
 * "xdplanectl: <code>: <message>"), 2 usage (the reason printed; nothing
 * is connected), 3 no answer: cannot connect, connection closed before
 * an answer, timeout, or an answer that is not protocol v1. With --json
 * the error is also printed on stdout as {"error":{"code","message"}}
 * (ctl_client.h). See xdplanectl(8); the protocol is described in
 * ctl_proto.h.
 *
 * Single-threaded. Links only jansson and libc. The pieces:
 * ctl_client.c the connection and the protocol (memory bounded by the
 * largest response accepted), cli_table.c the formatting, cli_counters.c
 * the counter columns (from the gateway's counter schema,
 * gw_counters.def), cli_watch.c the watch verb, cli_jobs.c the job
 * verbs' output, cli_args.c the verbs' arguments and the option values
 * (checked before connecting); this file the options and the other
 * verbs' output.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "cli_adaptive.h"
#include "cli_args.h"
#include "cli_counters.h"
#include "cli_jobs.h"
#include "cli_table.h"
#include "cli_watch.h"
#include "ctl_client.h"
#include "prefix.h"
#include "suggest.h"
#include "units.h"
#include "xdplane_version.h"

#ifndef XDPLANE_VERSION
#define XDPLANE_VERSION "unknown"
#endif

#define DEFAULT_SOCKET "/run/xdplane/control.sock"

/* Seconds: the largest --timeout and --interval. */
#define CLI_SECONDS_MAX 86400

struct options {
	const char *socket;
	const char *instance; /* -i */
	char socket_buf[108]; /* -i: the instance's socket */
	char ro_buf[112]; /* -r: socket + ".ro" */
	bool read_only; /* -r */
	int info; /* 'h' or 'V': print that, connect to nothing */
	bool json;
	double timeout_s; /* per request; 0: wait forever */
	double interval_s; /* watch */
	unsigned long count; /* watch refreshes; 0: until SIGINT */
	bool watch_opts; /* --interval or --count was given */
	bool job_opts; /* --prefix, --dscp, --class or --gpus was given */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xdplanectl [-i NAME | -s SOCKET] [-r] [--json] "
		"[--timeout SEC] VERB [ARGS]\n"
		"verbs:\n"
		"  status                         daemon, configuration, "
		"placement\n"
		"  stats [PORT]                   counters per port, queue, "
		"class\n"
		"  classes                        class configuration and "
		"counters\n"
		"  config                         the running configuration "
		"(as --dump-config)\n"
		"  flows                          DCQCN flow state\n"
		"  reload                         re-read the configuration\n"
		"  congestion PORT CLASS [SEVERITY [PREFIX]]  congestion hint "
		"for the DCQCN\n"
		"                                 flows of CLASS leaving PORT "
		"towards PREFIX\n"
		"                                 (severity 0..1, default 1; "
		"prefix: all)\n"
		"  log-level LEVEL                err|warn|notice|info|debug\n"
		"  watch [--interval SEC] [--count N]  live rates, like top\n"
		"  jobs                           the training jobs crossing "
		"the gateway\n"
		"  job-register ID --prefix P [--prefix P...] [--dscp N] "
		"[--class NAME]\n"
		"               [--gpus N]        register a job (a "
		"scheduler's prolog)\n"
		"  job-unregister ID              unregister it (its "
		"epilog)\n"
		"options:\n"
		"  -s, --socket SOCKET  control socket (default "
		"$" CTL_CLIENT_SOCKET_ENV " or " DEFAULT_SOCKET ")\n"
		"  -i, --instance NAME  the gateway of xdplane@NAME.service: "
		"socket\n"
		"                       " CLI_INSTANCE_DIR
		"NAME/" CLI_SOCKET_FILE "\n"
		"  -r, --read-only      the read-only socket (the socket's "
		"path "
		"+ " CLI_READONLY_SUFFIX ")\n"
		"  -j, --json           print the result as one line of JSON\n"
		"      --timeout SEC    give up waiting after SEC seconds "
		"(default 30, 0: never;\n"
		"                       also with a unit: 500ms)\n"
		"  -h, --help           this text\n"
		"  -V, --version        print the version\n");
}

/* ---- verbs: human output --------------------------------------------- */

static void print_reload_line(json_t *rel)
{
	bool ok = json_is_true(json_object_get(rel, "last_successful"));
	json_t *why = json_object_get(rel, "last_error");
	char when[64];

	cli_fmt_time(
		when, sizeof(when),
		cli_real(rel, ok ? "last_success_unix" : "last_attempt_unix"));
	printf("last reload  %s at %s (%" JSON_INTEGER_FORMAT
	       " attempts, %" JSON_INTEGER_FORMAT " failed)",
	       ok ? "ok" : "FAILED", when, cli_num(rel, "attempts_total"),
	       cli_num(rel, "failures_total"));
	if (json_is_string(why))
		printf(": %s", json_string_value(why));
	printf("\n");
}

/* Each line of text, the first after the label, the others indented. */
static void print_lines(const char *label, const char *text)
{
	const char *p = text, *nl;
	bool first = true;

	while (*p) {
		nl = strchr(p, '\n');
		printf("%s%.*s\n", first ? label : "             ",
		       (int)(nl ? nl - p : (ptrdiff_t)strlen(p)), p);
		first = false;
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* Per worker since start: the share of its loop's time spent moving
 * frames (BUSY), its share of the CPU (ON-CPU: busy + spinning; the rest
 * it slept), its sleeps, the timed ones that woke later than it allowed,
 * and its current wake-up lateness estimate. */
static void print_workers_load(json_t *load)
{
	struct cli_table t;
	json_t *v;

	if (!json_array_size(load))
		return;
	cli_table_init(&t, 7, 1);
	cli_cell(&t, "WORKER");
	cli_cell(&t, "CPU");
	cli_cell(&t, "BUSY");
	cli_cell(&t, "ON-CPU");
	cli_cell(&t, "SLEEPS");
	cli_cell(&t, "LATE-WAKES");
	cli_cell(&t, "WAKE-LATE");
	for (size_t i = 0; (v = json_array_get(load, i)); i++) {
		double busy = cli_real(v, "busy_s"),
		       idle = cli_real(v, "idle_s");
		double sleep = cli_real(v, "sleep_s"), all = busy + idle;

		if (all <= 0)
			all = 1;
		cli_cell_json(&t, json_object_get(v, "worker"));
		cli_cell_json(&t, json_object_get(v, "cpu"));
		cli_cell(&t, "%.1f%%", 100.0 * busy / all);
		cli_cell(&t, "%.1f%%", 100.0 * (all - sleep) / all);
		cli_cell(&t, "%" JSON_INTEGER_FORMAT, cli_num(v, "sleeps"));
		cli_cell(&t, "%" JSON_INTEGER_FORMAT, cli_num(v, "late_wakes"));
		cli_cell(&t, "%.0f us", cli_real(v, "wake_late_us"));
	}
	cli_table_print(&t);
	printf("\n");
}

/* The rate each queue's shaper runs at now, on one line. */
static void print_queue_rates(json_t *a)
{
	char buf[32];
	json_t *x;

	printf("             queue rates now:");
	for (size_t q = 0; (x = json_array_get(a, q)); q++) {
		cli_si(buf, sizeof(buf), (double)json_integer_value(x),
		       "bit/s");
		printf("%s %zu: %s", q ? "," : "", q, buf);
	}
	printf("\n");
}

static void print_status(json_t *r)
{
	json_t *cfg = json_object_get(r, "config"), *ports, *placement, *v;
	char up[64], rate[32];
	struct cli_table t;

	cli_fmt_duration(up, sizeof(up), cli_real(r, "uptime_s"));
	printf("xdplane %s, pid %" JSON_INTEGER_FORMAT ", up %s\n",
	       cli_str(r, "version"), cli_num(r, "pid"), up);
	v = json_object_get(r, "health");
	if (v)
		printf("health       %s%s\n",
		       strcmp(cli_str(v, "state"), "ok") ? "DEGRADED: " : "",
		       cli_str(v, "line"));
	printf("config       %s (generation %" JSON_INTEGER_FORMAT ")\n",
	       cli_str(cfg, "path"), cli_num(cfg, "generation"));
	print_reload_line(json_object_get(cfg, "reload"));
	printf("modes        xdp %s, bind %s, failure %s\n",
	       cli_str(r, "xdp_mode"), cli_str(r, "bind_mode"),
	       cli_str(r, "failure_mode"));
	printf("workers      %" JSON_INTEGER_FORMAT
	       ", umem %" JSON_INTEGER_FORMAT
	       " frames, max frame %" JSON_INTEGER_FORMAT " bytes\n",
	       cli_num(r, "workers"), cli_num(r, "umem_frames"),
	       cli_num(r, "max_frame"));
	if (json_is_true(json_object_get(r, "multibuf")))
		printf("multi-buffer on: up to %" JSON_INTEGER_FORMAT
		       " UMEM frames per packet\n",
		       cli_num(r, "max_frags"));
	else
		printf("multi-buffer off: one UMEM frame per packet\n");
	v = json_object_get(r, "mem_node");
	if (json_is_integer(v))
		printf("memory       UMEM bound to NUMA node "
		       "%" JSON_INTEGER_FORMAT "\n",
		       json_integer_value(v));
	if (json_string_length(json_object_get(r, "umem")))
		printf("umem         %s\n", cli_str(r, "umem"));
	if (json_string_length(json_object_get(r, "placement_why")))
		print_lines("placement    ", cli_str(r, "placement_why"));
	ports = json_object_get(r, "ports");
	for (size_t i = 0; (v = json_array_get(ports, i)); i++) {
		if (cli_num(v, "rate_bps"))
			cli_si(rate, sizeof(rate),
			       (double)cli_num(v, "rate_bps"), "bit/s");
		else
			snprintf(rate, sizeof(rate), "unshaped");
		printf("port         %s: %s, %" JSON_INTEGER_FORMAT
		       " queues, %" JSON_INTEGER_FORMAT " classes\n",
		       cli_str(v, "name"), rate, cli_num(v, "queues"),
		       cli_num(v, "classes"));
		if (cli_num(v, "rate_bps") && cli_num(v, "queues") > 1)
			print_queue_rates(
				json_object_get(v, "queue_rates_bps"));
	}
	printf("\n");
	cli_table_init(&t, 4, 1);
	cli_cell(&t, "PORT");
	cli_cell(&t, "QUEUE");
	cli_cell(&t, "WORKER");
	cli_cell(&t, "CPU");
	placement = json_object_get(r, "placement");
	for (size_t i = 0; (v = json_array_get(placement, i)); i++) {
		cli_cell(&t, "%s", cli_str(v, "port"));
		cli_cell_json(&t, json_object_get(v, "queue"));
		cli_cell_json(&t, json_object_get(v, "worker"));
		cli_cell_json(&t, json_object_get(v, "cpu"));
	}
	cli_table_print(&t);
	printf("\n");
	print_workers_load(json_object_get(r, "workers_load"));
	if (cli_adaptive_print(ports, true))
		printf("\n");
}

/* Per port, per queue, per class: the counter columns of the schema
 * (cli_counters.h); then PFC, the priorities with anything counted. */
static void print_stats(json_t *r)
{
	json_t *ports = json_object_get(r, "ports"), *p, *v;
	struct cli_table t;

	cli_table_init(&t, 1 + cli_counter_columns(GW_CLI_PORT), 1);
	cli_cell(&t, "PORT");
	cli_counter_header(&t, GW_CLI_PORT);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		cli_cell(&t, "%s", cli_str(p, "name"));
		cli_counter_cells(&t, GW_CLI_PORT, p);
	}
	cli_table_print(&t);

	printf("\n");
	cli_table_init(&t, 4 + cli_counter_columns(GW_CLI_QUEUE), 1);
	cli_cell(&t, "PORT");
	cli_cell(&t, "QUEUE");
	cli_cell(&t, "WORKER");
	cli_cell(&t, "CPU");
	cli_counter_header(&t, GW_CLI_QUEUE);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *queues = json_object_get(p, "queues");

		for (size_t j = 0; (v = json_array_get(queues, j)); j++) {
			cli_cell(&t, "%s", cli_str(p, "name"));
			cli_cell_json(&t, json_object_get(v, "queue"));
			cli_cell_json(&t, json_object_get(v, "worker"));
			cli_cell_json(&t, json_object_get(v, "cpu"));
			cli_counter_cells(&t, GW_CLI_QUEUE, v);
		}
	}
	cli_table_print(&t);

	printf("\n");
	cli_table_init(&t, 2 + cli_counter_columns(GW_CLI_CLASS), 2);
	cli_cell(&t, "EGRESS");
	cli_cell(&t, "CLASS");
	cli_counter_header(&t, GW_CLI_CLASS);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *classes = json_object_get(p, "classes");

		for (size_t j = 0; (v = json_array_get(classes, j)); j++) {
			cli_cell(&t, "%s", cli_str(p, "name"));
			cli_cell(&t, "%s", cli_str(v, "name"));
			cli_counter_cells(&t, GW_CLI_CLASS, v);
		}
	}
	cli_table_print(&t);
	cli_print_pfc(ports);
}

/* A configured rate; 0 (none): "-". */
static void cell_rate(struct cli_table *t, json_int_t bps)
{
	if (bps)
		cli_cell_count(t, (double)bps, "bit/s");
	else
		cli_cell(t, "-");
}

static void print_classes(json_t *r)
{
	static const char *const settings[] = {
		"EGRESS", "CLASS",	"LEVEL", "QUANTUM",  "CEIL", "MIN",
		"LIMIT",  "LIMIT_PKTS", "ECN",	 "LOSSLESS", "PCP"};
	const int n_settings = sizeof(settings) / sizeof(*settings);
	json_t *ports = json_object_get(r, "ports"), *p, *v;
	struct cli_table t;

	cli_table_init(&t, n_settings + cli_counter_columns(GW_CLI_CLASSES), 2);
	for (int c = 0; c < n_settings; c++)
		cli_cell(&t, "%s", settings[c]);
	cli_counter_header(&t, GW_CLI_CLASSES);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *classes = json_object_get(p, "classes");

		for (size_t j = 0; (v = json_array_get(classes, j)); j++) {
			cli_cell(&t, "%s", cli_str(p, "name"));
			cli_cell(&t, "%s", cli_str(v, "name"));
			cli_cell_json(&t, json_object_get(v, "level"));
			cli_cell_json(&t, json_object_get(v, "quantum"));
			cell_rate(&t, cli_num(v, "ceil_bps"));
			cell_rate(&t, cli_num(v, "min_bps"));
			cli_cell_count(&t, (double)cli_num(v, "limit_bytes"),
				       "B");
			cli_cell_count(&t, (double)cli_num(v, "limit_packets"),
				       "");
			cli_cell_json(&t, json_object_get(v, "ecn"));
			cli_cell_json(&t, json_object_get(v, "lossless"));
			cli_cell_json(&t, json_object_get(v, "pcp"));
			cli_counter_cells(&t, GW_CLI_CLASSES, v);
		}
	}
	cli_table_print(&t);
}

/* The flows as a table, columns from the first flow's keys (at most
 * CLI_TABLE_MAX_COLS), upper-cased; other shapes one value per line. */
static void print_flows(json_t *r)
{
	json_t *flows = json_object_get(r, "flows");
	json_t *first = json_array_get(flows, 0), *f;
	const char *keys[CLI_TABLE_MAX_COLS];
	char buf[256];
	struct cli_table t;
	int n = 0;

	if (!first) {
		printf("no flows\n");
		return;
	}
	if (!json_is_object(first) || !json_object_size(first)) {
		for (size_t i = 0; (f = json_array_get(flows, i)); i++)
			printf("%s\n", cli_text(f, buf, sizeof(buf)));
		return;
	}
	for (void *it = json_object_iter(first); it && n < CLI_TABLE_MAX_COLS;
	     it = json_object_iter_next(first, it))
		keys[n++] = json_object_iter_key(it);
	cli_table_init(&t, n, 0);
	for (int c = 0; c < n; c++) {
		if (!json_is_number(json_object_get(first, keys[c])))
			t.left_mask |= 1u << c;
		snprintf(buf, sizeof(buf), "%s", keys[c]);
		for (char *s = buf; *s; s++)
			if (*s >= 'a' && *s <= 'z')
				*s = (char)(*s - 'a' + 'A');
		cli_cell(&t, "%s", buf);
	}
	for (size_t i = 0; (f = json_array_get(flows, i)); i++)
		for (int c = 0; c < n; c++)
			cli_cell_json(&t, json_object_get(f, keys[c]));
	cli_table_print(&t);
}

/* ---- main ------------------------------------------------------------- */

static void print_result(const char *verb, json_t *req, json_t *result,
			 bool as_json)
{
	json_t *args = json_object_get(req, "args");
	char *s;

	if (as_json) {
		s = json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s\n", s ? s : "null");
		free(s);
	} else if (!strcmp(verb, "status")) {
		print_status(result);
	} else if (!strcmp(verb, "stats")) {
		print_stats(result);
	} else if (!strcmp(verb, "classes")) {
		print_classes(result);
	} else if (!strcmp(verb, "flows")) {
		print_flows(result);
	} else if (!strcmp(verb, "config")) {
		fputs(cli_str(result, "text"), stdout);
	} else if (!strcmp(verb, "log-level")) {
		printf("log level %s -> %s\n", cli_str(result, "previous"),
		       cli_str(result, "level"));
	} else if (!strcmp(verb, "reload")) {
		printf("reload applied\n");
		cli_print_key_values(result);
	} else if (!strcmp(verb, "jobs")) {
		cli_print_jobs(result);
	} else if (!strncmp(verb, "job-", 4)) {
		cli_print_job_change(verb, result);
	} else {
		printf("congestion signalled on %s class %s\n",
		       cli_str(args, "port"), cli_str(args, "class"));
		cli_print_key_values(result);
	}
}

/* The name nearest to got (suggest.h) of the objects in arr, NULL if
 * none is near; all their names into list. */
static const char *nearest_name(json_t *arr, const char *got, char *list,
				size_t size)
{
	struct suggest sg;
	json_t *v;
	size_t len;

	suggest_init(&sg, got);
	list[0] = '\0';
	for (size_t i = 0; (v = json_array_get(arr, i)); i++) {
		len = strlen(list);
		snprintf(list + len, size - len, "%s%s", i ? ", " : "",
			 cli_str(v, "name"));
		suggest_offer(&sg, cli_str(v, "name"));
	}
	return suggest_best(&sg);
}

/* After the daemon refused a port or class that does not exist (stats,
 * congestion): ask it for the names (classes, open on the read-only
 * socket too) and add them, and the nearest, to the error. */
static void hint_names(struct ctl_client *c, json_t *req)
{
	json_t *args = json_object_get(req, "args"), *resp, *ports, *p;
	const char *port = cli_str(args, "port"), *cls, *best;
	char list[512];
	size_t i;

	if (!json_is_string(json_object_get(args, "port")) &&
	    !json_is_string(json_object_get(args, "class")))
		return;
	resp = ctl_client_call(c, json_pack("{s:s}", "command", "classes"));
	ports = json_object_get(json_object_get(resp, "result"), "ports");
	if (!json_array_size(ports)) {
		json_decref(resp);
		return;
	}
	/* job-register names a class of the gateway, not of a port */
	if (!json_is_string(json_object_get(args, "port")))
		port = cli_str(json_array_get(ports, 0), "name");
	for (i = 0; (p = json_array_get(ports, i)); i++)
		if (!strcmp(cli_str(p, "name"), port))
			break;
	if (!p) {
		best = nearest_name(ports, port, list, sizeof(list));
		cli_error("ports: %s%s%s%s", list,
			  best ? " (did you mean '" : "", best ? best : "",
			  best ? "'?)" : "");
	} else if (json_is_string(json_object_get(args, "class"))) {
		cls = cli_str(args, "class");
		best = nearest_name(json_object_get(p, "classes"), cls, list,
				    sizeof(list));
		if (best && !strcmp(best, cls))
			best = NULL; /* it exists: refused for another reason */
		else
			cli_error("classes of %s: %s%s%s%s", port, list,
				  best ? " (did you mean '" : "",
				  best ? best : "", best ? "'?)" : "");
	} else {
		best = NULL;
	}
	if (best)
		cli_error_set("suggestion", best);
	json_decref(resp);
}

/* Connect, introduce ourselves, send req (NULL: watch), print. */
static int run(const struct options *o, const char *verb, json_t *req)
{
	struct ctl_client c;
	json_t *resp;
	int rc;

	if (ctl_client_open(&c, o->socket, o->timeout_s)) {
		if (o->instance)
			cli_instance_hint(o->instance);
		return EXIT_NO_ANSWER;
	}
	rc = ctl_client_handshake(&c);
	if (rc == EXIT_OK && !req) {
		rc = cli_watch(&c, o->interval_s, o->count, o->json);
	} else if (rc == EXIT_OK) {
		resp = ctl_client_call(&c, json_incref(req));
		if (!resp) {
			rc = EXIT_NO_ANSWER;
		} else if (json_is_true(json_object_get(resp, "ok"))) {
			print_result(verb, req, json_object_get(resp, "result"),
				     o->json);
		} else {
			rc = ctl_client_report_error(resp, verb);
			if (!strcmp(cli_str(json_object_get(resp, "error"),
					    "code"),
				    "bad_request"))
				hint_names(&c, req);
		}
		json_decref(resp);
	}
	ctl_client_close(&c);
	return rc;
}

/* The options and the request: EXIT_OK, or EXIT_USAGE with the reason
 * recorded (cli_fail). *req NULL for watch. */
static int parse(int argc, char **argv, struct options *o, const char **verb,
		 json_t **req)
{
	static const char shorts[] = ":s:i:jrhV";
	static const struct option longopts[] = {
		{"socket", required_argument, NULL, 's'},
		{"instance", required_argument, NULL, 'i'},
		{"read-only", no_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 'T'},
		{"interval", required_argument, NULL, 'I'},
		{"count", required_argument, NULL, 'N'},
		{"prefix", required_argument, NULL, 'P'},
		{"dscp", required_argument, NULL, 'D'},
		{"class", required_argument, NULL, 'C'},
		{"gpus", required_argument, NULL, 'G'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	const struct cli_verb *v;
	const char *socket = NULL, *instance = NULL;
	bool bad = false;
	int opt;

	opterr = 0;
	/* after the first error, only look for --json (how to report it) */
	while ((opt = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			o->json = true;
			break;
		case 'h':
		case 'V':
			if (!bad)
				o->info = opt;
			break;
		default:
			if (bad)
				break;
			switch (opt) {
			case 's':
				socket = optarg;
				break;
			case 'i':
				instance = optarg;
				break;
			case 'r':
				o->read_only = true;
				break;
			case 'T':
				bad = cli_seconds("--timeout", optarg, 0,
						  CLI_SECONDS_MAX,
						  &o->timeout_s);
				break;
			case 'I':
				bad = cli_seconds("--interval", optarg, 0.01,
						  CLI_SECONDS_MAX,
						  &o->interval_s);
				o->watch_opts = true;
				break;
			case 'N':
				bad = cli_count("--count", optarg, UINT32_MAX,
						&o->count);
				o->watch_opts = true;
				break;
			case 'P':
			case 'D':
			case 'C':
			case 'G':
				bad = cli_job_option(opt == 'P'	  ? "--prefix"
						     : opt == 'D' ? "--dscp"
						     : opt == 'C' ? "--class"
								  : "--gpus",
						     optarg) != 0;
				o->job_opts = true;
				break;
			default: /* '?' unknown, ':' without its value */
				cli_bad_option(longopts, shorts,
					       argv[optind - 1], optopt,
					       opt == ':');
				bad = true;
			}
		}
	}
	if (bad)
		return EXIT_USAGE;
	if (o->info)
		return EXIT_OK;
	if (socket && instance) {
		cli_fail("usage",
			 "-i %.64s and -s %.64s both name the "
			 "socket: give one",
			 instance, socket);
		return EXIT_USAGE;
	}
	if (instance &&
	    cli_instance_socket(instance, o->socket_buf, sizeof(o->socket_buf)))
		return EXIT_USAGE;
	if (optind >= argc) {
		cli_no_verb();
		return EXIT_USAGE;
	}
	*verb = argv[optind++];
	if (!(v = cli_verb_find(*verb)))
		return EXIT_USAGE;
	if (o->watch_opts && strcmp(v->name, "watch")) {
		cli_fail("usage",
			 "--interval and --count are for watch, not "
			 "%s",
			 v->name);
		return EXIT_USAGE;
	}
	if (o->job_opts && strcmp(v->name, "job-register")) {
		cli_fail("usage",
			 "--prefix, --dscp, --class and --gpus are for "
			 "job-register, not %s",
			 v->name);
		return EXIT_USAGE;
	}
	if (o->read_only && v->changes) {
		cli_fail("usage",
			 "%s changes the daemon; the read-only socket "
			 "(-r) refuses it",
			 v->name);
		return EXIT_USAGE;
	}
	*req = cli_request(v, argc - optind, argv + optind);
	if (!*req && cli_error_get())
		return EXIT_USAGE;
	if (instance) {
		o->instance = instance;
		socket = o->socket_buf;
	}
	if (!socket)
		socket = getenv(CTL_CLIENT_SOCKET_ENV);
	if (!socket || !*socket)
		socket = DEFAULT_SOCKET;
	if (o->read_only) {
		if ((size_t)snprintf(o->ro_buf, sizeof(o->ro_buf),
				     "%s" CLI_READONLY_SUFFIX,
				     socket) >= sizeof(o->ro_buf)) {
			cli_fail("usage", "-r: %.64s... is too long a path",
				 socket);
			json_decref(*req);
			*req = NULL;
			return EXIT_USAGE;
		}
		socket = o->ro_buf;
	}
	o->socket = socket;
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options o = {.timeout_s = 30, .interval_s = 1};
	const char *verb = NULL;
	json_t *req = NULL;
	int rc;

	rc = parse(argc, argv, &o, &verb, &req);
	if (rc == EXIT_OK && o.info == 'h') {
		usage(stdout);
		return EXIT_OK;
	}
	if (rc == EXIT_OK && o.info == 'V') {
		printf("xdplanectl %s\n", XDPLANE_VERSION_FULL);
		return EXIT_OK;
	}
	if (rc == EXIT_OK)
		rc = run(&o, verb, req);
	json_decref(req);
	if (rc != EXIT_OK && o.json)
		cli_error_json(rc);
	return rc;
}
