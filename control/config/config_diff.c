// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_diff.c - everything declared in config_diff.h: a field-by-field
 * comparison of two struct xdplane_config, naming each difference by its
 * YAML key. Every field of struct xdplane_config and struct qos_policy
 * (struct qos_dcqcn and struct dcqcn_params included) is compared here or
 * named as ignored; tests/unit/test_config_diff_fields.c mutates
 * each one and fails, with "update config_diff", when the structs grow.
 *
 * Owns nothing; reads its arguments only, within their arrays.
 */
#include "config_diff.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define COLD true
#define HOT false

__attribute__((format(printf, 3, 4))) static void
add(struct config_diff *d, bool cold, const char *fmt, ...)
{
	struct config_change *ch;
	va_list ap;

	if (d->n == CONFIG_DIFF_MAX) {
		d->truncated = true;
		return;
	}
	ch = &d->ch[d->n++];
	va_start(ap, fmt);
	vsnprintf(ch->key, sizeof(ch->key), fmt, ap);
	va_end(ap);
	ch->cold = cold;
	d->n_cold += cold;
}

/* Fixed-size string fields, NUL or not. */
static bool str_differ(const char *a, const char *b, size_t size)
{
	return strncmp(a, b, size) != 0;
}

static uint32_t clamp(uint32_t n, uint32_t max)
{
	return n < max ? n : max;
}

static bool cpus_differ(const struct xdplane_config *a,
			const struct xdplane_config *b)
{
	uint32_t n = clamp(a->n_cpus, CONFIG_MAX_CPUS);

	if (a->n_cpus != b->n_cpus)
		return true;
	return memcmp(a->cpus, b->cpus, n * sizeof(a->cpus[0])) != 0;
}

static bool listen_differs(const struct config_control *a,
			   const struct config_control *b)
{
	size_t len = a->metrics_addrlen;

	if (len > sizeof(a->metrics_addr))
		len = sizeof(a->metrics_addr);
	return str_differ(a->metrics_listen, b->metrics_listen,
			  sizeof(a->metrics_listen)) ||
	       a->metrics_addrlen != b->metrics_addrlen ||
	       memcmp(&a->metrics_addr, &b->metrics_addr, len);
}

static void diff_dcqcn_classes(const struct qos_policy *a,
			       const struct qos_policy *b,
			       struct config_diff *d);

/* Everything that needs a restart, in file order: at most 29 keys, the
 * DCQCN classes (at most 2 * QOS_MAX_CLASSES) and dcqcn.max_flows. */
static void diff_cold(const struct xdplane_config *a,
		      const struct xdplane_config *b, struct config_diff *d)
{
	const struct config_control *ca = &a->control, *cb = &b->control;

#define COLD_IF(cond, key)                                                     \
	do {                                                                   \
		if (cond)                                                      \
			add(d, COLD, "%s", key);                               \
	} while (0)
#define COLD_FIELD(field) COLD_IF(a->field != b->field, #field)

	for (unsigned int i = 0; i < CONFIG_PORTS; i++)
		if (str_differ(a->ports[i].interface, b->ports[i].interface,
			       sizeof(a->ports[i].interface)))
			add(d, COLD, "ports[%u].interface", i);
	for (unsigned int i = 0; i < CONFIG_PORTS; i++)
		COLD_IF(a->ports[i].mtu != b->ports[i].mtu,
			i ? "ports[1].mtu" : "ports[0].mtu");
	for (unsigned int i = 0; i < CONFIG_PORTS; i++)
		COLD_IF(a->ports[i].checksum != b->ports[i].checksum,
			i ? "ports[1].checksum" : "ports[0].checksum");
	COLD_IF(a->port_wait_ms != b->port_wait_ms, "port_wait");
	COLD_FIELD(queues);
	COLD_FIELD(queues_set_channels);
	COLD_FIELD(xdp_mode);
	COLD_FIELD(bind_mode);
	COLD_FIELD(failure_mode);
	COLD_FIELD(rings.fill);
	COLD_FIELD(rings.completion);
	COLD_FIELD(rings.rx);
	COLD_FIELD(rings.tx);
	COLD_FIELD(rings.handoff);
	COLD_IF(a->umem.frames != b->umem.frames ||
			a->umem.frames_auto != b->umem.frames_auto,
		"umem.frames");
	COLD_FIELD(umem.frame_size);
	COLD_FIELD(umem.headroom);
	COLD_FIELD(umem.hugepages);
	COLD_FIELD(poll.busy_us);
	COLD_FIELD(poll.coalesce_us);
	COLD_FIELD(poll.shaper_spin_us);
	COLD_IF(a->poll.shaper_wait_spin != b->poll.shaper_wait_spin,
		"poll.shaper_wait");
	COLD_FIELD(poll.batch);
	COLD_IF(cpus_differ(a, b), "workers.cpus");
	diff_dcqcn_classes(&a->qos, &b->qos, d);
	COLD_IF(a->qos.dcqcn.max_flows != b->qos.dcqcn.max_flows,
		"dcqcn.max_flows");
	COLD_IF(str_differ(ca->socket, cb->socket, sizeof(ca->socket)),
		"control.socket");
	COLD_IF(str_differ(ca->socket_group, cb->socket_group,
			   sizeof(ca->socket_group)),
		"control.socket_group");
	COLD_IF(str_differ(ca->readonly_group, cb->readonly_group,
			   sizeof(ca->readonly_group)),
		"control.readonly_group");
	COLD_IF(listen_differs(ca, cb), "control.metrics_listen");
	COLD_FIELD(control.stats_interval_ms);
	COLD_FIELD(jobs.max_registered);
	COLD_FIELD(jobs.max_passive);
	COLD_FIELD(jobs.max_hosts);
	COLD_FIELD(jobs.max_edges);
	COLD_IF(str_differ(a->user, b->user, sizeof(a->user)), "user");
	COLD_IF(str_differ(a->group, b->group, sizeof(a->group)), "group");
#undef COLD_FIELD
#undef COLD_IF
}

static int name_len(const char *name)
{
	return (int)strnlen(name, QOS_NAME_MAX);
}

/* The index of the class called name in q, or -1. */
static int find_class(const struct qos_policy *q, const char *name)
{
	uint32_t n = clamp(q->n_classes, QOS_MAX_CLASSES);

	for (uint32_t i = 0; i < n; i++)
		if (!str_differ(q->classes[i].name, name, QOS_NAME_MAX))
			return (int)i;
	return -1;
}

/* The name of class id in q, or NULL if there is no such class. */
static const char *class_name(const struct qos_policy *q, uint32_t id)
{
	return id < clamp(q->n_classes, QOS_MAX_CLASSES) ? q->classes[id].name
							 : NULL;
}

static bool same_class(const struct qos_policy *qa, uint32_t a,
		       const struct qos_policy *qb, uint32_t b)
{
	const char *na = class_name(qa, a), *nb = class_name(qb, b);

	if (!na || !nb)
		return !na && !nb && a == b;
	return !str_differ(na, nb, QOS_NAME_MAX);
}

/* The keys of one class that differ; name is its name in both. */
static void diff_class(const struct qos_class *a, const struct qos_class *b,
		       struct config_diff *d)
{
	int len = name_len(a->name);

#define CLASS_IF(cond, key)                                                    \
	do {                                                                   \
		if (cond)                                                      \
			add(d, HOT, "classes.%.*s." key, len, a->name);        \
	} while (0)
#define CLASS_FIELD(field) CLASS_IF(a->field != b->field, #field)

	CLASS_FIELD(level);
	CLASS_FIELD(quantum);
	CLASS_IF(a->ceil_bps != b->ceil_bps || a->ceil_share != b->ceil_share,
		 "ceil");
	CLASS_FIELD(ceil_burst);
	CLASS_IF(a->min_bps != b->min_bps || a->min_share != b->min_share,
		 "min");
	CLASS_FIELD(min_burst);
	CLASS_FIELD(limit_bytes);
	CLASS_FIELD(limit_packets);
	CLASS_FIELD(lossless);
	CLASS_IF(a->has_pcp != b->has_pcp || a->pcp != b->pcp, "pcp");
	CLASS_IF(a->has_set_dscp != b->has_set_dscp ||
			 a->set_dscp != b->set_dscp,
		 "set_dscp");
	CLASS_IF(a->has_set_pcp != b->has_set_pcp || a->set_pcp != b->set_pcp,
		 "set_pcp");
	if (a->ecn.enabled != b->ecn.enabled) {
		CLASS_IF(true, "ecn");
	} else if (a->ecn.enabled) {
		CLASS_FIELD(ecn.kmin);
		CLASS_FIELD(ecn.kmax);
		CLASS_FIELD(ecn.pmax);
		CLASS_IF(a->ecn.nonect != b->ecn.nonect, "ecn.non_ect");
	}
#undef CLASS_FIELD
#undef CLASS_IF
}

/* Classes in both whose place changed: those off a longest subsequence
 * that keeps the running order (n <= 8: quadratic is plenty). */
static void diff_class_order(const struct qos_policy *a,
			     const struct qos_policy *b, struct config_diff *d)
{
	uint32_t nb = clamp(b->n_classes, QOS_MAX_CLASSES), n = 0, best = 0;
	int at_a[QOS_MAX_CLASSES], at_b[QOS_MAX_CLASSES];
	int len[QOS_MAX_CLASSES], prev[QOS_MAX_CLASSES];
	bool keep[QOS_MAX_CLASSES] = {false};
	int i;

	for (uint32_t j = 0; j < nb; j++) {
		i = find_class(a, b->classes[j].name);
		if (i < 0 || find_class(b, b->classes[j].name) != (int)j)
			continue; /* added, or a repeated name */
		at_a[n] = i;
		at_b[n] = (int)j;
		len[n] = 1;
		prev[n] = -1;
		for (uint32_t k = 0; k < n; k++)
			if (at_a[k] < at_a[n] && len[k] + 1 > len[n]) {
				len[n] = len[k] + 1;
				prev[n] = (int)k;
			}
		if (len[n] >= len[best])
			best = n;
		n++;
	}
	if (!n)
		return;
	for (i = (int)best; i >= 0; i = prev[i])
		keep[i] = true;
	for (uint32_t k = 0; k < n; k++)
		if (!keep[k])
			add(d, HOT, "classes.%.*s (moved)",
			    name_len(b->classes[at_b[k]].name),
			    b->classes[at_b[k]].name);
}

/* The DCQCN classes' flow tables are allocated at start: switching dcqcn
 * on or off in a class, and adding or removing (so also renaming) a class
 * that has it on, are cold. The class key stands for all of it:
 * "classes.roce.dcqcn", "classes.roce (added)", "classes.roce (removed)". */
static void diff_dcqcn_classes(const struct qos_policy *a,
			       const struct qos_policy *b,
			       struct config_diff *d)
{
	uint32_t na = clamp(a->n_classes, QOS_MAX_CLASSES);
	uint32_t nb = clamp(b->n_classes, QOS_MAX_CLASSES);
	const struct qos_class *ca, *cb;
	int j;

	for (uint32_t i = 0; i < na; i++) {
		ca = &a->classes[i];
		j = find_class(b, ca->name);
		if (j < 0 && ca->dcqcn)
			add(d, COLD, "classes.%.*s (removed)",
			    name_len(ca->name), ca->name);
		else if (j >= 0 && ca->dcqcn != b->classes[j].dcqcn)
			add(d, COLD, "classes.%.*s.dcqcn", name_len(ca->name),
			    ca->name);
	}
	for (uint32_t i = 0; i < nb; i++) {
		cb = &b->classes[i];
		if (cb->dcqcn && find_class(a, cb->name) < 0)
			add(d, COLD, "classes.%.*s (added)", name_len(cb->name),
			    cb->name);
	}
}

/* The rest of the classes (hot): diff_dcqcn_classes() has reported the
 * DCQCN classes added or removed and dcqcn switched on or off. */
static void diff_classes(const struct qos_policy *a, const struct qos_policy *b,
			 struct config_diff *d)
{
	uint32_t na = clamp(a->n_classes, QOS_MAX_CLASSES);
	uint32_t nb = clamp(b->n_classes, QOS_MAX_CLASSES);
	const struct qos_class *ca, *cb;
	int j;

	for (uint32_t i = 0; i < na; i++) {
		ca = &a->classes[i];
		j = find_class(b, ca->name);
		if (j >= 0)
			diff_class(ca, &b->classes[j], d);
		else if (!ca->dcqcn)
			add(d, HOT, "classes.%.*s (removed)",
			    name_len(ca->name), ca->name);
	}
	for (uint32_t i = 0; i < nb; i++) {
		cb = &b->classes[i];
		if (!cb->dcqcn && find_class(a, cb->name) < 0)
			add(d, HOT, "classes.%.*s (added)", name_len(cb->name),
			    cb->name);
	}
	diff_class_order(a, b, d);
}

/* Doubles compare as stored, bit for bit (a NaN equals itself). */
static bool real_differs(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) != 0;
}

/* The dcqcn mapping, but max_flows (cold), in file order. */
static void diff_dcqcn(const struct qos_dcqcn *a, const struct qos_dcqcn *b,
		       struct config_diff *d)
{
	const struct dcqcn_params *pa = &a->par, *pb = &b->par;

#define DCQCN_IF(cond, key)                                                    \
	do {                                                                   \
		if (cond)                                                      \
			add(d, HOT, "dcqcn." key);                             \
	} while (0)
#define DCQCN_PAR(field, key) DCQCN_IF(pa->field != pb->field, key)
#define DCQCN_REAL(field, key) DCQCN_IF(real_differs(pa->field, pb->field), key)

	DCQCN_PAR(profile, "profile");
	DCQCN_REAL(line_bps, "line_rate");
	DCQCN_REAL(min_bps, "min_rate");
	DCQCN_REAL(ai_bps, "rate_ai");
	DCQCN_REAL(hai_bps, "rate_hai");
	DCQCN_REAL(g, "g");
	DCQCN_REAL(alpha_init, "alpha_init");
	DCQCN_PAR(alpha_ns, "alpha_timer");
	DCQCN_PAR(inc_ns, "increase_timer");
	DCQCN_PAR(dec_ns, "decrease_period");
	DCQCN_PAR(byte_counter, "byte_counter");
	DCQCN_PAR(f, "fast_recovery");
	DCQCN_REAL(min_dec_factor, "min_decrease");
	DCQCN_IF(pa->clamp_always != pb->clamp_always ||
			 pa->clamp_after_inc != pb->clamp_after_inc,
		 "clamp");
	DCQCN_REAL(first_cnp_bps, "first_cnp_rate");
	DCQCN_PAR(alpha_before_cut, "alpha_before_cut");
	DCQCN_PAR(np_interval_ns, "cnp_interval");
	DCQCN_IF(a->key != b->key, "flow_key");
	DCQCN_IF(a->flow_idle_ns != b->flow_idle_ns, "flow_idle");
	DCQCN_IF(a->cnp_action != b->cnp_action, "cnp");
	DCQCN_IF(a->cp_loop != b->cp_loop, "cp_loop");
	DCQCN_IF(a->np != b->np, "np.enabled");
	DCQCN_IF(a->np_dscp != b->np_dscp, "np.dscp");
	DCQCN_IF(a->np_pcp != b->np_pcp, "np.pcp");
#undef DCQCN_REAL
#undef DCQCN_PAR
#undef DCQCN_IF
}

static bool prefixes_differ(const struct qos_prefix *a,
			    const struct qos_prefix *b)
{
	return a->family != b->family || a->len != b->len ||
	       memcmp(a->addr, b->addr, sizeof(a->addr));
}

static bool rules_differ(const struct qos_policy *qa, const struct qos_rule *a,
			 const struct qos_policy *qb, const struct qos_rule *b)
{
	return a->fields != b->fields || a->ethertype != b->ethertype ||
	       a->vlan_id != b->vlan_id || a->pcp_mask != b->pcp_mask ||
	       a->proto != b->proto || a->ecn_mask != b->ecn_mask ||
	       a->bth_opcode != b->bth_opcode || a->dscp_mask != b->dscp_mask ||
	       prefixes_differ(&a->src, &b->src) ||
	       prefixes_differ(&a->dst, &b->dst) ||
	       a->sport_lo != b->sport_lo || a->sport_hi != b->sport_hi ||
	       a->dport_lo != b->dport_lo || a->dport_hi != b->dport_hi ||
	       !same_class(qa, a->class_id, qb, b->class_id);
}

static void diff_rules(const struct qos_policy *a, const struct qos_policy *b,
		       struct config_diff *d)
{
	uint32_t na = clamp(a->n_rules, QOS_MAX_RULES);
	uint32_t nb = clamp(b->n_rules, QOS_MAX_RULES);

	for (uint32_t i = 0; i < na || i < nb; i++) {
		if (i >= nb)
			add(d, HOT, "rules[%u] (removed)", i);
		else if (i >= na)
			add(d, HOT, "rules[%u] (added)", i);
		else if (rules_differ(a, &a->rules[i], b, &b->rules[i]))
			add(d, HOT, "rules[%u]", i);
	}
}

/* The pfc mapping (hot: the egress tasks take it at the switch). */
static void diff_pfc(const struct qos_pfc *a, const struct qos_pfc *b,
		     struct config_diff *d)
{
	if (a->enabled != b->enabled)
		add(d, HOT, "pfc.enabled");
	if (a->xoff != b->xoff)
		add(d, HOT, "pfc.xoff");
	if (a->xon != b->xon)
		add(d, HOT, "pfc.xon");
	if (a->cable_m != b->cable_m)
		add(d, HOT, "pfc.cable_length");
	if (a->quanta != b->quanta)
		add(d, HOT, "pfc.pause_quanta");
	if (a->watchdog_ns != b->watchdog_ns)
		add(d, HOT, "pfc.watchdog");
	if (a->restore_ns != b->restore_ns)
		add(d, HOT, "pfc.watchdog_restore");
}

static bool same_adaptive(const struct qos_adaptive *a,
			  const struct qos_adaptive *b)
{
	return a->on == b->on && a->target_ns == b->target_ns &&
	       a->floor_bps == b->floor_bps && a->probe_gain == b->probe_gain;
}

/* Everything applied live, in file order. */
static void diff_hot(const struct xdplane_config *a,
		     const struct xdplane_config *b, struct config_diff *d)
{
	const struct qos_policy *qa = &a->qos, *qb = &b->qos;
	bool overhead = false;

	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		if (qa->port[i].rate_bps != qb->port[i].rate_bps)
			add(d, HOT, "ports[%u].rate", i);
		if (qa->port[i].burst != qb->port[i].burst)
			add(d, HOT, "ports[%u].burst", i);
		if (qa->port[i].link_bps != qb->port[i].link_bps)
			add(d, HOT, "ports[%u].link_speed", i);
		if (!same_adaptive(&qa->port[i].adaptive,
				   &qb->port[i].adaptive))
			add(d, HOT, "ports[%u].adaptive", i);
		overhead |= qa->port[i].overhead != qb->port[i].overhead;
	}
	if (overhead)
		add(d, HOT, "overhead");
	diff_classes(qa, qb, d);
	diff_rules(qa, qb, d);
	if (!same_class(qa, qa->default_class, qb, qb->default_class))
		add(d, HOT, "default_class");
	if (qa->malformed != qb->malformed)
		add(d, HOT, "malformed");
	diff_dcqcn(&qa->dcqcn, &qb->dcqcn, d);
	diff_pfc(&qa->pfc, &qb->pfc, d);
	if (a->jobs.mode != b->jobs.mode)
		add(d, HOT, "jobs.mode");
	if (a->jobs.idle_ns != b->jobs.idle_ns)
		add(d, HOT, "jobs.idle");
	if (a->log_level != b->log_level)
		add(d, HOT, "log_level");
}

void config_diff(const struct xdplane_config *running,
		 const struct xdplane_config *next, struct config_diff *d)
{
	d->n = 0;
	d->n_cold = 0;
	d->truncated = false;
	diff_cold(running, next, d);
	diff_hot(running, next, d);
}

/* snprintf()'s contract over several pieces: *total counts them all. */
static void append(char *buf, size_t len, size_t *total, const char *sep,
		   const char *key)
{
	size_t at = *total < len ? *total : len;
	int w = snprintf(buf ? buf + at : NULL, len - at, "%s%.*s", sep,
			 CONFIG_DIFF_KEY_MAX, key);

	if (w > 0)
		*total += (size_t)w;
}

int config_diff_format(const struct config_diff *d, bool cold_only, char *buf,
		       size_t len)
{
	uint32_t n = clamp(d->n, CONFIG_DIFF_MAX);
	size_t total = 0;

	if (len)
		buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		if (!cold_only || d->ch[i].cold)
			append(buf, len, &total, total ? ", " : "",
			       d->ch[i].key);
	if (!cold_only && d->truncated)
		append(buf, len, &total, total ? ", " : "", "...");
	return total > INT32_MAX ? INT32_MAX : (int)total;
}

int config_reload_check(const struct config_diff *d, char *err, size_t len)
{
	int w;

	if (!d->n_cold) {
		if (len)
			err[0] = '\0';
		return 0;
	}
	w = snprintf(err, len, "restart required: ");
	if (w > 0 && (size_t)w < len)
		config_diff_format(d, true, err + w, len - (size_t)w);
	return -1;
}
