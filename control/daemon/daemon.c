// SPDX-License-Identifier: BSD-2-Clause
/*
 * daemon.c - the daemon's life cycle (daemon.h): set-up in the order of
 * privileges, the control thread's events (signals, the stats timer with
 * the health and the watchdog, the ports' link events), the final report
 * and tear-down. The control API's operations are daemon_api.c's.
 */
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
#include "ctl_json.h"
#include "daemon.h"
#include "daemon_api.h"
#include "daemon_jobs.h"
#include "privs.h"
#include "sd_notify.h"
#include "snapshot.h"
#include "steer_prog.h"

/* How long a failure-path counter that moved keeps the health degraded. */
#define DAEMON_HEALTH_HOLD_NS (5 * 1000000000ull)

/* A port's interface was deleted and one of the same name appeared: the
 * sockets were bound to the old device, so the daemon stops cleanly and
 * exits with this status for the service manager to start it again
 * (xdplane(8), EXIT STATUS; Restart=on-failure in xdplane.service). */
#define DAEMON_EXIT_PORT_REPLACED 4

/* A worker wakes at least once a second: 3 s without a turn is a stall. */
#define DAEMON_STALL_NS (3 * 1000000000ull)

/* XDPLANE_TEST_STARVE=<interface>[:<queue>] (test only, xdplane(8)):
 * mute that port's sockets (one queue, or every one), so that a driver
 * waiting to be woken starves and the detector (gateway_watch_starve())
 * can be shown at work; XDPLANE_TEST_STARVE_NOKICK=1: the detector does
 * not wake them either. */
static void test_starve_from_env(const struct xdplane_config *c,
				 struct gw_params *p)
{
	const char *v = getenv("XDPLANE_TEST_STARVE");
	const char *nk = getenv("XDPLANE_TEST_STARVE_NOKICK");
	const char *colon;
	size_t len;
	char *end = NULL;
	unsigned long q = UINT32_MAX;

	if (!v || !*v)
		return;
	colon = strchr(v, ':');
	len = colon ? (size_t)(colon - v) : strlen(v);
	if (colon)
		q = strtoul(colon + 1, &end, 10);
	for (int i = 0; i < GW_PORTS && (!colon || (end && !*end && colon[1]));
	     i++) {
		if (strlen(c->ports[i].interface) != len ||
		    strncmp(c->ports[i].interface, v, len))
			continue;
		p->test_starve = true;
		p->test_starve_port = i;
		p->test_starve_queue =
			q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
		p->test_starve_nokick = nk && !strcmp(nk, "1");
		return;
	}
	log_warn("XDPLANE_TEST_STARVE=%s ignored: not <port "
		 "interface>[:<queue>]",
		 v);
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
	test_starve_from_env(c, p);
	p->n_cpus = c->n_cpus;
	memcpy(p->cpus, c->cpus, sizeof(p->cpus[0]) * c->n_cpus);
	p->qos = c->qos;
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
			r = daemon_reload(d, &err);
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
	struct stats_snapshot *s = daemon_snapshot(d);
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
	gateway_watch_starve(d->gw, now); /* starved sockets */
	daemon_jobs_tick(d);
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
		    c->control.metrics_addrlen, daemon_snapshot,
		    daemon_snapshot_free, d, err, errlen))
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
	json_t *root;
	char *text;
	int rc = 0;

	gateway_stop(d->gw); /* drained: the counters are final */
	s = daemon_snapshot(d);
	if (s)
		print_tables(s);
	root = ctl_json_final(s);
	snapshot_free(s);
	gateway_close(d->gw, &c);
	d->gw = NULL;
	json_object_set_new(root, "frames", ctl_json_census(&c));
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
	d->start_unix = daemon_unix_now();
	d->reload.generation = 1;
	d->reload.last_successful = true;
	d->reload.last_success_unix = d->start_unix;
	daemon_api_init(d);
	health_init(&d->health,
		    &(struct health_params){.stall_ns = DAEMON_STALL_NS,
					    .hold_ns = DAEMON_HEALTH_HOLD_NS});
	daemon_keep_config_text(d);

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
	if (daemon_jobs_start(d, err, sizeof(err)) ||
	    open_event_sources(d, err, sizeof(err)) ||
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
	daemon_jobs_stop(d);
	config_free(d->cfg);
	free(d->config_text);
	free(d);
	return rc;
}
