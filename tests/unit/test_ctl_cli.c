// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ctl_cli.c - the real xdplanectl binary (from the build tree)
 * against a one-connection server thread built on ctl_session_handle()
 * over the fake backend of test_ctl_proto.h: exit status 0/1/2/3, --json
 * output, the environment variable, watch rates, closed connection and
 * timeout, the --json error objects. They are skipped if the binary is not
 * found at <build>/control/xdplanectl.
 */
#include "test_ctl_proto.h"

/* ---- xdplanectl against a one-connection server ----------------------- */

enum server_mode { SERVE, CLOSE_AT_ONCE, SILENT };

struct server {
	char dir[64];
	char path[108];
	int lfd;
	enum server_mode mode;
	pthread_t thread;
};

static void write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* One connection: lines in, ctl_session_handle, responses out. */
static void *serve_one(void *arg)
{
	struct server *sv = arg;
	struct ctl_session s;
	char buf[CTL_LINE_MAX + 2];
	size_t len = 0;
	ssize_t n;
	char *nl, *out;
	int fd = accept(sv->lfd, NULL, NULL);

	if (fd < 0)
		return NULL;
	ctl_session_init(&s);
	if (sv->mode == CLOSE_AT_ONCE) {
		/* Read the hello first, so the client is waiting. */
		n = read(fd, buf, sizeof(buf));
		(void)n;
		close(fd);
		return NULL;
	}
	while (!s.closing && (n = read(fd, buf + len, sizeof(buf) - len)) > 0) {
		len += (size_t)n;
		while (sv->mode == SERVE && (nl = memchr(buf, '\n', len))) {
			out = ctl_session_handle(&s, buf, (size_t)(nl - buf),
						 &backend);
			write_all(fd, out, strlen(out));
			free(out);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof(buf))
			len = 0;
	}
	close(fd);
	return NULL;
}

static void server_start(struct server *sv, enum server_mode mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(sv->dir, sizeof(sv->dir), "/tmp/test_ctl_proto.XXXXXX");
	assert_non_null(mkdtemp(sv->dir));
	snprintf(sv->path, sizeof(sv->path), "%s/control.sock", sv->dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sv->path);
	sv->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sv->lfd >= 0);
	assert_int_equal(bind(sv->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(sv->lfd, 4), 0);
	sv->mode = mode;
	assert_int_equal(pthread_create(&sv->thread, NULL, serve_one, sv), 0);
}

static void server_stop(struct server *sv)
{
	pthread_join(sv->thread, NULL);
	close(sv->lfd);
	unlink(sv->path);
	rmdir(sv->dir);
}

static char ctl_path[PATH_MAX];

/* The CLI binary: <build>/control/xdplanectl, this test being
 * <build>/tests/unit/test_ctl_cli. */
static bool find_cli(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	snprintf(ctl_path, sizeof(ctl_path), "%s/../../control/xdplanectl",
		 dirname(self));
	return access(ctl_path, X_OK) == 0;
}

static char *slurp(FILE *f)
{
	char *s;
	long n;

	fflush(f);
	n = ftell(f);
	s = calloc(1, (size_t)n + 1);
	assert_non_null(s);
	rewind(f);
	if (n > 0)
		assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

/* Run xdplanectl with argv (NULL-terminated, without argv[0]); env_socket
 * goes to XDPLANE_CONTROL_SOCKET (unset when NULL). Returns the exit
 * status; *out and *err get what it printed. */
static int run_cli(const char *const *args, const char *env_socket, char **out,
		   char **err)
{
	const char *argv[16] = {ctl_path};
	FILE *fo = tmpfile(), *fe = tmpfile();
	int status, i;
	pid_t pid;

	assert_non_null(fo);
	assert_non_null(fe);
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(fo), STDOUT_FILENO);
		dup2(fileno(fe), STDERR_FILENO);
		if (env_socket)
			setenv("XDPLANE_CONTROL_SOCKET", env_socket, 1);
		else
			unsetenv("XDPLANE_CONTROL_SOCKET");
		execv(ctl_path, (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*out = slurp(fo);
	*err = slurp(fe);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

#define NEED_CLI()                                                             \
	do {                                                                   \
		if (!find_cli()) {                                             \
			printf("  xdplanectl not built next to the "           \
			       "test: skipped\n");                             \
			skip();                                                \
		}                                                              \
	} while (0)

static void test_cli_usage(void **state)
{
	static const char *const bad[][5] = {
		{NULL},
		{"bogus", NULL},
		{"congestion", "eth1", NULL},
		{"congestion", "eth1", "roce", "lots", NULL},
		{"stats", "eth1", "eth2", NULL},
		{"stats", "--count", "2", NULL},
		{"--timeout", "soon", "status", NULL},
		{"watch", "eth1", NULL},
	};
	char *out, *err;

	NEED_CLI();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
			run_cli(bad[i], "/nonexistent/sock", &out, &err), 2);
		assert_true(strlen(err) > 0);
		free(out);
		free(err);
	}
}

static void test_cli_cannot_connect(void **state)
{
	static const char *const args[] = {
		"-s", "/nonexistent/xdp/control.sock", "status", NULL};
	char *out, *err;

	NEED_CLI();
	assert_int_equal(run_cli(args, NULL, &out, &err), 3);
	assert_non_null(strstr(err, "/nonexistent/xdp/control.sock"));
	assert_non_null(strstr(err, "No such file"));
	assert_string_equal(out, "");
	free(out);
	free(err);
}

static void test_cli_status_json(void **state)
{
	static const char *args[] = {"-s", NULL, "--json", "status", NULL};
	struct server sv;
	char *out, *err;
	json_t *j;

	NEED_CLI();
	server_start(&sv, SERVE);
	args[1] = sv.path;
	assert_int_equal(run_cli(args, NULL, &out, &err), 0);
	server_stop(&sv);
	assert_non_null(strchr(out, '\n'));
	assert_int_equal(strchr(out, '\n')[1], '\0'); /* one line */
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(int_at(j, "pid"), FAKE_PID);
	assert_int_equal(int_at(j, "config.generation"), 3);
	json_decref(j);
	free(out);
	free(err);
}

static void test_cli_stats_human(void **state)
{
	static const char *args[] = {"stats", "eth1", NULL};
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 0);
	server_stop(&sv);
	printf("%s", out);
	assert_non_null(strstr(out, "eth1"));
	assert_non_null(strstr(out, "12345")); /* rx_packets, exact */
	assert_non_null(strstr(out, "roce"));
	assert_non_null(strstr(out, "1.15EB")); /* 2^60 sent bytes */
	assert_null(strstr(out, "eth2"));
	assert_string_equal(err, "");
	free(out);
	free(err);
}

static void test_cli_daemon_errors(void **state)
{
	static const char *cong[] = {"congestion", "eth1", "nosuch", NULL};
	static const char *reload[] = {"reload", NULL};
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(cong, sv.path, &out, &err), 1);
	server_stop(&sv);
	assert_ptr_equal(strstr(err, "xdplanectl: bad_request: "), err);
	assert_non_null(strstr(err, "nosuch"));
	free(out);
	free(err);

	fake.reload_fails = true;
	snprintf(fake.reload_err.code, sizeof(fake.reload_err.code),
		 "restart_required");
	snprintf(fake.reload_err.message, sizeof(fake.reload_err.message),
		 "ports.0.interface changed");
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(reload, sv.path, &out, &err), 1);
	server_stop(&sv);
	assert_non_null(strstr(err, "xdplanectl: restart_required: ports.0."
				    "interface changed"));
	free(out);
	free(err);
}

/* jobs: the table of a snapshot's job table, --json, and jobs off. */
static void test_cli_jobs(void **state)
{
	static const char *human[] = {"jobs", NULL};
	static const char *as_json[] = {"--json", "jobs", NULL};
	struct snap_jobs *sj = calloc(1, sizeof(*sj) + 2 * sizeof(sj->job[0]));
	struct snap_job *j;
	struct server sv;
	char *out, *err;
	json_t *r;

	NEED_CLI();
	assert_non_null(sj);
	/* off: the daemon's answer, exit 1 */
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(human, sv.path, &out, &err), 1);
	server_stop(&sv);
	assert_non_null(strstr(err, "xdplanectl: unavailable: jobs are off "
				    "(jobs.mode: off)"));
	free(out);
	free(err);

	sj->mode = "observe";
	sj->max_registered = sj->max_passive = 64;
	sj->registered = sj->passive = 1;
	sj->hosts = 5;
	sj->n = 2;
	j = &sj->job[0];
	snprintf(j->id, sizeof(j->id), "slurm/4711");
	j->kind = JOB_REGISTERED;
	j->dscp = 26;
	j->n_prefixes = 2;
	j->prefixes[0] =
		(struct qos_prefix){.family = 4, .len = 16, .addr = {10, 1}};
	j->prefixes[1] = (struct qos_prefix){
		.family = 6, .len = 64, .addr = {0xfd, 0, 0, 1}};
	snprintf(j->prio_class, sizeof(j->prio_class), "roce");
	j->gpus = 64;
	j->created_unix = j->last_unix = 1700000000.0;
	j = &sj->job[1];
	snprintf(j->id, sizeof(j->id), "passive-1");
	j->kind = JOB_PASSIVE;
	j->dscp = JOB_DSCP_NONE;
	j->hosts = 5;
	j->flows_seen = 12;
	fake.snap.jobs = sj;
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(human, sv.path, &out, &err), 0);
	server_stop(&sv);
	printf("%s", out);
	assert_non_null(strstr(out, "JOB"));
	assert_non_null(strstr(out, "LAST_SEEN"));
	assert_non_null(strstr(out, "slurm/4711  registered  "
				    "10.1.0.0/16,fd00:1::/64"));
	assert_non_null(strstr(out, "passive-1   passive     5 hosts"));
	assert_non_null(strstr(out, "jobs: observe, 1 registered (of 64), 1 "
				    "passive (of 64), 5 hosts\n"));
	free(out);
	free(err);
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(as_json, sv.path, &out, &err), 0);
	server_stop(&sv);
	r = json_loads(out, 0, NULL);
	assert_non_null(r);
	assert_int_equal(int_at(r, "jobs.0.gpus"), 64);
	assert_int_equal(int_at(r, "jobs.1.hosts"), 5);
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(r, "jobs"), 0),
			"class")),
		"roce");
	json_decref(r);
	free(out);
	free(err);
	fake.snap.jobs = NULL;
	free(sj);
}

/* out is one line: {"error":{"code":code,"message":...}}; the message. */
static const char *json_error_of(const char *out, const char *code,
				 json_t **keep)
{
	json_t *j = json_loads(out, 0, NULL), *e;

	assert_non_null(j);
	assert_int_equal(strchr(out, '\n')[1], '\0'); /* one line */
	assert_int_equal(json_object_size(j), 1);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "code")),
			    code);
	assert_true(json_is_string(json_object_get(e, "message")));
	*keep = j;
	return json_string_value(json_object_get(e, "message"));
}

/* --json: every failure is an error object on stdout, with the exit
 * status of its kind: the daemon's (its code as it is; for a port or
 * class it does not have, the names and the nearest added), usage
 * (before connecting, with the suggestion), no answer. */
static void test_cli_json_errors(void **state)
{
	static const char *cong[] = {"--json", "congestion", "eth1", "nosuch",
				     NULL};
	static const char *verb[] = {"--json", "stauts", NULL};
	static const char *port[] = {"--json", "stats", "eht1", NULL};
	static const char *cls[] = {"--json", "congestion", "eth1", "rcoe",
				    NULL};
	static const char *both[] = {"-i",     "rack2",	 "-s", "/x",
				     "--json", "status", NULL};
	static const char *opt[] = {"--jsno", "status", "--json", NULL};
	static const char *gone[] = {"--json", "-s", "/nonexistent/sock",
				     "status", NULL};
	static const char *slow[] = {"--json", "--timeout", "0.3", "status",
				     NULL};
	struct server sv;
	char *out, *err;
	json_t *j, *e;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(cong, sv.path, &out, &err), 1);
	server_stop(&sv);
	assert_non_null(
		strstr(json_error_of(out, "bad_request", &j), "nosuch"));
	assert_non_null(strstr(err, "xdplanectl: bad_request: "));
	json_decref(j);
	free(out);
	free(err);

	/* a port or class the daemon does not have: its names, the nearest */
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(port, sv.path, &out, &err), 1);
	server_stop(&sv);
	json_error_of(out, "bad_request", &j);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "suggestion")),
			    "eth1");
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(e, "details"), 0)),
			    "ports: eth1, eth2 (did you mean 'eth1'?)");
	assert_non_null(
		strstr(err, "ports: eth1, eth2 (did you mean 'eth1'?)"));
	json_decref(j);
	free(out);
	free(err);
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(cls, sv.path, &out, &err), 1);
	server_stop(&sv);
	json_error_of(out, "bad_request", &j);
	e = json_object_get(j, "error");
	assert_string_equal(json_string_value(json_object_get(e, "suggestion")),
			    "roce");
	assert_non_null(strstr(err, "classes of eth1: cnp, roce"));
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run_cli(verb, "/nonexistent/sock", &out, &err), 2);
	assert_non_null(strstr(json_error_of(out, "usage", &j),
			       "did you mean 'status'?"));
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(j, "error"), "suggestion")),
			    "status");
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run_cli(both, NULL, &out, &err), 2);
	assert_non_null(strstr(json_error_of(out, "usage", &j),
			       "both name the socket"));
	json_decref(j);
	free(out);
	free(err);

	/* --json after the bad option still applies */
	assert_int_equal(run_cli(opt, NULL, &out, &err), 2);
	assert_non_null(strstr(json_error_of(out, "usage", &j),
			       "did you mean --json?"));
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run_cli(gone, NULL, &out, &err), 3);
	assert_non_null(strstr(json_error_of(out, "unreachable", &j),
			       "/nonexistent/sock"));
	json_decref(j);
	free(out);
	free(err);

	server_start(&sv, SILENT);
	assert_int_equal(run_cli(slow, sv.path, &out, &err), 3);
	server_stop(&sv);
	assert_non_null(strstr(json_error_of(out, "timeout", &j), "no answer"));
	json_decref(j);
	free(out);
	free(err);
}

static void test_cli_log_level_env(void **state)
{
	static const char *args[] = {"log-level", "debug", NULL};
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 0);
	server_stop(&sv);
	assert_string_equal(out, "log level info -> debug\n");
	assert_string_equal(fake.level, "debug");
	free(out);
	free(err);
}

static void test_cli_closed_and_timeout(void **state)
{
	static const char *args[] = {"--timeout", "0.5", "status", NULL};
	struct timespec t0, t1;
	struct server sv;
	char *out, *err;

	NEED_CLI();
	server_start(&sv, CLOSE_AT_ONCE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 3);
	server_stop(&sv);
	assert_non_null(strstr(err, "closed"));
	free(out);
	free(err);

	server_start(&sv, SILENT);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 3);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	server_stop(&sv);
	assert_non_null(strstr(err, "no answer"));
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	free(out);
	free(err);
}

/* Each snapshot: eth1 rx_packets +1000 and the daemon's clock +1 s. */
static void test_cli_watch_rates(void **state)
{
	static const char *args[] = {"--json",	"watch", "--interval", "0.05",
				     "--count", "2",	 NULL};
	struct server sv;
	char *out, *err, *line, *save = NULL;
	int lines = 0;

	NEED_CLI();
	fake.advance_packets = 1000;
	server_start(&sv, SERVE);
	assert_int_equal(run_cli(args, sv.path, &out, &err), 0);
	server_stop(&sv);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL), *p;

		assert_non_null(j);
		p = json_array_get(json_object_get(j, "ports"), 0);
		assert_string_equal(
			json_string_value(json_object_get(p, "name")), "eth1");
		assert_true(json_real_value(json_object_get(p, "rx_pps")) ==
			    1000.0);
		assert_true(json_real_value(json_object_get(p, "tx_pps")) ==
			    0.0);
		assert_true(json_real_value(json_object_get(j, "interval_s")) ==
			    1.0);
		json_decref(j);
		lines++;
	}
	assert_int_equal(lines, 2);
	assert_int_equal(fake.taken, 3);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cli_usage, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_cannot_connect, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_status_json, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_stats_human, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_daemon_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_json_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_log_level_env, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_closed_and_timeout,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_jobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_watch_rates, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
