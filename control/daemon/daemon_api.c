// SPDX-License-Identifier: BSD-2-Clause
/*
 * daemon_api.c - see daemon_api.h. Each backend turns one operation of
 * the control API into calls on the gateway and the configuration, and
 * its result into JSON (ctl_json.h renders the gateway's own objects).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config_diff.h"
#include "ctl_json.h"
#include "daemon_api.h"
#include "daemon_jobs.h"
#include "prefix.h"
#include "sd_notify.h"

struct stats_snapshot *daemon_snapshot(void *ctx)
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
	if (s && d->jobs &&
	    snap_jobs_take(s, d->jobs,
			   config_jobs_mode_name(d->cfg->jobs.mode))) {
		snapshot_free(s);
		s = NULL;
	}
	if (s) {
		health_input_from_snapshot(s, &in);
		health_eval(&d->health, &in, &s->health);
	}
	return s;
}

/* The running configuration as --dump-config prints it, kept. */
void daemon_keep_config_text(struct daemon *d)
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

void daemon_snapshot_free(void *ctx, struct stats_snapshot *s)
{
	snapshot_free(s);
}

/* A refused file: the first error is the message (with how many more),
 * each other one a line of err->details (and of the log, daemon_reload()). */
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
json_t *daemon_reload(struct daemon *d, struct ctl_err *err)
{
	struct xdplane_config *next;
	struct config_error cerr;
	struct config_diff diff;
	char keys[1024], gwerr[512];
	uint64_t t0 = conn_now_ns();
	json_t *changes;
	int rc;

	d->reload.attempts_total++;
	d->reload.last_attempt_unix = daemon_unix_now();
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
		daemon_jobs_reload(d, next);
		sdn_notify("READY=1");
	}
	config_free(d->cfg);
	d->cfg = next;
	daemon_keep_config_text(d);
	d->reload.generation = gateway_generation(d->gw);
	d->reload.last_successful = true;
	d->reload.last_success_unix = daemon_unix_now();
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
	return daemon_reload(ctx, err);
}

struct flows_ctx {
	struct daemon *d;
	json_t *arr;
};

static void add_flow(const struct gw_flow *f, void *arg)
{
	struct flows_ctx *fc = arg;

	json_array_append_new(
		fc->arr,
		ctl_json_flow(f, gateway_port_name(fc->d->gw, f->port)));
}

static json_t *be_flows(void *ctx, struct ctl_err *err)
{
	struct flows_ctx fc = {.d = ctx, .arr = json_array()};

	gateway_flows(fc.d->gw, add_flow, &fc);
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

void daemon_api_init(struct daemon *d)
{
	d->be = (struct ctl_backend){
		.ctx = d,
		.snapshot = daemon_snapshot,
		.snapshot_free = daemon_snapshot_free,
		.reload = be_reload,
		.flows = be_flows,
		.congestion = be_congestion,
		.log_level = be_log_level,
		.config = be_config,
		.job_register = daemon_job_register,
		.job_unregister = daemon_job_unregister,
		.pid = getpid(),
	};
}
