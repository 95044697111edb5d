// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_kernel_req.c - the kernel release parser and the start-up decision
 * of control/daemon/kernel_req.c: Debian 12's 6.1 carries an MTU that fits one
 * UMEM frame and refuses a jumbo MTU with the largest MTU that works; 6.6
 * and later carry both; before 5.10 nothing; no kernel more than 17 UMEM
 * frames per packet. Pure: no uname, no interface.
 * Single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "kernel_req.h"

static void parses(const char *rel, unsigned int ma, unsigned int mi,
		   unsigned int pa)
{
	struct kver v = {99, 99, 99};

	if (kver_parse(rel, &v)) {
		print_error("\"%s\" did not parse\n", rel);
		fail();
	}
	if (v.major != ma || v.minor != mi || v.patch != pa) {
		print_error("\"%s\": %u.%u.%u, want %u.%u.%u\n", rel, v.major,
			    v.minor, v.patch, ma, mi, pa);
		fail();
	}
}

static void test_parse_releases(void **state)
{
	(void)state;
	parses("6.1.0-18-amd64", 6, 1, 0); /* Debian 12 */
	parses("6.1.0-0.deb11.17-amd64", 6, 1, 0);
	parses("6.12.9+bpo-amd64", 6, 12, 9); /* bookworm-backports */
	parses("6.6", 6, 6, 0);
	parses("6.6.0", 6, 6, 0);
	parses("6.10-rc1", 6, 10, 0);
	parses("5.15.0-91-generic", 5, 15, 0);
	parses("5.14.0-427.13.1.el9_4.x86_64", 5, 14, 0);
	parses("6.18.44-fc-v1045", 6, 18, 44);
	parses("2.6.78-fc-v1045", 2, 6, 78); /* setarch --uname-2.6 */
	parses("6.1.0+", 6, 1, 0);
	parses("4.19.0_custom", 4, 19, 0);
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"",	 "6",	 "6.",	 ".6",	    "abc",	"6.x",	"x6.6",
		"6.6.x", "6..6", "-6.6", "6.6.0.1", "123456.1", "6.1a", " 6.1",
	};
	struct kver v = {1, 2, 3};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!kver_parse(bad[i], &v)) {
			print_error("\"%s\" parsed as %u.%u.%u\n", bad[i],
				    v.major, v.minor, v.patch);
			fail();
		}
	}
	/* untouched on failure */
	assert_int_equal(v.major, 1);
	assert_int_equal(kver_parse(NULL, &v), -1);
}

static void test_compare_and_features(void **state)
{
	struct kver a, b;

	(void)state;
	assert_int_equal(kver_parse("6.1.0-18-amd64", &a), 0);
	assert_int_equal(kver_parse("6.6", &b), 0);
	assert_true(kver_cmp(&a, &b) < 0);
	assert_true(kver_cmp(&b, &a) > 0);
	assert_int_equal(kver_cmp(&a, &a), 0);
	/* 6.10 is newer than 6.6, not older (no string compare) */
	assert_int_equal(kver_parse("6.10.0", &a), 0);
	assert_true(kver_cmp(&a, &b) > 0);
	assert_int_equal(kver_parse("6.5.13", &a), 0);
	assert_false(kfeat_has(&a, KFEAT_MULTIBUF));
	assert_true(kfeat_has(&a, KFEAT_SHARED_UMEM));
	assert_true(kfeat_has(&b, KFEAT_MULTIBUF));
	assert_int_equal(kver_parse("5.10.0", &a), 0);
	assert_true(kfeat_has(&a, KFEAT_SHARED_UMEM));
	assert_int_equal(kver_parse("5.9.16", &a), 0);
	assert_false(kfeat_has(&a, KFEAT_SHARED_UMEM));
	assert_int_equal(kfeat_info(KFEAT_MULTIBUF)->min.major, 6);
	assert_int_equal(kfeat_info(KFEAT_MULTIBUF)->min.minor, 6);
	assert_null(kfeat_info(KFEAT_N));
}

static void test_single_frame_mtu(void **state)
{
	(void)state;
	/* the numbers of xdplane(8), FRAME SIZE */
	assert_int_equal(kreq_single_frame_mtu(4096, 0), 3818);
	assert_int_equal(kreq_single_frame_mtu(2048, 0), 1770);
	assert_int_equal(kreq_single_frame_mtu(4096, 256), 3562);
	assert_int_equal(kreq_single_frame_mtu(256, 0), 0);
}

static const struct kreq_port std_ports[2] = {
	{"eth1", 1500, false},
	{"eth2", 1500, false},
};

static void test_debian12_standard_mtu(void **state)
{
	char err[1024];
	struct kreq_port p[2] = {{"eth1", 3818, true}, {"eth2", 1500, false}};

	(void)state;
	assert_int_equal(kreq_check("6.1.0-18-amd64", std_ports, 4096, 0, err,
				    sizeof(err)),
			 0);
	assert_string_equal(err, "");
	/* exactly one frame's worth still needs no multi-buffer */
	assert_int_equal(
		kreq_check("6.1.0-18-amd64", p, 4096, 0, err, sizeof(err)), 0);
}

static void test_debian12_jumbo_refused(void **state)
{
	struct kreq_port p[2] = {{"eth1", 9000, true}, {"eth2", 1500, false}};
	char err[1024];

	(void)state;
	assert_int_equal(
		kreq_check("6.1.0-18-amd64", p, 4096, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Linux 6.1.0-18-amd64 cannot carry"));
	assert_non_null(strstr(err, "ports[0].mtu 9000 (eth1)"));
	assert_non_null(strstr(err, "XDP_USE_SG"));
	assert_non_null(strstr(err, "Linux >= 6.6"));
	assert_non_null(strstr(err, "largest MTU this kernel carries is 3818"));
	assert_null(strstr(err, "eth2"));
	assert_null(strstr(err, "5.10"));

	/* one more byte than a frame holds */
	p[0].mtu = 3819;
	assert_int_equal(
		kreq_check("6.1.0-18-amd64", p, 4096, 0, err, sizeof(err)), -1);

	/* the MTU the interface has, ports[].mtu unset: says what to set */
	p[0] = (struct kreq_port){"eth1", 1500, false};
	p[1] = (struct kreq_port){"eth2", 9000, false};
	assert_int_equal(
		kreq_check("6.1.0-18-amd64", p, 2048, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "eth2 has MTU 9000 (ports[1].mtu unset"));
	assert_non_null(strstr(err, "set ports[1].mtu: 1770"));
	assert_null(strstr(err, "eth1"));
}

static void test_new_kernels_carry_jumbo(void **state)
{
	static const char *const ok[] = {"6.6.0", "6.6", "6.12.9+bpo-amd64",
					 "6.18.44-fc-v1045", "7.0"};
	struct kreq_port p[2] = {{"eth1", 9000, true}, {"eth2", 9000, false}};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (kreq_check(ok[i], p, 4096, 0, err, sizeof(err))) {
			print_error("%s refused: %s\n", ok[i], err);
			fail();
		}
	}
	assert_int_equal(kreq_check("6.5.13", p, 4096, 0, err, sizeof(err)),
			 -1);
}

static void test_old_kernel_and_unknown(void **state)
{
	struct kreq_port p[2] = {{"eth1", 9000, true}, {"eth2", 1500, false}};
	char err[1024];

	(void)state;
	/* before 5.10: nothing works; the MTU is named too */
	assert_int_equal(kreq_check("5.4.0-150-generic", std_ports, 4096, 0,
				    err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "Linux >= 5.10"));
	assert_int_equal(
		kreq_check("2.6.78-fc-v1045", p, 4096, 0, err, sizeof(err)),
		-1);
	assert_non_null(strstr(err, "Linux >= 5.10"));
	assert_non_null(strstr(err, "largest MTU this kernel carries is 3818"));
	/* a release that does not parse is not refused (the bind decides) */
	assert_int_equal(kreq_check("weird", p, 4096, 0, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* a short buffer is cut, not overrun */
	memset(err, 'x', sizeof(err));
	assert_int_equal(kreq_check("6.1.0", p, 4096, 0, err, 16), -1);
	assert_int_equal(strlen(err), 15);
	assert_int_equal(err[16], 'x');
}

/* At most 17 frames per packet on any kernel (frame_chain.h): with
 * 2048-byte frames (1792 B each) an MTU of 17 * 1792 - 22 = 30442. */
static void test_chain_limit_any_kernel(void **state)
{
	struct kreq_port p[2] = {{"gw0", 40000, true}, {"gw1", 1500, false}};
	char err[1024];

	(void)state;
	assert_int_equal(
		kreq_check("6.18.44-fc-v1045", p, 2048, 0, err, sizeof(err)),
		-1);
	assert_non_null(
		strstr(err, "gw0: MTU 40000 needs 23 frames of 2048 B"));
	assert_non_null(strstr(err, "carries at most 17"));
	assert_non_null(strstr(err, "lower the MTU to 30442 or less"));
	/* a release that does not parse is still held to it */
	assert_int_equal(kreq_check("weird", p, 2048, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "lower the MTU to 30442"));
	p[0].mtu = 30442;
	assert_int_equal(
		kreq_check("6.18.44-fc-v1045", p, 2048, 0, err, sizeof(err)),
		0);
	p[0].mtu = 30443;
	assert_int_equal(
		kreq_check("6.18.44-fc-v1045", p, 2048, 0, err, sizeof(err)),
		-1);
	/* 4096-byte frames: 17 * 3840 - 22 = 65258 (xdplane(8), FRAME SIZE) */
	p[0].mtu = 65258;
	assert_int_equal(kreq_check("6.6", p, 4096, 0, err, sizeof(err)), 0);
	p[0].mtu = 65259;
	assert_int_equal(kreq_check("6.6", p, 4096, 0, err, sizeof(err)), -1);
}

/* The largest frame of an MTU is a QinQ frame: Ethernet header 14, an
 * 802.1ad S-tag and an 802.1Q C-tag (4 each), then MTU bytes. The MTU
 * said to fit one UMEM frame, or a chain of 17, fits it with both tags. */
static void test_qinq_frame_fits(void **state)
{
	static const uint32_t sizes[] = {2048, 4096, 8192};
	static const uint32_t heads[] = {0, 64, 256};
	const uint32_t qinq = 14 + 4 + 4;
	char err[1024];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		for (size_t k = 0; k < 3; k++) {
			uint32_t fs = sizes[i], hr = heads[k];
			uint32_t room = fs - 256 - hr;
			uint32_t single = kreq_single_frame_mtu(fs, hr);
			uint32_t chain;
			struct kreq_port p[2] = {{"gw0", single, true},
						 {"gw1", 1500, false}};

			print_message("frame %u headroom %u: one frame holds "
				      "%u B, MTU %u (a QinQ frame of %u B)\n",
				      fs, hr, room, single, single + qinq);
			assert_true(single + qinq <= room);
			assert_int_equal(single + qinq, room);
			/* 6.1, no multi-buffer: that MTU is carried, one
			 * more is not */
			assert_int_equal(kreq_check("6.1.0", p, fs, hr, err,
						    sizeof(err)),
					 0);
			p[0].mtu = single + 1;
			assert_int_equal(kreq_check("6.1.0", p, fs, hr, err,
						    sizeof(err)),
					 -1);
			/* the chain limit: 17 frames hold the QinQ frame */
			chain = 17 * room - qinq;
			p[0].mtu = chain;
			assert_int_equal(
				kreq_check("6.6", p, fs, hr, err, sizeof(err)),
				0);
			p[0].mtu = chain + 1;
			assert_int_equal(
				kreq_check("6.6", p, fs, hr, err, sizeof(err)),
				-1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_releases),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_compare_and_features),
		cmocka_unit_test(test_single_frame_mtu),
		cmocka_unit_test(test_debian12_standard_mtu),
		cmocka_unit_test(test_debian12_jumbo_refused),
		cmocka_unit_test(test_new_kernels_carry_jumbo),
		cmocka_unit_test(test_old_kernel_and_unknown),
		cmocka_unit_test(test_chain_limit_any_kernel),
		cmocka_unit_test(test_qinq_frame_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
