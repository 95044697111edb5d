/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * daemon.h - the running daemon: the control thread's state and its event
 * loop. Set-up order (privileges are why):
 *
 *   gateway_open          XDP programs, UMEM, AF_XDP sockets (privileged)
 *   control socket,       bound while the daemon may still create
 *   metrics listener      /run/xdplane and bind low ports
 *   privs_drop            to the runtime capabilities (privs.h), optionally
 *                         to `user`/`group`; one thread exists here, so the
 *                         whole process is covered
 *   gateway_start         the workers, which inherit the reduced sets
 *   READY=1               to systemd (sd_notify.h)
 *
 * Then one thread, this one, sleeps in the io_uring event loop (evloop.h)
 * on: a signalfd (SIGHUP reloads, SIGINT/SIGTERM stop), a timerfd every
 * control.stats_interval_ms (connection deadlines; the systemd watchdog,
 * pinged only while every worker turns its loop), the
 * control socket and the metrics listener. It never touches the workers'
 * state: statistics are read from single-writer counters (snapshot.h), the
 * policy is replaced by RCU (gateway_reload).
 *
 * Reload (SIGHUP or the control API's "reload", the same code): load and
 * validate the whole file, diff it against the running configuration
 * (config_diff.h); a cold change anywhere refuses the whole reload with
 * "restart required: <keys>" and changes nothing; an invalid file changes
 * nothing and says why (file:line:col); otherwise the new policy is
 * published and the call returns once every worker runs it. The running
 * configuration is replaced only then.
 */
#ifndef XDPLANE_DAEMON_H
#define XDPLANE_DAEMON_H

#include <stdbool.h>
#include "config.h"

/* Run until SIGINT/SIGTERM. Takes ownership of cfg. Returns the exit
 * status: 0 clean, 1 set-up failed, 3 frame accounting failed. */
int daemon_run(const char *path, struct xdplane_config *cfg,
	       bool log_level_forced);

#endif
