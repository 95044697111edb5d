// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ctl_proto_input.c - the control protocol against a fake backend,
 * on what a client sends: the handshake (success, wrong version, anything
 * else first), parse errors with their position, non-object requests,
 * unknown commands and keys, wrong argument types and ranges, id echo,
 * too_long and an embedded NUL.
 */
#include "test_ctl_proto.h"

static void test_handshake_ok(void **state)
{
	struct ctl_session s;
	json_t *r, *cmds;

	ctl_session_init(&s);
	r = exchange(&s, "{\"hello\":\"xdplanectl\",\"version\":1}");
	assert_true(json_is_true(json_object_get(r, "ok")));
	assert_int_equal(int_at(r, "version"), 1);
	assert_string_equal(json_string_value(json_object_get(r, "server")),
			    "xdplane");
	assert_string_equal(
		json_string_value(json_object_get(r, "server_version")),
		XDPLANE_VERSION);
	cmds = json_object_get(r, "commands");
	assert_int_equal(json_array_size(cmds), 12);
	assert_string_equal(json_string_value(json_array_get(cmds, 2)),
			    "stats");
	assert_string_equal(json_string_value(json_array_get(cmds, 5)),
			    "config");
	assert_string_equal(json_string_value(json_array_get(cmds, 8)),
			    "log-level");
	assert_string_equal(json_string_value(json_array_get(cmds, 11)),
			    "job-unregister");
	assert_true(s.greeted);
	assert_false(s.closing);
	assert_string_equal(s.client, "xdplanectl");
	json_decref(r);
}

static void test_handshake_wrong_version(void **state)
{
	struct ctl_session s;
	json_t *r;

	ctl_session_init(&s);
	r = exchange(&s, "{\"hello\":\"future\",\"version\":2}");
	assert_non_null(strstr(error_of(r, "version"), "version 2"));
	assert_int_equal(int_at(r, "version"), 1);
	assert_true(s.closing);
	assert_false(s.greeted);
	json_decref(r);
	/* Nothing is accepted on a closing session, not even a good hello. */
	r = exchange(&s, "{\"hello\":\"again\",\"version\":1}");
	error_of(r, "handshake");
	assert_false(s.greeted);
	json_decref(r);
}

static void test_handshake_required_first(void **state)
{
	static const char *const firsts[] = {
		"{\"command\":\"status\"}",
		"{\"hello\":\"x\"}",
		"{\"hello\":5,\"version\":1}",
		"{\"hello\":\"x\",\"version\":\"1\"}",
		"{\"hello\":\"x\",\"version\":1,\"extra\":true}",
		"[1]",
		"not json",
		"",
	};

	for (size_t i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
		struct ctl_session s;
		json_t *r;

		ctl_session_init(&s);
		r = exchange(&s, firsts[i]);
		error_of(r, "handshake");
		assert_true(s.closing);
		assert_false(s.greeted);
		json_decref(r);
	}
	assert_int_equal(fake.taken, 0);
}

static void test_parse_error_has_position(void **state)
{
	struct ctl_session s;
	const char *msg;
	json_t *r;

	greet(&s);
	r = exchange(&s, "{\"command\": \"status\",");
	msg = error_of(r, "parse");
	assert_non_null(strstr(msg, "line 1 column"));
	assert_false(s.closing);
	json_decref(r);
	/* The session goes on. */
	r = exchange(&s, "{\"command\":\"commands\"}");
	assert_int_equal(
		json_array_size(json_object_get(result_of(r), "commands")), 12);
	json_decref(r);
	/* A duplicate key is a parse error too. */
	expect_error("{\"command\":\"status\",\"command\":\"stats\"}", "parse");
}

static void test_non_object(void **state)
{
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange(&s, "[\"status\"]");
	assert_non_null(strstr(error_of(r, "parse"), "not an array"));
	json_decref(r);
	r = exchange(&s, "42");
	assert_non_null(strstr(error_of(r, "parse"), "not a number"));
	json_decref(r);
	r = exchange(&s, "\"status\"");
	error_of(r, "parse");
	json_decref(r);
	assert_false(s.closing);
}

static void test_unknown_command(void **state)
{
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange(&s, "{\"command\":\"shutdown\",\"id\":9}");
	assert_non_null(strstr(error_of(r, "unknown_command"), "shutdown"));
	assert_int_equal(int_at(r, "id"), 9);
	json_decref(r);
}

static void test_bad_requests(void **state)
{
	expect_error("{}", "bad_request");
	expect_error("{\"command\":5}", "bad_request");
	expect_error("{\"command\":\"status\",\"args\":[]}", "bad_request");
	expect_error("{\"command\":\"status\",\"args\":{\"x\":1}}",
		     "bad_request");
	expect_error("{\"command\":\"status\",\"verbose\":true}",
		     "bad_request");
	expect_error("{\"command\":\"stats\",\"args\":{\"port\":5}}",
		     "bad_request");
	expect_error("{\"command\":\"stats\",\"args\":{\"port\":\"eth9\"}}",
		     "bad_request");
	expect_error("{\"command\":\"log-level\",\"args\":{\"level\":1}}",
		     "bad_request");
	expect_error("{\"command\":\"log-level\"}", "bad_request");
	expect_error("{\"hello\":\"again\",\"version\":1}", "bad_request");
	assert_int_equal(fake.level_calls, 0);
}

static void test_id_echoed(void **state)
{
	static const char *const ids[] = {"7", "\"abc\"", "{\"a\":[1,2.5]}",
					  "null"};
	struct ctl_session s;
	char line[128];

	greet(&s);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		json_t *want = json_loads(ids[i], JSON_DECODE_ANY, NULL);
		json_t *r;

		snprintf(line, sizeof(line),
			 "{\"command\":\"commands\",\"id\":%s}", ids[i]);
		r = exchange(&s, line);
		assert_true(json_is_true(json_object_get(r, "ok")));
		assert_true(json_equal(json_object_get(r, "id"), want));
		json_decref(r);
		/* ... and on errors. */
		snprintf(line, sizeof(line), "{\"command\":\"nope\",\"id\":%s}",
			 ids[i]);
		r = exchange(&s, line);
		error_of(r, "unknown_command");
		assert_true(json_equal(json_object_get(r, "id"), want));
		json_decref(r);
		json_decref(want);
	}
	/* No id in the request: none in the response. */
	{
		json_t *r = exchange(&s, "{\"command\":\"commands\"}");

		assert_null(json_object_get(r, "id"));
		json_decref(r);
	}
}

static void test_too_long(void **state)
{
	struct ctl_session s;
	char *out, *big;
	json_t *r;

	greet(&s);
	out = ctl_session_too_long(&s);
	r = json_loads(out, 0, NULL);
	error_of(r, "too_long");
	assert_false(s.closing);
	json_decref(r);
	free(out);

	/* Over the limit through handle() too, and no parse attempt. */
	big = malloc(CTL_LINE_MAX + 1);
	assert_non_null(big);
	memset(big, ' ', CTL_LINE_MAX + 1);
	r = exchange_n(&s, big, CTL_LINE_MAX + 1);
	error_of(r, "too_long");
	json_decref(r);
	/* Exactly at the limit: parsed (all blanks: a parse error). */
	r = exchange_n(&s, big, CTL_LINE_MAX);
	error_of(r, "parse");
	json_decref(r);
	free(big);

	/* Before the handshake it ends the session. */
	ctl_session_init(&s);
	out = ctl_session_too_long(&s);
	r = json_loads(out, 0, NULL);
	error_of(r, "too_long");
	assert_true(s.closing);
	json_decref(r);
	free(out);
}

static void test_embedded_nul(void **state)
{
	static const char line1[] = "{\"command\":\"status\"}\0trailing";
	static const char line2[] = "{\"command\":\"sta\0tus\"}";
	static const char line3[] = "\0";
	struct ctl_session s;
	json_t *r;

	greet(&s);
	r = exchange_n(&s, line1, sizeof(line1) - 1);
	error_of(r, "parse");
	json_decref(r);
	r = exchange_n(&s, line2, sizeof(line2) - 1);
	error_of(r, "parse");
	json_decref(r);
	r = exchange_n(&s, line3, 1);
	error_of(r, "parse");
	json_decref(r);
	/* An escaped NUL in a string is refused by the parser as well. */
	r = exchange(&s, "{\"command\":\"sta\\u0000tus\"}");
	error_of(r, "parse");
	json_decref(r);
	/* Invalid UTF-8 in the request, echoed in the parser's message. */
	r = exchange(&s, "{\"command\":\"\xff\xfe\"}");
	error_of(r, "parse");
	json_decref(r);
	assert_false(s.closing);
	assert_int_equal(fake.taken, 0);
}

/* Text that is not UTF-8 or fills its array, counts beyond the arrays. */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handshake_ok, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_handshake_wrong_version,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_handshake_required_first,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_error_has_position,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_non_object, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unknown_command, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_id_echoed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_embedded_nul, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
