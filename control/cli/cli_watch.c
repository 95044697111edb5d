// SPDX-License-Identifier: BSD-2-Clause
/*
 * cli_watch.c - xdplanectl watch: a stats request every interval, the
 * rates between two answers printed like top (or as one JSON line per
 * refresh with --json); see cli_watch.h.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli_counters.h"
#include "cli_adaptive.h"
#include "cli_watch.h"

static void on_sigint(int sig)
{
	cli_interrupted = 1;
}

/* Frames the gateway dropped (its DROPS column: handoff ring full,
 * invalid descriptors, multi-buffer, malformed...) and those the kernel
 * dropped before the socket (XSK_DROPS), of a port object. */
static json_int_t port_drops(json_t *p)
{
	return cli_counter_value(GW_CLI_PORT, "DROPS", p) +
	       cli_counter_value(GW_CLI_PORT, "XSK_DROPS", p);
}

static json_t *find_named(json_t *arr, const char *name)
{
	json_t *v;

	for (size_t i = 0; (v = json_array_get(arr, i)); i++)
		if (!strcmp(cli_str(v, "name"), name))
			return v;
	return NULL;
}

/* (cur - prev) / dt, never negative (a counter that went back). */
static double per_s(json_int_t cur, json_int_t prev, double dt)
{
	return cur > prev ? (double)(cur - prev) / dt : 0.0;
}

static json_t *class_rates(json_t *c, json_t *pc, double dt)
{
	return json_pack(
		"{s:s,s:f,s:f,s:f,s:f,s:I,s:I}", "name", cli_str(c, "name"),
		"sent_pps",
		per_s(cli_num(c, "sent_packets"), cli_num(pc, "sent_packets"),
		      dt),
		"sent_bps",
		8 * per_s(cli_num(c, "sent_bytes"), cli_num(pc, "sent_bytes"),
			  dt),
		"drops_per_s",
		per_s(cli_counter_value(GW_CLI_CLASS, "DROPS", c),
		      cli_counter_value(GW_CLI_CLASS, "DROPS", pc), dt),
		"ecn_marks_per_s",
		per_s(cli_num(c, "ecn_marks"), cli_num(pc, "ecn_marks"), dt),
		"depth_packets", cli_num(c, "depth_packets"), "depth_bytes",
		cli_num(c, "depth_bytes"));
}

static json_t *port_rates(json_t *p, json_t *pp, double dt)
{
	json_t *classes = json_array(), *cs = json_object_get(p, "classes");
	json_t *c, *pc;

	for (size_t j = 0; (c = json_array_get(cs, j)); j++) {
		pc = find_named(json_object_get(pp, "classes"),
				cli_str(c, "name"));
		if (pc)
			json_array_append_new(classes, class_rates(c, pc, dt));
	}
	return json_pack(
		"{s:s,s:f,s:f,s:f,s:f,s:f,s:o,s:O*}", "name",
		cli_str(p, "name"), "rx_pps",
		per_s(cli_num(p, "rx_packets"), cli_num(pp, "rx_packets"), dt),
		"rx_bps",
		8 * per_s(cli_num(p, "rx_bytes"), cli_num(pp, "rx_bytes"), dt),
		"tx_pps",
		per_s(cli_num(p, "tx_packets"), cli_num(pp, "tx_packets"), dt),
		"tx_bps",
		8 * per_s(cli_num(p, "tx_bytes"), cli_num(pp, "tx_bytes"), dt),
		"drops_per_s", per_s(port_drops(p), port_drops(pp), dt),
		"classes", classes, "adaptive", json_object_get(p, "adaptive"));
}

/* Rates between two stats results, over the daemon's clock (the client's
 * when the daemon's did not advance). Ports and classes are matched by
 * name, so a reload that adds a class does not shift the others. */
static json_t *watch_rates(json_t *prev, json_t *cur, double client_dt)
{
	json_int_t t0 = cli_num(prev, "now_mono_ns"),
		   t1 = cli_num(cur, "now_mono_ns");
	double dt = t1 > t0 ? (double)(t1 - t0) / 1e9 : client_dt;
	json_t *ports = json_array(), *cp = json_object_get(cur, "ports");
	json_t *p, *pp;

	if (!(dt > 0))
		dt = 1e-9;
	for (size_t i = 0; (p = json_array_get(cp, i)); i++) {
		pp = find_named(json_object_get(prev, "ports"),
				cli_str(p, "name"));
		if (pp)
			json_array_append_new(ports, port_rates(p, pp, dt));
	}
	return json_pack("{s:f,s:o}", "interval_s", dt, "ports", ports);
}

static void print_watch(json_t *rates, unsigned long n, bool tty)
{
	static const char *const port_cols[] = {
		"PORT", "RX_PPS", "RX_BIT/S", "TX_PPS", "TX_BIT/S", "DROPS/S"};
	static const char *const class_cols[] = {
		"EGRESS",  "CLASS", "SENT_PPS",	  "SENT_BIT/S",
		"DROPS/S", "ECN/S", "DEPTH_PKTS", "DEPTH_BYTES"};
	json_t *ports = json_object_get(rates, "ports"), *p, *v;
	char when[64];
	struct cli_table t;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (n > 1)
		fputs("\n", stdout);
	cli_fmt_time(when, sizeof(when), (double)time(NULL));
	printf("xdplane watch  %s  interval %.2f s  refresh %lu\n\n", when,
	       cli_real(rates, "interval_s"), n);
	cli_table_init(&t, 6, 1);
	cli_header(&t, port_cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		cli_cell(&t, "%s", cli_str(p, "name"));
		cli_cell_count(&t, cli_real(p, "rx_pps"), "");
		cli_cell_count(&t, cli_real(p, "rx_bps"), "");
		cli_cell_count(&t, cli_real(p, "tx_pps"), "");
		cli_cell_count(&t, cli_real(p, "tx_bps"), "");
		cli_cell_count(&t, cli_real(p, "drops_per_s"), "");
	}
	cli_table_print(&t);
	printf("\n");
	if (cli_adaptive_print(ports, false))
		printf("\n");
	cli_table_init(&t, 8, 2);
	cli_header(&t, class_cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *classes = json_object_get(p, "classes");

		for (size_t j = 0; (v = json_array_get(classes, j)); j++) {
			cli_cell(&t, "%s", cli_str(p, "name"));
			cli_cell(&t, "%s", cli_str(v, "name"));
			cli_cell_count(&t, cli_real(v, "sent_pps"), "");
			cli_cell_count(&t, cli_real(v, "sent_bps"), "");
			cli_cell_count(&t, cli_real(v, "drops_per_s"), "");
			cli_cell_count(&t, cli_real(v, "ecn_marks_per_s"), "");
			cli_cell_count(&t, cli_real(v, "depth_packets"), "");
			cli_cell_count(&t, cli_real(v, "depth_bytes"), "B");
		}
	}
	cli_table_print(&t);
	fflush(stdout);
}

/* Sleep until `until` (monotonic), or SIGINT: 0 / -1. */
static int sleep_until(double until)
{
	struct timespec ts;
	double left;

	while (!cli_interrupted && (left = until - cli_mono_s()) > 0) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	return cli_interrupted ? -1 : 0;
}

/* The result of one stats request; NULL with *rc set when there is none. */
static json_t *fetch_stats(struct ctl_client *c, int *rc)
{
	json_t *resp =
		ctl_client_call(c, json_pack("{s:s}", "command", "stats"));
	json_t *result;

	if (!resp) {
		*rc = cli_interrupted ? EXIT_OK : EXIT_NO_ANSWER;
		return NULL;
	}
	if (!json_is_true(json_object_get(resp, "ok"))) {
		*rc = ctl_client_report_error(resp, "stats");
		json_decref(resp);
		return NULL;
	}
	result = json_incref(json_object_get(resp, "result"));
	json_decref(resp);
	if (!result) {
		cli_error("the daemon's answer has no result");
		*rc = EXIT_NO_ANSWER;
	}
	return result;
}

int cli_watch(struct ctl_client *c, double interval_s, unsigned long count,
	      bool as_json)
{
	struct sigaction sa = {.sa_handler = on_sigint};
	bool tty = isatty(STDOUT_FILENO);
	json_t *prev, *cur, *rates;
	double t_prev, next;
	char *line;
	int rc = EXIT_OK;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: wake poll/sleep */
	sigaction(SIGTERM, &sa, NULL);
	prev = fetch_stats(c, &rc);
	if (!prev)
		return rc;
	t_prev = cli_mono_s();
	next = t_prev + interval_s;
	for (unsigned long n = 1; count == 0 || n <= count; n++) {
		if (sleep_until(next))
			break;
		next += interval_s;
		cur = fetch_stats(c, &rc);
		if (!cur)
			break;
		rates = watch_rates(prev, cur, cli_mono_s() - t_prev);
		t_prev = cli_mono_s();
		if (as_json) {
			line = rates ? json_dumps(rates, JSON_COMPACT) : NULL;
			printf("%s\n", line ? line : "{}");
			fflush(stdout);
			free(line);
		} else if (rates) {
			print_watch(rates, n, tty);
		}
		json_decref(rates);
		json_decref(prev);
		prev = cur;
	}
	json_decref(prev);
	return cli_interrupted ? EXIT_OK : rc;
}

/* ---- main ------------------------------------------------------------- */
