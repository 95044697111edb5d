// SPDX-License-Identifier: BSD-2-Clause
/*
 * ctl_json.c - JSON views of a stats snapshot; see ctl_json.h for the
 * shapes and invariants.
 *
 * Every builder puts its members with put(), which reports a failed
 * allocation; a view that could not be built completely is dropped and
 * NULL returned, never a partial object. Text from the snapshot goes
 * through ctl_json_text() (bounded, valid UTF-8), numbers through u64() and real().
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ctl_json.h"
#include "gw_counters.h"
#include "prefix.h"

#define TEXT_MAX 512 /* bound for the snapshot's pointer-held strings */

/* Set o[key] = v, taking v's reference; -1 if v is NULL or o cannot grow. */
static int put(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -1;
	return json_object_set_new(o, key, v) ? -1 : 0;
}

static int append(json_t *a, json_t *v)
{
	if (!v)
		return -1;
	return json_array_append_new(a, v) ? -1 : 0;
}

/* Drop o if building it failed. */
static json_t *finish(json_t *o, int err)
{
	if (err && o) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* -1 (unknown / not pinned) is null. */
static json_t *index_or_null(int v)
{
	return v < 0 ? json_null() : json_integer(v);
}

json_t *ctl_json_text(const char *s, size_t max)
{
	char buf[TEXT_MAX];
	size_t n;
	json_t *j;

	if (!s)
		return json_null();
	n = strnlen(s, max);
	j = json_stringn(s, n);
	if (j)
		return j;
	if (n > sizeof(buf))
		n = sizeof(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	return json_stringn(buf, n);
}

/* Row c of stats: an integer, an array by index or an object by element
 * name, as its dim says (gw_counters.h). */
static json_t *counter_json(const struct gw_counter *c, const void *stats)
{
	const struct gw_dim_info *d = gw_dim_info(c->dim);
	json_t *o;
	int err;

	if (c->shape == GW_SHAPE_VALUE)
		return u64(gw_counter_get(c, stats, 0));
	o = c->shape == GW_SHAPE_ARRAY ? json_array() : json_object();
	err = !o;
	for (uint32_t i = d->first; !err && i < d->n; i++)
		err |= c->shape == GW_SHAPE_ARRAY
			       ? append(o, u64(gw_counter_get(c, stats, i)))
			       : put(o, d->name(i),
				     u64(gw_counter_get(c, stats, i)));
	return finish(o, err);
}

/* The rows tab[0..n) of stats into o, each under its group ("": o
 * itself), in the schema's order; a queue object (queue) has no PORT
 * rows. */
static int put_counters(json_t *o, const struct gw_counter *tab, size_t n,
			const void *stats, bool queue)
{
	json_t *dst;
	int err = 0;

	for (size_t k = 0; k < n && !err; k++) {
		const struct gw_counter *c = &tab[k];

		if (queue && c->scope == GW_SCOPE_PORT_ONLY)
			continue;
		dst = o;
		if (c->group[0]) {
			dst = json_object_get(o, c->group);
			if (!dst) {
				dst = json_object();
				err |= put(o, c->group, dst);
				if (err)
					break;
			}
		}
		err |= put(dst, c->key, counter_json(c, stats));
	}
	return err;
}

static json_t *queue_json(const struct snap_queue *q)
{
	json_t *o = json_object();
	int err = !o;

	if (err)
		return NULL;
	err |= put(o, "queue", json_integer(q->queue));
	err |= put(o, "worker", index_or_null(q->worker));
	err |= put(o, "cpu", index_or_null(q->cpu));
	err |= put_counters(o, gw_port_counters, gw_n_port_counters, &q->s,
			    true);
	return finish(o, err);
}

static json_t *class_json(const struct snap_class *c)
{
	json_t *o = json_object();
	int err = !o;

	if (err)
		return NULL;
	err |= put(o, "name", ctl_json_text(c->name, sizeof(c->name)));
	err |= put(o, "level", json_integer(c->level));
	err |= put(o, "quantum", json_integer(c->quantum));
	err |= put(o, "ceil_bps", u64(c->ceil_bps));
	err |= put(o, "min_bps", u64(c->min_bps));
	err |= put(o, "limit_bytes", json_integer(c->limit_bytes));
	err |= put(o, "limit_packets", json_integer(c->limit_packets));
	err |= put(o, "ecn", json_boolean(c->ecn));
	err |= put(o, "lossless", json_boolean(c->lossless));
	err |= put(o, "pcp", index_or_null(c->pcp));
	err |= put(o, "set_dscp", index_or_null(c->set_dscp));
	err |= put(o, "set_pcp", index_or_null(c->set_pcp));
	if (!err)
		err |= put_counters(o, gw_class_counters, gw_n_class_counters,
				    &c->s, false);
	return finish(o, err);
}

static uint32_t n_queues(const struct snap_port *p)
{
	return p->n_queues < GW_MAX_QUEUES ? p->n_queues : GW_MAX_QUEUES;
}

static uint32_t n_classes(const struct snap_port *p)
{
	return p->n_classes < QOS_MAX_CLASSES ? p->n_classes : QOS_MAX_CLASSES;
}

static json_t *classes_array(const struct snap_port *p)
{
	json_t *a = json_array();
	int err = !a;

	for (uint32_t k = 0; !err && k < n_classes(p); k++)
		err |= append(a, class_json(&p->cls[k]));
	return finish(a, err);
}

/* ports[].adaptive: per queue the controller's state, rate, the path it
 * measures and its last decisions (oldest first; t_ns on the monotonic
 * clock, age_ms before the snapshot's view was published). */
static json_t *adaptive_json(const struct snap_port *p)
{
	json_t *o = json_object(), *qs = json_array();
	int err = !o || !qs;

	for (uint32_t i = 0; !err && i < n_queues(p); i++) {
		const struct adaptive_view *v = &p->q[i].adaptive;
		json_t *q = json_object(), *h = json_array();
		uint64_t n = v->n_hist, first;

		err |= !q || !h;
		if (err) {
			json_decref(q);
			json_decref(h);
			break;
		}
		first = n > EDGE_RATE_HISTORY ? n - EDGE_RATE_HISTORY : 0;
		for (uint64_t k = first; !err && k < n; k++) {
			const struct adaptive_decision *d =
				&v->hist[k % EDGE_RATE_HISTORY];
			json_t *e = json_object();

			err |= !e;
			if (err)
				break;
			err |= put(e, "t_ns", u64(d->t_ns));
			err |= put(e, "state",
				   json_string(edge_rate_state_name(
					   (int)d->state)));
			err |= put(e, "rate_bps", u64(d->rate_bps));
			err |= put(e, "delivery_bps", u64(d->delivery_bps));
			err |= put(e, "qdelay_ns", u64(d->qdelay_ns));
			err |= append(h, finish(e, err));
		}
		err |= put(q, "queue", json_integer(p->q[i].queue));
		err |= put(q, "state",
			   json_string(edge_rate_state_name(
				   v->on ? (int)v->state : EDGE_NO_SAMPLES)));
		err |= put(q, "rate_bps", u64(v->rate_bps));
		err |= put(q, "max_bps", u64(v->max_bps));
		err |= put(q, "floor_bps", u64(v->floor_bps));
		err |= put(q, "target_ns", u64(v->target_ns));
		err |= put(q, "base_rtt_ns", u64(v->base_rtt_ns));
		err |= put(q, "srtt_ns", u64(v->srtt_ns));
		err |= put(q, "qdelay_ns", u64(v->qdelay_ns));
		err |= put(q, "delivery_bps", u64(v->delivery_bps));
		err |= put(q, "delivery_last_bps", u64(v->delivery_last_bps));
		err |= put(q, "marked_ppm", u64(v->mark_ppm));
		err |= put(q, "samples_recent", u64(v->samples_recent));
		err |= put(q, "flows", u64(v->flows));
		err |= put(q, "decisions", h);
		err |= append(qs, finish(q, err));
	}
	if (err) {
		json_decref(o);
		json_decref(qs);
		return NULL;
	}
	err |= put(
		o, "mode",
		json_string(n_queues(p) && p->q[0].adaptive.on ? "on" : "off"));
	err |= put(o, "queues", qs);
	return finish(o, err);
}

json_t *ctl_json_port(const struct snap_port *p)
{
	json_t *o = json_object(), *qs = json_array(), *ad;
	int err = !o || !qs;

	for (uint32_t i = 0; !err && i < n_queues(p); i++)
		err |= append(qs, queue_json(&p->q[i]));
	if (err) {
		json_decref(o);
		json_decref(qs);
		return NULL;
	}
	err |= put(o, "name", ctl_json_text(p->ifname, sizeof(p->ifname)));
	err |= put(o, "rate_bps", u64(p->rate_bps));
	err |= put(o, "mtu", json_integer(p->mtu));
	err |= put_counters(o, gw_port_counters, gw_n_port_counters, &p->s,
			    false);
	err |= put(o, "queues", qs);
	/* the adaptive counters' group gets the controllers' view too */
	ad = adaptive_json(p);
	if (ad && json_is_object(json_object_get(o, "adaptive"))) {
		err |= json_object_update(json_object_get(o, "adaptive"), ad);
		json_decref(ad);
	} else {
		err |= put(o, "adaptive", ad);
	}
	err |= put(o, "classes", classes_array(p));
	return finish(o, err);
}

static bool port_named(const struct snap_port *p, const char *name)
{
	size_t n = strnlen(p->ifname, sizeof(p->ifname));

	return strlen(name) == n && !memcmp(p->ifname, name, n);
}

json_t *ctl_json_stats(const struct stats_snapshot *s, const char *port_filter)
{
	json_t *o = json_object(), *ports = json_array();
	int err = !o || !ports;

	for (int i = 0; !err && i < GW_PORTS; i++)
		if (!port_filter || port_named(&s->ports[i], port_filter))
			err |= append(ports, ctl_json_port(&s->ports[i]));
	if (err) {
		json_decref(o);
		json_decref(ports);
		return NULL;
	}
	err |= put(o, "now_unix", real(s->now_unix));
	err |= put(o, "now_mono_ns", u64(s->now_mono_ns));
	err |= put(o, "uptime_s", real(s->uptime_s));
	err |= put(o, "max_frame", json_integer(s->max_frame));
	err |= put(o, "multibuf", json_boolean(s->multibuf));
	err |= put(o, "max_frags", json_integer(s->max_frags));
	err |= put(o, "ports", ports);
	return finish(o, err);
}

json_t *ctl_json_classes(const struct stats_snapshot *s)
{
	json_t *o = json_object(), *ports = json_array(), *p;
	int err = !o || !ports;

	for (int i = 0; !err && i < GW_PORTS; i++) {
		p = json_object();
		err |= !p;
		if (err)
			break;
		err |= put(p, "name",
			   ctl_json_text(s->ports[i].ifname,
					 sizeof(s->ports[i].ifname)));
		err |= put(p, "rate_bps", u64(s->ports[i].rate_bps));
		err |= put(p, "classes", classes_array(&s->ports[i]));
		err |= append(ports, finish(p, err));
	}
	if (err) {
		json_decref(o);
		json_decref(ports);
		return NULL;
	}
	err |= put(o, "ports", ports);
	return finish(o, err);
}

static json_t *reload_json(const struct snap_reload *r)
{
	json_t *o = json_object();
	int err = !o;

	if (err)
		return NULL;
	err |= put(o, "attempts_total", u64(r->attempts_total));
	err |= put(o, "failures_total", u64(r->failures_total));
	err |= put(o, "last_successful", json_boolean(r->last_successful));
	err |= put(o, "last_success_unix", real(r->last_success_unix));
	err |= put(o, "last_attempt_unix",
		   r->last_attempt_unix != 0 ? real(r->last_attempt_unix)
					     : json_null());
	err |= put(o, "last_error",
		   r->last_error[0]
			   ? ctl_json_text(r->last_error, sizeof(r->last_error))
			   : json_null());
	return finish(o, err);
}

static json_t *config_json(const struct stats_snapshot *s)
{
	json_t *o = json_object();
	int err = !o;

	if (err)
		return NULL;
	err |= put(o, "path",
		   ctl_json_text(s->config_path, sizeof(s->config_path)));
	err |= put(o, "generation", u64(s->reload.generation));
	err |= put(o, "reload", reload_json(&s->reload));
	return finish(o, err);
}

/* The rate each queue's shaper runs at now (bit/s; 0: unshaped). */
static json_t *queue_rates(const struct snap_port *sp)
{
	json_t *a = json_array();
	int err = !a;

	for (uint32_t q = 0; !err && q < n_queues(sp); q++)
		err |= append(a, u64(sp->q[q].s.shaper_rate_bps));
	if (err) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* Per port: name, rate, queue and class counts, the queues' rates now;
 * placement of each queue. */
static int put_ports_and_placement(json_t *o, const struct stats_snapshot *s)
{
	json_t *ports = json_array(), *placement = json_array(), *p;
	int err = !ports || !placement;

	for (int i = 0; !err && i < GW_PORTS; i++) {
		const struct snap_port *sp = &s->ports[i];

		p = json_object();
		err |= !p;
		if (err)
			break;
		err |= put(p, "name",
			   ctl_json_text(sp->ifname, sizeof(sp->ifname)));
		err |= put(p, "rate_bps", u64(sp->rate_bps));
		err |= put(p, "mtu", json_integer(sp->mtu));
		err |= put(p, "queues", json_integer(n_queues(sp)));
		err |= put(p, "queue_rates_bps", queue_rates(sp));
		err |= put(p, "classes", json_integer(n_classes(sp)));
		err |= put(p, "adaptive", adaptive_json(sp));
		err |= append(ports, finish(p, err));
		for (uint32_t q = 0; !err && q < n_queues(sp); q++) {
			p = json_object();
			err |= !p;
			if (err)
				break;
			err |= put(
				p, "port",
				ctl_json_text(sp->ifname, sizeof(sp->ifname)));
			err |= put(p, "queue", json_integer(sp->q[q].queue));
			err |= put(p, "worker", index_or_null(sp->q[q].worker));
			err |= put(p, "cpu", index_or_null(sp->q[q].cpu));
			err |= append(placement, finish(p, err));
		}
	}
	if (err) {
		json_decref(ports);
		json_decref(placement);
		return -1;
	}
	err |= put(o, "ports", ports);
	err |= put(o, "placement", placement);
	return err;
}

json_t *ctl_json_status(const struct stats_snapshot *s, pid_t pid)
{
	json_t *o = json_object();
	int err = !o;

	if (err)
		return NULL;
	err |= put(o, "version", ctl_json_text(s->version, TEXT_MAX));
	err |= put(o, "pid", json_integer(pid));
	err |= put(o, "start_unix", real(s->start_unix));
	err |= put(o, "now_unix", real(s->now_unix));
	err |= put(o, "uptime_s", real(s->uptime_s));
	err |= put(o, "config", config_json(s));
	err |= put(o, "xdp_mode", ctl_json_text(s->xdp_mode, TEXT_MAX));
	err |= put(o, "bind_mode", ctl_json_text(s->bind_mode, TEXT_MAX));
	err |= put(o, "failure_mode", ctl_json_text(s->failure_mode, TEXT_MAX));
	err |= put(o, "workers", json_integer(s->n_workers));
	err |= put(o, "umem_frames", json_integer(s->umem_frames));
	err |= put(o, "max_frame", json_integer(s->max_frame));
	err |= put(o, "multibuf", json_boolean(s->multibuf));
	err |= put(o, "max_frags", json_integer(s->max_frags));
	err |= put(o, "queues", json_integer(s->queues));
	err |= put(o, "mem_node", index_or_null(s->mem_node));
	err |= put(o, "control_cpu", index_or_null(s->control_cpu));
	err |= put(o, "placement_why", ctl_json_text(s->placement, 1024));
	err |= put(o, "umem", ctl_json_text(s->umem, 256));
	if (!err)
		err |= put_ports_and_placement(o, s);
	return finish(o, err);
}

json_t *ctl_json_flow(const struct gw_flow *f, const char *port)
{
	char dst[INET6_ADDRSTRLEN] = "";
	json_t *o;

	if (f->v.key.family)
		inet_ntop(f->v.key.family == 6 ? AF_INET6 : AF_INET,
			  f->v.key.addr, dst, sizeof(dst));
	o = json_object();
	json_object_set_new(o, "port", json_string(port));
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
	return o;
}

json_t *ctl_json_census(const struct gw_census *c)
{
	return json_pack(
		"{s:I,s:I,s:I,s:I,s:I,s:I}", "total", (json_int_t)c->total,
		"found", (json_int_t)c->found, "driver", (json_int_t)c->driver,
		"missing", (json_int_t)c->missing, "doubles",
		(json_int_t)c->doubles, "strays", (json_int_t)c->strays);
}

json_t *ctl_json_final(const struct stats_snapshot *s)
{
	json_t *root = json_object(), *ports = json_array();

	if (s) {
		json_object_set_new(root, "xdp_mode", json_string(s->xdp_mode));
		json_object_set_new(root, "bind_mode",
				    json_string(s->bind_mode));
		json_object_set_new(
			root, "generation",
			json_integer((json_int_t)s->reload.generation));
		for (int p = 0; p < GW_PORTS; p++)
			json_array_append_new(ports,
					      ctl_json_port(&s->ports[p]));
	}
	json_object_set_new(root, "ports", ports);
	return root;
}

static json_t *job_json(const struct snap_job *j)
{
	char text[PREFIX_TEXT_MAX];
	json_t *pfx = json_array();
	bool reg = j->kind == JOB_REGISTERED;

	for (uint32_t i = 0; pfx && i < j->n_prefixes; i++) {
		prefix_text(&j->prefixes[i], text, sizeof(text));
		json_array_append_new(pfx, json_string(text));
	}
	return json_pack(
		"{s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:f,s:f,s:I}", "id",
		ctl_json_text(j->id, sizeof(j->id)), "source",
		reg ? "registered" : "passive", "prefixes", pfx, "dscp",
		j->dscp == JOB_DSCP_NONE ? json_null() : json_integer(j->dscp),
		"class",
		j->prio_class[0]
			? ctl_json_text(j->prio_class, sizeof(j->prio_class))
			: json_null(),
		"gpus", j->gpus ? json_integer(j->gpus) : json_null(), "hosts",
		reg ? json_null() : json_integer(j->hosts), "created_unix",
		j->created_unix, "last_seen_unix", j->last_unix, "flows_seen",
		(json_int_t)j->flows_seen);
}

#define JOB_CTR(name) #name, (json_int_t)ctr_read(&j->st.name)

json_t *ctl_json_jobs(const struct snap_jobs *j)
{
	json_t *jobs = json_array(), *ctr;

	for (uint32_t i = 0; jobs && i < j->n; i++)
		if (json_array_append_new(jobs, job_json(&j->job[i]))) {
			json_decref(jobs);
			return NULL;
		}
	ctr = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
			"s:I,s:I,s:I,s:I}",
			JOB_CTR(registered), JOB_CTR(updated),
			JOB_CTR(unregistered), JOB_CTR(refused),
			JOB_CTR(passive_created), JOB_CTR(passive_merged),
			JOB_CTR(passive_expired), JOB_CTR(hosts_expired),
			JOB_CTR(edges_expired), JOB_CTR(observed_registered),
			JOB_CTR(observed_passive), JOB_CTR(unmatched),
			JOB_CTR(full_registered), JOB_CTR(full_passive),
			JOB_CTR(full_hosts), JOB_CTR(full_edges));
	return json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o}", "mode",
			 j->mode ? j->mode : "observe", "max_registered",
			 (json_int_t)j->max_registered, "max_passive",
			 (json_int_t)j->max_passive, "registered",
			 (json_int_t)j->registered, "passive",
			 (json_int_t)j->passive, "hosts", (json_int_t)j->hosts,
			 "edges", (json_int_t)j->edges, "counters", ctr, "jobs",
			 jobs);
}
