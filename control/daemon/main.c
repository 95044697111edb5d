// SPDX-License-Identifier: BSD-2-Clause
/*
 * main.c - the xdplane daemon's command line: load the configuration, then
 * check it, print it, or run the daemon (daemon.h).
 *
 *   xdplane -c FILE              run in the foreground, log to stderr
 *   xdplane --check -c FILE      validate FILE and exit (0 = valid): every
 *                                error found, one file:line:col line each
 *   xdplane --dump-config -c F   print the effective configuration
 *   --no-system-check            with either: on another host (no
 *                                interfaces, users, kernel checked)
 *   xdplane --detach -c FILE     remove what a crashed daemon left on the
 *                                ports: its XDP programs, promiscuous mode,
 *                                VLAN tag stripping
 *
 * SIGHUP reloads the configuration (daemon.h). SIGINT and SIGTERM stop
 * cleanly: sockets leave the XSKMAPs, in-flight
 * frames drain, workers stop, the frame census runs, the XDP programs are
 * detached and the final counters are printed (a table, and one line
 * "final-stats: {json}" for tools).
 *
 * Exit status (xdplane(8), EXIT STATUS): 0 after a clean stop with every
 * frame accounted for (and for a valid --check); XDPLANE_EXIT_CONFIG (78,
 * EX_CONFIG of sysexits.h; defined once in CMakeLists.txt, which also
 * writes it into the systemd units' RestartPreventExitStatus=) when the
 * file is invalid or asks for what this host cannot carry (a kernel too
 * old for its MTU: kernel_req.h; with --check, a missing interface),
 * so that systemd
 * does not restart a daemon that would fail the same way; 1 when start-up
 * fails otherwise; 2 on a usage error; 3 if the census found a leaked or
 * doubly-owned frame; 4 after a port's interface was replaced (daemon.c);
 * PORT_WAIT_EXIT (75) when a port's interface did not appear within
 * port_wait (port_wait.h: the file is valid, the interface may still
 * come, so systemd tries again).
 *
 * Threads: this (control) thread owns the gateway handle; signals are
 * blocked in every thread and taken by the event loop through a signalfd.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "daemon.h"
#include "gateway.h"
#include "kernel_req.h"
#include "log.h"
#include "port_wait.h"
#include "xdplane_version.h"

#ifndef XDPLANE_EXIT_CONFIG
#error "XDPLANE_EXIT_CONFIG comes from CMakeLists.txt (one value for the units too)"
#endif

#define DEFAULT_CONFIG "/etc/xdplane/xdplane.yaml"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xdplane [-c FILE] [--check] [--dump-config] [--detach] "
		"[-v] "
		"[-q]\n"
		"  -c, --config FILE   configuration (default " DEFAULT_CONFIG
		")\n"
		"  -t, --check         validate the configuration and exit\n"
		"      --no-system-check  with --check or --dump-config: do "
		"not require the\n"
		"                      interfaces, users and groups to exist "
		"(another host)\n"
		"      --dump-config   print the effective configuration and "
		"exit\n"
		"      --detach        remove xdplane's XDP programs from the "
		"ports (after a crash)\n"
		"  -v, --verbose       debug logging (overrides log_level)\n"
		"  -q, --quiet         warnings and errors only (overrides "
		"log_level)\n"
		"  -V, --version       print the version\n");
}

#define MAIN_MMAP_THRESHOLD (64 * 1024) /* bytes */

/* --detach: what a crashed or killed daemon left on the file's ports
 * (gateway_detach_port). 0 when nothing of xdplane's is left, 1 when a
 * port is still in use by a running xdplane or could not be cleaned. */
static int detach_ports(const char *path)
{
	struct config_error cerr;
	struct xdplane_config *cfg = config_load(path, false, &cerr);
	char msg[512];
	int rc = 0, err;

	if (!cfg) {
		fprintf(stderr, "%s\n", cerr.msg);
		return XDPLANE_EXIT_CONFIG;
	}
	for (int i = 0; i < CONFIG_PORTS; i++) {
		err = gateway_detach_port(cfg->ports[i].interface, msg,
					  sizeof(msg));
		if (err == -EBUSY)
			fprintf(stderr,
				"%s; stop it first (systemctl stop xdplane or "
				"xdplane@NAME), nothing detached\n",
				msg);
		else
			fprintf(err ? stderr : stdout, "%s\n", msg);
		if (err)
			rc = 1;
	}
	config_free(cfg);
	return rc;
}

/* The start's system checks failed (*err says why). When the file is
 * valid without them and a port's interface is missing, wait for the
 * ports (port_wait.h) and load the file again with the checks: the
 * configuration, or NULL with *err, or NULL with *rc = PORT_WAIT_EXIT
 * when the bound passed (*err printed: where the file names the port). */
static struct xdplane_config *wait_for_ports(const char *path, bool forced,
					     struct config_error *err, int *rc)
{
	struct config_error ferr;
	struct xdplane_config *cfg = config_load(path, false, &ferr);
	int waited;

	if (!cfg) {
		*err = ferr;
		return NULL;
	}
	if (port_wait_missing(cfg) < 0) { /* not the ports: user or group */
		config_free(cfg);
		return NULL;
	}
	if (!forced)
		log_set_level((enum log_level)cfg->log_level);
	waited = port_wait(cfg);
	config_free(cfg);
	cfg = config_load(path, true, err);
	if (!cfg && waited) { /* *err: file:line:col of the missing port */
		fprintf(stderr, "%s\n", err->msg);
		*rc = PORT_WAIT_EXIT;
	}
	return cfg;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"check", no_argument, NULL, 't'},
		{"no-system-check", no_argument, NULL, 'N'},
		{"dump-config", no_argument, NULL, 'D'},
		{"detach", no_argument, NULL, 'X'},
		{"verbose", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *path = DEFAULT_CONFIG;
	bool check = false, dump = false, system_check = true, forced = false;
	bool detach = false;

	/* A flat RSS: the control thread's periodic snapshots (about 230 KB)
	 * and rendered answers get a mapping of their own each time, given
	 * back at free, instead of glibc raising its threshold after the
	 * first one and growing the heap for good (a fixed threshold also
	 * stops that adjustment). */
	mallopt(M_MMAP_THRESHOLD, MAIN_MMAP_THRESHOLD);
	struct xdplane_config *cfg;
	struct config_error cerr;
	char kerr[1200];
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "c:tvqVh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 't':
			check = true;
			break;
		case 'N':
			system_check = false;
			break;
		case 'D':
			dump = true;
			break;
		case 'X':
			detach = true;
			break;
		case 'v':
			log_set_level(LOG_LVL_DEBUG);
			forced = true;
			break;
		case 'q':
			log_set_level(LOG_LVL_WARN);
			forced = true;
			break;
		case 'V':
			printf("xdplane %s\n", XDPLANE_VERSION_FULL);
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
	if (!system_check && !check && !dump) {
		fprintf(stderr,
			"xdplane: --no-system-check goes with --check or "
			"--dump-config; the gateway itself needs its "
			"interfaces\n");
		usage(stderr);
		return 2;
	}

	if (detach)
		return detach_ports(path);
	cfg = config_load(path, system_check, &cerr);
	if (!cfg && !check && !dump)
		cfg = wait_for_ports(path, forced, &cerr, &rc);
	if (!cfg) {
		if (rc)
			return rc;
		for (unsigned int i = 0; i < cerr.n; i++)
			fprintf(stderr, "%s\n", config_error_at(&cerr, i));
		if (cerr.found > cerr.n)
			fprintf(stderr, "%s: %u more errors not shown\n", path,
				cerr.found - cerr.n);
		if (check)
			fprintf(stderr,
				"%s: configuration is invalid: %u "
				"error%s\n",
				path, cerr.found, cerr.found == 1 ? "" : "s");
		return XDPLANE_EXIT_CONFIG;
	}
	/* what the running kernel cannot carry: refused before anything is
	 * touched (a --check for another host skips it, as it skips the
	 * interfaces) */
	if (((check && system_check) || (!check && !dump)) &&
	    kreq_check_config(cfg, kerr, sizeof(kerr))) {
		fprintf(stderr, "%s\n", kerr);
		config_free(cfg);
		return XDPLANE_EXIT_CONFIG;
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
	if (!forced)
		log_set_level((enum log_level)cfg->log_level);
	return daemon_run(path, cfg, forced);
}
