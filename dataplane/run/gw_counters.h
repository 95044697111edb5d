/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gw_counters.h - the vocabulary of the counter schema (gw_counters.def):
 * what the tokens of a row mean, and the schema as data for the renderers.
 *
 * Every counter the gateway exports -- per port, per queue, per class,
 * per XDP verdict -- is one row of gw_counters.def. From the rows come:
 *   - the fields of struct gw_port_stats (and its xsk, dcqcn, pfc parts)
 *     and of struct gw_class_stats (gateway.h);
 *   - the aggregation that fills them from the tasks' counters
 *     (gw_stats.c, at compile time);
 *   - gw_port_counters[] / gw_class_counters[] (gw_counters.c), the rows
 *     as data, which the JSON views (control/api/ctl_json.c) and the
 *     Prometheus exposition (control/http/metrics.c) iterate;
 *   - the counter columns of xdplanectl's tables (control/cli/cli_counters.c,
 *     which expands the rows itself: the CLI links no dataplane code).
 * tests/unit/test_counters.c checks that every row reaches the JSON and
 * /metrics with its value, and that nothing else does.
 *
 * A row: NAME(field, dim, agg, src, group, key, prom, label, type, unit,
 *             cli, help)
 *   field  the member of the stats struct (uint64_t, or an array of them
 *          for a dim other than ONE)
 *   dim    ONE (a value), PRIO (8, one per 802.1p priority: a JSON array,
 *          label priority="0".."7"), MALFORMED (by parser reason, from 1:
 *          a JSON object, label reason), VERDICT (by XDP verdict: object,
 *          label verdict), SCHED_DROP (by scheduler drop reason, from 1:
 *          object, label reason), HIST (the sojourn log2 buckets: array,
 *          a Prometheus histogram)
 *   agg    where the value lives and how a port's is made:
 *          QSUM  per queue; the port's is the sum; /metrics per queue
 *          PSUM  per queue in the JSON, summed for the port; /metrics per
 *                port
 *          PMAX  as PSUM, but the port's is the largest over the queues
 *                (state every queue keeps a copy of)
 *          PORT  per port only, read once for the port by
 *                gateway_port_stats() (the XDP verdicts: one map read;
 *                a new PORT row needs its read there)
 *          CSUM  per (egress port, class), summed over the port's queues
 *   src    the expression that reads one queue's value (gw_stats.c
 *          defines SRC_*; `i` is the element of an array dim)
 *   group  the JSON object the key sits in ("": the port, queue or class
 *          object itself)
 *   key    the JSON key
 *   prom   the Prometheus family; rows of one family are adjacent and
 *          share type and help
 *   label  GW_LABEL(key, value): the row is one member of a labelled
 *          family; GW_NOLABEL otherwise (an array dim brings its label)
 *   type   COUNTER, GAUGE, HISTOGRAM
 *   unit   PACKETS (frames or packets), BYTES, NS (nanoseconds: seconds
 *          on /metrics and in the CLI), EVENTS (anything else counted)
 *   cli    GW_CLI(tables, column, element): a column of xdplanectl's
 *          tables (GW_CLI_* bits); rows naming the same column are added
 *          up; element picks one member of an object dim (NULL: all of
 *          them). GW_NOCLI: in no table.
 *   help   the HELP text on /metrics
 *
 * Dependencies: none (the CLI includes it); the array sizes below name
 * constants of pkt_parse.h, steer_abi.h and tc_sched.h, expanded only
 * where those are included. The data and functions are constant and
 * pure: any thread, no system calls.
 */
#ifndef XDPLANE_GW_COUNTERS_H
#define XDPLANE_GW_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/* Array sizes and first element of each dim. */
#define GW_DIM_N_ONE 1
#define GW_DIM_N_PRIO 8
#define GW_DIM_N_MALFORMED PKT_MALFORMED_MAX
#define GW_DIM_N_VERDICT STEER_V_MAX
#define GW_DIM_N_SCHED_DROP SCHED_DROP_REASONS
#define GW_DIM_N_HIST SCHED_HIST_BUCKETS
#define GW_DIM_FIRST_ONE 0
#define GW_DIM_FIRST_PRIO 0
#define GW_DIM_FIRST_MALFORMED 1 /* [0] is PKT_OK */
#define GW_DIM_FIRST_VERDICT 0
#define GW_DIM_FIRST_SCHED_DROP 1 /* [0] is SCHED_QUEUED */
#define GW_DIM_FIRST_HIST 0
/* The declarator suffix of a field. */
#define GW_DIM_DECL_ONE
#define GW_DIM_DECL_PRIO [GW_DIM_N_PRIO]
#define GW_DIM_DECL_MALFORMED [GW_DIM_N_MALFORMED]
#define GW_DIM_DECL_VERDICT [GW_DIM_N_VERDICT]
#define GW_DIM_DECL_SCHED_DROP [GW_DIM_N_SCHED_DROP]
#define GW_DIM_DECL_HIST [GW_DIM_N_HIST]

enum gw_dim {
	GW_DIM_ONE,
	GW_DIM_PRIO,
	GW_DIM_MALFORMED,
	GW_DIM_VERDICT,
	GW_DIM_SCHED_DROP,
	GW_DIM_HIST,
};

/* How a row's value looks in the JSON. */
enum gw_shape {
	GW_SHAPE_VALUE, /* an integer */
	GW_SHAPE_ARRAY, /* integers by index */
	GW_SHAPE_OBJECT, /* integers by element name */
};
#define GW_SHAPE_OF_ONE GW_SHAPE_VALUE
#define GW_SHAPE_OF_PRIO GW_SHAPE_ARRAY
#define GW_SHAPE_OF_MALFORMED GW_SHAPE_OBJECT
#define GW_SHAPE_OF_VERDICT GW_SHAPE_OBJECT
#define GW_SHAPE_OF_SCHED_DROP GW_SHAPE_OBJECT
#define GW_SHAPE_OF_HIST GW_SHAPE_ARRAY

enum gw_scope {
	GW_SCOPE_QUEUE, /* QSUM */
	GW_SCOPE_PORT, /* PSUM, PMAX: JSON per queue too */
	GW_SCOPE_PORT_ONLY, /* PORT */
	GW_SCOPE_CLASS, /* CSUM */
};
#define GW_SCOPE_OF_QSUM GW_SCOPE_QUEUE
#define GW_SCOPE_OF_PSUM GW_SCOPE_PORT
#define GW_SCOPE_OF_PMAX GW_SCOPE_PORT
#define GW_SCOPE_OF_PORT GW_SCOPE_PORT_ONLY
#define GW_SCOPE_OF_CSUM GW_SCOPE_CLASS

enum gw_type { GW_TYPE_COUNTER, GW_TYPE_GAUGE, GW_TYPE_HISTOGRAM };
enum gw_unit { GW_UNIT_PACKETS, GW_UNIT_BYTES, GW_UNIT_NS, GW_UNIT_EVENTS };

/* xdplanectl's tables (GW_CLI tables bits). */
#define GW_CLI_PORT 0x1u /* stats: one row per port */
#define GW_CLI_QUEUE 0x2u /* stats: one row per queue */
#define GW_CLI_PFC 0x4u /* stats: one row per port and priority */
#define GW_CLI_CLASS 0x8u /* stats: one row per egress port and class */
#define GW_CLI_CLASSES 0x10u /* classes: after the class settings */

struct gw_label {
	const char *key, *value; /* NULL: no label */
};

struct gw_cli {
	unsigned int tables; /* GW_CLI_* */
	const char *column; /* NULL: in no table */
	const char *element; /* of an object dim; NULL: the sum of all */
};

/* A row's label and cli are parenthesized lists (they cross macro levels
 * as one argument each); GW_LABEL_INIT label and GW_CLI_INIT cli make
 * them initializers of struct gw_label and struct gw_cli. */
#define GW_LABEL(k, v) (k, v)
#define GW_NOLABEL (NULL, NULL)
#define GW_CLI(tables, column, element) (tables, column, element)
#define GW_NOCLI (0, NULL, NULL)
#define GW_LABEL_INIT(k, v)                                                    \
	{                                                                      \
		(k), (v)                                                       \
	}
#define GW_CLI_INIT(tables, column, element)                                   \
	{                                                                      \
		(tables), (column), (element)                                  \
	}

/* One row as data (gw_counters.c). */
struct gw_counter {
	const char *field; /* the struct member, as written in the row */
	enum gw_dim dim;
	enum gw_shape shape;
	enum gw_scope scope;
	size_t offset; /* of the (first) uint64_t in its stats struct */
	const char *group; /* "": the port, queue or class object */
	const char *key;
	const char *prom;
	struct gw_label label;
	enum gw_type type;
	enum gw_unit unit;
	struct gw_cli cli;
	const char *help;
};

/* The elements of a dim: [first, n), their names and their label. */
struct gw_dim_info {
	uint32_t first, n;
	const char *label; /* NULL for ONE and HIST */
	/* name of element i (PRIO: "0".."7"; HIST: NULL) */
	const char *(*name)(uint32_t i);
};

/* Rows of struct gw_port_stats (ports and queues) and struct
 * gw_class_stats, in the order of gw_counters.def. */
extern const struct gw_counter gw_port_counters[];
extern const size_t gw_n_port_counters;
extern const struct gw_counter gw_class_counters[];
extern const size_t gw_n_class_counters;

const struct gw_dim_info *gw_dim_info(enum gw_dim dim);
/* Element i of row c in a stats struct (struct gw_port_stats or struct
 * gw_class_stats, as the row's table says). */
uint64_t gw_counter_get(const struct gw_counter *c, const void *stats,
			uint32_t i);
void gw_counter_set(const struct gw_counter *c, void *stats, uint32_t i,
		    uint64_t v);

#endif
