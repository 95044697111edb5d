// SPDX-License-Identifier: BSD-2-Clause
/*
 * cli_adaptive.c - see cli_adaptive.h.
 */
#include <stdio.h>
#include <string.h>
#include "cli_adaptive.h"
#include "cli_table.h"

static bool port_on(json_t *p)
{
	json_t *a = json_object_get(p, "adaptive");

	return a && !strcmp(cli_str(a, "mode"), "on");
}

/* A time in ns as "523us" / "1.25ms" / "-" (0: not measured). */
static void cell_time(struct cli_table *t, json_int_t ns)
{
	if (ns <= 0)
		cli_cell(t, "-");
	else if (ns < 1000000)
		cli_cell(t, "%.0fus", (double)ns / 1e3);
	else
		cli_cell(t, "%.2fms", (double)ns / 1e6);
}

static void print_decisions(json_t *p, json_t *q)
{
	json_t *h = json_object_get(q, "decisions"), *d;
	size_t n = json_array_size(h);
	json_int_t last = n ? cli_num(json_array_get(h, n - 1), "t_ns") : 0;
	char rate[32], del[32];

	if (!n)
		return;
	printf("%s queue %" JSON_INTEGER_FORMAT " last decisions:\n",
	       cli_str(p, "name"), cli_num(q, "queue"));
	for (size_t i = 0; (d = json_array_get(h, i)); i++) {
		cli_si(rate, sizeof(rate), (double)cli_num(d, "rate_bps"),
		       "bit/s");
		cli_si(del, sizeof(del), (double)cli_num(d, "delivery_bps"),
		       "bit/s");
		printf("  %9.1f ms  %-10s rate %-12s delivery %-12s "
		       "qdelay %.0fus\n",
		       (double)(cli_num(d, "t_ns") - last) / 1e6,
		       cli_str(d, "state"), rate, del,
		       (double)cli_num(d, "qdelay_ns") / 1e3);
	}
}

bool cli_adaptive_print(json_t *ports, bool decisions)
{
	static const char *const cols[] = {
		"PORT", "QUEUE",  "STATE",  "RATE_BIT/S", "FLOOR", "BASE_RTT",
		"SRTT", "QDELAY", "TARGET", "DELIVERY",	  "MARKED"};
	json_t *p, *q;
	struct cli_table t;
	bool any = false;

	cli_table_init(&t, 11, 1);
	cli_header(&t, cols);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		json_t *qs = json_object_get(json_object_get(p, "adaptive"),
					     "queues");

		if (!port_on(p))
			continue;
		for (size_t j = 0; (q = json_array_get(qs, j)); j++) {
			any = true;
			cli_cell(&t, "%s", cli_str(p, "name"));
			cli_cell_json(&t, json_object_get(q, "queue"));
			cli_cell(&t, "%s", cli_str(q, "state"));
			cli_cell_count(&t, (double)cli_num(q, "rate_bps"), "");
			cli_cell_count(&t, (double)cli_num(q, "floor_bps"), "");
			cell_time(&t, cli_num(q, "base_rtt_ns"));
			cell_time(&t, cli_num(q, "srtt_ns"));
			cell_time(&t, cli_num(q, "qdelay_ns"));
			cell_time(&t, cli_num(q, "target_ns"));
			cli_cell_count(&t, (double)cli_num(q, "delivery_bps"),
				       "");
			cli_cell(&t, "%.2f%%",
				 (double)cli_num(q, "marked_ppm") / 1e4);
		}
	}
	if (!any) {
		cli_table_drop(&t);
		return false;
	}
	printf("adaptive egress (ports[].adaptive)\n");
	cli_table_print(&t);
	for (size_t i = 0; decisions && (p = json_array_get(ports, i)); i++) {
		json_t *qs = json_object_get(json_object_get(p, "adaptive"),
					     "queues");

		if (port_on(p))
			for (size_t j = 0; (q = json_array_get(qs, j)); j++)
				print_decisions(p, q);
	}
	return true;
}
