/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_counters.h - the counter columns of xdplanectl's tables, made from
 * the gateway's counter schema (dataplane/run/gw_counters.def): a row
 * with GW_CLI(tables, column, element) is a column of those tables
 * (GW_CLI_* of gw_counters.h), its value read from the row's JSON key in
 * the daemon's answer; rows that name the same column are added up. The
 * columns come in the order of the rows. Adding a GW_CLI to a row adds
 * the column (and xdplanectl(8) must show it: t-man-samples).
 *
 * Single-threaded, pure: reads JSON, fills tables (cli_table.h).
 */
#ifndef XDPLANE_CLI_COUNTERS_H
#define XDPLANE_CLI_COUNTERS_H

#include <jansson.h>
#include "cli_table.h"
#include "gw_counters.h"

/* The counter columns of a table (one GW_CLI_* bit). */
int cli_counter_columns(unsigned int table);
/* Their names as header cells. */
void cli_counter_header(struct cli_table *t, unsigned int table);
/* Their cells for o (a port, queue or class object of the answer). */
void cli_counter_cells(struct cli_table *t, unsigned int table, json_t *o);
/* The value of one column for o; 0 when the table has no such column. */
json_int_t cli_counter_value(unsigned int table, const char *column, json_t *o);
/* GW_CLI_PFC: one row per port and 802.1p priority with anything
 * counted, after an empty line; nothing when no priority has any. */
void cli_print_pfc(json_t *ports);

#endif
