// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_config_daemon.c - the daemon's keys of the configuration
 * (control/config/config_daemon.c): control socket, metrics listener, user and
 * group, log level; with check_system, the lookups of the user and
 * groups by the daemon's rule; the errors with file:line:col; the dump.
 */
#include <grp.h>
#include <pwd.h>
#include <net/if.h>
#include "unused_ids.h"
#include "test_config.h"

static const struct bad_case bad_cases[] = {
	/* daemon: control socket, metrics listener, user, group, log level */
	{"socket_relative", CONTROL("socket: run/x.sock"), "t.yaml:5:11: ",
	 "control.socket: expected an absolute path of at most 107 bytes, e.g. "
	 "/run/xdplane/control.sock, or '' for no control socket "
	 "(got 'run/x.sock')"},
	{"socket_dir", CONTROL("socket: /run/xdplane/"),
	 "t.yaml:5:11: ", "control.socket: expected an absolute path"},
	{"socket_too_long", CONTROL("socket: " SOCKET_LONG), "t.yaml:5:11: ",
	 "control.socket: a path of 121 bytes (got "
	 "'/run/xdplane/012345678901234567890123456...'); a Unix socket path "
	 "has at most 107"},
	{"socket_list", CONTROL("socket: [a]"), "t.yaml:5:11: ",
	 "control.socket: expected an absolute path of at most 107 bytes"},
	{"socket_group_invalid", CONTROL("socket_group: 'a:b'"),
	 "t.yaml:5:17: ",
	 "control.socket_group: not a valid group name (got 'a:b'); names have "
	 "no spaces, ':', ',', '/' or control characters"},
	{"readonly_group_invalid", CONTROL("readonly_group: 'a:b'"),
	 "t.yaml:5:19: ",
	 "control.readonly_group: not a valid group name (got 'a:b')"},
	{"readonly_group_no_socket",
	 CONTROL("socket: ''\n  readonly_group: '4242'"), "t.yaml:6:19: ",
	 "control.readonly_group: the read-only socket is control.socket + "
	 "'.ro', so control.socket must be set and at most 104 bytes"},
	{"readonly_group_socket_long",
	 /* a socket path of 105 bytes: 108 with ".ro", too long for one */
	 CONTROL("socket: /run/"
		 "01234567890123456789012345678901234567890123456789"
		 "01234567890123456789012345678901234567890123456789"
		 "\n  readonly_group: '4242'"),
	 "t.yaml:6:19: ", "control.readonly_group: the read-only socket"},
	{"listen_v4_range", LISTEN("300.1.1.1:9470"), "t.yaml:5:19: ",
	 "control.metrics_listen: '300.1.1.1' is not an IPv4 address (got "
	 "'300.1.1.1:9470'); write a numeric address such as 127.0.0.1, host "
	 "names are not resolved"},
	{"listen_name", LISTEN("localhost:9470"), "t.yaml:5:19: ",
	 "control.metrics_listen: 'localhost' is not an IPv4 address"},
	{"listen_v4_short", LISTEN("127.1:9470"), "t.yaml:5:19: ",
	 "control.metrics_listen: '127.1' is not an IPv4 address"},
	{"listen_no_port6", LISTEN("'[::1]'"), "t.yaml:5:19: ",
	 "control.metrics_listen: no port (got '[::1]'); write host:port, "
	 "e.g. 127.0.0.1:9470 or [::1]:9470"},
	{"listen_no_port4", LISTEN("127.0.0.1"),
	 "t.yaml:5:19: ", "control.metrics_listen: no port (got '127.0.0.1')"},
	{"listen_empty_port", LISTEN("'127.0.0.1:'"),
	 "t.yaml:5:19: ", "control.metrics_listen: no port (got '127.0.0.1:')"},
	{"listen_port_zero", LISTEN("127.0.0.1:0"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535 "
	 "(got '127.0.0.1:0')"},
	{"listen_port_big", LISTEN("'[::1]:65536'"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535 "
	 "(got '[::1]:65536')"},
	{"listen_port_leading_zero", LISTEN("127.0.0.1:09470"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535"},
	{"listen_port_name", LISTEN("127.0.0.1:http"), "t.yaml:5:19: ",
	 "control.metrics_listen: the port must be a number from 1 to 65535"},
	{"listen_v6_brackets", LISTEN("'::1:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: an IPv6 address goes in brackets, e.g. "
	 "[::1]:9470 (got '::1:9470')"},
	{"listen_v6_bad", LISTEN("'[fe80::1%eth0]:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: 'fe80::1%eth0' is not an IPv6 address (got "
	 "'[fe80::1%eth0]:9470'); write a numeric address without a zone, "
	 "e.g. [::1]"},
	{"listen_v4_in_brackets", LISTEN("'[127.0.0.1]:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: '127.0.0.1' is not an IPv6 address"},
	{"listen_unclosed", LISTEN("'[::1:9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: expected a numeric address and port, "
	 "host:port or [v6addr]:port, e.g. 127.0.0.1:9470 or [::1]:9470, or '' "
	 "for no listener (got '[::1:9470')"},
	{"listen_junk_after", LISTEN("'[::1]x9470'"), "t.yaml:5:19: ",
	 "control.metrics_listen: expected a numeric address and port"},
	{"stats_interval_low", CONTROL("stats_interval_ms: 99"),
	 "t.yaml:5:22: ",
	 "control.stats_interval_ms: must be between 100 and 60000 "
	 "milliseconds, 100ms to 60s (got '99')"},
	{"stats_interval_high", CONTROL("stats_interval_ms: 60001"),
	 "t.yaml:5:22: ",
	 "control.stats_interval_ms: must be between 100 and 60000 "
	 "milliseconds, 100ms to 60s (got '60001')"},
	{"stats_interval_word", CONTROL("stats_interval_ms: often"),
	 "t.yaml:5:22: ",
	 "control.stats_interval_ms: expected a time: a number with a unit "
	 "ns, us, ms or s, e.g. 55us, 0.5ms or 1s, or a plain number of "
	 "milliseconds (got 'often')"},
	{"control_unknown", CONTROL("sockt: /x"), "t.yaml:5:3: ",
	 "unknown key 'control.sockt' (did you mean 'control.socket'?)"},
	{"control_scalar", PORTS "control: on\n", "t.yaml:4:10: ",
	 "control: expected a mapping with the keys socket, socket_group, "
	 "readonly_group, metrics_listen, stats_interval_ms (got 'on')"},
	{"user_invalid", PORTS "user: 'a b'\n", "t.yaml:4:7: ",
	 "user: not a valid user name (got 'a b'); names have no spaces, ':', "
	 "',', '/' or control characters"},
	{"user_too_long",
	 PORTS
	 "user: u123456789012345678901234567890123456789012345678901234567"
	 "890123\n",
	 "t.yaml:4:7: ",
	 "user: expected a name of at most 63 characters, or ''"},
	{"group_invalid", PORTS "user: nobody\ngroup: a/b\n",
	 "t.yaml:5:8: ", "group: not a valid group name (got 'a/b')"},
	{"group_without_user", PORTS "group: nogroup\n", "t.yaml:4:8: ",
	 "group: only used with user, as the group to run as instead of the "
	 "user's own; set user too, or leave group out"},
	{"log_level_unknown", PORTS "log_level: verbose\n", "t.yaml:4:12: ",
	 "log_level: expected one of err, warn, notice, info, debug "
	 "(got 'verbose')"},
	{"log_level_typo", PORTS "log_level: eror\n", "t.yaml:4:12: ",
	 "log_level: expected one of err, warn, notice, info, debug "
	 "(got 'eror'); did you mean 'err'?"},
	{"log_level_number", PORTS "log_level: 7\n", "t.yaml:4:12: ",
	 "log_level: expected one of err, warn, notice, info, debug (got '7')"},
};

/* Every daemon key, written. */
static void test_daemon_keys(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "control:\n"
			      "  socket: /tmp/xdplane test/ctl.sock\n"
			      "  socket_group: adm\n"
			      "  metrics_listen: '[2001:db8::1]:9100'\n"
			      "  stats_interval_ms: 250\n"
			      "user: nobody\n"
			      "group: nogroup\n"
			      "log_level: debug\n");

	(void)state;
	assert_string_equal(cfg->control.socket, "/tmp/xdplane test/ctl.sock");
	assert_string_equal(cfg->control.socket_group, "adm");
	assert_string_equal(cfg->control.metrics_listen, "[2001:db8::1]:9100");
	assert_listen6(&cfg->control, "2001:db8::1", 9100);
	assert_int_equal(cfg->control.stats_interval_ms, 250);
	assert_string_equal(cfg->user, "nobody");
	assert_string_equal(cfg->group, "nogroup");
	assert_int_equal(cfg->log_level, 7);
	config_free(cfg);
}

/* "" switches the socket and the listener off; empty mapping: defaults. */
static void test_daemon_disabled(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "control: {socket: '', metrics_listen: '', "
			      "socket_group: ''}\nuser: ''\ngroup: ''\n");
	static const struct sockaddr_storage zero;

	(void)state;
	assert_string_equal(cfg->control.socket, "");
	assert_string_equal(cfg->control.metrics_listen, "");
	assert_int_equal(cfg->control.metrics_addrlen, 0);
	assert_int_equal(cfg->control.metrics_addr.ss_family, AF_UNSPEC);
	assert_memory_equal(&cfg->control.metrics_addr, &zero, sizeof(zero));
	assert_string_equal(cfg->user, "");
	assert_int_equal(cfg->control.stats_interval_ms, 1000);
	config_free(cfg);
	cfg = load_ok(PORTS "control: {}\n");
	assert_daemon_defaults(cfg);
	config_free(cfg);
}

/* Listener addresses: accepted forms, edges, and the canonical text. */
static void test_daemon_listen(void **state)
{
	static const struct {
		const char *yaml, *canon, *addr;
		uint16_t port;
		bool six;
	} cases[] = {
		{"0.0.0.0:1", "0.0.0.0:1", "0.0.0.0", 1, false},
		{"10.0.0.1:65535", "10.0.0.1:65535", "10.0.0.1", 65535, false},
		{"'[::]:9470'", "[::]:9470", "::", 9470, true},
		{"'[0:0::1]:80'", "[::1]:80", "::1", 80, true},
		{"'[FD00:0::AB]:9470'", "[fd00::ab]:9470", "fd00::ab", 9470,
		 true},
		{"'[::ffff:10.1.2.3]:9470'", "[::ffff:10.1.2.3]:9470",
		 "::ffff:10.1.2.3", 9470, true},
	};
	struct xdplane_config *cfg;
	char yaml[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(yaml, sizeof(yaml), LISTEN("%s"), cases[i].yaml);
		cfg = load_ok(yaml);
		assert_string_equal(cfg->control.metrics_listen,
				    cases[i].canon);
		if (cases[i].six)
			assert_listen6(&cfg->control, cases[i].addr,
				       cases[i].port);
		else
			assert_listen4(&cfg->control, cases[i].addr,
				       cases[i].port);
		config_free(cfg);
	}
}

/* The longest socket path fits sun_path with its NUL; the interval's
 * edges; every log level by name. */
static void test_daemon_limits(void **state)
{
	static const char *const levels[] = {"err", "warn", "notice", "info",
					     "debug"};
	char yaml[512], path[108];
	struct xdplane_config *cfg;

	(void)state;
	memset(path, 'x', sizeof(path));
	path[0] = '/';
	path[107] = '\0';
	snprintf(yaml, sizeof(yaml),
		 CONTROL("socket: %s\n  stats_interval_ms: 100"), path);
	cfg = load_ok(yaml);
	assert_string_equal(cfg->control.socket, path);
	assert_int_equal(cfg->control.stats_interval_ms, 100);
	config_free(cfg);
	cfg = load_ok(CONTROL("stats_interval_ms: 60000"));
	assert_int_equal(cfg->control.stats_interval_ms, 60000);
	config_free(cfg);
	for (int i = 0; i < 5; i++) {
		snprintf(yaml, sizeof(yaml), PORTS "log_level: %s\n",
			 levels[i]);
		cfg = load_ok(yaml);
		assert_int_equal(cfg->log_level, 3 + i);
		config_free(cfg);
	}
}

/* A machine with two interfaces: lo and the first other one, or NULL. */
static const char *other_interface(struct if_nameindex *ifs)
{
	for (struct if_nameindex *i = ifs; i && i->if_name; i++)
		if (strcmp(i->if_name, "lo"))
			return i->if_name;
	return NULL;
}

/* With check_system, the user and the groups must exist. */
static void test_daemon_check_system(void **state)
{
	static const struct {
		const char *keys, *msg;
	} cases[] = {
		{"user: xdplane-nx-user\n",
		 "t.yaml:4:7: user: no such user 'xdplane-nx-user'; check the "
		 "name with 'getent passwd xdplane-nx-user'"},
		{"user: root\ngroup: xdplane-nx-grp\n",
		 "t.yaml:5:8: group: no such group 'xdplane-nx-grp'; check the "
		 "name with 'getent group xdplane-nx-grp'"},
		{"control: {socket_group: xdplane-nx-grp}\n",
		 "t.yaml:4:25: control.socket_group: no such group "
		 "'xdplane-nx-grp'; check the name with 'getent group "
		 "xdplane-nx-grp'"},
		{"user: root\ngroup: root\ncontrol: {socket_group: root}\n",
		 NULL},
	};
	struct if_nameindex *ifs = if_nameindex();
	const char *other = other_interface(ifs);
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;
	char yaml[256];

	(void)state;
	if (!other) {
		if_freenameindex(ifs);
		skip();
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 "ports:\n  - interface: lo\n  - interface: '%s'\n%s",
			 other, cases[i].keys);
		cfg = config_load_string("t.yaml", yaml, true, &err);
		if (!cases[i].msg) {
			if (!cfg)
				fail_msg("%s", err.msg);
			assert_string_equal(cfg->user, "root");
			assert_string_equal(cfg->group, "root");
			assert_string_equal(cfg->control.socket_group, "root");
			config_free(cfg);
			continue;
		}
		assert_null(cfg);
		assert_string_equal(err.msg, cases[i].msg);
		/* without check_system the same file loads */
		config_free(load_ok(yaml));
	}
	if_freenameindex(ifs);
}

/* With check_system, user, group and control.socket_group follow the rule
 * of the daemon's privilege drop (config.h): a name, else a numeric id; a
 * numeric user needs a passwd entry, a numeric group does not. The value
 * is kept as written. (test_privs.c checks that privs_lookup() agrees.) */
static void test_daemon_check_system_ids(void **state)
{
	struct passwd *nobody = getpwnam("nobody");
	unsigned int nx_uid = unused_uid(), nx_gid = unused_gid();
	struct {
		char keys[128], msg[320], user[16], group[16];
	} cases[7];
	struct if_nameindex *ifs = if_nameindex();
	const char *other = other_interface(ifs);
	struct config_error err = {.msg = ""};
	struct xdplane_config *cfg;
	char yaml[512];
	int n = 0;

	(void)state;
	assert_non_null(nobody);
	if (!other) {
		if_freenameindex(ifs);
		skip();
	}
	memset(cases, 0, sizeof(cases));
	/* a name */
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: nobody\n");
	snprintf(cases[n++].user, sizeof(cases[0].user), "nobody");
	/* numeric ids with entries, unquoted as an operator writes them */
	snprintf(cases[n].keys, sizeof(cases[n].keys),
		 "user: %u\ngroup: 0\ncontrol: {socket_group: 0}\n",
		 (unsigned int)nobody->pw_uid);
	snprintf(cases[n].user, sizeof(cases[n].user), "%u",
		 (unsigned int)nobody->pw_uid);
	snprintf(cases[n++].group, sizeof(cases[0].group), "0");
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: 0\n");
	snprintf(cases[n++].user, sizeof(cases[0].user), "0");
	/* a numeric group without a group entry: accepted, like chown(1) */
	snprintf(cases[n].keys, sizeof(cases[n].keys),
		 "user: root\ngroup: %u\ncontrol: {socket_group: '%u'}\n",
		 nx_gid, nx_gid);
	snprintf(cases[n].user, sizeof(cases[n].user), "root");
	snprintf(cases[n++].group, sizeof(cases[0].group), "%u", nx_gid);
	/* a numeric user without a passwd entry: refused (its groups) */
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: %u\n", nx_uid);
	snprintf(cases[n++].msg, sizeof(cases[0].msg),
		 "t.yaml:4:7: user: no such user '%u': uid %u has no passwd "
		 "entry, and the daemon takes the user's groups from it; check "
		 "with 'getent passwd %u'",
		 nx_uid, nx_uid, nx_uid);
	/* names that do not exist and are not numbers */
	snprintf(cases[n].keys, sizeof(cases[n].keys),
		 "user: xdplane-nx-user\n");
	snprintf(cases[n++].msg, sizeof(cases[0].msg),
		 "t.yaml:4:7: user: no such user 'xdplane-nx-user'; check the "
		 "name with 'getent passwd xdplane-nx-user'");
	snprintf(cases[n].keys, sizeof(cases[n].keys), "user: 0\ngroup: 12x\n");
	snprintf(cases[n++].msg, sizeof(cases[0].msg),
		 "t.yaml:5:8: group: no such group '12x'; check the name with "
		 "'getent group 12x'");
	assert_int_equal(n, sizeof(cases) / sizeof(cases[0]));
	for (int i = 0; i < n; i++) {
		snprintf(yaml, sizeof(yaml),
			 "ports:\n  - interface: lo\n  - interface: '%s'\n%s",
			 other, cases[i].keys);
		cfg = config_load_string("t.yaml", yaml, true, &err);
		if (cases[i].msg[0]) {
			assert_null(cfg);
			assert_string_equal(err.msg, cases[i].msg);
			/* without check_system the same file loads */
			config_free(load_ok(yaml));
			continue;
		}
		if (!cfg)
			fail_msg("%s: %s", cases[i].keys, err.msg);
		assert_string_equal(cfg->user, cases[i].user);
		assert_string_equal(cfg->group, cases[i].group);
		assert_string_equal(cfg->control.socket_group, cases[i].group);
		config_free(cfg);
	}
	if_freenameindex(ifs);
}

static void test_daemon_dump_text(void **state)
{
	struct xdplane_config *cfg =
		load_ok(PORTS "control: {socket: \"/run/it's.sock\", "
			      "metrics_listen: '[0::2]:9000'}\n"
			      "user: nobody\nlog_level: warn\n");
	char *text;

	(void)state;
	config_free(dump_and_reload(cfg, &text));
	assert_non_null(strstr(text, "    pcp: 6\n"
				     "control:\n"
				     "  socket: '/run/it''s.sock'\n"
				     "  socket_group: ''\n"
				     "  metrics_listen: '[::2]:9000'\n"
				     "  stats_interval_ms: 1000\n"
				     "user: 'nobody'\n"
				     "group: ''\n"
				     "log_level: warn\n"));
	free(text);
	config_free(cfg);
}

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_daemon_keys),
		cmocka_unit_test(test_daemon_disabled),
		cmocka_unit_test(test_daemon_listen),
		cmocka_unit_test(test_daemon_limits),
		cmocka_unit_test(test_daemon_check_system),
		cmocka_unit_test(test_daemon_check_system_ids),
		cmocka_unit_test(test_daemon_dump_text),
	};
	return run_config_tests(fixed, sizeof(fixed) / sizeof(fixed[0]),
				bad_cases, N_BAD);
}
