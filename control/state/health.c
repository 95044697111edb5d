// SPDX-License-Identifier: BSD-2-Clause
/*
 * health.c - see health.h. First the state is brought up to date (which
 * heartbeat and which counter moved, when), then each row of the reason
 * table checks it and writes its message.
 */
#include <stdio.h>
#include <string.h>
#include "health.h"
#include "snapshot.h"

struct ctx {
	const struct health *h;
	const struct health_input *in;
};

typedef bool (*check_fn)(const struct ctx *c, char *msg, size_t len);

static bool check_stalled(const struct ctx *c, char *msg, size_t len);
static bool check_port_down(const struct ctx *c, char *msg, size_t len);
static bool check_port_gone(const struct ctx *c, char *msg, size_t len);
static bool check_fail_open(const struct ctx *c, char *msg, size_t len);
static bool check_no_socket(const struct ctx *c, char *msg, size_t len);
static bool check_reload(const struct ctx *c, char *msg, size_t len);
static bool check_starved(const struct ctx *c, char *msg, size_t len);

static const struct reason {
	const char *name;
	const char *help;
	check_fn check;
} reasons[HEALTH_N_REASONS] = {
	[HEALTH_WORKER_STALLED] = {"worker_stalled",
				   "a worker's loop made no progress",
				   check_stalled},
	[HEALTH_PORT_DOWN] = {"port_down", "a port's link is down",
			      check_port_down},
	[HEALTH_PORT_GONE] = {"port_gone", "a port's interface vanished",
			      check_port_gone},
	[HEALTH_FAIL_OPEN] = {"fail_open",
			      "frames took the XDP program's failure path "
			      "(no socket)",
			      check_fail_open},
	[HEALTH_QUEUE_WITHOUT_SOCKET] = {"queue_without_socket",
					 "frames arrived on an RX queue "
					 "without a socket",
					 check_no_socket},
	[HEALTH_RELOAD_FAILED] = {"reload_failed",
				  "the last reload was refused", check_reload},
	[HEALTH_RX_STARVED] = {"rx_starved",
			       "an AF_XDP socket receives nothing while its "
			       "driver leaves the frames posted for it untaken",
			       check_starved},
};

const char *health_reason_name(enum health_reason r)
{
	return (unsigned int)r < HEALTH_N_REASONS ? reasons[r].name : "unknown";
}

const char *health_reason_help(enum health_reason r)
{
	return (unsigned int)r < HEALTH_N_REASONS ? reasons[r].help : "";
}

void health_init(struct health *h, const struct health_params *par)
{
	memset(h, 0, sizeof(*h));
	h->par = *par;
}

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* A heartbeat: when it last changed. */
static void mark_beat(struct health_mark *m, uint64_t v, uint64_t now,
		      bool primed)
{
	if (!primed || v != m->seen) {
		m->seen = v;
		m->at = now;
	}
}

/* A counter: when it last grew, and how much since it started growing
 * (an episode ends when it has not grown for hold_ns). */
static void mark_counter(struct health_mark *m, uint64_t v, uint64_t now,
			 uint64_t hold, bool primed)
{
	if (!primed) {
		m->seen = v;
		return;
	}
	if (v != m->seen) {
		uint64_t d = v > m->seen ? v - m->seen : v;

		if (!m->active)
			m->episode = 0;
		m->episode += d;
		m->seen = v;
		m->at = now;
		m->active = true;
	} else if (m->active && now - m->at >= hold) {
		m->active = false;
	}
}

static bool check_stalled(const struct ctx *c, char *msg, size_t len)
{
	uint32_t n = c->in->n_workers < HEALTH_MAX_WORKERS ? c->in->n_workers
							   : HEALTH_MAX_WORKERS;
	uint32_t stalled = 0, first = 0;
	uint64_t worst = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t idle = c->in->now_ns - c->h->beat[i].at;

		if (idle <= c->h->par.stall_ns)
			continue;
		stalled++;
		if (idle > worst) {
			worst = idle;
			first = i;
		}
	}
	if (!stalled)
		return false;
	if (stalled == 1)
		snprintf(msg, len, "worker %u made no progress for %.1f s",
			 first, seconds(worst));
	else
		snprintf(msg, len,
			 "%u workers made no progress (the longest for %.1f s)",
			 stalled, seconds(worst));
	return true;
}

/* "gw0, gw1" of the ports where pred holds; false if none. */
static bool ports_where(const struct ctx *c,
			bool (*pred)(const struct ctx *, int), char *out,
			size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int p = 0; p < HEALTH_PORTS; p++) {
		if (!pred(c, p))
			continue;
		if (n < len)
			n += (size_t)snprintf(out + n, len - n, "%s%.16s",
					      n ? ", " : "",
					      c->in->port[p].name);
	}
	return out[0] != '\0';
}

static bool is_down(const struct ctx *c, int p)
{
	return !c->in->port[p].link_up && !c->in->port[p].gone;
}

static bool is_gone(const struct ctx *c, int p)
{
	return c->in->port[p].gone;
}

static bool check_port_down(const struct ctx *c, char *msg, size_t len)
{
	char names[64];

	if (!ports_where(c, is_down, names, sizeof(names)))
		return false;
	snprintf(msg, len, "link down: %s", names);
	return true;
}

static bool check_port_gone(const struct ctx *c, char *msg, size_t len)
{
	char names[64];

	if (!ports_where(c, is_gone, names, sizeof(names)))
		return false;
	snprintf(msg, len, "interface vanished: %s", names);
	return true;
}

/* "<port>: <n> frames in the last <s> s, ..." of the active marks. */
static bool counter_msg(const struct ctx *c, const struct health_mark *m,
			const char *what, char *msg, size_t len)
{
	size_t n = 0;

	msg[0] = '\0';
	for (int p = 0; p < HEALTH_PORTS; p++) {
		if (!m[p].active)
			continue;
		if (n < len)
			n += (size_t)snprintf(
				msg + n, len - n, "%s%.16s: %llu frames %s",
				n ? ", " : "", c->in->port[p].name,
				(unsigned long long)m[p].episode,
				what ? what
				: c->in->port[p].fail_closed
					? "dropped (failure_mode closed)"
					: "forwarded unshaped by the kernel");
	}
	return msg[0] != '\0';
}

static bool check_fail_open(const struct ctx *c, char *msg, size_t len)
{
	return counter_msg(c, c->h->failure, NULL, msg, len);
}

static bool check_no_socket(const struct ctx *c, char *msg, size_t len)
{
	size_t n;

	counter_msg(c, c->h->nosock, "on RX queues without a socket", msg, len);
	for (int p = 0; p < HEALTH_PORTS; p++) {
		uint64_t q = c->in->port[p].queues_without_socket;

		n = strlen(msg);
		if (q && n < len)
			snprintf(msg + n, len - n,
				 "%s%.16s: %llu queue%s without a socket",
				 n ? ", " : "", c->in->port[p].name,
				 (unsigned long long)q, q > 1 ? "s" : "");
	}
	return msg[0] != '\0';
}

static bool check_reload(const struct ctx *c, char *msg, size_t len)
{
	if (c->in->reload_ok)
		return false;
	snprintf(msg, len, "last reload refused: %.160s",
		 c->in->reload_error && c->in->reload_error[0]
			 ? c->in->reload_error
			 : "(no reason given)");
	return true;
}

static bool check_starved(const struct ctx *c, char *msg, size_t len)
{
	size_t n = 0;

	msg[0] = '\0';
	for (int p = 0; p < HEALTH_PORTS; p++) {
		uint64_t q = c->in->port[p].starved;

		if (q && n < len)
			n += (size_t)snprintf(
				msg + n, len - n,
				"%s%.16s: %llu queue%s starved by the driver "
				"(%llu wake-ups so far)",
				n ? ", " : "", c->in->port[p].name,
				(unsigned long long)q, q > 1 ? "s" : "",
				(unsigned long long)c->in->port[p]
					.starve_kicks);
	}
	return msg[0] != '\0';
}

void health_eval(struct health *h, const struct health_input *in,
		 struct health_result *out)
{
	uint32_t n = in->n_workers < HEALTH_MAX_WORKERS ? in->n_workers
							: HEALTH_MAX_WORKERS;
	struct ctx c = {h, in};
	size_t used = 0;

	for (uint32_t i = 0; i < n; i++)
		mark_beat(&h->beat[i], in->heartbeat[i], in->now_ns, h->primed);
	for (int p = 0; p < HEALTH_PORTS; p++) {
		mark_counter(&h->failure[p], in->port[p].failure_path,
			     in->now_ns, h->par.hold_ns, h->primed);
		mark_counter(&h->nosock[p], in->port[p].no_socket, in->now_ns,
			     h->par.hold_ns, h->primed);
	}
	h->primed = true;

	memset(out, 0, sizeof(*out));
	for (int r = 0; r < HEALTH_N_REASONS; r++) {
		if (!reasons[r].check(&c, out->msg[r], sizeof(out->msg[r]))) {
			out->msg[r][0] = '\0';
			continue;
		}
		out->degraded |= 1u << r;
		if (used < sizeof(out->line))
			used += (size_t)snprintf(out->line + used,
						 sizeof(out->line) - used,
						 "%s%s: %s", used ? "; " : "",
						 reasons[r].name, out->msg[r]);
	}
	if (!out->degraded)
		snprintf(out->line, sizeof(out->line), "ok");
}

void health_input_from_snapshot(const struct stats_snapshot *s,
				struct health_input *in)
{
	memset(in, 0, sizeof(*in));
	in->now_ns = s->now_mono_ns;
	in->n_workers = s->n_workers < HEALTH_MAX_WORKERS ? s->n_workers
							  : HEALTH_MAX_WORKERS;
	for (uint32_t i = 0; i < in->n_workers; i++)
		in->heartbeat[i] = s->workers[i].loops;
	for (int p = 0; p < HEALTH_PORTS && p < GW_PORTS; p++) {
		const struct snap_port *sp = &s->ports[p];
		const uint64_t *v = sp->s.verdicts;

		snprintf(in->port[p].name, sizeof(in->port[p].name), "%.15s",
			 sp->ifname);
		in->port[p].link_up = sp->link_up;
		in->port[p].gone = sp->gone;
		in->port[p].fail_closed =
			s->failure_mode && strstr(s->failure_mode, "closed");
		in->port[p].failure_path =
			v[STEER_V_FAILOPEN] + v[STEER_V_FAILOPEN_ERR] +
			v[STEER_V_FAILCLOSED] + v[STEER_V_QUEUE_RANGE];
		/* frames on RX queues beyond the configured ones (the XDP
		 * program counts them apart: steer_abi.h, nosock) */
		in->port[p].no_socket = sp->s.rx_no_socket;
		in->port[p].queues_without_socket = sp->s.queues_without_socket;
		in->port[p].starved = sp->s.rx_starved;
		in->port[p].starve_kicks = sp->s.rx_starve_kicks;
	}
	in->reload_ok = s->reload.last_successful;
	in->reload_error = s->reload.last_error;
}
