/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_adaptive.h - xdplanectl's view of adaptive egress (ports[].adaptive)
 * from the "adaptive" object of each port in a status or stats answer:
 * per (port, queue) the controller's state, the rate it runs the shaper
 * at, the path beyond it measures, and (status) its last decisions.
 * Nothing is printed for ports whose mode is off. Single-threaded, stdout
 * only (cli_table.h).
 */
#ifndef XDPLANE_CLI_ADAPTIVE_H
#define XDPLANE_CLI_ADAPTIVE_H

#include <stdbool.h>
#include <jansson.h>

/* The table of the ports (array of objects with "name" and "adaptive");
 * with decisions, each queue's last decisions after it. Returns whether
 * anything was printed. */
bool cli_adaptive_print(json_t *ports, bool decisions);

#endif
