/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * daemon_api.h - the backends of the control API's operations
 * (ctl_proto.h, struct ctl_backend) on the daemon's state: snapshots
 * with the health decision, reload, flows, congestion hints, the log
 * level and the running configuration's text. Called by the life cycle
 * (daemon.c) and, through d->be, by the control socket's sessions and
 * the metrics listener; all on the control thread. Nothing here calls
 * the life cycle back.
 */
#ifndef XDPLANE_DAEMON_API_H
#define XDPLANE_DAEMON_API_H

#include <jansson.h>
#include "daemon_state.h"

/* Fill d->be with the backends below, ctx d. */
void daemon_api_init(struct daemon *d);

/* A snapshot of the gateway with the health judged on it (and the
 * judgement's state advanced); NULL when out of memory. ctx: the daemon.
 * Released by daemon_snapshot_free(). */
struct stats_snapshot *daemon_snapshot(void *ctx);
void daemon_snapshot_free(void *ctx, struct stats_snapshot *s);

/* Load, validate, diff, apply (daemon.h: Reload). NULL with err filled
 * when refused (the running configuration unchanged); else the result:
 * {"applied","generation","changes","duration_ms"}. */
json_t *daemon_reload(struct daemon *d, struct ctl_err *err);

/* Keep config_dump() of d->cfg in d->config_text (a warning, and the old
 * text kept, when it cannot be made). */
void daemon_keep_config_text(struct daemon *d);

#endif
