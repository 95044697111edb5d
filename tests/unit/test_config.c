/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_config.c - unit tests of control/config.c (and its yaml_loc pass):
 * values and defaults loaded, every rule rejected with the exact
 * "file:line:col:" of the offending key or value, libcyaml's and libyaml's
 * errors located, the dump loading back the same, the shipped config.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <cmocka.h>

#include "config.h"

#define PORTS "ports:\n  - interface: eth1\n  - interface: eth2\n"

static struct xdplane_config *load(const char *yaml, struct config_error *err)
{
	return config_load_string("t.yaml", yaml, false, err);
}

static struct xdplane_config *load_ok(const char *yaml)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg = load(yaml, &err);

	if (!cfg)
		fail_msg("rejected: %s", err.msg);
	return cfg;
}

/* A rejected document: the message starts with `prefix` ("t.yaml:L:C: ")
 * and contains `text`. */
struct bad_case {
	const char *name;
	const char *yaml;
	const char *prefix;
	const char *text;
};

static const struct bad_case bad_cases[] = {
	/* ports */
	{"ports_missing", "queues: 1\n",
	 "t.yaml:1:1: ", "ports: required key is missing"},
	{"empty_document", "",
	 "t.yaml:1:1: ", "ports: required key is missing"},
	{"ports_one", "ports:\n  - interface: a\n",
	 "t.yaml:2:3: ", "ports: must list exactly 2 ports, the pair (got 1)"},
	{"ports_three",
	 "ports: [{interface: a}, {interface: b}, {interface: c}]\n",
	 "t.yaml:1:8: ", "ports: must list exactly 2 ports, the pair (got 3)"},
	{"interface_missing", "ports:\n  - interface: a\n  - {}\n",
	 "t.yaml:3:5: ", "ports[1].interface: required key is missing"},
	{"interface_empty", "ports:\n  - interface: a\n  - interface: ''\n",
	 "t.yaml:3:16: ",
	 "ports[1].interface: expected a string of 1 to 15 characters "
	 "(got nothing)"},
	{"interface_too_long",
	 "ports:\n  - interface: abcdefghijklmnop\n  - interface: b\n",
	 "t.yaml:2:16: ",
	 "ports[0].interface: expected a string of 1 to 15 characters "
	 "(got 'abcdefghijklmnop')"},
	{"interface_same", "ports:\n  - interface: a\n  - interface: a\n",
	 "t.yaml:3:16: ", "ports[1].interface: same interface as ports[0]"},
	{"interface_invalid", "ports:\n  - interface: a/b\n  - interface: c\n",
	 "t.yaml:2:16: ",
	 "ports[0].interface: not a valid interface name (got 'a/b')"},
	/* numbers */
	{"queues_zero", PORTS "queues: 0\n",
	 "t.yaml:4:9: ", "queues: must be between 1 and 64 (got 0)"},
	{"queues_65", PORTS "queues: 65\n",
	 "t.yaml:4:9: ", "queues: must be between 1 and 64 (got 65)"},
	{"ring_not_pow2", PORTS "rings:\n  fill: 3000\n", "t.yaml:5:9: ",
	 "rings.fill: must be a power of two from 64 to 65536 descriptors "
	 "(got 3000); try 2048 or 4096"},
	{"ring_too_small", PORTS "rings:\n  completion: 32\n", "t.yaml:5:15: ",
	 "rings.completion: must be a power of two from 64 to 65536 "
	 "descriptors (got 32); try 64"},
	{"ring_too_big", PORTS "rings:\n  handoff: 131072\n",
	 "t.yaml:5:12: ", "(got 131072); try 65536"},
	{"ring_rx", PORTS "rings: {rx: 100}\n",
	 "t.yaml:4:13: ", "rings.rx: must be a power of two"},
	{"ring_tx", PORTS "rings: {tx: 0}\n",
	 "t.yaml:4:13: ", "rings.tx: must be a power of two"},
	{"frame_size", PORTS "umem:\n  frame_size: 1000\n", "t.yaml:5:15: ",
	 "umem.frame_size: must be 2048 or 4096 bytes (got 1000)"},
	{"headroom", PORTS "umem:\n  frame_size: 2048\n  headroom: 275\n",
	 "t.yaml:6:13: ",
	 "umem.headroom: leaves less than 1518 bytes of the 2048-byte frame "
	 "after the kernel's 256 bytes (got 275); use at most 274"},
	{"frames_not_pow2", PORTS "umem:\n  frames: 30000\n", "t.yaml:5:11: ",
	 "umem.frames: must be a power of two from 64 to 2147483648 frames "
	 "(got 30000); try 16384 or 32768"},
	{"frames_too_few", PORTS "umem:\n  frames: 16384\n", "t.yaml:5:11: ",
	 "umem.frames: need at least 2 * queues 1 * (rings.fill 4096 + "
	 "rings.tx 2048 + rings.handoff 4096) = 20480 (got 16384); "
	 "set umem.frames to 32768"},
	{"frames_default_too_few", PORTS "queues: 2\n", "t.yaml:4:9: ",
	 "umem.frames: need at least 2 * queues 2 * (rings.fill 4096 + "
	 "rings.tx 2048 + rings.handoff 4096) = 40960 (got 32768); "
	 "set umem.frames to 65536"},
	{"busy_us", PORTS "poll:\n  busy_us: 10001\n", "t.yaml:5:12: ",
	 "poll.busy_us: must be between 0 and 10000 microseconds (got 10001)"},
	{"batch_zero", PORTS "poll:\n  batch: 0\n", "t.yaml:5:10: ",
	 "poll.batch: must be between 1 and 256 descriptors (got 0)"},
	{"batch_257", PORTS "poll:\n  batch: 257\n", "t.yaml:5:10: ",
	 "poll.batch: must be between 1 and 256 descriptors (got 257)"},
	{"cpu_too_big", PORTS "workers:\n  cpus: [1, 256]\n", "t.yaml:5:13: ",
	 "workers.cpus[1]: CPU ids must be below 256 (got 256)"},
	{"cpu_twice", PORTS "workers:\n  cpus: [1, 2, 1]\n",
	 "t.yaml:5:16: ", "workers.cpus[2]: CPU 1 is listed twice"},
	/* libcyaml: unknown keys, at the key itself */
	{"unknown_top", PORTS "qeues: 2\n",
	 "t.yaml:4:1: ", "unknown key 'qeues' (did you mean 'queues'?)"},
	{"unknown_nested", PORTS "rings:\n  fill: 4096\n  txx: 64\n",
	 "t.yaml:6:3: ", "unknown key 'rings.txx' (did you mean 'rings.tx'?)"},
	{"unknown_in_port", "ports:\n  - interface: a\n  - interfac: b\n",
	 "t.yaml:3:5: ",
	 "unknown key 'ports[1].interfac' (did you mean "
	 "'ports[1].interface'?)"},
	{"unknown_far", PORTS "colour: blue\n", "t.yaml:4:1: ",
	 "unknown key 'colour'; the keys at the top are: ports, queues,"},
	/* libcyaml: wrong types */
	{"type_word", PORTS "queues: two\n", "t.yaml:4:9: ",
	 "queues: expected a plain decimal number from 0 to 4294967295 "
	 "(got 'two')"},
	{"type_fraction", PORTS "queues: 1.5\n",
	 "t.yaml:4:9: ", "queues: expected a plain decimal number"},
	{"type_octal", PORTS "queues: 010\n",
	 "t.yaml:4:9: ", "queues: expected a plain decimal number"},
	{"type_negative", PORTS "poll: {busy_us: -1}\n",
	 "t.yaml:4:17: ", "poll.busy_us: expected a plain decimal number"},
	{"type_empty", PORTS "queues:\n", "t.yaml:4:8: ",
	 "queues: expected a plain decimal number from 0 to 4294967295 "
	 "(got nothing)"},
	{"type_scalar_for_mapping", PORTS "rings: 3\n", "t.yaml:4:8: ",
	 "rings: expected a mapping with the keys fill, completion, rx, tx, "
	 "handoff (got '3')"},
	{"type_scalar_entries", "ports: [a, b]\n", "t.yaml:1:9: ",
	 "ports[0]: expected a mapping with the keys interface (got 'a')"},
	{"type_scalar_for_list", PORTS "workers:\n  cpus: 3\n",
	 "t.yaml:5:9: ", "workers.cpus: expected a list (got '3')"},
	{"type_cpu_entry", PORTS "workers:\n  cpus: [1, x]\n",
	 "t.yaml:5:13: ", "workers.cpus[1]: expected a plain decimal number"},
	{"type_top_list", "- a\n",
	 "t.yaml:1:1: ", "document: expected a mapping with the keys ports,"},
	/* libcyaml: enums */
	{"enum_typo", PORTS "xdp_mode: nativ\n", "t.yaml:4:11: ",
	 "xdp_mode: expected one of native, generic, auto (got 'nativ'); "
	 "did you mean 'native'?"},
	{"enum_far", PORTS "bind_mode: fast\n", "t.yaml:4:12: ",
	 "bind_mode: expected one of zerocopy, copy, auto (got 'fast')"},
	{"enum_number", PORTS "failure_mode: 1\n", "t.yaml:4:15: ",
	 "failure_mode: expected one of open, closed (got '1')"},
	{"alias", "ports:\n  - interface: &x a\n  - interface: *x\n",
	 "t.yaml:3:16: ", "ports[1].interface: aliases (*name) are not"},
	/* libyaml, and what yaml_loc adds */
	{"syntax_indent", PORTS "rings:\n  fill: 64\n   tx: 64\n",
	 "t.yaml:6:6: ",
	 "rings: YAML syntax error: mapping values are not allowed"},
	{"syntax_flow", "ports: [\n", "t.yaml:2:1: ", "YAML syntax error: "},
	{"duplicate", PORTS "queues: 1\nqueues: 2\n",
	 "t.yaml:5:1: ", "queues: duplicate key (first written at 4:1)"},
	{"two_documents", PORTS "---\nqueues: 2\n",
	 "t.yaml:4:1: ", "a second YAML document"},
	{"after_document_end", PORTS "...\nqueues: 2\n", "t.yaml:5:1: ",
	 "YAML syntax error: did not find expected <document start>"},
	{"too_deep", PORTS "x: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n",
	 "t.yaml:4:19: ", "nested more than 16 levels deep"},
	{"complex_key", PORTS "? [a]\n: 1\n",
	 "t.yaml:4:3: ", "a key must be a string"},
};

static void test_bad(void **state)
{
	const struct bad_case *c = *state;
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg = load(c->yaml, &err);

	if (cfg) {
		config_free(cfg);
		fail_msg("%s: loaded, want an error at %s", c->name, c->prefix);
	}
	if (strncmp(err.msg, c->prefix, strlen(c->prefix)) ||
	    !strstr(err.msg, c->text))
		fail_msg("%s:\n got: %s\nwant: %s...%s", c->name, err.msg,
			 c->prefix, c->text);
}

static void test_full(void **state)
{
	static const char yaml[] = "ports:\n"
				   "  - interface: veth-a\n"
				   "  - interface: veth-b\n"
				   "queues: 2\n"
				   "xdp_mode: native\n"
				   "bind_mode: copy\n"
				   "failure_mode: closed\n"
				   "rings:\n"
				   "  fill: 2048\n"
				   "  completion: 1024\n"
				   "  rx: 512\n"
				   "  tx: 1024\n"
				   "  handoff: 256\n"
				   "umem:\n"
				   "  frames: 16384\n"
				   "  frame_size: 2048\n"
				   "  headroom: 128\n"
				   "poll:\n"
				   "  busy_us: 50\n"
				   "  batch: 32\n"
				   "workers:\n"
				   "  cpus: [3, 1, 2]\n";
	struct xdplane_config *cfg = load_ok(yaml);

	(void)state;
	assert_string_equal(cfg->path, "t.yaml");
	assert_string_equal(cfg->ports[0].interface, "veth-a");
	assert_string_equal(cfg->ports[1].interface, "veth-b");
	assert_int_equal(cfg->queues, 2);
	assert_int_equal(cfg->xdp_mode, XDP_ATTACH_NATIVE);
	assert_int_equal(cfg->bind_mode, XSK_BIND_COPY);
	assert_int_equal(cfg->failure_mode, FAILURE_CLOSED);
	assert_int_equal(cfg->rings.fill, 2048);
	assert_int_equal(cfg->rings.completion, 1024);
	assert_int_equal(cfg->rings.rx, 512);
	assert_int_equal(cfg->rings.tx, 1024);
	assert_int_equal(cfg->rings.handoff, 256);
	assert_int_equal(cfg->umem.frames, 16384);
	assert_int_equal(cfg->umem.frame_size, 2048);
	assert_int_equal(cfg->umem.headroom, 128);
	assert_int_equal(cfg->poll.busy_us, 50);
	assert_int_equal(cfg->poll.batch, 32);
	assert_int_equal(cfg->n_cpus, 3);
	assert_int_equal(cfg->cpus[0], 3);
	assert_int_equal(cfg->cpus[1], 1);
	assert_int_equal(cfg->cpus[2], 2);
	config_free(cfg);
}

static void assert_defaults(const struct xdplane_config *cfg)
{
	assert_int_equal(cfg->queues, 1);
	assert_int_equal(cfg->xdp_mode, XDP_ATTACH_AUTO);
	assert_int_equal(cfg->bind_mode, XSK_BIND_AUTO);
	assert_int_equal(cfg->failure_mode, FAILURE_OPEN);
	assert_int_equal(cfg->rings.fill, 4096);
	assert_int_equal(cfg->rings.completion, 2048);
	assert_int_equal(cfg->rings.rx, 2048);
	assert_int_equal(cfg->rings.tx, 2048);
	assert_int_equal(cfg->rings.handoff, 4096);
	assert_int_equal(cfg->umem.frames, 32768);
	assert_int_equal(cfg->umem.frame_size, 4096);
	assert_int_equal(cfg->umem.headroom, 0);
	assert_int_equal(cfg->poll.busy_us, 20);
	assert_int_equal(cfg->poll.batch, 64);
	assert_int_equal(cfg->n_cpus, 0);
}

static void test_defaults(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS);

	(void)state;
	assert_string_equal(cfg->ports[0].interface, "eth1");
	assert_string_equal(cfg->ports[1].interface, "eth2");
	assert_defaults(cfg);
	config_free(cfg);
	/* empty mappings and list: still the defaults */
	cfg = load_ok(PORTS "rings: {}\numem: {}\npoll: {}\n"
			    "workers: {cpus: []}\n");
	assert_defaults(cfg);
	config_free(cfg);
}

/* Written zeros are kept, not taken for absent keys. */
static void test_zeros_kept(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS "poll:\n  busy_us: 0\n");

	(void)state;
	assert_int_equal(cfg->poll.busy_us, 0);
	assert_int_equal(cfg->poll.batch, 64);
	config_free(cfg);
}

/* The edges of the rules are accepted. */
static void test_limits(void **state)
{
	struct xdplane_config *cfg = load_ok(
		PORTS "queues: 64\n"
		      "rings: {fill: 64, completion: 65536, rx: 64, tx: 64, "
		      "handoff: 64}\n"
		      "umem: {frames: 32768, frame_size: 2048, headroom: 274}\n"
		      "poll: {busy_us: 10000, batch: 256}\n"
		      "workers: {cpus: [255, 0]}\n");

	(void)state;
	assert_int_equal(cfg->queues, 64);
	assert_int_equal(cfg->umem.frames, 32768); /* = 128 * 192, exactly */
	assert_int_equal(cfg->umem.headroom, 274);
	assert_int_equal(cfg->cpus[0], 255);
	config_free(cfg);
}

static struct xdplane_config *dump_and_reload(const struct xdplane_config *in,
					      char **text)
{
	struct xdplane_config *out;
	size_t len;
	FILE *f = open_memstream(text, &len);

	assert_non_null(f);
	assert_int_equal(config_dump(in, f), 0);
	assert_int_equal(fclose(f), 0);
	out = config_load_string(in->path, *text, false,
				 &(struct config_error){.msg = ""});
	if (!out)
		fail_msg("dump does not load back:\n%s", *text);
	return out;
}

static void test_dump_round_trip(void **state)
{
	static const char *const docs[] = {
		PORTS,
		"ports: [{interface: \"it's\"}, {interface: '#x'}]\n"
		"queues: 3\nxdp_mode: generic\nbind_mode: zerocopy\n"
		"failure_mode: closed\n"
		"rings: {fill: 128, completion: 64, rx: 256, tx: 512, "
		"handoff: 1024}\n"
		"umem: {frames: 16384, frame_size: 2048, headroom: 64}\n"
		"poll: {busy_us: 0, batch: 1}\nworkers: {cpus: [7, 0, 200]}\n",
	};
	struct xdplane_config *in, *out;
	char *text;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		in = load_ok(docs[i]);
		out = dump_and_reload(in, &text);
		if (memcmp(in, out, sizeof(*in)))
			fail_msg("round trip changed the config:\n%s", text);
		free(text);
		config_free(in);
		config_free(out);
	}
}

static void test_dump_text(void **state)
{
	struct xdplane_config *cfg = load_ok(PORTS "workers: {cpus: [1, 0]}\n");
	char *text;

	(void)state;
	config_free(dump_and_reload(cfg, &text));
	assert_non_null(strstr(text, "ports:\n  - interface: 'eth1'\n"
				     "  - interface: 'eth2'\nqueues: 1\n"
				     "xdp_mode: auto\nbind_mode: auto\n"
				     "failure_mode: open\nrings:\n"
				     "  fill: 4096\n"));
	assert_non_null(strstr(text, "workers:\n  cpus: [1, 0]\n"));
	free(text);
	config_free(cfg);
}

static void test_check_system(void **state)
{
	static const char missing[] = "ports:\n  - interface: lo\n"
				      "  - interface: xdplane-nx0\n";
	struct config_error err = {.msg = ""};
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct xdplane_config *cfg;
	char yaml[128];

	(void)state;
	cfg = config_load_string("t.yaml", missing, true, &err);
	assert_null(cfg);
	assert_string_equal(
		err.msg, "t.yaml:3:16: ports[1].interface: no such interface "
			 "'xdplane-nx0'; check the name with 'ip link'");
	/* without check_system the same file loads */
	config_free(load_ok(missing));

	/* lo and any other interface of this machine */
	assert_non_null(ifs);
	for (i = ifs; i->if_name && !strcmp(i->if_name, "lo"); i++)
		;
	if (!i->if_name) {
		if_freenameindex(ifs);
		skip();
	}
	snprintf(yaml, sizeof(yaml),
		 "ports: [{interface: lo}, {interface: '%s'}]\n", i->if_name);
	cfg = config_load_string("t.yaml", yaml, true, &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->ports[1].interface, i->if_name);
	config_free(cfg);
	if_freenameindex(ifs);
}

static void source_path(char *buf, size_t size, const char *rel)
{
	const char *src = getenv("XDPLANE_SOURCE");
	const char *here = strstr(__FILE__, "tests/unit/"); /* run by hand */

	if (src)
		snprintf(buf, size, "%s/%s", src, rel);
	else
		snprintf(buf, size, "%.*s%s", here ? (int)(here - __FILE__) : 0,
			 __FILE__, rel);
}

/* The shipped file loads, and states exactly the built-in defaults. */
static void test_shipped_config(void **state)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;
	char path[4096];

	(void)state;
	source_path(path, sizeof(path), "config/xdplane.yaml");
	cfg = config_load(path, false, &err);
	if (!cfg)
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->path, path);
	assert_defaults(cfg);
	config_free(cfg);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/test_config_XXXXXX";
	struct config_error err = {.msg = ""};
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, PORTS "qeues: 1\n", strlen(PORTS) + 9),
			 (ssize_t)strlen(PORTS) + 9);
	close(fd);
	assert_null(config_load(path, false, &err));
	assert_true(!strncmp(err.msg, path, strlen(path)));
	assert_string_equal(
		err.msg + strlen(path),
		":4:1: unknown key 'qeues' (did you mean 'queues'?)");
	unlink(path);

	assert_null(config_load(path, false, &err));
	assert_true(!strncmp(err.msg, path, strlen(path)));
	assert_string_equal(err.msg + strlen(path),
			    ": cannot read: No such file or directory");
}

static void test_minimal(void **state)
{
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg = config_load_string(
		"minimal", "ports:\n  - interface: a\n  - interface: b\n",
		false, &err);

	(void)state;
	assert_non_null(cfg);
	assert_string_equal(cfg->ports[0].interface, "a");
	assert_string_equal(cfg->ports[1].interface, "b");
	assert_defaults(cfg);
	config_free(cfg);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(xdp_attach_mode_name(XDP_ATTACH_AUTO), "auto");
	assert_string_equal(xdp_attach_mode_name(XDP_ATTACH_NATIVE), "native");
	assert_string_equal(xdp_attach_mode_name(XDP_ATTACH_GENERIC),
			    "generic");
	assert_string_equal(xsk_bind_mode_name(XSK_BIND_AUTO), "auto");
	assert_string_equal(xsk_bind_mode_name(XSK_BIND_ZEROCOPY), "zerocopy");
	assert_string_equal(xsk_bind_mode_name(XSK_BIND_COPY), "copy");
	assert_string_equal(failure_mode_name(FAILURE_OPEN), "open");
	assert_string_equal(failure_mode_name(FAILURE_CLOSED), "closed");
}

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_zeros_kept),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_dump_text),
		cmocka_unit_test(test_check_system),
		cmocka_unit_test(test_shipped_config),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_names),
	};
	struct CMUnitTest tests[sizeof(fixed) / sizeof(fixed[0]) + N_BAD];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		tests[n++] = fixed[i];
	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){
			.name = bad_cases[i].name,
			.test_func = test_bad,
			.initial_state = (void *)&bad_cases[i],
		};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
