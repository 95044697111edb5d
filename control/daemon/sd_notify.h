/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sd_notify.h - the systemd notification protocol (sd_notify(3)) without
 * libsystemd: one datagram per state change to $NOTIFY_SOCKET.
 *
 * $NOTIFY_SOCKET is a filesystem path ("/run/systemd/notify") or an
 * abstract name ("@name": the '@' stands for the leading NUL). Other forms
 * (relative paths, "vsock:") are refused with -EAFNOSUPPORT. Each call
 * opens an AF_UNIX SOCK_DGRAM socket, sends the whole state in one
 * datagram and closes it: no state kept, nothing to set up or tear down,
 * works after the privilege drop (systemd's socket is world-writable and
 * the unit allows AF_UNIX). systemd accepts messages from any thread of the
 * main process (NotifyAccess=main compares the process id).
 *
 * The states the daemon sends: "READY=1" once forwarding, "RELOADING=1\n
 * MONOTONIC_USEC=<us>" when a reload starts (then "READY=1" when it is
 * done, whatever the outcome), "STOPPING=1", "STATUS=<text>", "WATCHDOG=1"
 * at most every sdn_watchdog_usec() / 2 while the workers make progress.
 *
 * Thread safety: reentrant; reads the environment, so no thread may change
 * NOTIFY_SOCKET / WATCHDOG_* (setenv) concurrently.
 *
 * Errors: 0 or -errno, and 1 for "not under systemd: nothing to do"
 * (no message: the daemon logs nothing for a missing notification).
 */
#ifndef XDPLANE_SD_NOTIFY_H
#define XDPLANE_SD_NOTIFY_H

#include <stdint.h>

/* Send `state` (newline-separated VAR=value assignments, sent as is).
 * Returns 1 when NOTIFY_SOCKET is unset or empty (not under systemd), 0
 * when sent, or -errno: -EINVAL (state NULL or empty), -EAFNOSUPPORT
 * (unsupported address), -ENAMETOOLONG (address longer than sun_path),
 * or what socket()/sendto() failed with (-ENOENT: no such socket,
 * -ECONNREFUSED: nobody bound to it). Thread: any.
 * Syscalls: socket(AF_UNIX, SOCK_DGRAM), sendto, close; none when
 * NOTIFY_SOCKET is unset. */
int sdn_notify(const char *state);

/* "RELOADING=1\nMONOTONIC_USEC=<CLOCK_MONOTONIC in us>", as
 * Type=notify-reload wants and Type=notify accepts. Same returns, thread
 * and syscalls (the clock is the vDSO's). */
int sdn_reloading(void);

/* The watchdog interval systemd expects pings within, in microseconds:
 * WATCHDOG_USEC when it is a positive decimal and WATCHDOG_PID is unset or
 * equals getpid(); 0 otherwise (no watchdog, or it is meant for another
 * process). Thread: any. Syscalls: getpid when WATCHDOG_PID is set. */
uint64_t sdn_watchdog_usec(void);

#endif
