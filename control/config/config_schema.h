/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * config_schema.h - the schema of the configuration file (every key, its
 * type and what it accepts: config_schema.c) and its walk down the
 * located document. For config_load.c only.
 *
 * The walk visits every node in document order and reports each one that
 * is not what its key wants, at its own line and column: an unknown key
 * (with the nearest known one), a wrong type, a number that is not plain
 * decimal digits ("1.5", "010", "0x10", "-1"), a word that is none of an
 * enum's names, a string too long, an alias. Nothing under a reported
 * node is checked or reported again. After a walk without CFG_SCHEMA_BAD
 * every node found at a known key's path has that key's type, which is
 * what the sections rely on (cfg_walk.h).
 */
#ifndef XDPLANE_CONFIG_SCHEMA_H
#define XDPLANE_CONFIG_SCHEMA_H

#include "cfg_walk.h"

/* What cfg_check_schema() found. */
enum cfg_schema_result {
	CFG_SCHEMA_OK,
	CFG_SCHEMA_UNKNOWN, /* unknown keys only: no loader reads them */
	CFG_SCHEMA_BAD, /* a known key of the wrong type, or an alias */
};

/* Every node of c->loc against its key's schema; each misfit is a
 * message in c->err. */
enum cfg_schema_result cfg_check_schema(const struct load_ctx *c);

#endif
