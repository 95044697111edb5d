/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * port_wait.h - at start, wait for the ports' interfaces to exist.
 *
 * A gateway may start before the driver of its NIC has loaded (or before
 * udev has renamed the interface): a port whose interface does not exist
 * yet is not an error in the file. The daemon loads the file without the
 * system checks, so that a bad file still fails at once with EX_CONFIG,
 * then waits here for every port's interface, at most port_wait
 * (xdplane.yaml(5)); then it loads the file again with the checks.
 *
 * While it waits it logs which port it waits for (at the start, every
 * PORT_WAIT_LOG_S and when the interface appears or the bound passes) and
 * tells systemd, once a second, STATUS= naming the port, with
 * EXTEND_TIMEOUT_USEC= so that TimeoutStartSec= does not end the wait.
 * When the bound passes the daemon exits with PORT_WAIT_EXIT, which the
 * units' RestartPreventExitStatus= does not name: systemd starts it again
 * after RestartSec=, so a late NIC is waited for as long as it takes, one
 * bounded attempt after the other.
 *
 * Interfaces are polled by name (if_nametoindex) every PORT_WAIT_POLL_MS;
 * signals keep their default action (nothing is set up yet: SIGTERM ends
 * the process). Thread: the main thread, before the daemon starts.
 */
#ifndef XDPLANE_PORT_WAIT_H
#define XDPLANE_PORT_WAIT_H

#include "config.h"

#define PORT_WAIT_EXIT 75 /* EX_TEMPFAIL of sysexits.h: try again later */
#define PORT_WAIT_POLL_MS 100
#define PORT_WAIT_LOG_S 10
/* what each notification adds to systemd's start timeout */
#define PORT_WAIT_EXTEND_USEC (30 * 1000000ull)

/* The index of the first port whose interface does not exist, or -1. */
int port_wait_missing(const struct xdplane_config *cfg);

/* Wait until every port's interface exists, at most cfg->port_wait_ms.
 * 0 when they all exist, -ETIMEDOUT when the bound passed (logged).
 * Syscalls: ioctl(SIOCGIFINDEX) on a socket (if_nametoindex),
 * clock_gettime, nanosleep; sd_notify's; logs. */
int port_wait(const struct xdplane_config *cfg);

#endif
