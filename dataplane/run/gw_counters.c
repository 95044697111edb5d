// SPDX-License-Identifier: BSD-2-Clause
/*
 * gw_counters.c - the rows of gw_counters.def as data (gw_counters.h),
 * and the compile-time checks that the stats structs hold exactly the
 * rows: every field a uint64_t or an array of them of its dim's size,
 * and nothing else (a field added by hand to struct gw_port_stats or
 * struct gw_class_stats, outside the schema, stops the build here).
 * Pure data: no thread or system call concerns.
 */
#include <string.h>
#include "gateway.h"
#include "steer_prog.h"

/* One row as a struct gw_counter; `base` is the offset of the part of
 * the stats struct the row's field is in. */
#define GW_ROW(base, type, field, dim, agg, src, group, key, prom, label,      \
	       ptype, unit, cli, help)                                         \
	{                                                                      \
		#field,                                                        \
		GW_DIM_##dim,                                                  \
		GW_SHAPE_OF_##dim,                                             \
		GW_SCOPE_OF_##agg,                                             \
		(base) + offsetof(type, field),                                \
		group,                                                         \
		key,                                                           \
		prom,                                                          \
		GW_LABEL_INIT label,                                           \
		GW_TYPE_##ptype,                                               \
		GW_UNIT_##unit,                                                \
		GW_CLI_INIT cli,                                               \
		help,                                                          \
	},

#define GW_PART(member) offsetof(struct gw_port_stats, member)

const struct gw_counter gw_port_counters[] = {
#define GW_PORT_COUNTER(...) GW_ROW(0, struct gw_port_stats, __VA_ARGS__)
#define GW_XSK_COUNTER(...)                                                    \
	GW_ROW(GW_PART(xsk), struct gw_xsk_stats, __VA_ARGS__)
#define GW_DCQCN_COUNTER(...)                                                  \
	GW_ROW(GW_PART(dcqcn), struct gw_dcqcn_stats, __VA_ARGS__)
#define GW_PFC_COUNTER(...)                                                    \
	GW_ROW(GW_PART(pfc), struct gw_pfc_stats, __VA_ARGS__)
#include "gw_counters.def"
};
const size_t gw_n_port_counters =
	sizeof(gw_port_counters) / sizeof(*gw_port_counters);

const struct gw_counter gw_class_counters[] = {
#define GW_CLASS_COUNTER(...) GW_ROW(0, struct gw_class_stats, __VA_ARGS__)
#include "gw_counters.def"
};
const size_t gw_n_class_counters =
	sizeof(gw_class_counters) / sizeof(*gw_class_counters);

/* Each field is uint64_t [n of its dim]... */
#define GW_FIELD_CHECK(type, field, dim, ...)                                  \
	_Static_assert(sizeof(((type *)0)->field) ==                           \
			       sizeof(uint64_t) * GW_DIM_N_##dim,              \
		       #type "." #field ": uint64_t, one per element");
#define GW_PORT_COUNTER(...) GW_FIELD_CHECK(struct gw_port_stats, __VA_ARGS__)
#define GW_XSK_COUNTER(...) GW_FIELD_CHECK(struct gw_xsk_stats, __VA_ARGS__)
#define GW_DCQCN_COUNTER(...) GW_FIELD_CHECK(struct gw_dcqcn_stats, __VA_ARGS__)
#define GW_PFC_COUNTER(...) GW_FIELD_CHECK(struct gw_pfc_stats, __VA_ARGS__)
#define GW_CLASS_COUNTER(...) GW_FIELD_CHECK(struct gw_class_stats, __VA_ARGS__)
#include "gw_counters.def"

/* ...and the structs hold their rows and nothing else: each is as large
 * as a struct of its rows alone. */
#define GW_ROW_FIELD(field, dim, ...) uint64_t field GW_DIM_DECL_##dim;
struct rows_xsk {
#define GW_XSK_COUNTER GW_ROW_FIELD
#include "gw_counters.def"
};
struct rows_dcqcn {
#define GW_DCQCN_COUNTER GW_ROW_FIELD
#include "gw_counters.def"
};
struct rows_pfc {
#define GW_PFC_COUNTER GW_ROW_FIELD
#include "gw_counters.def"
};
struct rows_port {
#define GW_PORT_COUNTER GW_ROW_FIELD
#include "gw_counters.def"
	struct rows_xsk xsk;
	struct rows_dcqcn dcqcn;
	struct rows_pfc pfc;
};
struct rows_class {
#define GW_CLASS_COUNTER GW_ROW_FIELD
#include "gw_counters.def"
};
_Static_assert(sizeof(struct gw_xsk_stats) == sizeof(struct rows_xsk),
	       "struct gw_xsk_stats: its GW_XSK_COUNTER rows only");
_Static_assert(sizeof(struct gw_dcqcn_stats) == sizeof(struct rows_dcqcn),
	       "struct gw_dcqcn_stats: its GW_DCQCN_COUNTER rows only");
_Static_assert(sizeof(struct gw_pfc_stats) == sizeof(struct rows_pfc),
	       "struct gw_pfc_stats: its GW_PFC_COUNTER rows only");
_Static_assert(sizeof(struct gw_port_stats) == sizeof(struct rows_port),
	       "struct gw_port_stats: its GW_PORT_COUNTER rows and parts only");
_Static_assert(sizeof(struct gw_class_stats) == sizeof(struct rows_class),
	       "struct gw_class_stats: its GW_CLASS_COUNTER rows only");

static const char *prio_name(uint32_t i)
{
	static const char *const names[GW_DIM_N_PRIO] = {"0", "1", "2", "3",
							 "4", "5", "6", "7"};

	return i < GW_DIM_N_PRIO ? names[i] : "?";
}

static const char *malformed_name(uint32_t i)
{
	return pkt_malformed_name((int)i);
}

static const char *verdict_name(uint32_t i)
{
	return steer_verdict_name((enum steer_verdict)i);
}

static const char *sched_drop_reason(uint32_t i)
{
	return sched_drop_name((int)i);
}

const struct gw_dim_info *gw_dim_info(enum gw_dim dim)
{
	static const struct gw_dim_info dims[] = {
		[GW_DIM_ONE] = {GW_DIM_FIRST_ONE, GW_DIM_N_ONE, NULL, NULL},
		[GW_DIM_PRIO] = {GW_DIM_FIRST_PRIO, GW_DIM_N_PRIO, "priority",
				 prio_name},
		[GW_DIM_MALFORMED] = {GW_DIM_FIRST_MALFORMED,
				      GW_DIM_N_MALFORMED, "reason",
				      malformed_name},
		[GW_DIM_VERDICT] = {GW_DIM_FIRST_VERDICT, GW_DIM_N_VERDICT,
				    "verdict", verdict_name},
		[GW_DIM_SCHED_DROP] = {GW_DIM_FIRST_SCHED_DROP,
				       GW_DIM_N_SCHED_DROP, "reason",
				       sched_drop_reason},
		[GW_DIM_HIST] = {GW_DIM_FIRST_HIST, GW_DIM_N_HIST, NULL, NULL},
	};

	return &dims[dim];
}

uint64_t gw_counter_get(const struct gw_counter *c, const void *stats,
			uint32_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)stats + c->offset + i * sizeof(v), sizeof(v));
	return v;
}

void gw_counter_set(const struct gw_counter *c, void *stats, uint32_t i,
		    uint64_t v)
{
	memcpy((char *)stats + c->offset + i * sizeof(v), &v, sizeof(v));
}
