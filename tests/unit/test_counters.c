// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_counters.c - counters defined once: every row of the counter
 * schema (dataplane/run/gw_counters.def) reaches every output with its
 * value, and nothing reaches an output without a row.
 *
 * A hand-made snapshot (2 ports, 2 queues, 2 classes each) gets a
 * different value in every element of every row, port and queue alike.
 * Then:
 *  - the schema is well formed: the rows of a Prometheus family are
 *    adjacent and agree on type, HELP and scope, JSON keys are unique,
 *    names follow the units (a _total counter, _bytes, _seconds);
 *  - the stats and classes JSON (ctl_json.h: the control API, the CLI's
 *    --json, the final report) hold each row at its group and key, in the
 *    port and queue objects as its scope says, with the value set;
 *  - /metrics (metrics.h) has each row's family with the row's HELP and
 *    TYPE and one sample per element with the value set (seconds for
 *    nanoseconds), per queue or per port as its scope says;
 *  - the CLI's counter columns (cli_counters.h) add up the rows that
 *    name them;
 *  - both ways: every integer in a port, queue or class object that is
 *    not one of the few settings listed here is a row, and every family
 *    on /metrics that is not one of the listed non-counters is a row's,
 *    with exactly the samples the rows make.
 * A counter added to one output by hand, or a row one renderer skips,
 * fails here.
 *
 * `test_counters --schema` prints the rows as JSON instead (for
 * tests/integration/t-metrics.sh, which compares the running daemon's
 * JSON and /metrics row by row).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>
#include "cli_counters.h"
#include "ctl_json.h"
#include "gw_counters.h"
#include "metrics.h"
#include "snapshot.h"

#define N_QUEUES 2
#define N_CLASSES 2

/* Outside the schema on purpose: settings and identities, not counters. */
static const char *const port_settings[] = {"name", "rate_bps", "mtu", "queues",
					    "classes"};
static const char *const queue_settings[] = {"queue", "worker", "cpu"};
/* ...and members of a port's counter group that are not counters: the
 * adaptive controllers' view (ctl_json.c adaptive_json()) joins the
 * adaptive counters' group. */
static const char *const port_group_settings[] = {"adaptive.mode",
						  "adaptive.queues"};
static const char *const class_settings[] = {
	"name",	    "level",	   "quantum",	    "ceil_bps",
	"min_bps",  "limit_bytes", "limit_packets", "ecn",
	"lossless", "pcp",	   "set_dscp",	    "set_pcp"};
static const char *const non_counter_families[] = {
	"xdplane_build_info",
	"xdplane_start_time_seconds",
	"xdplane_uptime_seconds",
	"xdplane_workers",
	"xdplane_umem_frames",
	"xdplane_max_frame_bytes",
	"xdplane_multibuf",
	"xdplane_max_frags",
	"xdplane_config_generation",
	"xdplane_config_last_reload_successful",
	"xdplane_config_last_reload_success_timestamp_seconds",
	"xdplane_config_reloads_total",
	"xdplane_config_reload_failures_total",
	"xdplane_port_info",
	"xdplane_port_rate_bytes_per_second",
	"xdplane_queue_info",
	"xdplane_class_info",
	"xdplane_class_quantum_bytes",
	"xdplane_class_limit_bytes",
	"xdplane_class_limit_packets",
	"xdplane_class_ceil_bytes_per_second",
	"xdplane_class_min_bytes_per_second",
	/* health (control/state/health.h), the workers' loops, the process */
	"xdplane_up",
	"xdplane_port_up",
	"xdplane_degraded",
	"xdplane_worker_busy_seconds_total",
	"xdplane_worker_idle_seconds_total",
	"xdplane_worker_loops_total",
	"xdplane_worker_sleep_seconds_total",
	"xdplane_worker_sleeps_total",
	"xdplane_worker_naps_total",
	"xdplane_worker_late_wakes_total",
	"xdplane_worker_spin_waits_total",
	"process_cpu_seconds_total",
	"process_resident_memory_bytes",
	/* adaptive egress: the controllers' view (metrics.c
	 * render_adaptive()), not counters */
	"xdplane_adaptive_enabled",
	"xdplane_adaptive_state",
	"xdplane_adaptive_rate_bytes_per_second",
	"xdplane_adaptive_base_rtt_seconds",
	"xdplane_adaptive_srtt_seconds",
	"xdplane_adaptive_queue_delay_seconds",
	"xdplane_adaptive_delivery_bytes_per_second",
	"xdplane_adaptive_marked_ratio",
	"xdplane_adaptive_flows",
};

#define N_OF(a) (sizeof(a) / sizeof(*(a)))

static bool listed(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* Value of element i of row k: q -1 for the port's own stats, else the
 * queue (or the class). Distinct for every (port, q, table, row, i). */
static uint64_t value(int port, int q, int table, size_t k, uint32_t i)
{
	return ((((uint64_t)port * 8 + (uint64_t)(q + 1)) * 2 +
		 (uint64_t)table) *
			256 +
		k) * 64 +
	       i + 1;
}

static void set_rows(const struct gw_counter *tab, size_t n, int table,
		     void *stats, int port, int q)
{
	for (size_t k = 0; k < n; k++) {
		const struct gw_dim_info *d = gw_dim_info(tab[k].dim);

		for (uint32_t i = d->first; i < d->n; i++)
			gw_counter_set(&tab[k], stats, i,
				       value(port, q, table, k, i));
	}
}

static struct stats_snapshot *make_snapshot(void)
{
	struct stats_snapshot *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->version = "0.1.0";
	s->xdp_mode = "native";
	s->bind_mode = "copy";
	s->failure_mode = "fail-open";
	for (int p = 0; p < GW_PORTS; p++) {
		struct snap_port *sp = &s->ports[p];

		snprintf(sp->ifname, sizeof(sp->ifname), "eth%d", p + 1);
		sp->n_queues = N_QUEUES;
		sp->n_classes = N_CLASSES;
		set_rows(gw_port_counters, gw_n_port_counters, 0, &sp->s, p,
			 -1);
		for (int q = 0; q < N_QUEUES; q++) {
			sp->q[q].queue = (uint32_t)q;
			sp->q[q].worker = q;
			sp->q[q].cpu = -1;
			set_rows(gw_port_counters, gw_n_port_counters, 0,
				 &sp->q[q].s, p, q);
		}
		for (int c = 0; c < N_CLASSES; c++) {
			snprintf(sp->cls[c].name, sizeof(sp->cls[c].name),
				 "class%d", c);
			sp->cls[c].id = (uint32_t)c;
			set_rows(gw_class_counters, gw_n_class_counters, 1,
				 &sp->cls[c].s, p, c);
		}
	}
	return s;
}

/* ---- the schema itself ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void check_table(const struct gw_counter *tab, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct gw_counter *c = &tab[k];

		if (!c->key[0] || !c->prom || !c->help[0])
			fail_msg("row %s: no key, family or help", c->field);
		if (c->label.key && c->dim != GW_DIM_ONE)
			fail_msg("row %s: a label and an array", c->field);
		if (c->type == GW_TYPE_COUNTER && !ends_with(c->prom, "_total"))
			fail_msg("row %s: counter %s without _total", c->field,
				 c->prom);
		if (c->type != GW_TYPE_COUNTER && ends_with(c->prom, "_total"))
			fail_msg("row %s: %s is not a counter", c->field,
				 c->prom);
		if (c->unit == GW_UNIT_NS && !strstr(c->prom, "_seconds"))
			fail_msg("row %s: time in %s, not _seconds", c->field,
				 c->prom);
		if (c->unit == GW_UNIT_BYTES && !strstr(c->prom, "_bytes"))
			fail_msg("row %s: bytes in %s", c->field, c->prom);
		if (c->cli.column && !c->cli.tables)
			fail_msg("row %s: a column in no table", c->field);
		for (size_t j = 0; j < k; j++) {
			const struct gw_counter *o = &tab[j];

			if (!strcmp(o->group, c->group) &&
			    !strcmp(o->key, c->key))
				fail_msg("rows %s and %s: both %s.%s", o->field,
					 c->field, c->group, c->key);
			if (strcmp(o->prom, c->prom))
				continue;
			if (j != k - 1 && strcmp(tab[k - 1].prom, c->prom))
				fail_msg("family %s: rows not adjacent",
					 c->prom);
			if (o->type != c->type || o->scope != c->scope ||
			    strcmp(o->help, c->help) || o->dim != c->dim ||
			    !o->label.key || !c->label.key ||
			    !strcmp(o->label.value, c->label.value))
				fail_msg("family %s: rows %s and %s disagree "
					 "(type, scope, help, labels)",
					 c->prom, o->field, c->field);
		}
	}
}

static void test_schema(void **state)
{
	assert_true(gw_n_port_counters > 0 && gw_n_class_counters > 0);
	check_table(gw_port_counters, gw_n_port_counters);
	check_table(gw_class_counters, gw_n_class_counters);
	for (size_t k = 0; k < gw_n_class_counters; k++)
		assert_int_equal(gw_class_counters[k].scope, GW_SCOPE_CLASS);
	for (size_t k = 0; k < gw_n_port_counters; k++)
		assert_int_not_equal(gw_port_counters[k].scope, GW_SCOPE_CLASS);
}

/* ---- JSON ---- */

static json_t *member(json_t *o, const struct gw_counter *c)
{
	return json_object_get(c->group[0] ? json_object_get(o, c->group) : o,
			       c->key);
}

static void expect_json(json_t *o, const struct gw_counter *c,
			const void *stats, const char *where)
{
	const struct gw_dim_info *d = gw_dim_info(c->dim);
	json_t *v = member(o, c), *e;

	if (!v)
		fail_msg("%s: no %s%s%s (row %s)", where, c->group,
			 c->group[0] ? "." : "", c->key, c->field);
	for (uint32_t i = d->first; i < d->n; i++) {
		e = c->shape == GW_SHAPE_VALUE ? v
		    : c->shape == GW_SHAPE_ARRAY
			    ? json_array_get(v, i)
			    : json_object_get(v, d->name(i));
		if (!json_is_integer(e) || (uint64_t)json_integer_value(e) !=
						   gw_counter_get(c, stats, i))
			fail_msg("%s: %s.%s[%u] is not %llu", where, c->group,
				 c->key, i,
				 (unsigned long long)gw_counter_get(c, stats,
								    i));
	}
	if (c->shape == GW_SHAPE_ARRAY && json_array_size(v) != d->n)
		fail_msg("%s: %s has %zu elements, not %u", where, c->key,
			 json_array_size(v), d->n);
	if (c->shape == GW_SHAPE_OBJECT &&
	    json_object_size(v) != d->n - d->first)
		fail_msg("%s: %s has %zu members, not %u", where, c->key,
			 json_object_size(v), d->n - d->first);
}

/* Every member of o is a setting or a row of tab (a row's key, or a
 * group whose every member is a row of it). */
static void only_rows(json_t *o, const struct gw_counter *tab, size_t n,
		      const char *const *settings, size_t n_settings,
		      bool queue, const char *where)
{
	const char *key, *sub;
	json_t *v, *w;

	json_object_foreach(o, key, v)
	{
		bool found = listed(settings, n_settings, key);

		for (size_t k = 0; k < n && !found; k++) {
			if (queue && tab[k].scope == GW_SCOPE_PORT_ONLY)
				continue;
			if (!tab[k].group[0] && !strcmp(tab[k].key, key))
				found = true;
			if (strcmp(tab[k].group, key))
				continue;
			found = true;
			json_object_foreach(v, sub, w)
			{
				char full[128];
				bool row;

				snprintf(full, sizeof(full), "%s.%s", key, sub);
				row = !queue &&
				      listed(port_group_settings,
					     N_OF(port_group_settings), full);
				for (size_t j = 0; j < n && !row; j++)
					row = !strcmp(tab[j].group, key) &&
					      !strcmp(tab[j].key, sub);
				if (!row)
					fail_msg("%s: %s.%s is no row of the "
						 "schema",
						 where, key, sub);
			}
		}
		if (!found)
			fail_msg("%s: %s is neither a setting nor a row of the "
				 "schema",
				 where, key);
	}
}

static void check_port_json(json_t *jp, const struct snap_port *sp)
{
	char where[64];

	assert_true(json_is_object(jp));
	assert_string_equal(json_string_value(json_object_get(jp, "name")),
			    sp->ifname);
	snprintf(where, sizeof(where), "port %s", sp->ifname);
	for (size_t k = 0; k < gw_n_port_counters; k++)
		expect_json(jp, &gw_port_counters[k], &sp->s, where);
	only_rows(jp, gw_port_counters, gw_n_port_counters, port_settings,
		  N_OF(port_settings), false, where);
	/* the adaptive view beside the adaptive counters: off, per queue */
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(jp, "adaptive"), "mode")),
			    "off");
	assert_int_equal(json_array_size(json_object_get(
				 json_object_get(jp, "adaptive"), "queues")),
			 N_QUEUES);
	assert_int_equal(json_array_size(json_object_get(jp, "queues")),
			 N_QUEUES);
	for (int q = 0; q < N_QUEUES; q++) {
		json_t *jq = json_array_get(json_object_get(jp, "queues"), q);

		snprintf(where, sizeof(where), "port %s queue %d", sp->ifname,
			 q);
		for (size_t k = 0; k < gw_n_port_counters; k++) {
			const struct gw_counter *c = &gw_port_counters[k];

			if (c->scope != GW_SCOPE_PORT_ONLY)
				expect_json(jq, c, &sp->q[q].s, where);
			else if (member(jq, c))
				fail_msg("%s: %s is per port only", where,
					 c->key);
		}
		only_rows(jq, gw_port_counters, gw_n_port_counters,
			  queue_settings, N_OF(queue_settings), true, where);
	}
}

static void check_classes_json(json_t *jp, const struct snap_port *sp)
{
	json_t *classes = json_object_get(jp, "classes");
	char where[64];

	assert_int_equal(json_array_size(classes), N_CLASSES);
	for (int c = 0; c < N_CLASSES; c++) {
		json_t *jc = json_array_get(classes, c);

		snprintf(where, sizeof(where), "port %s class %s", sp->ifname,
			 sp->cls[c].name);
		for (size_t k = 0; k < gw_n_class_counters; k++)
			expect_json(jc, &gw_class_counters[k], &sp->cls[c].s,
				    where);
		only_rows(jc, gw_class_counters, gw_n_class_counters,
			  class_settings, N_OF(class_settings), false, where);
	}
}

static void test_json(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	json_t *stats = ctl_json_stats(s, NULL), *classes = ctl_json_classes(s);

	assert_non_null(stats);
	assert_non_null(classes);
	for (int p = 0; p < GW_PORTS; p++) {
		json_t *jp = json_array_get(json_object_get(stats, "ports"), p);

		check_port_json(jp, &s->ports[p]);
		check_classes_json(jp, &s->ports[p]);
		/* the classes view: the same class objects */
		check_classes_json(
			json_array_get(json_object_get(classes, "ports"), p),
			&s->ports[p]);
		/* the final report's port object */
		jp = ctl_json_port(&s->ports[p]);
		check_port_json(jp, &s->ports[p]);
		json_decref(jp);
	}
	json_decref(stats);
	json_decref(classes);
	free(s);
}

/* ---- /metrics ---- */

struct exposition {
	char *text;
	json_t *samples; /* "name{labels}" -> value text */
	json_t *help, *type; /* family -> text */
	json_t *per_family; /* family -> samples seen */
};

/* The family of a sample name (histogram suffixes off, when the family
 * is a histogram). */
static void family_of(const struct exposition *e, const char *name, char *out,
		      size_t size)
{
	static const char *const suffixes[] = {"_bucket", "_sum", "_count"};

	snprintf(out, size, "%s", name);
	for (size_t i = 0; i < N_OF(suffixes); i++) {
		size_t n = strlen(out), m = strlen(suffixes[i]);

		if (!ends_with(out, suffixes[i]))
			continue;
		out[n - m] = '\0';
		if (json_object_get(e->type, out) &&
		    !strcmp(json_string_value(json_object_get(e->type, out)),
			    "histogram"))
			return;
		out[n - m] = suffixes[i][0];
	}
}

static void parse(struct exposition *e, const struct stats_snapshot *s)
{
	size_t len = 0;
	FILE *f = open_memstream(&e->text, &len);
	char *save = NULL, *line, *copy;

	assert_non_null(f);
	assert_int_equal(metrics_render(s, f), 0);
	assert_int_equal(fclose(f), 0);
	e->samples = json_object();
	e->help = json_object();
	e->type = json_object();
	e->per_family = json_object();
	copy = strdup(e->text);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[256], fam[256], *sp;

		if (!strncmp(line, "# HELP ", 7)) {
			sp = strchr(line + 7, ' ');
			assert_non_null(sp);
			*sp = '\0';
			json_object_set_new(e->help, line + 7,
					    json_string(sp + 1));
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			sp = strchr(line + 7, ' ');
			assert_non_null(sp);
			*sp = '\0';
			json_object_set_new(e->type, line + 7,
					    json_string(sp + 1));
			continue;
		}
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		json_object_set_new(e->samples, line, json_string(sp + 1));
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, "{"),
			 line);
		family_of(e, name, fam, sizeof(fam));
		json_object_set_new(
			e->per_family, fam,
			json_integer(json_integer_value(json_object_get(
					     e->per_family, fam)) +
				     1));
	}
	free(copy);
}

static void release(struct exposition *e)
{
	free(e->text);
	json_decref(e->samples);
	json_decref(e->help);
	json_decref(e->type);
	json_decref(e->per_family);
}

static const char *type_text(enum gw_type t)
{
	return t == GW_TYPE_GAUGE	? "gauge"
	       : t == GW_TYPE_HISTOGRAM ? "histogram"
					: "counter";
}

/* The sample of row c, element i, after the labels in `labels`. */
static void expect_sample(const struct exposition *e,
			  const struct gw_counter *c, const char *labels,
			  uint32_t i, uint64_t v)
{
	const struct gw_dim_info *d = gw_dim_info(c->dim);
	char key[512], extra[128] = "";
	const char *got;

	if (c->label.key)
		snprintf(extra, sizeof(extra), ",%s=\"%s\"", c->label.key,
			 c->label.value);
	else if (d->label)
		snprintf(extra, sizeof(extra), ",%s=\"%s\"", d->label,
			 d->name(i));
	snprintf(key, sizeof(key), "%s{%s%s}", c->prom, labels, extra);
	got = json_string_value(json_object_get(e->samples, key));
	if (!got)
		fail_msg("/metrics: no sample %s (row %s)", key, c->field);
	if (c->unit == GW_UNIT_NS) {
		double want = (double)v * 1e-9, x = strtod(got, NULL);

		if (fabs(x - want) > want * 1e-12)
			fail_msg("/metrics: %s is %s, not %g", key, got, want);
	} else if (strtoull(got, NULL, 10) != v) {
		fail_msg("/metrics: %s is %s, not %llu", key, got,
			 (unsigned long long)v);
	}
}

static size_t elements(const struct gw_counter *c)
{
	const struct gw_dim_info *d = gw_dim_info(c->dim);

	return d->n - d->first;
}

static void test_metrics(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	struct exposition e = {0};
	const char *fam;
	json_t *v;
	char labels[128];

	parse(&e, s);
	for (size_t k = 0; k < gw_n_port_counters; k++) {
		const struct gw_counter *c = &gw_port_counters[k];
		const struct gw_dim_info *d = gw_dim_info(c->dim);
		size_t want = 0;

		if (!json_object_get(e.help, c->prom))
			fail_msg("/metrics: no family %s (row %s)", c->prom,
				 c->field);
		if (strcmp(json_string_value(json_object_get(e.help, c->prom)),
			   c->help))
			fail_msg("/metrics: %s: HELP is not the row's",
				 c->prom);
		assert_string_equal(
			json_string_value(json_object_get(e.type, c->prom)),
			type_text(c->type));
		for (int p = 0; p < GW_PORTS; p++) {
			const struct snap_port *sp = &s->ports[p];

			for (int q = 0; q < N_QUEUES; q++) {
				if (c->scope != GW_SCOPE_QUEUE)
					break;
				snprintf(labels, sizeof(labels),
					 "port=\"%s\",queue=\"%d\"", sp->ifname,
					 q);
				for (uint32_t i = d->first; i < d->n; i++)
					expect_sample(
						&e, c, labels, i,
						gw_counter_get(c, &sp->q[q].s,
							       i));
			}
			if (c->scope == GW_SCOPE_QUEUE)
				continue;
			snprintf(labels, sizeof(labels), "port=\"%s\"",
				 sp->ifname);
			for (uint32_t i = d->first; i < d->n; i++)
				expect_sample(&e, c, labels, i,
					      gw_counter_get(c, &sp->s, i));
		}
		/* the family has the samples of its rows and no more */
		for (size_t j = 0; j < gw_n_port_counters; j++)
			if (!strcmp(gw_port_counters[j].prom, c->prom))
				want += GW_PORTS *
					elements(&gw_port_counters[j]) *
					(c->scope == GW_SCOPE_QUEUE ? N_QUEUES
								    : 1);
		assert_int_equal(json_integer_value(json_object_get(
					 e.per_family, c->prom)),
				 want);
	}
	for (size_t k = 0; k < gw_n_class_counters; k++) {
		const struct gw_counter *c = &gw_class_counters[k];
		const struct gw_dim_info *d = gw_dim_info(c->dim);

		assert_string_equal(
			json_string_value(json_object_get(e.help, c->prom)),
			c->help);
		assert_string_equal(
			json_string_value(json_object_get(e.type, c->prom)),
			type_text(c->type));
		for (int p = 0; p < GW_PORTS; p++) {
			for (int n = 0; n < N_CLASSES; n++) {
				const struct snap_class *sc =
					&s->ports[p].cls[n];
				uint64_t sum = 0;
				char key[256];

				snprintf(labels, sizeof(labels),
					 "port=\"%s\",class=\"%s\"",
					 s->ports[p].ifname, sc->name);
				if (c->type != GW_TYPE_HISTOGRAM) {
					for (uint32_t i = d->first; i < d->n;
					     i++)
						expect_sample(
							&e, c, labels, i,
							gw_counter_get(
								c, &sc->s, i));
					continue;
				}
				/* a histogram: _count is every bucket */
				for (uint32_t i = d->first; i < d->n; i++)
					sum += gw_counter_get(c, &sc->s, i);
				snprintf(key, sizeof(key), "%s_count{%s}",
					 c->prom, labels);
				v = json_object_get(e.samples, key);
				assert_non_null(v);
				assert_true(strtoull(json_string_value(v), NULL,
						     10) == sum);
			}
		}
	}
	/* every other family is on the list of non-counters */
	json_object_foreach(e.type, fam, v)
	{
		bool row = listed(non_counter_families,
				  N_OF(non_counter_families), fam);

		for (size_t k = 0; k < gw_n_port_counters && !row; k++)
			row = !strcmp(gw_port_counters[k].prom, fam);
		for (size_t k = 0; k < gw_n_class_counters && !row; k++)
			row = !strcmp(gw_class_counters[k].prom, fam);
		if (!row)
			fail_msg("/metrics: family %s is no row of the schema "
				 "(and not a listed non-counter)",
				 fam);
	}
	release(&e);
	free(s);
}

/* ---- the CLI's columns ---- */

static uint64_t rows_sum(const struct gw_counter *tab, size_t n,
			 unsigned int table, const char *column,
			 const void *stats)
{
	uint64_t sum = 0;

	for (size_t k = 0; k < n; k++) {
		const struct gw_counter *c = &tab[k];
		const struct gw_dim_info *d = gw_dim_info(c->dim);

		if (!(c->cli.tables & table) || !c->cli.column ||
		    strcmp(c->cli.column, column))
			continue;
		for (uint32_t i = d->first; i < d->n; i++)
			if (!c->cli.element ||
			    !strcmp(d->name(i), c->cli.element))
				sum += gw_counter_get(c, stats, i);
	}
	return sum;
}

static void check_columns(const struct gw_counter *tab, size_t n,
			  unsigned int table, json_t *o, const void *stats)
{
	for (size_t k = 0; k < n; k++) {
		const struct gw_cli *cli = &tab[k].cli;

		if (!(cli->tables & table) || !cli->column)
			continue;
		if ((uint64_t)cli_counter_value(table, cli->column, o) !=
		    rows_sum(tab, n, table, cli->column, stats))
			fail_msg("CLI column %s is not the sum of its rows",
				 cli->column);
	}
}

static void test_cli_columns(void **state)
{
	struct stats_snapshot *s = make_snapshot();
	json_t *stats = ctl_json_stats(s, NULL);
	int n = 0;

	for (int p = 0; p < GW_PORTS; p++) {
		json_t *jp = json_array_get(json_object_get(stats, "ports"), p);

		check_columns(gw_port_counters, gw_n_port_counters, GW_CLI_PORT,
			      jp, &s->ports[p].s);
		check_columns(gw_port_counters, gw_n_port_counters,
			      GW_CLI_QUEUE,
			      json_array_get(json_object_get(jp, "queues"), 1),
			      &s->ports[p].q[1].s);
		check_columns(gw_class_counters, gw_n_class_counters,
			      GW_CLI_CLASS,
			      json_array_get(json_object_get(jp, "classes"), 0),
			      &s->ports[p].cls[0].s);
		check_columns(gw_class_counters, gw_n_class_counters,
			      GW_CLI_CLASSES,
			      json_array_get(json_object_get(jp, "classes"), 1),
			      &s->ports[p].cls[1].s);
	}
	/* every table has columns (their names are checked against
	 * xdplanectl(8) by t-man-samples) */
	for (unsigned int table = GW_CLI_PORT; table <= GW_CLI_CLASSES;
	     table <<= 1)
		n += cli_counter_columns(table) > 0;
	assert_int_equal(n, 5);
	json_decref(stats);
	free(s);
}

/* ---- --schema ---- */

static const char *scope_text(enum gw_scope s)
{
	static const char *const names[] = {
		[GW_SCOPE_QUEUE] = "queue",
		[GW_SCOPE_PORT] = "port",
		[GW_SCOPE_PORT_ONLY] = "port_only",
		[GW_SCOPE_CLASS] = "class",
	};

	return names[s];
}

static json_t *rows_json(const struct gw_counter *tab, size_t n)
{
	json_t *a = json_array();

	for (size_t k = 0; k < n; k++) {
		const struct gw_counter *c = &tab[k];
		const struct gw_dim_info *d = gw_dim_info(c->dim);
		json_t *elems = json_null();

		if (c->shape != GW_SHAPE_VALUE) {
			elems = json_array();
			for (uint32_t i = d->first; i < d->n; i++)
				json_array_append_new(
					elems, d->name ? json_string(d->name(i))
						       : json_integer(i));
		}
		json_array_append_new(
			a,
			json_pack(
				"{s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:s?,s:o,s:b}",
				"field", c->field, "scope",
				scope_text(c->scope), "group", c->group, "key",
				c->key, "prom", c->prom, "label",
				c->label.key ? json_pack("[s,s]", c->label.key,
							 c->label.value)
					     : json_null(),
				"shape",
				json_string(c->shape == GW_SHAPE_VALUE ? "value"
					    : c->shape == GW_SHAPE_ARRAY
						    ? "array"
						    : "object"),
				"dim_label", d->label, "elements", elems,
				"seconds", c->unit == GW_UNIT_NS));
		/* histograms: compared by _count */
		if (c->type == GW_TYPE_HISTOGRAM)
			json_object_set_new(json_array_get(a, k), "histogram",
					    json_true());
	}
	return a;
}

static int print_schema(void)
{
	json_t *o = json_pack(
		"{s:o,s:o}", "port",
		rows_json(gw_port_counters, gw_n_port_counters), "class",
		rows_json(gw_class_counters, gw_n_class_counters));
	char *text = json_dumps(o, JSON_INDENT(1));

	puts(text ? text : "null");
	free(text);
	json_decref(o);
	return text ? 0 : 1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_cli_columns),
	};

	if (argc > 1 && !strcmp(argv[1], "--schema"))
		return print_schema();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
