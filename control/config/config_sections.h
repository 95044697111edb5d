/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * config_sections.h - the sections of the configuration loader, each a
 * part of the file read from the checked document (cfg_walk.h says
 * which file holds which), and the defaults and parsers config_dump.c
 * shares with them. Not for use outside control/config/. The sections
 * include cfg_walk.h below them and no other section's file calls them;
 * config_load.c runs them, config_dump.c prints what they read.
 */
#ifndef XDPLANE_CONFIG_SECTIONS_H
#define XDPLANE_CONFIG_SECTIONS_H

#include <stdbool.h>
#include "cfg_walk.h"

/* The sections, in the order config_load.c runs them. */
/* ports, port_wait (config_ports.c); with check_system the interfaces
 * must exist */
int cfg_load_ports(const struct load_ctx *c, struct xdplane_config *cfg,
		   bool check_system);
/* queues, rings, umem, poll, workers.cpus (config_ports.c): each key on
 * its own, a refused one keeps its default */
int cfg_load_resources(const struct load_ctx *c, struct xdplane_config *cfg);
int cfg_load_qos(const struct load_ctx *c, struct xdplane_config *cfg);
int cfg_load_dcqcn(const struct load_ctx *c, struct xdplane_config *cfg);
int cfg_load_pfc(const struct load_ctx *c, struct xdplane_config *cfg);
/* jobs (config_jobs.c); the defaults are job_table_params_default()'s. */
int cfg_load_jobs(const struct load_ctx *c, struct xdplane_config *cfg);
int cfg_load_daemon(const struct load_ctx *c, struct xdplane_config *cfg,
		    bool check_system);

/* ports[].adaptive (config_adaptive.c): its modes; the defaults are
 * edge_rate_params_default()'s. */
extern const struct cfg_name cfg_adaptive_modes[];
int cfg_load_adaptive(const struct load_ctx *c, struct xdplane_config *cfg);

/* Defaults that the dump compares with (config_pfc.c). */
#define PFC_DEF_CABLE_M 100
#define PFC_DEF_WATCHDOG_MS 200
#define PFC_DEF_RESTORE_MS 200

/* The DCQCN gain and decrease parsers, for the dump to print what they
 * read back (config_dcqcn.c). */
int cfg_parse_gain(const char *s, double *out);
int cfg_parse_decrease(const char *s, double *out);

#endif
