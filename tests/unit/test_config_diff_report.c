// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_diff_report.c - what config_diff reports: derived values (a
 * port rate moves its default burst), the formatted key lists, truncation,
 * and configs with out-of-range counts.
 */
#include "test_config_diff.h"

/* Values derived from others change with them; rates and shares compare
 * as stored. */
static void test_values(void **state)
{
	static const struct want port_rate[] = {{"ports[0].rate", false},
						{"ports[0].burst", false},
						{"ports[0].adaptive", false}};
	static const struct want ceil[] = {{"classes.roce.ceil", false}};
	static const struct want ecn_off[] = {{"classes.roce.ecn", false}};
	static const struct want non_ect[] = {
		{"classes.roce.ecn.non_ect", false}};
	static const struct want overhead[] = {{"overhead", false}};
	static const struct want log_level[] = {{"log_level", false}};
	static const struct want mixed[] = {
		{"ports[0].interface", true},	  {"umem.frames", true},
		{"control.metrics_listen", true}, {"user", true},
		{"classes.cnp.level", false},	  {"log_level", false}};
	struct xdplane_config *a, *b;
	struct config_diff d;

	(void)state;
	/* the default burst follows the rate: 2.5MB -> 1MB; so does the
	 * default ports[].adaptive.floor (10% of it) */
	assert_variant("    rate: 100Gbit\n  - interface: eth2",
		       "    rate: 40Gbit\n  - interface: eth2", port_rate,
		       N(port_rate));
	/* 50% of 100Gbit is 50Gbit, but one is a share: the bursts agree */
	a = load_ok(base_yaml);
	b = load_variant("ceil: 50%", "ceil: 50Gbit");
	assert_int_equal(a->qos.classes[1].ceil_burst,
			 b->qos.classes[1].ceil_burst);
	config_diff(a, b, &d);
	assert_diff(&d, ceil, N(ceil));
	config_free(a);
	config_free(b);
	assert_variant(
		"    ecn: {kmin: 30KB, kmax: 300KB, pmax: 1%, non_ect: pass}\n",
		"", ecn_off, N(ecn_off));
	assert_variant("non_ect: pass", "non_ect: drop", non_ect, N(non_ect));
	assert_variant("overhead: 20", "overhead: 24", overhead, N(overhead));
	assert_variant("log_level: info", "log_level: err", log_level,
		       N(log_level));
	/* metrics_listen compares the address, not the spelling */
	a = load_ok(base_yaml);
	b = load_variant("metrics_listen: 127.0.0.1:9470",
			 "metrics_listen: '127.0.0.1:9470'");
	config_diff(a, b, &d);
	assert_diff(&d, NULL, 0);
	config_free(a);
	config_free(b);
	a = load_variant("metrics_listen: 127.0.0.1:9470",
			 "metrics_listen: '[::1]:9470'");
	b = load_variant("metrics_listen: 127.0.0.1:9470",
			 "metrics_listen: '[0:0::1]:9470'");
	config_diff(a, b, &d);
	assert_diff(&d, NULL, 0);
	config_free(a);
	config_free(b);
	/* cold keys first, then hot, each in file order */
	a = load_ok(base_yaml);
	b = load_ok(WITH_CLASSES(
		"  - name: cnp\n    level: 1\n    ceil: 5%\n" Y_ROCE Y_DEFAULT
			Y_BULK));
	config_diff(a, b, &d);
	assert_diff(&d, (const struct want[]){{"classes.cnp.level", false}}, 1);
	config_free(b);
	{
		char yaml[sizeof(base_yaml) + 64];

		snprintf(yaml, sizeof(yaml), "%s", base_yaml);
		memcpy(strstr(yaml, "eth1"), "eth9", 4);
		memcpy(strstr(yaml, "frames: 32768"), "frames: 65536", 13);
		memcpy(strstr(yaml, "127.0.0.1:9470"), "127.0.0.2:9470", 14);
		memcpy(strstr(yaml, "user: nobody"), "user: daemon", 12);
		memcpy(strstr(yaml, "level: 0"), "level: 4", 8);
		memcpy(strstr(yaml, "log_level: info"), "log_level: warn", 15);
		b = load_ok(yaml);
	}
	config_diff(a, b, &d);
	assert_diff(&d, mixed, N(mixed));
	config_free(a);
	config_free(b);
}

/* The key lists, and config_reload_check's message. */
static void test_format(void **state)
{
	static const char all[] = "ports[0].interface, umem.frames, "
				  "control.metrics_listen, log_level";
	static const char cold[] = "ports[0].interface, umem.frames, "
				   "control.metrics_listen";
	struct xdplane_config *a = load_ok(base_yaml), *b;
	char yaml[sizeof(base_yaml)], text[256];
	struct config_diff d;

	(void)state;
	snprintf(yaml, sizeof(yaml), "%s", base_yaml);
	memcpy(strstr(yaml, "eth1"), "eth9", 4);
	memcpy(strstr(yaml, "frames: 32768"), "frames: 65536", 13);
	memcpy(strstr(yaml, "127.0.0.1:9470"), "127.0.0.2:9470", 14);
	memcpy(strstr(yaml, "log_level: info"), "log_level: warn", 15);
	b = load_ok(yaml);
	config_diff(a, b, &d);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.n_cold, 3);
	assert_int_equal(config_diff_format(&d, false, text, sizeof(text)),
			 strlen(all));
	assert_string_equal(text, all);
	assert_int_equal(config_diff_format(&d, true, text, sizeof(text)),
			 strlen(cold));
	assert_string_equal(text, cold);
	/* like snprintf: cut, terminated, the whole length returned */
	memset(text, 'z', sizeof(text));
	assert_int_equal(config_diff_format(&d, false, text, 12), strlen(all));
	assert_string_equal(text, "ports[0].in");
	assert_int_equal(text[12], 'z');
	memset(text, 'z', sizeof(text));
	assert_int_equal(config_diff_format(&d, false, text, 20), strlen(all));
	assert_string_equal(text, "ports[0].interface,");
	assert_int_equal(config_diff_format(&d, false, NULL, 0), strlen(all));
	text[0] = 'z';
	assert_int_equal(config_diff_format(&d, true, text, 1), strlen(cold));
	assert_int_equal(text[0], '\0');

	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: ports[0].interface, "
				  "umem.frames, control.metrics_listen");
	assert_int_equal(reload_check(a, b, text, 10), -1);
	assert_string_equal(text, "restart r");
	assert_int_equal(reload_check(a, b, text, 20), -1);
	assert_string_equal(text, "restart required: p");
	config_free(b);
	/* hot only: applies */
	b = load_variant("log_level: info", "log_level: warn");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	config_diff(a, b, &d);
	assert_int_equal(config_diff_format(&d, true, text, sizeof(text)), 0);
	assert_string_equal(text, "");
	assert_int_equal(config_diff_format(&d, false, text, sizeof(text)), 9);
	assert_string_equal(text, "log_level");
	config_free(b);
	config_free(a);
}

/* 8 classes with 8 changed keys each, 64 changed rules, and a cold key:
 * 129 keys. The cold one comes first and survives the truncation. */
static void test_truncated(void **state)
{
	char *ya = malloc(16384), *yb = malloc(16384), text[8192];
	struct xdplane_config *a, *b;
	struct config_diff d;
	char *p, *q;
	int len;

	(void)state;
	assert_non_null(ya);
	assert_non_null(yb);
	p = ya + sprintf(ya, "ports: [{interface: a}, {interface: b}]\n"
			     "poll: {batch: 32}\nclasses:\n");
	q = yb + sprintf(yb, "ports: [{interface: a}, {interface: b}]\n"
			     "poll: {batch: 64}\nclasses:\n");
	for (int i = 0; i < 8; i++) {
		p += sprintf(p,
			     "  - {name: c%d, level: 1, quantum: 1000, "
			     "ceil: 10Gbit, min: 2Gbit, limit_bytes: 1MiB, "
			     "limit_packets: 100}\n",
			     i);
		q += sprintf(q,
			     "  - {name: c%d, level: 2, quantum: 2000, "
			     "ceil: 20Gbit, min: 4Gbit, limit_bytes: 2MiB, "
			     "limit_packets: 200}\n",
			     i);
	}
	p += sprintf(p, "default_class: c0\nrules:\n");
	q += sprintf(q, "default_class: c0\nrules:\n");
	for (int i = 0; i < 64; i++) {
		p += sprintf(p, "  - {class: c0, match: {dscp: %d}}\n", i);
		q += sprintf(q, "  - {class: c0, match: {dscp: %d}}\n",
			     (i + 1) % 64);
	}
	a = load_ok(ya);
	b = load_ok(yb);
	config_diff(a, b, &d);
	assert_int_equal(d.n, CONFIG_DIFF_MAX);
	assert_true(d.truncated);
	assert_int_equal(d.n_cold, 1);
	assert_string_equal(d.ch[0].key, "poll.batch");
	assert_true(d.ch[0].cold);
	assert_string_equal(d.ch[1].key, "classes.c0.level");
	assert_string_equal(d.ch[64].key, "classes.c7.limit_packets");
	assert_string_equal(d.ch[65].key, "rules[0]");
	assert_string_equal(d.ch[127].key, "rules[62]");
	len = config_diff_format(&d, false, text, sizeof(text));
	assert_int_equal(len, strlen(text));
	assert_string_equal(text + len - 14, "rules[62], ...");
	assert_int_equal(config_diff_format(&d, true, text, sizeof(text)), 10);
	assert_string_equal(text, "poll.batch");
	assert_int_equal(reload_check(a, b, text, sizeof(text)), -1);
	assert_string_equal(text, "restart required: poll.batch");
	config_free(a);
	config_free(b);
	free(ya);
	free(yb);
}

/* Configs that did not come from config_load(): counts past the arrays,
 * names without a NUL, ids past the classes. Bounded, no crash. */
static void test_out_of_range(void **state)
{
	struct xdplane_config *a = load_ok(base_yaml);
	struct xdplane_config *b = load_ok(base_yaml);
	char text[16384], name[64];
	struct config_diff d;

	(void)state;
	b->n_cpus = 100000;
	b->qos.n_classes = 1000;
	b->qos.n_rules = UINT32_MAX;
	b->qos.rules[0].class_id = 200;
	b->qos.default_class = 255;
	memset(b->qos.classes[0].name, 'x', QOS_NAME_MAX);
	memset(b->user, 'u', sizeof(b->user));
	memset(b->control.socket, 's', sizeof(b->control.socket));
	b->control.metrics_addrlen = 100000;
	config_diff(b, b, &d);
	assert_diff(&d, NULL, 0);
	config_diff(a, b, &d);
	assert_true(d.n <= CONFIG_DIFF_MAX);
	assert_true(config_diff_format(&d, false, text, sizeof(text)) <
		    (int)sizeof(text));
	snprintf(name, sizeof(name), "classes.%.32s (added)",
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_non_null(strstr(text, "workers.cpus"));
	assert_non_null(strstr(text, "control.socket"));
	assert_non_null(strstr(text, "control.metrics_listen"));
	assert_non_null(strstr(text, "user"));
	assert_non_null(strstr(text, "classes.cnp (removed)"));
	assert_non_null(strstr(text, name));
	assert_non_null(strstr(text, "rules[0]"));
	assert_non_null(strstr(text, "rules[63] (added)"));
	assert_non_null(strstr(text, "default_class"));
	config_diff(b, a, &d);
	assert_true(d.n <= CONFIG_DIFF_MAX);
	config_free(a);
	config_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
