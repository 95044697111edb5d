// SPDX-License-Identifier: BSD-2-Clause
/*
 * xdplanectl.c - the operator's CLI: one connection to the daemon's control
 * socket, the protocol v1 handshake, one request per verb (a series of
 * "stats" requests for watch), and the answer printed as a table or, with
 * --json, as the server's result object on one line.
 *
 *   xdplanectl [-s SOCKET] [--json] [--timeout SEC] VERB [ARGS]
 *
 * Exit status: 0 success, 1 the daemon answered an error (printed as
 * "xdplanectl: <code>: <message>"), 2 usage, 3 no answer: cannot connect,
 * connection closed before an answer, timeout, or an answer that is not
 * protocol v1. See xdplanectl(8); the protocol is described in
 * ctl_proto.h.
 *
 * Single-threaded. Links only jansson and libc. The pieces:
 * ctl_client.c the connection and the protocol (memory bounded by the
 * largest response accepted), cli_table.c the formatting, cli_counters.c
 * the counter columns (from the gateway's counter schema,
 * gw_counters.def), cli_watch.c the watch verb; this file the options,
 * the requests and the other verbs' output.
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
#include "cli_counters.h"
#include "cli_table.h"
#include "cli_watch.h"
#include "ctl_client.h"
#include "prefix.h"
#include "units.h"

#ifndef XDPLANE_VERSION
#define XDPLANE_VERSION "unknown"
#endif

#define DEFAULT_SOCKET "/run/xdplane/control.sock"

struct options {
	const char *socket;
	bool json;
	double timeout_s; /* per request; 0: wait forever */
	double interval_s; /* watch */
	unsigned long count; /* watch refreshes; 0: until SIGINT */
	bool watch_opts; /* --interval or --count was given */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xdplanectl [-s SOCKET] [--json] [--timeout SEC] VERB "
		"[ARGS]\n"
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
		"options:\n"
		"  -s, --socket SOCKET  control socket (default "
		"$" CTL_CLIENT_SOCKET_ENV " or " DEFAULT_SOCKET ")\n"
		"  -j, --json           print the result as one line of JSON\n"
		"      --timeout SEC    give up waiting after SEC seconds "
		"(default 30, 0: never)\n"
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

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* The request for verb + its arguments, or NULL (usage error printed). */
static json_t *build_request(const char *verb, int argc, char **argv)
{
	json_t *args = json_object();
	struct qos_prefix prefix;
	char why[256];
	double sev;

	if (!strcmp(verb, "status") || !strcmp(verb, "classes") ||
	    !strcmp(verb, "flows") || !strcmp(verb, "reload") ||
	    !strcmp(verb, "config")) {
		if (argc != 0)
			goto usage;
	} else if (!strcmp(verb, "stats")) {
		if (argc > 1)
			goto usage;
		if (argc == 1)
			json_object_set_new(args, "port", json_string(argv[0]));
	} else if (!strcmp(verb, "congestion")) {
		if (argc < 2 || argc > 4)
			goto usage;
		json_object_set_new(args, "port", json_string(argv[0]));
		json_object_set_new(args, "class", json_string(argv[1]));
		if (argc == 4) {
			/* the daemon's and the configuration's grammar */
			if (prefix_check(argv[3], &prefix, why, sizeof(why))) {
				cli_error("prefix: %s", why);
				goto usage;
			}
			json_object_set_new(args, "prefix",
					    json_string(argv[3]));
		}
		if (argc >= 3) {
			/* a decimal or a percentage; the daemon checks 0..1 */
			if (units_real_fraction(argv[2], true, &sev)) {
				cli_error("severity \"%s\" is not a number "
					  "from 0 to 1 such as 0.5, or a "
					  "percentage such as 50%%",
					  argv[2]);
				goto usage;
			}
			json_object_set_new(args, "severity", json_real(sev));
		}
	} else if (!strcmp(verb, "log-level")) {
		if (argc != 1)
			goto usage;
		json_object_set_new(args, "level", json_string(argv[0]));
	} else {
		cli_error("unknown verb \"%s\"", verb);
		goto usage;
	}
	return json_pack("{s:s,s:o}", "command", verb, "args", args);
usage:
	json_decref(args);
	usage(stderr);
	return NULL;
}

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
	} else {
		printf("congestion signalled on %s class %s\n",
		       cli_str(args, "port"), cli_str(args, "class"));
		cli_print_key_values(result);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"socket", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 'T'},
		{"interval", required_argument, NULL, 'I'},
		{"count", required_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct options o = {.timeout_s = 30, .interval_s = 1};
	const char *verb;
	json_t *req, *resp;
	struct ctl_client c;
	char *end;
	int opt, rc;

	o.socket = getenv(CTL_CLIENT_SOCKET_ENV);
	if (!o.socket || !*o.socket)
		o.socket = DEFAULT_SOCKET;
	while ((opt = getopt_long(argc, argv, "s:jhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			o.socket = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'T':
			if (parse_seconds(optarg, &o.timeout_s)) {
				cli_error("--timeout wants seconds, not \"%s\"",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case 'I':
			if (parse_seconds(optarg, &o.interval_s) ||
			    o.interval_s < 0.01) {
				cli_error("--interval wants seconds (at least "
					  "0.01), not \"%s\"",
					  optarg);
				return EXIT_USAGE;
			}
			o.watch_opts = true;
			break;
		case 'N':
			errno = 0;
			o.count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-') {
				cli_error("--count wants a number, not \"%s\"",
					  optarg);
				return EXIT_USAGE;
			}
			o.watch_opts = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("xdplanectl %s\n", XDPLANE_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	verb = argv[optind++];
	if (!strcmp(verb, "watch")) {
		if (optind != argc) {
			usage(stderr);
			return EXIT_USAGE;
		}
		req = NULL;
	} else {
		if (o.watch_opts) {
			cli_error("--interval and --count are for watch");
			return EXIT_USAGE;
		}
		req = build_request(verb, argc - optind, argv + optind);
		if (!req)
			return EXIT_USAGE;
	}

	if (ctl_client_open(&c, o.socket, o.timeout_s)) {
		json_decref(req);
		return EXIT_NO_ANSWER;
	}
	rc = ctl_client_handshake(&c);
	if (rc == EXIT_OK && !req) {
		rc = cli_watch(&c, o.interval_s, o.count, o.json);
	} else if (rc == EXIT_OK) {
		resp = ctl_client_call(&c, json_incref(req));
		if (!resp)
			rc = EXIT_NO_ANSWER;
		else if (!json_is_true(json_object_get(resp, "ok")))
			rc = ctl_client_report_error(resp, verb);
		else
			print_result(verb, req, json_object_get(resp, "result"),
				     o.json);
		json_decref(resp);
	}
	json_decref(req);
	ctl_client_close(&c);
	return rc;
}
