// SPDX-License-Identifier: BSD-2-Clause
/*
 * config_load.c - the pipeline of config_load() (the loader's files:
 * cfg_walk.h). The text is read once, into a yaml_loc tree (libyaml:
 * syntax errors, duplicate keys, every node with its key path, its
 * parent and the line/column of its key and value); the schema is walked
 * down that tree (config_schema.h) and every node that is not what its
 * key wants is reported. Then, unless a known key had a value of the
 * wrong type (the sections read the nodes as the schema promises), the
 * sections (config_sections.h) read what was written from the nodes,
 * give the defaults to what was not, and check the rules between keys.
 *
 * Errors: every independent one is reported (config.h, struct
 * config_error), like a compiler's, in the order of the file: a YAML
 * syntax error alone (nothing after it can be located); else each schema
 * error; then each section's first error, each number key's own, and none
 * from a section that reads what a refused one left half built (build()).
 * Unknown keys do not stop the sections: no section reads them.
 */
#include "config_schema.h"
#include "config_sections.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The config from the checked document: defaults, then the rules. Every
 * section runs and reports its first error, but those that read what a
 * refused one left half built (the classes, for dcqcn, pfc and adaptive;
 * the ports' MTUs, for pfc): each independent error is reported once,
 * and none that only follows from another. NULL if any was found. */
static struct xdplane_config *build(const struct load_ctx *c, bool check_system)
{
	struct xdplane_config *cfg = calloc(1, sizeof(*cfg));
	bool ports_bad, qos_bad;

	if (!cfg) {
		cfg_fail(c, (struct yaml_loc_pos){1, 1}, "out of memory");
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", c->name);
	cfg->xdp_mode = cfg_enum_at(c, "xdp_mode", cfg_xdp_modes, 0);
	cfg->bind_mode = cfg_enum_at(c, "bind_mode", cfg_bind_modes, 0);
	cfg->failure_mode =
		cfg_enum_at(c, "failure_mode", cfg_failure_modes, 0);
	cfg->poll.shaper_wait_spin =
		cfg_enum_at(c, "poll.shaper_wait", cfg_shaper_waits, 0) == 1;
	/* a refused queues stays auto, numbers their defaults: no section
	 * depends on those having loaded */
	ports_bad = cfg_load_ports(c, cfg, check_system) != 0;
	cfg_load_resources(c, cfg);
	qos_bad = cfg_load_qos(c, cfg) != 0;
	if (!qos_bad) {
		cfg_load_dcqcn(c, cfg);
		if (!ports_bad)
			cfg_load_pfc(c, cfg);
		cfg_load_adaptive(c, cfg);
	}
	cfg_load_jobs(c, cfg);
	cfg_load_daemon(c, cfg, check_system);
	if (c->err->found) {
		free(cfg);
		return NULL;
	}
	return cfg;
}

/* Where message m ("name:line:col: ...") points, as line << 32 | col. */
static uint64_t msg_pos(const char *name, const char *m)
{
	size_t len = strlen(name);
	unsigned long line, col;
	char *end;

	if (strncmp(m, name, len) || m[len] != ':')
		return 0;
	line = strtoul(m + len + 1, &end, 10);
	col = *end == ':' ? strtoul(end + 1, NULL, 10) : 0;
	return (uint64_t)line << 32 | (uint32_t)col;
}

/* The kept messages in the order of the file (stable: one place's
 * messages stay in the order of the checks). */
static void sort_errors(const char *name, struct config_error *err)
{
	char tmp[CONFIG_ERROR_LEN], *a, *b;

	for (unsigned int i = 1; i < err->n; i++)
		for (unsigned int j = i; j > 0; j--) {
			a = j > 1 ? err->more[j - 2] : err->msg;
			b = err->more[j - 1];
			if (msg_pos(name, a) <= msg_pos(name, b))
				break;
			memcpy(tmp, a, sizeof(tmp));
			memcpy(a, b, sizeof(tmp));
			memcpy(b, tmp, sizeof(tmp));
		}
}

static struct xdplane_config *load(const char *name, const char *buf,
				   size_t len, bool check_system,
				   struct config_error *err)
{
	struct load_ctx c = {.name = name, .err = err};
	struct xdplane_config *cfg = NULL;
	struct yaml_loc_error lerr;

	cfg_error_reset(err);
	if (yaml_loc_parse(&c.loc, buf, len, &lerr))
		cfg_fail(&c, lerr.pos, "%s%s%s", lerr.path,
			 *lerr.path ? ": " : "", lerr.what);
	else if (cfg_check_schema(&c) != CFG_SCHEMA_BAD)
		cfg = build(&c, check_system);
	sort_errors(name, err);
	yaml_loc_free(&c.loc);
	return cfg;
}

/* The whole stream, or NULL with errno set. */
static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 0;
	char *buf = NULL, *grown;

	*len = 0;
	do {
		if (*len == cap) {
			cap = cap ? 2 * cap : 4096;
			grown = realloc(buf, cap);
			if (!grown)
				break;
			buf = grown;
		}
		*len += fread(buf + *len, 1, cap - *len, f);
	} while (!feof(f) && !ferror(f));
	if (!feof(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct xdplane_config *config_load(const char *path, bool check_system,
				   struct config_error *err)
{
	struct xdplane_config *cfg = NULL;
	FILE *f = fopen(path, "r");
	size_t len;
	char *buf = f ? read_all(f, &len) : NULL;
	char msg[CONFIG_ERROR_LEN];

	if (!buf) {
		snprintf(msg, sizeof(msg), "%s: cannot read: %s", path,
			 strerror(errno));
		cfg_error_reset(err);
		cfg_error_add(err, msg);
	} else
		cfg = load(path, buf, len, check_system, err);
	if (f)
		fclose(f);
	free(buf);
	return cfg;
}

struct xdplane_config *config_load_string(const char *name, const char *yaml,
					  bool check_system,
					  struct config_error *err)
{
	return load(name, yaml, strlen(yaml), check_system, err);
}

void config_free(struct xdplane_config *cfg)
{
	free(cfg);
}

const char *xdp_attach_mode_name(enum xdp_attach_mode m)
{
	return cfg_name(cfg_xdp_modes, m);
}

const char *xsk_bind_mode_name(enum xsk_bind_mode m)
{
	return cfg_name(cfg_bind_modes, m);
}

const char *failure_mode_name(enum failure_mode m)
{
	return cfg_name(cfg_failure_modes, m);
}

const char *port_checksum_name(enum port_checksum m)
{
	return cfg_name(cfg_checksum_modes, m);
}

const char *config_jobs_mode_name(enum config_jobs_mode m)
{
	return cfg_name(cfg_jobs_modes, m);
}

const char *config_log_level_name(int level)
{
	return cfg_name(cfg_log_levels, level);
}

int config_log_level_parse(const char *name)
{
	const struct cfg_name *n = cfg_find_name(cfg_log_levels, name);

	return n ? n->val : -1;
}
