// SPDX-License-Identifier: BSD-2-Clause
/*
 * cli_table.c - xdplanectl's formatting; see cli_table.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli_table.h"

const char *cli_si(char *buf, size_t len, double v, const char *suffix)
{
	static const char prefixes[] = " kMGTPE";
	int p = 0;

	if (!isfinite(v) || v < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (v < 100000) {
		snprintf(buf, len,
			 v == (double)(uint64_t)v ? "%.0f%s" : "%.1f%s", v,
			 suffix);
		return buf;
	}
	while (v >= 1000 && p < 6) {
		v /= 1000;
		p++;
	}
	snprintf(buf, len,
		 v >= 100  ? "%.0f%c%s"
		 : v >= 10 ? "%.1f%c%s"
			   : "%.2f%c%s",
		 v, prefixes[p], suffix);
	return buf;
}

json_int_t cli_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v) && isfinite(json_real_value(v)))
		return (json_int_t)json_real_value(v);
	return 0;
}

double cli_real(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *cli_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

json_int_t cli_sum_of(json_t *o, const char *key)
{
	json_t *obj = json_object_get(o, key);
	json_int_t sum = 0;

	for (void *it = json_object_iter(obj); it;
	     it = json_object_iter_next(obj, it)) {
		json_t *v = json_object_iter_value(it);

		if (json_is_integer(v))
			sum += json_integer_value(v);
	}
	return sum;
}

const char *cli_text(json_t *v, char *buf, size_t len)
{
	char *s;

	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, len, "%g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	} else if (!v || json_is_null(v)) {
		snprintf(buf, len, "-");
	} else {
		s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, len, "%s", s ? s : "?");
		free(s);
	}
	return buf;
}

void cli_table_init(struct cli_table *t, int ncols, int left)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols < CLI_TABLE_MAX_COLS ? ncols : CLI_TABLE_MAX_COLS;
	t->left_mask = (1u << left) - 1;
}

void cli_cell(struct cli_table *t, const char *fmt, ...)
{
	char **cells = realloc(t->cells, (t->n + 1) * sizeof(*cells));
	va_list ap;

	if (!cells)
		return;
	t->cells = cells;
	va_start(ap, fmt);
	if (vasprintf(&cells[t->n], fmt, ap) < 0)
		cells[t->n] = NULL;
	va_end(ap);
	t->n++;
}

void cli_cell_count(struct cli_table *t, double v, const char *suffix)
{
	char buf[32];

	cli_cell(t, "%s", cli_si(buf, sizeof(buf), v, suffix));
}

void cli_cell_json(struct cli_table *t, json_t *v)
{
	char buf[256];

	cli_cell(t, "%s", cli_text(v, buf, sizeof(buf)));
}

void cli_header(struct cli_table *t, const char *const *names)
{
	for (int i = 0; i < t->ncols; i++)
		cli_cell(t, "%s", names[i]);
}

void cli_table_drop(struct cli_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

void cli_table_print(struct cli_table *t)
{
	size_t width[CLI_TABLE_MAX_COLS] = {0}, n;
	const char *s;
	int col;

	for (size_t i = 0; i < t->n; i++) {
		n = t->cells[i] ? strlen(t->cells[i]) : 1;
		col = (int)(i % (size_t)t->ncols);
		if (n > width[col])
			width[col] = n;
	}
	for (size_t i = 0; i < t->n; i++) {
		s = t->cells[i] ? t->cells[i] : "-";
		col = (int)(i % (size_t)t->ncols);
		printf(t->left_mask & (1u << col) ? "%-*s" : "%*s",
		       (int)width[col], s);
		fputs(col + 1 < t->ncols && i + 1 < t->n ? "  " : "\n", stdout);
	}
	cli_table_drop(t);
}

void cli_print_key_values(json_t *o)
{
	char buf[1024];

	for (void *it = json_object_iter(o); it;
	     it = json_object_iter_next(o, it))
		printf("%-20s %s\n", json_object_iter_key(it),
		       cli_text(json_object_iter_value(it), buf, sizeof(buf)));
}

void cli_fmt_duration(char *buf, size_t len, double s)
{
	unsigned long long t = isfinite(s) && s > 0 ? (unsigned long long)s : 0;

	if (t >= 86400)
		snprintf(buf, len, "%llud %lluh %llum %llus", t / 86400,
			 t / 3600 % 24, t / 60 % 60, t % 60);
	else if (t >= 3600)
		snprintf(buf, len, "%lluh %llum %llus", t / 3600, t / 60 % 60,
			 t % 60);
	else if (t >= 60)
		snprintf(buf, len, "%llum %llus", t / 60, t % 60);
	else
		snprintf(buf, len, "%llus", t);
}

void cli_fmt_time(char *buf, size_t len, double unix_s)
{
	struct tm tm;
	time_t t;

	if (!isfinite(unix_s) || unix_s <= 0) {
		snprintf(buf, len, "never");
		return;
	}
	t = (time_t)unix_s;
	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%F %T", &tm))
		snprintf(buf, len, "%.0f", unix_s);
}
