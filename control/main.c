// SPDX-License-Identifier: BSD-2-Clause
/*
 * main.c - the xdplane daemon: load the configuration, open the gateway,
 * wait for a signal, close it, report.
 *
 *   xdplane -c FILE              run in the foreground, log to stderr
 *   xdplane --check -c FILE      validate FILE and exit (0 = valid)
 *   xdplane --dump-config -c F   print the effective configuration
 *
 * SIGINT and SIGTERM stop cleanly: sockets leave the XSKMAPs, in-flight
 * frames drain, workers stop, the frame census runs, the XDP programs are
 * detached and the final counters are printed (a table, and one line
 * "final-stats: {json}" for tools). The exit status is 0 after a clean stop
 * with every frame accounted for, 1 on a start-up error, 3 if the census
 * found a leaked or doubly-owned frame.
 *
 * Threads: this (control) thread owns the gateway handle; signals are
 * blocked in every thread and taken here with sigtimedwait().
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <jansson.h>
#include "config.h"
#include "gateway.h"
#include "log.h"
#include "steer_prog.h"

#define DEFAULT_CONFIG "/etc/xdplane/xdplane.yaml"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xdplane [-c FILE] [--check] [--dump-config] [-v] [-q]\n"
		"  -c, --config FILE   configuration (default " DEFAULT_CONFIG
		")\n"
		"      --check         validate the configuration and exit\n"
		"      --no-system-check  with --check: do not require the "
		"interfaces to exist\n"
		"      --dump-config   print the effective configuration and "
		"exit\n"
		"  -v, --verbose       debug logging\n"
		"  -q, --quiet         warnings and errors only\n"
		"  -V, --version       print the version\n");
}

static void params_from_config(const struct xdplane_config *c,
			       struct gw_params *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < GW_PORTS; i++)
		snprintf(p->ifname[i], sizeof(p->ifname[i]), "%s",
			 c->ports[i].interface);
	p->queues = c->queues;
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
	p->frame_size = c->umem.frame_size;
	p->frame_headroom = c->umem.headroom;
	p->busy_us = c->poll.busy_us;
	p->shaper_spin_us = c->poll.shaper_spin_us;
	p->batch = c->poll.batch;
	p->n_cpus = c->n_cpus;
	memcpy(p->cpus, c->cpus, sizeof(p->cpus[0]) * c->n_cpus);
	p->qos = c->qos;
}

static const char *const sched_drop_names[SCHED_DROP_REASONS] = {
	[SCHED_DROP_QUEUE_BYTES] = "queue_bytes",
	[SCHED_DROP_QUEUE_PACKETS] = "queue_packets",
	[SCHED_DROP_ECN_NONECT] = "ecn_nonect",
	[SCHED_DROP_INVALID] = "invalid",
};

static json_t *classes_json(struct gateway *gw, int port,
			    const struct qos_policy *pol)
{
	struct gw_class_stats c;
	json_t *arr = json_array(), *o, *d, *h;

	for (uint32_t k = 0; k < pol->n_classes; k++) {
		if (gateway_class_stats(gw, port, k, &c))
			continue;
		d = json_object();
		for (int r = 1; r < SCHED_DROP_REASONS; r++)
			json_object_set_new(d, sched_drop_names[r],
					    json_integer(c.drops[r]));
		h = json_array();
		for (int b = 0; b < SCHED_HIST_BUCKETS; b++)
			json_array_append_new(h, json_integer(c.sojourn[b]));
		o = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o}",
			      "name", pol->classes[k].name, "enq_packets",
			      (json_int_t)c.enq_packets, "enq_bytes",
			      (json_int_t)c.enq_bytes, "sent_packets",
			      (json_int_t)c.sent_packets, "sent_bytes",
			      (json_int_t)c.sent_bytes, "ecn_marks",
			      (json_int_t)c.ecn_marks, "depth_packets",
			      (json_int_t)c.depth_packets, "depth_bytes",
			      (json_int_t)c.depth_bytes, "drops", d,
			      "sojourn_log2_us", h);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *port_json(struct gateway *gw, int port,
			 const struct qos_policy *pol)
{
	struct gw_port_stats s;
	json_t *o, *v, *x, *d, *m;

	gateway_port_stats(gw, port, &s);
	m = json_object();
	for (int r = 1; r < PKT_MALFORMED_MAX; r++)
		json_object_set_new(m, pkt_malformed_name(r),
				    json_integer(s.malformed[r]));
	v = json_object();
	for (int k = 0; k < STEER_V_MAX; k++)
		json_object_set_new(v, steer_verdict_name(k),
				    json_integer(s.verdicts[k]));
	x = json_pack(
		"{s:I,s:I,s:I,s:I,s:I,s:I}", "rx_dropped",
		(json_int_t)s.xsk.rx_dropped, "rx_invalid_descs",
		(json_int_t)s.xsk.rx_invalid_descs, "tx_invalid_descs",
		(json_int_t)s.xsk.tx_invalid_descs, "rx_ring_full",
		(json_int_t)s.xsk.rx_ring_full, "rx_fill_ring_empty_descs",
		(json_int_t)s.xsk.rx_fill_ring_empty_descs,
		"tx_ring_empty_descs", (json_int_t)s.xsk.tx_ring_empty_descs);
	d = json_pack("{s:I,s:I,s:I,s:I}", "handoff_full",
		      (json_int_t)s.drop_handoff_full, "invalid_desc",
		      (json_int_t)s.drop_invalid_desc, "multibuf",
		      (json_int_t)s.drop_multibuf, "malformed",
		      (json_int_t)s.drop_malformed);
	o = json_pack(
		"{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:o}", "name",
		gateway_port_name(gw, port), "rx_packets",
		(json_int_t)s.rx_packets, "rx_bytes", (json_int_t)s.rx_bytes,
		"tx_packets", (json_int_t)s.tx_packets, "tx_bytes",
		(json_int_t)s.tx_bytes, "tx_kicks", (json_int_t)s.tx_kicks,
		"tx_kick_errors", (json_int_t)s.tx_kick_errors,
		"foreign_frames", (json_int_t)s.foreign_frames, "drops", d,
		"xdp", v, "xsk", x);
	json_object_set_new(o, "fill_wakeups", json_integer(s.fill_wakeups));
	json_object_set_new(o, "malformed", m);
	json_object_set_new(o, "classes", classes_json(gw, port, pol));
	return o;
}

static void print_class_table(struct gateway *gw, const struct qos_policy *pol)
{
	struct gw_class_stats c;

	fprintf(stderr, "%-6s %-12s %12s %12s %10s %10s %10s\n", "egress",
		"class", "enq_packets", "sent_packets", "drop_full", "ecn_drop",
		"ecn_marks");
	for (int p = 0; p < GW_PORTS; p++) {
		for (uint32_t k = 0; k < pol->n_classes; k++) {
			if (gateway_class_stats(gw, p, k, &c))
				continue;
			fprintf(stderr,
				"%-6s %-12s %12llu %12llu %10llu %10llu "
				"%10llu\n",
				gateway_port_name(gw, p), pol->classes[k].name,
				(unsigned long long)c.enq_packets,
				(unsigned long long)c.sent_packets,
				(unsigned long long)(c.drops[SCHED_DROP_QUEUE_BYTES] +
						     c.drops[SCHED_DROP_QUEUE_PACKETS]),
				(unsigned long long)
					c.drops[SCHED_DROP_ECN_NONECT],
				(unsigned long long)c.ecn_marks);
		}
	}
}

static void print_port_table(struct gateway *gw)
{
	struct gw_port_stats s;

	fprintf(stderr, "%-10s %12s %14s %12s %14s %10s %10s %10s\n", "port",
		"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "drop_hoff",
		"xsk_drop", "failopen");
	for (int p = 0; p < GW_PORTS; p++) {
		gateway_port_stats(gw, p, &s);
		fprintf(stderr,
			"%-10s %12llu %14llu %12llu %14llu %10llu %10llu "
			"%10llu\n",
			gateway_port_name(gw, p),
			(unsigned long long)s.rx_packets,
			(unsigned long long)s.rx_bytes,
			(unsigned long long)s.tx_packets,
			(unsigned long long)s.tx_bytes,
			(unsigned long long)s.drop_handoff_full,
			(unsigned long long)(s.xsk.rx_dropped +
					     s.xsk.rx_ring_full +
					     s.xsk.rx_fill_ring_empty_descs),
			(unsigned long long)s.verdicts[STEER_V_FAILOPEN]);
	}
}

/* Stop, read the final counters, close (census), report. */
static int stop_and_report(struct gateway *gw, const struct qos_policy *pol)
{
	struct gw_census c;
	struct gw_info info;
	json_t *root, *ports;
	char *text;
	int rc = 0;

	gateway_info(gw, &info);
	ports = json_array();
	root = json_object();
	json_object_set_new(root, "xdp_mode", json_string(info.xdp_mode));
	json_object_set_new(root, "bind_mode",
			    json_string(info.zerocopy ? "zerocopy" : "copy"));
	gateway_stop(gw); /* drained: the counters are final */
	print_port_table(gw);
	print_class_table(gw, pol);
	for (int p = 0; p < GW_PORTS; p++)
		json_array_append_new(ports, port_json(gw, p, pol));
	json_object_set_new(root, "ports", ports);
	gateway_close(gw, &c);
	json_object_set_new(root, "frames",
			    json_pack("{s:I,s:I,s:I,s:I,s:I}", "total",
				      (json_int_t)c.total, "found",
				      (json_int_t)c.found, "missing",
				      (json_int_t)c.missing, "doubles",
				      (json_int_t)c.doubles, "strays",
				      (json_int_t)c.strays));
	if (!c.done || c.missing || c.doubles || c.strays) {
		log_err("frame accounting failed: %llu of %llu frames found, "
			"%llu missing, %llu doubly owned, %llu stray",
			(unsigned long long)c.found,
			(unsigned long long)c.total,
			(unsigned long long)c.missing,
			(unsigned long long)c.doubles,
			(unsigned long long)c.strays);
		rc = 3;
	} else {
		log_info("frame accounting: all %llu frames accounted for",
			 (unsigned long long)c.total);
	}
	text = json_dumps(root, JSON_COMPACT);
	fprintf(stderr, "final-stats: %s\n", text ? text : "{}");
	free(text);
	json_decref(root);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"check", no_argument, NULL, 'C'},
		{"no-system-check", no_argument, NULL, 'N'},
		{"dump-config", no_argument, NULL, 'D'},
		{"verbose", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *path = DEFAULT_CONFIG;
	bool check = false, dump = false, system_check = true;
	struct xdplane_config *cfg;
	struct config_error cerr;
	struct gw_params params;
	struct gateway *gw;
	char errbuf[512];
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	sigset_t sigs;
	int c, sig;

	while ((c = getopt_long(argc, argv, "c:vqVh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'N':
			system_check = false;
			break;
		case 'D':
			dump = true;
			break;
		case 'v':
			log_set_level(LOG_LVL_DEBUG);
			break;
		case 'q':
			log_set_level(LOG_LVL_WARN);
			break;
		case 'V':
			printf("xdplane %s\n", XDPLANE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	cfg = config_load(path, system_check || !check, &cerr);
	if (!cfg) {
		fprintf(stderr, "%s\n", cerr.msg);
		return 1;
	}
	if (check) {
		printf("%s: configuration is valid\n", path);
		config_free(cfg);
		return 0;
	}
	if (dump) {
		config_dump(cfg, stdout);
		config_free(cfg);
		return 0;
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* workers inherit it */
	/* UMEM pages are charged to RLIMIT_MEMLOCK unless CAP_IPC_LOCK: raise
	 * it as far as allowed; registration says so if it is not enough. */
	if (setrlimit(RLIMIT_MEMLOCK, &rl) && !getrlimit(RLIMIT_MEMLOCK, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}

	log_info("xdplane %s starting with %s", XDPLANE_VERSION, path);
	params_from_config(cfg, &params);
	config_free(cfg);
	gw = gateway_open(&params, errbuf, sizeof(errbuf));
	if (!gw) {
		log_err("%s", errbuf);
		return 1;
	}
	if (gateway_start(gw, errbuf, sizeof(errbuf))) {
		log_err("%s", errbuf);
		gateway_close(gw, NULL);
		return 1;
	}
	for (;;) {
		sig = sigwaitinfo(&sigs, NULL);
		if (sig == SIGINT || sig == SIGTERM)
			break;
		if (sig == SIGHUP)
			log_warn("SIGHUP: live reload is not available in this "
				 "version; restart to apply a new "
				 "configuration");
	}
	log_info("stopping (signal %d)", sig);
	return stop_and_report(gw, &params.qos);
}
