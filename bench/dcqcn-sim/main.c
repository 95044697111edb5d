// SPDX-License-Identifier: BSD-2-Clause
/*
 * main.c - dcqcn-sim, the command:
 *
 *   dcqcn-sim SCENARIO.yaml [--csv FILE] [--plot PREFIX] [--summary FILE]
 *
 * The trace (CSV, trace.h) goes to stdout, or to FILE with --csv. A closed
 * loop's summary (stats.h, "key: value" lines) goes to stderr, or to FILE
 * with --summary; stdout stays plain CSV. --plot writes the binned time
 * series to PREFIX.samples.csv and renders PREFIX.png with gnuplot and
 * plot.gp (the source tree's, or $DCQCN_SIM_PLOT_GP).
 *
 * Exit status: 0 done; 1 the scenario was refused (FILE:LINE:COL message)
 * or the run or an output failed; 2 usage.
 */
#include "scenario.h"
#include "sim.h"

#include <errno.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef DCQCN_SIM_PLOT_GP
#define DCQCN_SIM_PLOT_GP "plot.gp"
#endif

extern char **environ;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dcqcn-sim SCENARIO.yaml [--csv FILE] [--plot PREFIX] "
		"[--summary FILE]\n"
		"  --csv FILE      the event trace to FILE (default: stdout)\n"
		"  --plot PREFIX   PREFIX.samples.csv and PREFIX.png "
		"(gnuplot)\n"
		"  --summary FILE  the closed-loop summary to FILE (default: "
		"stderr)\n");
}

/* Text that can go between single quotes in a gnuplot string. */
static bool gnuplot_safe(const char *s)
{
	for (; *s; s++)
		if (*s == '\'' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

static int run_gnuplot(const char *samples, const char *png, const char *title,
		       const struct scenario *sc)
{
	const char *script = getenv("DCQCN_SIM_PLOT_GP");
	char vars[4096];
	char *argv[5];
	pid_t pid;
	int status, rc;

	if (!script)
		script = DCQCN_SIM_PLOT_GP;
	if (!gnuplot_safe(samples) || !gnuplot_safe(png) ||
	    !gnuplot_safe(title)) {
		fprintf(stderr, "dcqcn-sim: --plot: a quote, backslash or "
				"control character in a path\n");
		return -1;
	}
	rc = snprintf(vars, sizeof(vars),
		      "samples='%s'; out='%s'; plot_title='%s'; nflows=%u; "
		      "queue=%d; gw=%d",
		      samples, png, title, sc->n_flows, sc->closed_loop,
		      sc->gateway.enabled);
	if (rc < 0 || (size_t)rc >= sizeof(vars)) {
		fprintf(stderr, "dcqcn-sim: --plot: paths too long\n");
		return -1;
	}
	argv[0] = "gnuplot";
	argv[1] = "-e";
	argv[2] = vars;
	argv[3] = (char *)script;
	argv[4] = NULL;
	rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (rc) {
		fprintf(stderr, "dcqcn-sim: --plot: cannot run gnuplot: %s\n",
			strerror(rc));
		return -1;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "dcqcn-sim: --plot: gnuplot %s failed\n",
			script);
		return -1;
	}
	return 0;
}

static int write_plot(const char *prefix, const char *scenario_path,
		      const struct scenario *sc, const struct stats *st)
{
	size_t len = strlen(prefix) + 16;
	char *samples = malloc(len), *png = malloc(len);
	const char *title = strrchr(scenario_path, '/');
	FILE *f = NULL;
	int rc = -1;

	if (!samples || !png)
		goto out;
	snprintf(samples, len, "%s.samples.csv", prefix);
	snprintf(png, len, "%s.png", prefix);
	f = fopen(samples, "w");
	if (!f) {
		fprintf(stderr, "dcqcn-sim: %s: %s\n", samples,
			strerror(errno));
		goto out;
	}
	stats_write_samples(f, st);
	if (fclose(f)) {
		f = NULL;
		fprintf(stderr, "dcqcn-sim: %s: write failed\n", samples);
		goto out;
	}
	rc = run_gnuplot(samples, png, title ? title + 1 : scenario_path, sc);
out:
	free(samples);
	free(png);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"csv", required_argument, NULL, 'c'},
		{"plot", required_argument, NULL, 'p'},
		{"summary", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *csv_path = NULL, *plot = NULL, *sum_path = NULL;
	struct scenario sc;
	struct sim_result res;
	FILE *csv = stdout, *sum = stderr;
	char err[512];
	int opt, status = 0;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			csv_path = optarg;
			break;
		case 'p':
			plot = optarg;
			break;
		case 's':
			sum_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (scenario_load_file(&sc, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (csv_path && strcmp(csv_path, "-")) {
		csv = fopen(csv_path, "w");
		if (!csv) {
			fprintf(stderr, "dcqcn-sim: %s: %s\n", csv_path,
				strerror(errno));
			scenario_free(&sc);
			return 1;
		}
	}
	if (sim_run(&sc, csv, &res, err, sizeof(err))) {
		fprintf(stderr, "dcqcn-sim: %s\n", err);
		status = 1;
		goto out;
	}
	if (sc.closed_loop) {
		if (sum_path) {
			sum = fopen(sum_path, "w");
			if (!sum) {
				fprintf(stderr, "dcqcn-sim: %s: %s\n", sum_path,
					strerror(errno));
				status = 1;
				goto out;
			}
		}
		summary_print(sum, &sc, &res.summary);
		if (sum != stderr && fclose(sum)) {
			fprintf(stderr, "dcqcn-sim: %s: write failed\n",
				sum_path);
			status = 1;
		}
	}
	if (plot && write_plot(plot, argv[optind], &sc, &res.stats))
		status = 1;
out:
	if (csv != stdout && fclose(csv)) {
		fprintf(stderr, "dcqcn-sim: %s: write failed\n", csv_path);
		status = 1;
	}
	sim_result_free(&res);
	scenario_free(&sc);
	return status;
}
