// SPDX-License-Identifier: BSD-2-Clause
/*
 * cli_args.c - xdplanectl's verbs, arguments and option values, checked
 * before connecting; see cli_args.h.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include "cli_args.h"
#include "ctl_client.h"
#include "prefix.h"
#include "qos.h"
#include "suggest.h"
#include "units.h"

#define IFNAME_MAX 15 /* IFNAMSIZ - 1 */

const struct cli_verb cli_verbs[] = {
	{"status", "", 0, 0, false},
	{"stats", "[PORT]", 0, 1, false},
	{"classes", "", 0, 0, false},
	{"config", "", 0, 0, false},
	{"flows", "", 0, 0, false},
	{"reload", "", 0, 0, true},
	{"congestion", "PORT CLASS [SEVERITY [PREFIX]]", 2, 4, true},
	{"log-level", "LEVEL", 1, 1, true},
	{"watch", "[--interval SEC] [--count N]", 0, 0, false},
	{"jobs", "", 0, 0, false},
	{"job-register",
	 "ID --prefix P [--prefix P...] [--dscp N] [--class NAME] [--gpus N]",
	 1, 1, true},
	{"job-unregister", "ID", 1, 1, true},
	{NULL, NULL, 0, 0, false},
};

/* job-register's options as cli_job_option() gathered them: text checked
 * by the rules of the daemon's job table (job_table.h). */
static struct {
	const char *prefixes[CLI_JOB_PREFIXES_MAX];
	unsigned int n_prefixes;
	long dscp; /* -1: not given */
	const char *cls;
	unsigned long gpus;
	bool has_gpus;
} job_opts = {.dscp = -1};

/* The daemon's log levels (ctl_proto.c), the configuration's log_level. */
static const char *const levels[] = {"err",  "warn",  "notice",
				     "info", "debug", NULL};

/* "a, b, c" of names (NULL-terminated) into buf. */
static void join(char *buf, size_t size, const char *const *names,
		 size_t stride)
{
	size_t len;

	buf[0] = '\0';
	for (size_t i = 0;; i++) {
		const char *n = *(const char *const *)((const char *)names +
						       i * stride);

		if (!n)
			break;
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? ", " : "", n);
	}
}

/* The usage error "WHAT 'got' ...": with the nearest of names (did you
 * mean), else the list of them. */
static void unknown(const char *what, const char *got, const char *const *names,
		    size_t stride)
{
	const char *best = NULL, *n;
	char list[256];
	struct suggest s;

	suggest_init(&s, got);
	for (size_t i = 0;; i++) {
		n = *(const char *const *)((const char *)names + i * stride);
		if (!n)
			break;
		suggest_offer(&s, n);
		/* or a longer spelling of it: "warning", "error" */
		if (!best && strlen(n) >= 3 && !strncmp(got, n, strlen(n)))
			best = n;
	}
	if (suggest_best(&s))
		best = suggest_best(&s);
	join(list, sizeof(list), names, stride);
	if (best) {
		cli_fail("usage",
			 "unknown %s '%.64s' (did you mean '%s'?); %ss: %s",
			 what, got, best, what, list);
		cli_error_set("suggestion", best);
	} else {
		cli_fail("usage", "unknown %s '%.64s'; %ss: %s", what, got,
			 what, list);
	}
}

void cli_no_verb(void)
{
	char list[256];

	join(list, sizeof(list), &cli_verbs[0].name, sizeof(cli_verbs[0]));
	cli_fail("usage", "no verb given; verbs: %s (xdplanectl --help)", list);
}

const struct cli_verb *cli_verb_find(const char *name)
{
	for (const struct cli_verb *v = cli_verbs; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	unknown("verb", name, &cli_verbs[0].name, sizeof(cli_verbs[0]));
	return NULL;
}

/* Linux's dev_valid_name() and IFNAMSIZ, as the configuration checks
 * ports[].interface. */
static bool valid_port(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > IFNAME_MAX || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || (unsigned char)*s <= ' ' ||
		    *s == 0x7f)
			return false;
	return true;
}

/* The configuration's class names: 1 to QOS_NAME_MAX - 1 letters,
 * digits, '_' or '-'. */
static bool valid_class(const char *s)
{
	size_t len = strlen(s);

	return len && len < QOS_NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_-") == len;
}

/* A job id as the job table takes it: 1 to CLI_JOB_ID_MAX characters of
 * letters, digits and . _ : / -, not starting "passive-". */
static bool job_id_arg(const struct cli_verb *v, const char *s)
{
	size_t len = strlen(s);

	if (!len || len > CLI_JOB_ID_MAX ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._:/-") != len) {
		cli_fail("usage",
			 "%s: ID '%.64s' is not a job id (1 to %d letters, "
			 "digits, '.', '_', ':', '/' or '-')",
			 v->name, s, CLI_JOB_ID_MAX);
		return false;
	}
	if (!strncmp(s, "passive-", 8)) {
		cli_fail("usage",
			 "%s: ID '%.64s': ids starting passive- are the "
			 "daemon's own passive jobs",
			 v->name, s);
		return false;
	}
	return true;
}

int cli_job_option(const char *opt, const char *value)
{
	struct qos_prefix prefix;
	unsigned long n;
	char why[256];

	if (!strcmp(opt, "--prefix")) {
		if (job_opts.n_prefixes == CLI_JOB_PREFIXES_MAX) {
			cli_fail("usage",
				 "--prefix: at most %d prefixes per job "
				 "(extra: '%.64s')",
				 CLI_JOB_PREFIXES_MAX, value);
			return -1;
		}
		if (prefix_check(value, &prefix, why, sizeof(why))) {
			cli_fail("usage", "--prefix: %s", why);
			return -1;
		}
		job_opts.prefixes[job_opts.n_prefixes++] = value;
	} else if (!strcmp(opt, "--dscp")) {
		if (cli_count("--dscp", value, 63, &n))
			return -1;
		job_opts.dscp = (long)n;
	} else if (!strcmp(opt, "--class")) {
		if (!valid_class(value)) {
			cli_fail("usage",
				 "--class: '%.64s' is not a class name (1 to "
				 "%d letters, digits, '_' or '-')",
				 value, QOS_NAME_MAX - 1);
			return -1;
		}
		job_opts.cls = value;
	} else {
		if (cli_count("--gpus", value, CLI_JOB_GPUS_MAX,
			      &job_opts.gpus))
			return -1;
		job_opts.has_gpus = true;
	}
	return 0;
}

void cli_job_options_reset(void)
{
	memset(&job_opts, 0, sizeof(job_opts));
	job_opts.dscp = -1;
}

/* job-register ID with the options gathered. */
static json_t *job_register_args(const struct cli_verb *v, const char *id,
				 json_t *args)
{
	json_t *pfx;

	if (!job_id_arg(v, id))
		return NULL;
	if (!job_opts.n_prefixes && job_opts.dscp < 0) {
		cli_fail("usage",
			 "job-register: give the job's hosts (--prefix P) or "
			 "its DSCP (--dscp N); nothing else tells its flows");
		return NULL;
	}
	json_object_set_new(args, "id", json_string(id));
	if (job_opts.n_prefixes) {
		pfx = json_array();
		for (unsigned int i = 0; i < job_opts.n_prefixes; i++)
			json_array_append_new(
				pfx, json_string(job_opts.prefixes[i]));
		json_object_set_new(args, "prefixes", pfx);
	}
	if (job_opts.dscp >= 0)
		json_object_set_new(args, "dscp", json_integer(job_opts.dscp));
	if (job_opts.cls)
		json_object_set_new(args, "class", json_string(job_opts.cls));
	if (job_opts.has_gpus)
		json_object_set_new(args, "gpus",
				    json_integer((json_int_t)job_opts.gpus));
	return args;
}

static json_t *port_arg(const struct cli_verb *v, const char *s)
{
	if (valid_port(s))
		return json_string(s);
	cli_fail("usage",
		 "%s: PORT '%.64s' is not an interface name (1 to %d "
		 "characters, no '/', ':' or blanks)",
		 v->name, s, IFNAME_MAX);
	return NULL;
}

json_t *cli_request(const struct cli_verb *v, int argc, char **argv)
{
	json_t *args = json_object(), *a;
	struct qos_prefix prefix;
	char why[256];
	double sev;

	if (argc < (int)v->min_args || argc > (int)v->max_args) {
		if (v->max_args == 0)
			cli_fail("usage", "%s takes no arguments (got '%.64s')",
				 v->name, argv[0]);
		else if (argc < (int)v->min_args)
			cli_fail("usage",
				 "%s needs %s%u argument%s, got %d: xdplanectl "
				 "%s %s",
				 v->name,
				 v->min_args < v->max_args ? "at least " : "",
				 v->min_args, v->min_args > 1 ? "s" : "", argc,
				 v->name, v->args);
		else
			cli_fail("usage",
				 "%s takes at most %u argument%s, got %d "
				 "(extra: '%.64s'): xdplanectl %s %s",
				 v->name, v->max_args,
				 v->max_args > 1 ? "s" : "", argc,
				 argv[v->max_args], v->name, v->args);
		goto fail;
	}
	if (!strcmp(v->name, "watch")) {
		json_decref(args);
		return NULL;
	}
	if (!strcmp(v->name, "stats") && argc == 1) {
		if (!(a = port_arg(v, argv[0])))
			goto fail;
		json_object_set_new(args, "port", a);
	} else if (!strcmp(v->name, "congestion")) {
		if (!(a = port_arg(v, argv[0])))
			goto fail;
		json_object_set_new(args, "port", a);
		if (!valid_class(argv[1])) {
			cli_fail("usage",
				 "congestion: CLASS '%.64s' is not a class "
				 "name (1 to %d letters, digits, '_' or '-')",
				 argv[1], QOS_NAME_MAX - 1);
			goto fail;
		}
		json_object_set_new(args, "class", json_string(argv[1]));
		if (argc >= 3) {
			if (units_real_fraction(argv[2], true, &sev) ||
			    !(sev >= 0 && sev <= 1)) {
				cli_fail("usage",
					 "congestion: SEVERITY '%.64s' is not "
					 "a number from 0 to 1 such as 0.5, or "
					 "a percentage such as 50%%",
					 argv[2]);
				goto fail;
			}
			json_object_set_new(args, "severity", json_real(sev));
		}
		/* the daemon's and the configuration's grammar */
		if (argc == 4) {
			if (prefix_check(argv[3], &prefix, why, sizeof(why))) {
				cli_fail("usage", "congestion: PREFIX: %s",
					 why);
				goto fail;
			}
			json_object_set_new(args, "prefix",
					    json_string(argv[3]));
		}
	} else if (!strcmp(v->name, "log-level")) {
		size_t i;

		for (i = 0; levels[i] && strcmp(levels[i], argv[0]); i++)
			;
		if (!levels[i]) {
			unknown("level", argv[0], levels, sizeof(*levels));
			goto fail;
		}
		json_object_set_new(args, "level", json_string(argv[0]));
	} else if (!strcmp(v->name, "job-register")) {
		if (!job_register_args(v, argv[0], args))
			goto fail;
	} else if (!strcmp(v->name, "job-unregister")) {
		if (!job_id_arg(v, argv[0]))
			goto fail;
		json_object_set_new(args, "id", json_string(argv[0]));
	}
	return json_pack("{s:s,s:o}", "command", v->name, "args", args);
fail:
	json_decref(args);
	return NULL;
}

/* systemd's unit name characters (an instance as %i: escaped). */
static bool valid_instance(const char *s, size_t len)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.-\\";

	for (size_t i = 0; i < len; i++)
		if (!s[i] || !strchr(ok, s[i]))
			return false;
	return len > 0;
}

int cli_instance_socket(const char *name, char *buf, size_t size)
{
	/* both sockets must fit sockaddr_un */
	const size_t max = sizeof(((struct sockaddr_un *)0)->sun_path) - 1 -
			   strlen(CLI_INSTANCE_DIR
				  "/" CLI_SOCKET_FILE CLI_READONLY_SUFFIX);
	const char *n = name;
	size_t len;

	/* the unit's name works too: xdplane@NAME[.service] */
	if (!strncmp(n, "xdplane@", 8))
		n += 8;
	len = strlen(n);
	if (len > 8 && !strcmp(n + len - 8, ".service"))
		len -= 8;
	if (!valid_instance(n, len) || len > max) {
		cli_fail("usage",
			 "instance '%.64s' is not an instance name (the NAME "
			 "of xdplane@NAME.service: 1 to %zu letters, digits, "
			 "':', '_', '.', '-' or '\\')",
			 name, max);
		return -1;
	}
	if ((size_t)snprintf(buf, size,
			     CLI_INSTANCE_DIR "%.*s/" CLI_SOCKET_FILE, (int)len,
			     n) >= size) {
		cli_fail("usage", "instance '%.64s': the path is too long",
			 name);
		return -1;
	}
	return 0;
}

int cli_seconds(const char *opt, const char *s, double min, double max,
		double *out)
{
	uint64_t ns;
	double v;

	if (units_real(s, &v)) {
		if (units_time_get(s, UINT64_MAX, &ns))
			goto bad;
		v = (double)ns / 1e9;
	}
	if (isfinite(v) && (v >= min || (min == 0 && v == 0)) && v <= max) {
		*out = v;
		return 0;
	}
bad:
	cli_fail("usage",
		 "%s wants seconds from %g to %g (a decimal such as 1.5 or a "
		 "time such as 500ms), not '%.64s'",
		 opt, min, max, s);
	return -1;
}

int cli_count(const char *opt, const char *s, unsigned long max,
	      unsigned long *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s < '0' || *s > '9' || v > max) {
		cli_fail("usage",
			 "%s wants a whole number from 0 to %lu, not '%.64s'",
			 opt, max, s);
		return -1;
	}
	*out = v;
	return 0;
}

void cli_bad_option(const struct option *opts, const char *shorts,
		    const char *arg, int short_opt, bool missing)
{
	char names[32][24], word[64], amb[256] = "", all[512];
	const char *list[33], *match = NULL;
	unsigned int n = 0, prefixed = 0;
	struct suggest s;
	size_t len, l;

	for (const struct option *o = opts; o->name && n < 32; o++) {
		snprintf(names[n], sizeof(names[n]), "--%s", o->name);
		list[n] = names[n];
		n++;
	}
	list[n] = NULL;
	if (missing) {
		for (const struct option *o = opts; o->name; o++)
			if (o->val == short_opt)
				match = o->name;
		if (match)
			cli_fail("usage", "--%s wants a value", match);
		else
			cli_fail("usage", "-%c wants a value", short_opt);
		return;
	}
	if (short_opt && arg && strncmp(arg, "--", 2)) {
		for (l = 0; *shorts && l + 4 < sizeof(amb); shorts++)
			if (*shorts != ':')
				l += (size_t)snprintf(amb + l, sizeof(amb) - l,
						      "%s-%c", l ? ", " : "",
						      *shorts);
		cli_fail("usage", "unknown option -%c; short options: %s",
			 short_opt, amb);
		return;
	}
	/* a long option: "--name" or "--name=value" */
	snprintf(word, sizeof(word), "%s", arg ? arg : "");
	word[strcspn(word, "=")] = '\0';
	if (short_opt) {
		cli_fail("usage", "%s takes no value (got '%.64s')", word, arg);
		return;
	}
	len = strlen(word);
	for (unsigned int i = 0; i < n; i++) {
		if (len <= 2 || strncmp(list[i], word, len))
			continue;
		l = strlen(amb);
		snprintf(amb + l, sizeof(amb) - l, "%s%s", l ? " or " : "",
			 list[i]);
		prefixed++;
	}
	if (prefixed > 1) {
		cli_fail("usage", "option %s is ambiguous: %s", word, amb);
		return;
	}
	suggest_init(&s, word);
	for (unsigned int i = 0; i < n; i++)
		suggest_offer(&s, list[i]);
	if (suggest_best(&s)) {
		cli_fail("usage", "unknown option %s (did you mean %s?)", word,
			 suggest_best(&s));
		cli_error_set("suggestion", suggest_best(&s));
	} else {
		join(all, sizeof(all), list, sizeof(*list));
		cli_fail("usage", "unknown option %s; options: %s", word, all);
	}
}

void cli_instance_hint(const char *name)
{
	const size_t pre = strlen(CLI_INSTANCE_DIR),
		     post = strlen("/" CLI_SOCKET_FILE);
	char list[512] = "", *n;
	const char *best = NULL;
	struct suggest s;
	glob_t g;
	size_t len;

	if (!strncmp(name, "xdplane@", 8))
		name += 8;
	if (glob(CLI_INSTANCE_DIR "*/" CLI_SOCKET_FILE, 0, NULL, &g)) {
		cli_error("no instance runs here (no " CLI_INSTANCE_DIR
			  "*/" CLI_SOCKET_FILE ")");
		return;
	}
	suggest_init(&s, name);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		n = g.gl_pathv[i] + pre;
		n[strlen(n) - post] = '\0';
		len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
			 n);
		suggest_offer(&s, n);
	}
	best = suggest_best(&s);
	if (best) {
		cli_error("instances here: %s (did you mean '%s'?)", list,
			  best);
		cli_error_set("suggestion", best);
	} else {
		cli_error("instances here: %s", list);
	}
	globfree(&g);
}
