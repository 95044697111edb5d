/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_watch.h - `xdplanectl watch`: live rates, refreshed every interval.
 *
 * Per port: packets and bits per second received and sent, drops per
 * second (the DROPS and XSK_DROPS columns of `stats`); per class: sent
 * packets and bits, drops and ECN marks per second, the queue depth.
 * Rates are over the daemon's clock (now_mono_ns), ports and classes
 * matched by name between two answers. With --json, one line per refresh
 * (keys in xdplanectl(8)).
 *
 * Single-threaded. Installs SIGINT and SIGTERM handlers that set
 * cli_interrupted (ctl_client.h): the loop ends cleanly at the next
 * wake-up. System calls: those of ctl_client_call(), nanosleep(2),
 * sigaction(2), isatty() (ioctl(2)), write(2) to stdout.
 */
#ifndef XDPLANE_CLI_WATCH_H
#define XDPLANE_CLI_WATCH_H

#include <stdbool.h>
#include "ctl_client.h"

/* count refreshes (0: until SIGINT), interval_s apart; the exit status
 * (EXIT_OK when interrupted). */
int cli_watch(struct ctl_client *c, double interval_s, unsigned long count,
	      bool as_json);

#endif
