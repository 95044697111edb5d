// SPDX-License-Identifier: BSD-2-Clause
/*
 * cli_counters.c - xdplanectl's counter columns from the counter schema;
 * see cli_counters.h. The rows of gw_counters.def are expanded here (the
 * CLI links no dataplane code): JSON group and key, shape, unit, column.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli_counters.h"

struct cli_row {
	const char *group, *key; /* group "": the object itself */
	enum gw_shape shape;
	enum gw_unit unit;
	struct gw_cli cli;
};

#define CLI_ROW(field, dim, agg, src, group, key, prom, label, type, unit,     \
		cli, help)                                                     \
	{group, key, GW_SHAPE_OF_##dim, GW_UNIT_##unit, GW_CLI_INIT cli},

static const struct cli_row rows[] = {
#define GW_PORT_COUNTER CLI_ROW
#define GW_XSK_COUNTER CLI_ROW
#define GW_DCQCN_COUNTER CLI_ROW
#define GW_PFC_COUNTER CLI_ROW
#define GW_CLASS_COUNTER CLI_ROW
#include "gw_counters.def"
};

#define N_ROWS (sizeof(rows) / sizeof(*rows))

static bool in_table(const struct cli_row *r, unsigned int table,
		     const char *column)
{
	return (r->cli.tables & table) && r->cli.column &&
	       (!column || !strcmp(r->cli.column, column));
}

/* Row k starts a column of the table (no earlier row names it). */
static bool first_of_column(size_t k, unsigned int table)
{
	if (!in_table(&rows[k], table, NULL))
		return false;
	for (size_t j = 0; j < k; j++)
		if (in_table(&rows[j], table, rows[k].cli.column))
			return false;
	return true;
}

/* Row r of o: element idx of an array (-1: their sum), the row's element
 * of an object (none: the sum of its members), or the value. */
static json_int_t row_value(const struct cli_row *r, json_t *o, int idx)
{
	json_t *obj = r->group[0] ? json_object_get(o, r->group) : o, *v;
	json_int_t sum = 0;

	switch (r->shape) {
	case GW_SHAPE_OBJECT:
		if (r->cli.element)
			return cli_num(json_object_get(obj, r->key),
				       r->cli.element);
		return cli_sum_of(obj, r->key);
	case GW_SHAPE_ARRAY:
		v = json_object_get(obj, r->key);
		if (idx >= 0)
			return json_integer_value(json_array_get(v, idx));
		for (size_t i = 0; i < json_array_size(v); i++)
			sum += json_integer_value(json_array_get(v, i));
		return sum;
	case GW_SHAPE_VALUE:
	default:
		return cli_num(obj, r->key);
	}
}

static json_int_t column_value(unsigned int table, const char *column,
			       json_t *o, int idx)
{
	json_int_t sum = 0;

	for (size_t k = 0; k < N_ROWS; k++)
		if (in_table(&rows[k], table, column))
			sum += row_value(&rows[k], o, idx);
	return sum;
}

/* A value in the unit of the column's first row: bytes with a B, time
 * in seconds. */
static void unit_cell(struct cli_table *t, enum gw_unit unit, json_int_t v)
{
	if (unit == GW_UNIT_NS)
		cli_cell(t, "%.3f", (double)v / 1e9);
	else
		cli_cell_count(t, (double)v, unit == GW_UNIT_BYTES ? "B" : "");
}

int cli_counter_columns(unsigned int table)
{
	int n = 0;

	for (size_t k = 0; k < N_ROWS; k++)
		n += first_of_column(k, table);
	return n;
}

void cli_counter_header(struct cli_table *t, unsigned int table)
{
	for (size_t k = 0; k < N_ROWS; k++)
		if (first_of_column(k, table))
			cli_cell(t, "%s", rows[k].cli.column);
}

static void cells_at(struct cli_table *t, unsigned int table, json_t *o,
		     int idx)
{
	for (size_t k = 0; k < N_ROWS; k++)
		if (first_of_column(k, table))
			unit_cell(t, rows[k].unit,
				  column_value(table, rows[k].cli.column, o,
					       idx));
}

void cli_counter_cells(struct cli_table *t, unsigned int table, json_t *o)
{
	cells_at(t, table, o, -1);
}

json_int_t cli_counter_value(unsigned int table, const char *column, json_t *o)
{
	return column_value(table, column, o, -1);
}

void cli_print_pfc(json_t *ports)
{
	int ncols = cli_counter_columns(GW_CLI_PFC);
	struct cli_table t;
	json_t *p;
	int rows_shown = 0;

	cli_table_init(&t, 2 + ncols, 2);
	cli_cell(&t, "PORT");
	cli_cell(&t, "PRIO");
	cli_counter_header(&t, GW_CLI_PFC);
	for (size_t i = 0; (p = json_array_get(ports, i)); i++) {
		for (int prio = 0; prio < GW_DIM_N_PRIO; prio++) {
			json_int_t any = 0;

			for (size_t k = 0; k < N_ROWS; k++)
				if (first_of_column(k, GW_CLI_PFC))
					any |= column_value(GW_CLI_PFC,
							    rows[k].cli.column,
							    p, prio);
			if (!any)
				continue;
			rows_shown++;
			cli_cell(&t, "%s", cli_str(p, "name"));
			cli_cell(&t, "%d", prio);
			cells_at(&t, GW_CLI_PFC, p, prio);
		}
	}
	if (!rows_shown) {
		cli_table_drop(&t); /* the header alone: not printed */
		return;
	}
	printf("\n");
	cli_table_print(&t);
}
