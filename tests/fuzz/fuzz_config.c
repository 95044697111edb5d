// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_config.c - libFuzzer target: the YAML configuration loader
 * (config_load_string(), control/config_*.c) on every input, and the
 * --dump-config path (config_dump()) on every input it accepts.
 *
 * The input is copied to a heap buffer of exactly its size plus the NUL the
 * loader needs, so that a read past the text is an ASan heap-buffer-overflow.
 * An input holding a NUL byte is loaded up to it (the loader takes a C
 * string, as the file loader's reader would give it the same bytes).
 *
 * Checks, besides memory errors and leaks (libFuzzer's leak detection):
 *   - the loader returns a configuration or fills the error, never both;
 *   - an error is "NAME:LINE:COL: message" (LINE, COL decimal, >= 1) or,
 *     for a failure without a position (out of memory), "NAME: message";
 *     the message is not empty and holds no newline;
 *   - loading is deterministic: the same input gives the same error text;
 *   - round trip: an accepted configuration is dumped, the dump loads
 *     again, and the second dump is byte-identical to the first.
 *
 * Single-threaded (libFuzzer calls it from one thread); no state is kept
 * between inputs. check_system is false: the fuzzer machine has none of the
 * interfaces, users or groups an input may name.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "fuzz_check.h"

#define NAME "fuzz.yaml"

/* Skip a run of decimal digits that is a number >= 1; NULL if none. */
static const char *number(const char *p)
{
	const char *start = p;
	unsigned long v = 0;

	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 100000000ul)
			return NULL;
		p++;
	}
	return p > start && v >= 1 ? p : NULL;
}

static void check_error(const char *msg)
{
	const char *p;

	CHECK(strlen(msg) < sizeof(((struct config_error *)0)->msg));
	CHECK(strncmp(msg, NAME ":", strlen(NAME ":")) == 0);
	p = msg + strlen(NAME ":");
	if (*p != ' ') { /* NAME:LINE:COL: */
		p = number(p);
		CHECK(p && *p == ':');
		p = number(p + 1);
		CHECK(p && *p == ':');
		p++;
	}
	CHECK(p[0] == ' ' && p[1] != '\0' && p[1] != ' ');
	CHECK(strchr(msg, '\n') == NULL);
}

/* config_dump() into a malloc'd string (*len bytes, NUL terminated). */
static char *dump(const struct xdplane_config *cfg, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	CHECK(f != NULL);
	CHECK(config_dump(cfg, f) == 0);
	CHECK(fclose(f) == 0);
	CHECK(text != NULL);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_error err, err2;
	struct xdplane_config *cfg, *again;
	char *yaml, *d1, *d2;
	size_t l1, l2;

	if (size > 64 * 1024)
		return -1;
	yaml = malloc(size + 1);
	CHECK(yaml != NULL);
	memcpy(yaml, data, size);
	yaml[size] = '\0';

	memset(&err, 0, sizeof(err));
	cfg = config_load_string(NAME, yaml, false, &err);
	if (!cfg) {
		CHECK(err.n >= 1 && err.n <= CONFIG_ERRORS_MAX &&
		      err.found >= err.n);
		for (unsigned int i = 0; i < err.n; i++)
			check_error(config_error_at(&err, i));
		memset(&err2, 0, sizeof(err2));
		again = config_load_string(NAME, yaml, false, &err2);
		CHECK(again == NULL);
		CHECK(err.found == err2.found && err.n == err2.n);
		for (unsigned int i = 0; i < err.n; i++)
			CHECK(strcmp(config_error_at(&err, i),
				     config_error_at(&err2, i)) == 0);
		free(yaml);
		return 0;
	}
	CHECK(err.msg[0] == '\0');
	CHECK(strcmp(cfg->path, NAME) == 0);

	d1 = dump(cfg, &l1);
	memset(&err2, 0, sizeof(err2));
	again = config_load_string(NAME, d1, false, &err2);
	if (!again) {
		fprintf(stderr, "dump does not load again: %s\n--- dump:\n%s",
			err2.msg, d1);
		abort();
	}
	d2 = dump(again, &l2);
	if (l1 != l2 || memcmp(d1, d2, l1)) {
		fprintf(stderr,
			"dump changed on reload\n--- first:\n%s"
			"--- second:\n%s",
			d1, d2);
		abort();
	}
	free(d2);
	free(d1);
	config_free(again);
	config_free(cfg);
	free(yaml);
	return 0;
}
