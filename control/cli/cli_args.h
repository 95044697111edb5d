/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cli_args.h - xdplanectl's command line before it connects: the verbs
 * and their arguments, checked here by the rules the daemon and the
 * configuration apply (interface and class names, severity, prefix, log
 * level), the option values (seconds, counts), the instance name, and
 * "did you mean" (suggest.h) for verbs, options and enum values.
 *
 * Every refusal is a usage error recorded through cli_fail("usage", ...)
 * (ctl_client.h): one line that names the word, why, and what is
 * accepted; with a suggestion, also the "suggestion" key of the --json
 * error. Single-threaded, no state of its own.
 */
#ifndef XDPLANE_CLI_ARGS_H
#define XDPLANE_CLI_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

/* xdplane@NAME.service: RuntimeDirectory=xdplane-%i, control.socket
 * /run/xdplane-NAME/control.sock, the read-only socket that + ".ro"
 * (config/systemd/xdplane.service.in, xdplane(8)). */
#define CLI_INSTANCE_DIR "/run/xdplane-"
#define CLI_SOCKET_FILE "control.sock"
#define CLI_READONLY_SUFFIX ".ro"

struct cli_verb {
	const char *name;
	const char *args; /* for usage lines: "[PORT]", "" */
	unsigned int min_args, max_args;
	bool changes; /* refused on the read-only socket */
};

/* job-register: at most 16 --prefix, ids of at most 63 characters, GPU
 * counts up to 1000000 (the daemon's job table, job_table.h, and its
 * control API, ctl_proto.h). */
#define CLI_JOB_PREFIXES_MAX 16
#define CLI_JOB_ID_MAX 63
#define CLI_JOB_GPUS_MAX 1000000

/* The verbs, ending with a NULL name. */
extern const struct cli_verb cli_verbs[];

/* The usage error for a command line without a verb. */
void cli_no_verb(void);
/* The verb named name, or NULL with the usage error ("did you mean"). */
const struct cli_verb *cli_verb_find(const char *name);
/* The request for verb v and its arguments, or NULL with the usage
 * error. watch has none: NULL without an error. */
json_t *cli_request(const struct cli_verb *v, int argc, char **argv);

/* One of job-register's options (opt "--prefix", "--dscp", "--class" or
 * "--gpus") with its value, checked and kept for cli_request(): 0, or -1
 * with the usage error. */
int cli_job_option(const char *opt, const char *value);
/* Forget the options gathered (a new command line). */
void cli_job_options_reset(void);

/* The control socket of instance name into buf: 0, or -1 with the usage
 * error (not a systemd instance name, too long a path). */
int cli_instance_socket(const char *name, char *buf, size_t size);
/* After instance name could not be reached: the instances that have a
 * socket here, as a detail of the error, and the nearest ("did you
 * mean", the --json error's suggestion). */
void cli_instance_hint(const char *name);
/* A duration for option opt: seconds as a plain decimal or with a time
 * unit ("500ms"), from min to max seconds (min 0 also admits 0). 0 or
 * -1 with the usage error. */
int cli_seconds(const char *opt, const char *s, double min, double max,
		double *out);
/* A whole number for option opt, 0 to max. 0 or -1 with the usage
 * error. */
int cli_count(const char *opt, const char *s, unsigned long max,
	      unsigned long *out);
/* The usage error for an option getopt_long() refused: opts and shorts
 * what it was given, arg the word (argv[optind - 1]), short_opt getopt's
 * optopt, missing true for a missing value (getopt's ':'). */
void cli_bad_option(const struct option *opts, const char *shorts,
		    const char *arg, int short_opt, bool missing);

#endif
