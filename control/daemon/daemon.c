// SPDX-License-Identifier: BSD-2-Clause
/*
 * daemon.c - see daemon.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "config_diff.h"
#include "ctl_json.h"
#include "ctl_server.h"
#include "daemon.h"
#include "evloop.h"
#include "gateway.h"
#include "health.h"
#include "linkwatch.h"
#include "log.h"
#include "metrics_server.h"
#include "prefix.h"
#include "privs.h"
#include "sd_notify.h"
#include "snapshot.h"
#include "steer_prog.h"

struct daemon {
	const char *path;
	struct xdplane_config *cfg; /* the running configuration */
	struct gateway *gw;
	struct evloop loop;
	struct ctl_server ctl;
	struct ctl_server ctl_ro; /* control.readonly_group's socket */
	struct metrics_server metrics;
	struct ctl_backend be;
	int sig_fd, timer_fd;
	struct ev_watch sig_w, timer_w;
	struct snap_reload reload;
	double start_unix;
	bool stopping;
	int stop_signal;
	bool log_level_forced; /* -v / -q given: the file's level is ignored */
	uint64_t watchdog_usec;
	struct log_ratelimit stall_rl;
	struct linkwatch lw; /* the ports' links (rtnetlink) */
	int exit_status; /* non-zero: why the daemon stopped by itself */
	struct health health; /* judged at every snapshot (health.h) */
	bool degraded; /* as last logged by the stats timer */
	char *config_text; /* config_dump() of the running configuration */
};

/* How long a failure-path counter that moved keeps the health degraded. */
#define DAEMON_HEALTH_HOLD_NS (5 * 1000000000ull)

/* A port's interface was deleted and one of the same name appeared: the
 * sockets were bound to the old device, so the daemon stops cleanly and
 * exits with this status for the service manager to start it again
 * (xdplane(8), EXIT STATUS; Restart=on-failure in xdplane.service). */
#define DAEMON_EXIT_PORT_REPLACED 4

/* A worker wakes at least once a second: 3 s without a turn is a stall. */
#define DAEMON_STALL_NS (3 * 1000000000ull)

static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void params_from_config(const struct xdplane_config *c,
			       struct gw_params *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < GW_PORTS; i++)
		snprintf(p->ifname[i], sizeof(p->ifname[i]), "%s",
			 c->ports[i].interface);
	for (int i = 0; i < GW_PORTS; i++)
		p->mtu[i] = c->ports[i].mtu;
	for (int i = 0; i < GW_PORTS; i++)
		p->checksum[i] = c->ports[i].checksum == PORT_CSUM_COMPLETE
					 ? GW_CSUM_COMPLETE
				 : c->ports[i].checksum == PORT_CSUM_TRUST
					 ? GW_CSUM_TRUST
					 : GW_CSUM_AUTO;
	p->queues = c->queues;
	p->set_channels = c->queues_set_channels;
	p->xdp_mode = c->xdp_mode == XDP_ATTACH_NATIVE	  ? STEER_MODE_NATIVE
		      : c->xdp_mode == XDP_ATTACH_GENERIC ? STEER_MODE_GENERIC
							  : STEER_MODE_AUTO;
	p->bind_mode = c->bind_mode == XSK_BIND_ZEROCOPY ? 1
		       : c->bind_mode == XSK_BIND_COPY	 ? 2
							 : 0;
	p->failure_mode = c->failure_mode == FAILURE_CLOSED ? STEER_FAIL_CLOSED
							    : STEER_FAIL_OPEN;
	p->fill_size = c->rings.fill;
	p->comp_size = c->rings.completion;
	p->rx_size = c->rings.rx;
	p->tx_size = c->rings.tx;
	p->handoff_size = c->rings.handoff;
	p->umem_frames = c->umem.frames;
	p->umem_frames_auto = c->umem.frames_auto;
	p->frame_size = c->umem.frame_size;
	p->frame_headroom = c->umem.headroom;
	p->hugepages = c->umem.hugepages;
	p->busy_us = c->poll.busy_us;
	p->coalesce_us = c->poll.coalesce_us;
	p->shaper_spin_us = c->poll.shaper_spin_us;
	p->shaper_wait_spin = c->poll.shaper_wait_spin;
	p->batch = c->poll.batch;
	p->n_cpus = c->n_cpus;
	memcpy(p->cpus, c->cpus, sizeof(p->cpus[0]) * c->n_cpus);
	p->qos = c->qos;
}

/* ---- the control API's backend ---- */

static struct stats_snapshot *be_snapshot(void *ctx)
{
	struct daemon *d = ctx;
	struct snapshot_source src = {
		.gw = d->gw,
		.config_path = d->path,
		.failure_mode = failure_mode_name(d->cfg->failure_mode),
		.start_unix = d->start_unix,
		.reload = &d->reload,
	};
	struct stats_snapshot *s;
	struct health_input in;

	for (int p = 0; p < GW_PORTS && p < LW_PORTS; p++) {
		src.link_up[p] = d->lw.port[p].running && !d->lw.port[p].gone;
		src.gone[p] = d->lw.port[p].gone;
	}
	d->reload.generation = gateway_generation(d->gw);
	s = snapshot_take(&src);
	if (s) {
		health_input_from_snapshot(s, &in);
		health_eval(&d->health, &in, &s->health);
	}
	return s;
}

/* The running configuration as --dump-config prints it, kept. */
static void keep_config_text(struct daemon *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f || config_dump(d->cfg, f)) {
		if (f)
			fclose(f);
		free(text);
		log_warn("cannot keep the running configuration's dump");
		return;
	}
	fclose(f);
	free(d->config_text);
	d->config_text = text;
}

static json_t *be_config(void *ctx, struct ctl_err *err)
{
	struct daemon *d = ctx;

	if (!d->config_text) {
		ctl_err_set(err, "unavailable",
			    "the running configuration's dump is missing");
		return NULL;
	}
	return json_pack("{s:s,s:I,s:s}", "path", d->path, "generation",
			 (json_int_t)gateway_generation(d->gw), "text",
			 d->config_text);
}

static void be_snapshot_free(void *ctx, struct stats_snapshot *s)
{
	snapshot_free(s);
}

/* A refused file: the first error is the message (with how many more),
 * each other one a line of err->details (and of the log, do_reload()). */
static void refused_config(const struct config_error *cerr, struct ctl_err *err)
{
	if (cerr->found <= 1) {
		ctl_err_set(err, "invalid_config", "%s", cerr->msg);
		return;
	}
	ctl_err_set(err, "invalid_config", "%s (and %u more error%s)",
		    cerr->msg, cerr->found - 1, cerr->found == 2 ? "" : "s");
	err->details = json_array();
	for (unsigned int i = 1; i < cerr->n; i++)
		json_array_append_new(err->details,
				      ctl_json_text(config_error_at(cerr, i),
						    CONFIG_ERROR_LEN));
	if (cerr->found > cerr->n)
		json_array_append_new(err->details,
				      json_sprintf("%u more errors not shown",
						   cerr->found - cerr->n));
}

/* Load, validate, diff, apply. NULL + err when refused; else the result. */
static json_t *do_reload(struct daemon *d, struct ctl_err *err)
{
	struct xdplane_config *next;
	struct config_error cerr;
	struct config_diff diff;
	char keys[1024], gwerr[512];
	uint64_t t0 = conn_now_ns();
	json_t *changes;
	int rc;

	d->reload.attempts_total++;
	d->reload.last_attempt_unix = unix_now();
	next = config_load(d->path, true, &cerr);
	if (!next) {
		refused_config(&cerr, err);
		goto refused;
	}
	/* one diff: the reload decision (a cold key refuses the whole
	 * file) and the list of the changes applied below */
	config_diff(d->cfg, next, &diff);
	if (config_reload_check(&diff, keys, sizeof(keys))) {
		ctl_err_set(err, "restart_required", "%s", keys);
		config_free(next);
		goto refused;
	}
	changes = json_array();
	for (uint32_t i = 0; i < diff.n; i++)
		json_array_append_new(changes, json_string(diff.ch[i].key));
	if (diff.n) {
		sdn_reloading();
		rc = gateway_reload(d->gw, &next->qos, gwerr, sizeof(gwerr));
		if (rc == -EINVAL || rc == -ECANCELED) {
			/* refused, or a worker could not apply it and every
			 * worker went back: the running policy stays */
			sdn_notify("READY=1");
			ctl_err_set(err,
				    rc == -EINVAL ? "invalid_config"
						  : "reload_failed",
				    "%s: %s", d->path, gwerr);
			config_free(next);
			json_decref(changes);
			goto refused;
		}
		if (rc)
			log_warn("reload: %s", gwerr);
		if (!d->log_level_forced)
			log_set_level((enum log_level)next->log_level);
		sdn_notify("READY=1");
	}
	config_free(d->cfg);
	d->cfg = next;
	keep_config_text(d);
	d->reload.generation = gateway_generation(d->gw);
	d->reload.last_successful = true;
	d->reload.last_success_unix = unix_now();
	d->reload.last_error[0] = '\0';
	config_diff_format(&diff, false, keys, sizeof(keys));
	log_notice("reload: generation %llu, %u change%s%s%s",
		   (unsigned long long)d->reload.generation, diff.n,
		   diff.n == 1 ? "" : "s", diff.n ? ": " : "",
		   diff.n ? keys : "");
	return json_pack("{s:b,s:I,s:o,s:f}", "applied", diff.n > 0,
			 "generation", (json_int_t)d->reload.generation,
			 "changes", changes, "duration_ms",
			 (double)(conn_now_ns() - t0) / 1e6);
refused:
	d->reload.failures_total++;
	d->reload.last_successful = false;
	snprintf(d->reload.last_error, sizeof(d->reload.last_error), "%s",
		 err->message);
	log_err("reload refused, running configuration unchanged: %s",
		err->message);
	for (size_t i = 0; i < json_array_size(err->details); i++)
		log_err("reload refused: %s",
			json_string_value(json_array_get(err->details, i)));
	return NULL;
}

static json_t *be_reload(void *ctx, struct ctl_err *err)
{
	return do_reload(ctx, err);
}

struct flows_ctx {
	struct daemon *d;
	json_t *arr;
};

static void flow_json(const struct gw_flow *f, void *arg)
{
	struct flows_ctx *fc = arg;
	char dst[INET6_ADDRSTRLEN] = "";
	json_t *o;

	if (f->v.key.family)
		inet_ntop(f->v.key.family == 6 ? AF_INET6 : AF_INET,
			  f->v.key.addr, dst, sizeof(dst));
	o = json_object();
	json_object_set_new(o, "port",
			    json_string(gateway_port_name(fc->d->gw, f->port)));
	json_object_set_new(o, "queue", json_integer(f->queue));
	json_object_set_new(o, "class", json_string(f->class_name));
	json_object_set_new(o, "dst",
			    f->v.key.family ? json_string(dst) : json_null());
	json_object_set_new(o, "dst_qpn", json_integer(f->v.key.qpn));
	json_object_set_new(o, "sender_qpn",
			    f->v.qpn_known ? json_integer(f->v.sender_qpn)
					   : json_null());
	json_object_set_new(o, "rc_bps", json_real(f->v.rc_bps));
	json_object_set_new(o, "rt_bps", json_real(f->v.rt_bps));
	json_object_set_new(o, "alpha", json_real(f->v.alpha));
	json_object_set_new(o, "queued_packets",
			    json_integer((json_int_t)f->v.queued_packets));
	json_object_set_new(o, "sent_packets",
			    json_integer((json_int_t)f->v.sent_packets));
	json_object_set_new(o, "sent_bytes",
			    json_integer((json_int_t)f->v.sent_bytes));
	json_object_set_new(o, "cnps_wire",
			    json_integer((json_int_t)f->v.cnps_wire));
	json_object_set_new(o, "cnps_internal",
			    json_integer((json_int_t)f->v.cnps_internal));
	json_object_set_new(o, "cnps_hint",
			    json_integer((json_int_t)f->v.cnps_hint));
	json_object_set_new(o, "cnps_sent",
			    json_integer((json_int_t)f->v.cnps_sent));
	json_array_append_new(fc->arr, o);
}

static json_t *be_flows(void *ctx, struct ctl_err *err)
{
	struct flows_ctx fc = {.d = ctx, .arr = json_array()};

	gateway_flows(fc.d->gw, flow_json, &fc);
	return fc.arr;
}

/* A hint's prefix, by the configuration's grammar (prefix.h): "10.0.0.0/8",
 * "fd00::/8", "10.1.2.3" (a host) -> family, bytes, len; or -1 and why. */
static int parse_prefix(const char *text, uint8_t *family, uint8_t *addr,
			uint8_t *plen, char *why, size_t whylen)
{
	struct qos_prefix p;

	if (prefix_check(text, &p, why, whylen))
		return -1;
	*family = p.family;
	memcpy(addr, p.addr, sizeof(p.addr));
	*plen = p.len;
	return 0;
}

static json_t *be_congestion(void *ctx, const char *port, const char *cls,
			     double severity, const char *prefix,
			     struct ctl_err *err)
{
	struct daemon *d = ctx;
	const struct qos_policy *pol = gateway_policy(d->gw);
	uint8_t fam[2] = {4, 6}, addr[2][16] = {{0}}, plen[2] = {0, 0};
	uint32_t sev = (uint32_t)(severity * QOS_PROB_ONE + 0.5);
	int p = -1, n_fam = 2, reached = 0, rc;
	unsigned int id = 0xff;

	for (int i = 0; i < GW_PORTS; i++)
		if (!strcmp(gateway_port_name(d->gw, i), port))
			p = i;
	for (unsigned int k = 0; k < pol->n_classes; k++)
		if (!strcmp(pol->classes[k].name, cls))
			id = k;
	if (p < 0 || id == 0xff) {
		ctl_err_set(err, "bad_request", "no port %s or class %s", port,
			    cls);
		return NULL;
	}
	if (!pol->classes[id].dcqcn) {
		ctl_err_set(err, "bad_request",
			    "class %s has no DCQCN flows (dcqcn: true)", cls);
		return NULL;
	}
	if (prefix) {
		char why[256];

		if (parse_prefix(prefix, &fam[0], addr[0], &plen[0], why,
				 sizeof(why))) {
			ctl_err_set(err, "bad_request", "prefix: %s", why);
			return NULL;
		}
		n_fam = 1;
	}
	for (int i = 0; i < n_fam; i++) {
		rc = gateway_hint(d->gw, p, id, fam[i], addr[i], plen[i], sev);
		if (rc < 0) {
			ctl_err_set(err, rc == -EAGAIN ? "busy" : "unavailable",
				    "%s",
				    rc == -EAGAIN
					    ? "a queue's hint ring is full; "
					      "try again"
					    : "no DCQCN class on this port");
			return NULL;
		}
		reached = rc;
	}
	log_info("congestion hint: %s class %s %s severity %.3f", port, cls,
		 prefix ? prefix : "(all)", severity);
	return json_pack("{s:i,s:f,s:s}", "queues", reached, "severity",
			 (double)sev / QOS_PROB_ONE, "prefix",
			 prefix ? prefix : "all");
}

static int be_log_level(void *ctx, const char *level, const char **previous,
			struct ctl_err *err)
{
	int lvl = config_log_level_parse(level);

	if (lvl < 0) {
		ctl_err_set(err, "bad_request", "unknown log level '%s'",
			    level);
		return -1;
	}
	*previous = config_log_level_name(log_get_level());
	log_set_level((enum log_level)lvl);
	log_notice("log level set to %s (was %s)", level, *previous);
	return 0;
}

/* ---- events ---- */

static void on_signal(struct ev_watch *w, int revents)
{
	struct daemon *d = w->arg;
	struct signalfd_siginfo si;
	struct ctl_err err = {0};
	json_t *r;

	while (read(d->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			log_info("SIGHUP: reloading %s", d->path);
			r = do_reload(d, &err);
			json_decref(r);
			ctl_err_release(&err);
		} else {
			d->stopping = true;
			d->stop_signal = (int)si.ssi_signo;
		}
	}
	if (!d->stopping && evloop_arm(&d->loop, w, POLLIN))
		log_err("cannot wait for signals");
}

/* Judge the health (every snapshot does); say so when it changes. */
static void check_health(struct daemon *d)
{
	struct stats_snapshot *s = be_snapshot(d);
	char status[1100];

	if (!s)
		return;
	if (!health_ok(&s->health) != d->degraded) {
		d->degraded = !health_ok(&s->health);
		if (d->degraded)
			log_warn("health: degraded: %s", s->health.line);
		else
			log_notice("health: ok again");
		snprintf(status, sizeof(status), "STATUS=%s%s",
			 d->degraded ? "degraded: " : "forwarding",
			 d->degraded ? s->health.line : "");
		sdn_notify(status);
	}
	snapshot_free(s);
}

static void on_timer(struct ev_watch *w, int revents)
{
	struct daemon *d = w->arg;
	uint64_t ticks, now = conn_now_ns();
	uint32_t stalled;

	(void)!read(d->timer_fd, &ticks, sizeof(ticks));
	if (d->ctl.path[0])
		conn_server_tick(&d->ctl.cs, now);
	if (d->ctl_ro.path[0])
		conn_server_tick(&d->ctl_ro.cs, now);
	gateway_watch_queues(d->gw, now); /* queues without a socket */
	check_health(d);
	if (d->metrics.open)
		conn_server_tick(&d->metrics.cs, now);
	stalled = gateway_stalled_workers(d->gw, now, DAEMON_STALL_NS);
	if (stalled)
		log_ratelimited(&d->stall_rl, 1, LOG_LVL_ERR,
				"%u worker%s made no progress for more than "
				"%llu s%s",
				stalled, stalled > 1 ? "s" : "",
				DAEMON_STALL_NS / 1000000000ull,
				d->watchdog_usec ? ": no watchdog ping" : "");
	else if (d->watchdog_usec)
		sdn_notify("WATCHDOG=1");
	if (evloop_arm(&d->loop, w, POLLIN))
		log_err("cannot arm the stats timer");
}

/* Link events of the ports (linkwatch.h). */
static void on_link_event(void *arg, const struct lw_event *ev)
{
	struct daemon *d = arg;
	const char *name = gateway_port_name(d->gw, ev->port);

	switch (ev->type) {
	case LW_LINK_DOWN:
		log_warn("port %s: link down", name);
		break;
	case LW_LINK_UP:
		log_info("port %s: link up", name);
		break;
	case LW_GONE:
		log_err("port %s: interface vanished (ifindex %d deleted); "
			"frames to it are dropped (drops.port_down) until an "
			"interface named %s appears again",
			name, ev->ifindex, name);
		gateway_port_set_down(d->gw, ev->port, true);
		sdn_notify("STATUS=degraded: a port vanished");
		break;
	case LW_BACK:
		log_err("port %s: interface back as ifindex %d; stopping to "
			"re-attach (exit status %d: restart xdplane)",
			name, ev->ifindex, DAEMON_EXIT_PORT_REPLACED);
		d->exit_status = DAEMON_EXIT_PORT_REPLACED;
		d->stopping = true;
		break;
	}
}

static int open_event_sources(struct daemon *d, char *err, size_t errlen)
{
	const struct xdplane_config *c = d->cfg;
	uint64_t ms = c->control.stats_interval_ms;
	struct itimerspec its = {
		.it_interval = {ms / 1000, (long)(ms % 1000) * 1000000},
		.it_value = {ms / 1000, (long)(ms % 1000) * 1000000},
	};
	sigset_t sigs;

	if (evloop_init(&d->loop, 256)) {
		snprintf(err, errlen, "cannot set up io_uring");
		return -1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	d->sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	d->timer_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->sig_fd < 0 || d->timer_fd < 0 ||
	    timerfd_settime(d->timer_fd, 0, &its, NULL)) {
		snprintf(err, errlen, "signalfd/timerfd: %s", strerror(errno));
		return -1;
	}
	ev_watch_init(&d->sig_w, d->sig_fd, on_signal, d);
	ev_watch_init(&d->timer_w, d->timer_fd, on_timer, d);
	if (evloop_arm(&d->loop, &d->sig_w, POLLIN) ||
	    evloop_arm(&d->loop, &d->timer_w, POLLIN)) {
		snprintf(err, errlen, "cannot arm the event loop");
		return -1;
	}
	{
		const char *names[LW_PORTS];
		int idx[LW_PORTS];

		for (int p = 0; p < LW_PORTS; p++) {
			names[p] = gateway_port_name(d->gw, p);
			idx[p] = gateway_port_ifindex(d->gw, p);
		}
		if (linkwatch_open(&d->lw, &d->loop, names, idx, on_link_event,
				   d, err, errlen))
			return -1;
	}
	return 0;
}

static int open_servers(struct daemon *d, char *err, size_t errlen)
{
	const struct xdplane_config *c = d->cfg;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1, ugid;

	if (c->control.socket[0]) {
		if (c->user[0] &&
		    privs_lookup(c->user, c->group, &uid, &ugid, err, errlen))
			return -1;
		if (c->control.socket_group[0]) {
			if (privs_lookup(NULL, c->control.socket_group, NULL,
					 &gid, err, errlen))
				return -1;
		} else if (c->user[0]) {
			gid = ugid;
		}
		if (ctl_server_open(&d->ctl, &d->loop, c->control.socket, uid,
				    gid, false, &d->be, err, errlen))
			return -1;
	}
	if (c->control.socket[0] && c->control.readonly_group[0]) {
		char ro[sizeof(c->control.socket) + 8];

		if (privs_lookup(NULL, c->control.readonly_group, NULL, &gid,
				 err, errlen))
			return -1;
		snprintf(ro, sizeof(ro), "%s" CONFIG_RO_SUFFIX,
			 c->control.socket);
		if (ctl_server_open(&d->ctl_ro, &d->loop, ro, uid, gid, true,
				    &d->be, err, errlen))
			return -1;
	}
	if (c->control.metrics_addrlen &&
	    metrics_server_open(
		    &d->metrics, &d->loop,
		    (const struct sockaddr *)&c->control.metrics_addr,
		    c->control.metrics_addrlen, be_snapshot, be_snapshot_free,
		    d, err, errlen))
		return -1;
	return 0;
}

/* ---- the final report ---- */

static void print_tables(const struct stats_snapshot *s)
{
	fprintf(stderr, "%-10s %12s %14s %12s %14s %10s %10s %10s\n", "port",
		"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "drop_hoff",
		"xsk_drop", "failopen");
	for (int p = 0; p < GW_PORTS; p++) {
		const struct gw_port_stats *st = &s->ports[p].s;

		fprintf(stderr,
			"%-10s %12llu %14llu %12llu %14llu %10llu %10llu "
			"%10llu\n",
			s->ports[p].ifname, (unsigned long long)st->rx_packets,
			(unsigned long long)st->rx_bytes,
			(unsigned long long)st->tx_packets,
			(unsigned long long)st->tx_bytes,
			(unsigned long long)st->drop_handoff_full,
			(unsigned long long)(st->xsk.rx_dropped +
					     st->xsk.rx_ring_full +
					     st->xsk.rx_fill_ring_empty_descs),
			(unsigned long long)st->verdicts[STEER_V_FAILOPEN]);
	}
	fprintf(stderr, "%-6s %-12s %12s %12s %10s %10s %10s\n", "egress",
		"class", "enq_packets", "sent_packets", "drop_full",
		sched_drop_name(SCHED_DROP_ECN_NONECT), "ecn_marks");
	for (int p = 0; p < GW_PORTS; p++) {
		for (uint32_t k = 0; k < s->ports[p].n_classes; k++) {
			const struct snap_class *c = &s->ports[p].cls[k];

			fprintf(stderr,
				"%-6s %-12s %12llu %12llu %10llu %10llu "
				"%10llu\n",
				s->ports[p].ifname, c->name,
				(unsigned long long)c->s.enq_packets,
				(unsigned long long)c->s.sent_packets,
				(unsigned long long)(c->s.drops
							     [SCHED_DROP_QUEUE_BYTES] +
						     c->s.drops
							     [SCHED_DROP_QUEUE_PACKETS]),
				(unsigned long long)
					c->s.drops[SCHED_DROP_ECN_NONECT],
				(unsigned long long)c->s.ecn_marks);
		}
	}
}

/* Stop, read the final counters, close (census), report. */
static int stop_and_report(struct daemon *d)
{
	struct stats_snapshot *s;
	struct gw_census c;
	json_t *root, *ports;
	char *text;
	int rc = 0;

	gateway_stop(d->gw); /* drained: the counters are final */
	s = be_snapshot(d);
	root = json_object();
	ports = json_array();
	if (s) {
		print_tables(s);
		json_object_set_new(root, "xdp_mode", json_string(s->xdp_mode));
		json_object_set_new(root, "bind_mode",
				    json_string(s->bind_mode));
		json_object_set_new(
			root, "generation",
			json_integer((json_int_t)s->reload.generation));
		for (int p = 0; p < GW_PORTS; p++)
			json_array_append_new(ports,
					      ctl_json_port(&s->ports[p]));
		snapshot_free(s);
	}
	json_object_set_new(root, "ports", ports);
	gateway_close(d->gw, &c);
	d->gw = NULL;
	json_object_set_new(root, "frames",
			    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "total",
				      (json_int_t)c.total, "found",
				      (json_int_t)c.found, "driver",
				      (json_int_t)c.driver, "missing",
				      (json_int_t)c.missing, "doubles",
				      (json_int_t)c.doubles, "strays",
				      (json_int_t)c.strays));
	if (!c.done || c.missing || c.doubles || c.strays ||
	    c.found + c.driver != c.total) {
		log_err("frame accounting failed: %llu of %llu frames found, "
			"%llu held by the driver, %llu missing, %llu doubly "
			"owned, %llu stray",
			(unsigned long long)c.found,
			(unsigned long long)c.total,
			(unsigned long long)c.driver,
			(unsigned long long)c.missing,
			(unsigned long long)c.doubles,
			(unsigned long long)c.strays);
		rc = 3;
	} else {
		log_info("frame accounting: all %llu frames accounted for "
			 "(%llu held by the driver)",
			 (unsigned long long)c.total,
			 (unsigned long long)c.driver);
	}
	text = json_dumps(root, JSON_COMPACT);
	fprintf(stderr, "final-stats: %s\n", text ? text : "{}");
	free(text);
	json_decref(root);
	return rc;
}

/* The control thread goes where placement left room for it (it sleeps
 * almost always, but when it works it should not steal a worker's core). */
static void pin_control_thread(struct daemon *d)
{
	struct gw_info info;
	cpu_set_t set;

	gateway_info(d->gw, &info);
	if (info.control_cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(info.control_cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		log_warn("control thread: cannot pin to CPU %d",
			 info.control_cpu);
	else
		log_info("control thread on CPU %d", info.control_cpu);
}

static void close_servers(struct daemon *d)
{
	ctl_server_close(&d->ctl);
	ctl_server_close(&d->ctl_ro);
	metrics_server_close(&d->metrics);
	if (!d->loop.ready)
		return;
	/* let the cancelled polls come back so every connection is freed */
	for (int i = 0; i < 100 && !(conn_server_idle(&d->ctl.cs) &&
				     conn_server_idle(&d->ctl_ro.cs) &&
				     conn_server_idle(&d->metrics.cs));
	     i++)
		evloop_run_once(&d->loop, 10);
}

int daemon_run(const char *path, struct xdplane_config *cfg,
	       bool log_level_forced)
{
	struct daemon *d = calloc(1, sizeof(*d));
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	struct gw_params params;
	char err[512], caps[128];
	sigset_t sigs;
	int rc = 1;

	if (!d) {
		config_free(cfg);
		return 1;
	}
	d->path = path;
	d->cfg = cfg;
	d->sig_fd = d->timer_fd = -1;
	d->lw.fd = -1;
	d->log_level_forced = log_level_forced;
	d->start_unix = unix_now();
	d->reload.generation = 1;
	d->reload.last_successful = true;
	d->reload.last_success_unix = d->start_unix;
	d->be = (struct ctl_backend){
		.ctx = d,
		.snapshot = be_snapshot,
		.snapshot_free = be_snapshot_free,
		.reload = be_reload,
		.flows = be_flows,
		.congestion = be_congestion,
		.log_level = be_log_level,
		.config = be_config,
		.pid = getpid(),
	};
	health_init(&d->health,
		    &(struct health_params){.stall_ns = DAEMON_STALL_NS,
					    .hold_ns = DAEMON_HEALTH_HOLD_NS});
	keep_config_text(d);

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* workers inherit it */
	/* UMEM pages are charged to RLIMIT_MEMLOCK unless CAP_IPC_LOCK: raise
	 * it as far as allowed; registration says so if it is not enough. */
	if (setrlimit(RLIMIT_MEMLOCK, &rl) && !getrlimit(RLIMIT_MEMLOCK, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}

	log_info("xdplane %s starting with %s", XDPLANE_VERSION, path);
	params_from_config(cfg, &params);
	d->gw = gateway_open(&params, err, sizeof(err));
	if (!d->gw) {
		log_err("%s", err);
		goto out;
	}
	if (open_event_sources(d, err, sizeof(err)) ||
	    open_servers(d, err, sizeof(err))) {
		log_err("%s", err);
		goto out;
	}
	if (privs_drop(cfg->user, cfg->group, err, sizeof(err))) {
		log_err("cannot drop privileges: %s", err);
		goto out;
	}
	privs_describe(caps, sizeof(caps));
	log_info("privileges: uid %u gid %u, capabilities kept: %s",
		 (unsigned int)geteuid(), (unsigned int)getegid(),
		 caps[0] ? caps : "none");
	if (gateway_start(d->gw, err, sizeof(err))) {
		log_err("%s", err);
		goto out;
	}
	pin_control_thread(d);
	check_health(d); /* the first look: what counted before is not held */
	d->watchdog_usec = sdn_watchdog_usec();
	sdn_notify("READY=1\nSTATUS=forwarding");

	while (!d->stopping) {
		int n = evloop_run_once(&d->loop, -1);

		if (n < 0) {
			log_err("event loop: %s", strerror(-n));
			break;
		}
	}
	if (d->exit_status)
		log_info("stopping (a port was replaced)");
	else
		log_info("stopping (signal %d)", d->stop_signal);
	sdn_notify("STOPPING=1");
	linkwatch_close(&d->lw);
	close_servers(d);
	rc = stop_and_report(d);
	if (!rc)
		rc = d->exit_status;
out:
	if (rc == 1) { /* set-up failed: nothing to report */
		linkwatch_close(&d->lw);
		close_servers(d);
	}
	gateway_close(d->gw, NULL);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->timer_fd >= 0)
		close(d->timer_fd);
	evloop_fini(&d->loop);
	config_free(d->cfg);
	free(d->config_text);
	free(d);
	return rc;
}
