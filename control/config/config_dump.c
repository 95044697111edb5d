// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_dump.c - config_dump(): the effective configuration, defaults
 * filled in, as YAML that config_load() reads back into the same struct
 * (rates, sizes, times and shares printed exactly by control/config/units.h,
 * gains and fractions as the shortest decimal their parser reads back the
 * same, strings single-quoted).
 */
#include "config_sections.h"
#include "edge_rate.h"
#include "pfc.h"
#include "prefix.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Single-quoted: only ' needs escaping (valid_ifname() keeps out the
 * control characters a quoted scalar cannot hold). */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', out);
		fputc(*s, out);
	}
	fputc('\'', out);
}

static void put_mask(FILE *out, const char *key, uint64_t mask)
{
	const char *sep = "";

	fprintf(out, "      %s: [", key);
	for (unsigned int b = 0; b < 64; b++)
		if (mask & (1ull << b)) {
			fprintf(out, "%s%u", sep, b);
			sep = ", ";
		}
	fputs("]\n", out);
}

static void put_range(FILE *out, const char *key, uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		fprintf(out, "      %s: %u\n", key, lo);
	else
		fprintf(out, "      %s: %u-%u\n", key, lo, hi);
}

/* A rate, or a share as a percentage; nothing if both are 0. */
static void put_rate(FILE *out, const char *key, uint64_t bps, uint32_t share)
{
	char text[32];

	if (bps)
		units_rate_text(text, sizeof(text), bps);
	else if (share)
		units_share_text(text, sizeof(text), share);
	else
		return;
	fprintf(out, "    %s: %s\n", key, text);
}

static void put_size(FILE *out, const char *indent, const char *key,
		     uint32_t bytes)
{
	char text[32];

	units_size_text(text, sizeof(text), bytes);
	fprintf(out, "%s%s: %s\n", indent, key, text);
}

static void dump_class(const struct qos_class *q, FILE *out)
{
	char text[32];

	fputs("  - name: ", out);
	put_quoted(out, q->name);
	fprintf(out, "\n    level: %u\n    quantum: %u\n", q->level,
		q->quantum);
	put_rate(out, "ceil", q->ceil_bps, q->ceil_share);
	put_size(out, "    ", "ceil_burst", q->ceil_burst);
	put_rate(out, "min", q->min_bps, q->min_share);
	put_size(out, "    ", "min_burst", q->min_burst);
	put_size(out, "    ", "limit_bytes", q->limit_bytes);
	fprintf(out, "    limit_packets: %u\n    dcqcn: %s\n", q->limit_packets,
		q->dcqcn ? "true" : "false");
	if (q->lossless)
		fputs("    lossless: true\n", out);
	if (q->has_pcp)
		fprintf(out, "    pcp: %u\n", q->pcp);
	if (q->has_set_dscp)
		fprintf(out, "    set_dscp: %u\n", q->set_dscp);
	if (q->has_set_pcp)
		fprintf(out, "    set_pcp: %u\n", q->set_pcp);
	if (!q->ecn.enabled)
		return;
	fputs("    ecn:\n", out);
	put_size(out, "      ", "kmin", q->ecn.kmin);
	put_size(out, "      ", "kmax", q->ecn.kmax);
	units_share_text(text, sizeof(text), q->ecn.pmax);
	fprintf(out, "      pmax: %s\n      non_ect: %s\n", text,
		cfg_name(cfg_nonect_modes, q->ecn.nonect));
}

static void dump_rule(const struct qos_rule *r, const struct qos_policy *q,
		      FILE *out)
{
	char text[PREFIX_TEXT_MAX];

	fputs("  - class: ", out);
	put_quoted(out, q->classes[r->class_id].name);
	fputs(r->fields ? "\n    match:\n" : "\n    match: {}\n", out);
	if (r->fields & QOS_M_ETHERTYPE)
		fprintf(out, "      ethertype: 0x%04x\n", r->ethertype);
	if (r->fields & QOS_M_VLAN)
		fprintf(out, "      vlan: %u\n", r->vlan_id);
	if (r->fields & QOS_M_PCP)
		put_mask(out, "pcp", r->pcp_mask);
	if (r->fields & QOS_M_SRC) {
		prefix_text(&r->src, text, sizeof(text));
		fprintf(out, "      src: '%s'\n", text);
	}
	if (r->fields & QOS_M_DST) {
		prefix_text(&r->dst, text, sizeof(text));
		fprintf(out, "      dst: '%s'\n", text);
	}
	if (r->fields & QOS_M_PROTO) {
		snprintf(text, sizeof(text), "%u", r->proto);
		for (const struct cfg_name *p = cfg_protos; p->str; p++)
			if (p->val == r->proto)
				snprintf(text, sizeof(text), "%s", p->str);
		fprintf(out, "      proto: %s\n", text);
	}
	if (r->fields & QOS_M_DSCP)
		put_mask(out, "dscp", r->dscp_mask);
	if (r->fields & QOS_M_ECN)
		put_mask(out, "ecn", r->ecn_mask);
	if (r->fields & QOS_M_SPORT)
		put_range(out, "sport", r->sport_lo, r->sport_hi);
	if (r->fields & QOS_M_DPORT)
		put_range(out, "dport", r->dport_lo, r->dport_hi);
	if (r->fields & QOS_M_BTH_OPCODE)
		fprintf(out, "      bth_opcode: 0x%02x\n", r->bth_opcode);
}

static uint64_t rate_of(double bps)
{
	return bps >= 0 && bps <= 1e13 ? (uint64_t)bps : 0;
}

static void put_dcqcn_rate(FILE *out, const char *key, double bps)
{
	char text[32];

	units_rate_text(text, sizeof(text), rate_of(bps));
	fprintf(out, "  %s: %s\n", key, text);
}

static void put_time(FILE *out, const char *indent, const char *key,
		     uint64_t ns)
{
	char text[32];

	units_time_text(text, sizeof(text), ns);
	fprintf(out, "%s%s: %s\n", indent, key, text);
}

/* A double as the shortest text its parser reads back the same. */
static void put_real(FILE *out, const char *key, double v, bool percent,
		     int (*parse)(const char *, double *))
{
	char text[64];

	if ((!percent ||
	     !units_real_text(text, sizeof(text), v, 100, "%", parse)) &&
	    !units_real_text(text, sizeof(text), v, 1, "", parse))
		snprintf(text, sizeof(text), "%.17g", v); /* not from a file */
	fprintf(out, "  %s: %s\n", key, text);
}

static const char *clamp_name(const struct dcqcn_params *p)
{
	if (p->clamp_always)
		return "always";
	return p->clamp_after_inc ? "after_increase" : "never";
}

static void dump_dcqcn(const struct qos_dcqcn *d, FILE *out)
{
	const struct dcqcn_params *p = &d->par;
	char text[32];

	fprintf(out, "dcqcn:\n  profile: %s\n",
		cfg_name(cfg_dcqcn_profiles, p->profile));
	if (p->line_bps > 0)
		put_dcqcn_rate(out, "line_rate", p->line_bps);
	else
		fputs("  line_rate: ''\n", out);
	put_dcqcn_rate(out, "min_rate", p->min_bps);
	put_dcqcn_rate(out, "rate_ai", p->ai_bps);
	put_dcqcn_rate(out, "rate_hai", p->hai_bps);
	put_real(out, "g", p->g, false, cfg_parse_gain);
	put_real(out, "alpha_init", p->alpha_init, false, cfg_parse_gain);
	put_time(out, "  ", "alpha_timer", p->alpha_ns);
	put_time(out, "  ", "increase_timer", p->inc_ns);
	put_time(out, "  ", "decrease_period", p->dec_ns);
	if (p->byte_counter <= UINT32_MAX)
		units_size_text(text, sizeof(text), p->byte_counter);
	else
		snprintf(text, sizeof(text), "%" PRIu64, p->byte_counter);
	fprintf(out, "  byte_counter: %s\n  fast_recovery: %u\n", text, p->f);
	put_real(out, "min_decrease", p->min_dec_factor, true,
		 cfg_parse_decrease);
	fprintf(out, "  clamp: %s\n", clamp_name(p));
	if (p->first_cnp_bps > 0)
		put_dcqcn_rate(out, "first_cnp_rate", p->first_cnp_bps);
	else
		fputs("  first_cnp_rate: ''\n", out);
	fprintf(out, "  alpha_before_cut: %s\n",
		p->alpha_before_cut ? "true" : "false");
	put_time(out, "  ", "cnp_interval", p->np_interval_ns);
	fprintf(out, "  flow_key: %s\n  max_flows: %u\n",
		cfg_name(cfg_flow_keys, d->key), d->max_flows);
	put_time(out, "  ", "flow_idle", d->flow_idle_ns);
	fprintf(out,
		"  cnp: %s\n  cp_loop: %s\n  np:\n    enabled: %s\n"
		"    dscp: %u\n    pcp: %u\n",
		cfg_name(cfg_cnp_actions, d->cnp_action),
		d->cp_loop ? "true" : "false", d->np ? "true" : "false",
		d->np_dscp, d->np_pcp);
}

/* The pfc mapping, when anything in it differs from the defaults (a file
 * without PFC dumps as it did before PFC existed). */
static void dump_pfc(const struct qos_pfc *p, FILE *out)
{
	if (!p->enabled && !p->xoff && !p->xon &&
	    p->cable_m == PFC_DEF_CABLE_M && p->quanta == PFC_MAX_QUANTA &&
	    p->watchdog_ns == PFC_DEF_WATCHDOG_MS * 1000000ull &&
	    p->restore_ns == PFC_DEF_RESTORE_MS * 1000000ull)
		return;
	fprintf(out, "pfc:\n  enabled: %s\n", p->enabled ? "true" : "false");
	if (p->xoff)
		put_size(out, "  ", "xoff", p->xoff);
	else
		fputs("  xoff: auto\n", out);
	if (p->xon)
		put_size(out, "  ", "xon", p->xon);
	else
		fputs("  xon: auto\n", out);
	fprintf(out,
		"  cable_length: %u\n  pause_quanta: %u\n  watchdog: %llu\n"
		"  watchdog_restore: %llu\n",
		p->cable_m, p->quanta,
		(unsigned long long)(p->watchdog_ns / 1000000),
		(unsigned long long)(p->restore_ns / 1000000));
}

static void dump_qos(const struct qos_policy *q, FILE *out)
{
	fprintf(out, "overhead: %u\nclasses:\n", q->port[0].overhead);
	for (uint32_t i = 0; i < q->n_classes; i++)
		dump_class(&q->classes[i], out);
	fputs(q->n_rules ? "rules:\n" : "rules: []\n", out);
	for (uint32_t i = 0; i < q->n_rules; i++)
		dump_rule(&q->rules[i], q, out);
	fputs("default_class: ", out);
	put_quoted(out, q->classes[q->default_class].name);
	fprintf(out, "\nmalformed: %s\n",
		cfg_name(cfg_malformed_modes, q->malformed));
	dump_dcqcn(&q->dcqcn, out);
	dump_pfc(&q->pfc, out);
}

static void dump_jobs(const struct config_jobs *j, FILE *out)
{
	fprintf(out,
		"jobs:\n  mode: %s\n  max_registered: %u\n  max_passive: %u\n"
		"  max_hosts: %u\n  max_edges: %u\n",
		config_jobs_mode_name(j->mode), j->max_registered,
		j->max_passive, j->max_hosts, j->max_edges);
	put_time(out, "  ", "idle", j->idle_ns);
}

static void dump_daemon(const struct xdplane_config *cfg, FILE *out)
{
	const struct config_control *ctl = &cfg->control;

	fputs("control:\n  socket: ", out);
	put_quoted(out, ctl->socket);
	fputs("\n  socket_group: ", out);
	put_quoted(out, ctl->socket_group);
	if (ctl->readonly_group[0]) {
		fputs("\n  readonly_group: ", out);
		put_quoted(out, ctl->readonly_group);
	}
	fputs("\n  metrics_listen: ", out);
	put_quoted(out, ctl->metrics_listen);
	fprintf(out,
		"\n  stats_interval_ms: %u\nuser: ", ctl->stats_interval_ms);
	put_quoted(out, cfg->user);
	fputs("\ngroup: ", out);
	put_quoted(out, cfg->group);
	fprintf(out, "\nlog_level: %s\n",
		config_log_level_name(cfg->log_level));
}

/* ports[].adaptive: whole when on or when a value is not the default
 * (config_adaptive.c). */
static void put_adaptive(FILE *out, const struct qos_port *p)
{
	const struct qos_adaptive *a = &p->adaptive;
	struct edge_rate_params def;
	char text[32];

	edge_rate_params_default(&def, (double)p->rate_bps);
	if (!a->on && a->target_ns == def.target_ns &&
	    a->probe_gain == def.probe_gain &&
	    a->floor_bps == (uint64_t)def.floor_bps)
		return;
	fprintf(out, "    adaptive:\n      mode: %s\n",
		cfg_name(cfg_adaptive_modes, a->on));
	units_time_text(text, sizeof(text), a->target_ns);
	fprintf(out, "      target: %s\n", text);
	if (a->floor_bps) {
		units_rate_text(text, sizeof(text), a->floor_bps);
		fprintf(out, "      floor: %s\n", text);
	}
	snprintf(text, sizeof(text), "%.15g", a->probe_gain);
	if (strtod(text, NULL) != a->probe_gain)
		snprintf(text, sizeof(text), "%.17g", a->probe_gain);
	fprintf(out, "      probe_gain: %s\n", text);
}

int config_dump(const struct xdplane_config *cfg, FILE *out)
{
	const struct config_rings *r = &cfg->rings;
	const struct qos_port *p;
	char text[32];

	fputs("ports:\n", out);
	for (unsigned int i = 0; i < CONFIG_PORTS; i++) {
		p = &cfg->qos.port[i];
		fputs("  - interface: ", out);
		put_quoted(out, cfg->ports[i].interface);
		fputc('\n', out);
		if (cfg->ports[i].mtu)
			fprintf(out, "    mtu: %u\n", cfg->ports[i].mtu);
		if (cfg->ports[i].checksum != PORT_CSUM_AUTO) /* as mtu */
			fprintf(out, "    checksum: %s\n",
				port_checksum_name(cfg->ports[i].checksum));
		if (p->rate_bps) {
			units_rate_text(text, sizeof(text), p->rate_bps);
			fprintf(out, "    rate: %s\n", text);
		}
		put_size(out, "    ", "burst", p->burst);
		if (p->link_bps) {
			units_rate_text(text, sizeof(text), p->link_bps);
			fprintf(out, "    link_speed: %s\n", text);
		}
		put_adaptive(out, p);
	}
	put_time(out, "", "port_wait", cfg->port_wait_ms * 1000000ull);
	if (cfg->queues == CONFIG_QUEUES_AUTO)
		fputs("queues: auto\n", out);
	else
		fprintf(out, "queues: %u\n", cfg->queues);
	fprintf(out, "queues_set_channels: %s\n",
		cfg->queues_set_channels ? "true" : "false");
	fprintf(out, "xdp_mode: %s\nbind_mode: %s\nfailure_mode: %s\n",
		xdp_attach_mode_name(cfg->xdp_mode),
		xsk_bind_mode_name(cfg->bind_mode),
		failure_mode_name(cfg->failure_mode));
	fprintf(out,
		"rings:\n  fill: %u\n  completion: %u\n  rx: %u\n  tx: %u\n"
		"  handoff: %u\n",
		r->fill, r->completion, r->rx, r->tx, r->handoff);
	/* frames not written: a comment, so that the dump loads back the
	 * same (raised at start to what the queues need) */
	fprintf(out,
		cfg->umem.frames_auto
			? "umem:\n  # frames: %u (not set: raised at start to "
			  "what the queues need)\n"
			: "umem:\n  frames: %u\n",
		cfg->umem.frames);
	fprintf(out, "  frame_size: %u\n  headroom: %u\n  hugepages: %s\n",
		cfg->umem.frame_size, cfg->umem.headroom,
		cfg->umem.hugepages ? "true" : "false");
	fprintf(out,
		"poll:\n  busy_us: %u\n  coalesce_us: %u\n  shaper_spin_us: "
		"%u\n  shaper_wait: %s\n"
		"  batch: %u\n",
		cfg->poll.busy_us, cfg->poll.coalesce_us,
		cfg->poll.shaper_spin_us,
		cfg->poll.shaper_wait_spin ? "spin" : "sleep", cfg->poll.batch);
	fputs("workers:\n  cpus: [", out);
	for (uint32_t i = 0; i < cfg->n_cpus; i++)
		fprintf(out, "%s%u", i ? ", " : "", cfg->cpus[i]);
	fputs("]\n", out);
	dump_qos(&cfg->qos, out);
	dump_daemon(cfg, out);
	dump_jobs(&cfg->jobs, out);
	return ferror(out) ? -1 : 0;
}
