/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_table.h - xdplanectl's formatting: values read out of the daemon's
 * JSON answers, numbers with SI prefixes, times, and tables with aligned
 * columns. Single-threaded (the CLI's one thread); writes to stdout only.
 * System calls: stdio's write(2); cli_fmt_time() reads the time zone
 * (localtime_r).
 */
#ifndef XDPLANE_CLI_TABLE_H
#define XDPLANE_CLI_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* Counts: exact below 100000, else three significant digits and an SI
 * prefix ("1.23M"), then the suffix ("B", ...). Negative or unknown: "-". */
const char *cli_si(char *buf, size_t len, double v, const char *suffix);

/* o[key] as an integer (a real truncated; anything else 0), as a double
 * (NAN when not a number), as a string ("-" when not one). */
json_int_t cli_num(json_t *o, const char *key);
double cli_real(json_t *o, const char *key);
const char *cli_str(json_t *o, const char *key);
/* Sum of the integer members of the object o[key]. */
json_int_t cli_sum_of(json_t *o, const char *key);
/* A value as text: strings as they are, numbers exact, booleans yes/no,
 * null "-", the rest as compact JSON. */
const char *cli_text(json_t *v, char *buf, size_t len);

/* Cells filled row by row and printed with aligned columns: text columns
 * (bits of left_mask) left aligned, numbers right aligned. */
#define CLI_TABLE_MAX_COLS 16

struct cli_table {
	int ncols;
	uint32_t left_mask; /* bit i: column i is left aligned */
	size_t n; /* cells so far */
	char **cells;
};

/* The first `left` columns are text. */
void cli_table_init(struct cli_table *t, int ncols, int left);
void cli_cell(struct cli_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A count through cli_si(). */
void cli_cell_count(struct cli_table *t, double v, const char *suffix);
/* A JSON value through cli_text(). */
void cli_cell_json(struct cli_table *t, json_t *v);
/* names[0..ncols) as the header row. */
void cli_header(struct cli_table *t, const char *const *names);
/* Print the rows, free the cells; t is empty after. */
void cli_table_print(struct cli_table *t);
/* Free the cells without printing. */
void cli_table_drop(struct cli_table *t);

/* Each member of o: "key  value", one a line. */
void cli_print_key_values(json_t *o);
/* "1d 2h 3m 4s"; "2015-10-21 07:28:00" (local time), "never" for 0. */
void cli_fmt_duration(char *buf, size_t len, double s);
void cli_fmt_time(char *buf, size_t len, double unix_s);

#endif
