// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_parse_malformed.c - pkt_parse() on malformed frames: every
 * malformed reason from a frame made for it, the reasons' names, and a
 * byte-by-byte truncation sweep of a full QinQ / IPv6 / UDP / RoCEv2
 * frame.
 */
#include "test_parse.h"

/* ---- malformed frames ---- */

struct bad {
	const char *what;
	struct fb f;
	int want;
};

static void bad_ipv4_udp(struct bad *b, uint32_t payload)
{
	uint32_t ip;

	eth(&b->f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&b->f, 0, IPPROTO_UDP, "10.0.0.1", "10.0.0.2", 0, 0);
	zeros(&b->f, payload);
	ipv4_fix(&b->f, ip);
}

static uint32_t bad_ipv6(struct bad *b, uint32_t nh)
{
	eth(&b->f, 0, NULL, ETHERTYPE_IPV6);
	return ipv6(&b->f, 0, nh, "2001:db8::1", "2001:db8::2");
}

static void test_malformed_reasons(void **state)
{
	static struct bad t[32];
	int seen[PKT_MALFORMED_MAX] = {0};
	struct pkt_meta m;
	uint32_t n = 0, ip, u;
	const uint32_t one_tag[] = {ETHERTYPE_VLAN, tci(0, 1)};
	const uint32_t two_tags[] = {ETHERTYPE_QINQ, tci(0, 1), ETHERTYPE_VLAN,
				     tci(0, 2)};

	memset(t, 0, sizeof(t));

	t[n].what = "runt: 13 bytes";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	t[n].f.n = 13;
	t[n++].want = PKT_MALFORMED_RUNT;

	t[n].what = "runt: empty";
	t[n].f.n = 0;
	t[n++].want = PKT_MALFORMED_RUNT;

	t[n].what = "vlan: 802.1Q tag cut after 3 bytes";
	eth(&t[n].f, 1, one_tag, ETHERTYPE_IPV4);
	t[n].f.n = 17;
	t[n++].want = PKT_MALFORMED_VLAN_TRUNCATED;

	t[n].what = "vlan: inner tag of QinQ cut";
	eth(&t[n].f, 2, two_tags, ETHERTYPE_IPV4);
	t[n].f.n = 21;
	t[n++].want = PKT_MALFORMED_VLAN_TRUNCATED;

	t[n].what = "ipv4: 19 bytes of header";
	bad_ipv4_udp(&t[n], 0);
	t[n].f.n = 14 + 19;
	t[n++].want = PKT_MALFORMED_IPV4_TRUNCATED;

	t[n].what = "ipv4: version 6 under ethertype IPv4";
	bad_ipv4_udp(&t[n], 8);
	t[n].f.b[14] = 0x65;
	t[n++].want = PKT_MALFORMED_IPV4_VERSION;

	t[n].what = "ipv4: IHL 4";
	bad_ipv4_udp(&t[n], 8);
	t[n].f.b[14] = 0x44;
	t[n++].want = PKT_MALFORMED_IPV4_BAD_IHL;

	t[n].what = "ipv4: IHL 15 in a 34+8 byte frame";
	bad_ipv4_udp(&t[n], 8);
	t[n].f.b[14] = 0x4f;
	t[n++].want = PKT_MALFORMED_IPV4_BAD_IHL;

	t[n].what = "ipv4: total length one past the frame";
	bad_ipv4_udp(&t[n], 8);
	set16(&t[n].f, 16, 29);
	t[n++].want = PKT_MALFORMED_IPV4_BAD_TOTLEN;

	t[n].what = "ipv4: total length below the header (IHL 6)";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_UDP, "1.1.1.1", "2.2.2.2", 1, 0);
	udp(&t[n].f, 1, 2);
	set16(&t[n].f, ip + 2, 23);
	t[n++].want = PKT_MALFORMED_IPV4_BAD_TOTLEN;

	t[n].what = "ipv6: 39 bytes of header";
	bad_ipv6(&t[n], IPPROTO_UDP);
	t[n].f.n = 14 + 39;
	t[n++].want = PKT_MALFORMED_IPV6_TRUNCATED;

	t[n].what = "ipv6: version 4 under ethertype IPv6";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	udp(&t[n].f, 1, 2);
	ipv6_fix(&t[n].f, ip);
	t[n].f.b[ip] = 0x40;
	t[n++].want = PKT_MALFORMED_IPV6_VERSION;

	t[n].what = "ipv6: payload length one past the frame";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	udp(&t[n].f, 1, 2);
	set16(&t[n].f, ip + 4, 9);
	t[n++].want = PKT_MALFORMED_IPV6_BAD_PLEN;

	t[n].what = "exthdr: hop-by-hop length past the payload";
	ip = bad_ipv6(&t[n], IPPROTO_HOPOPTS);
	ext(&t[n].f, IPPROTO_UDP, 1); /* 16 bytes */
	udp(&t[n].f, 1, 2);
	set16(&t[n].f, ip + 4, 15); /* payload ends inside it */
	zeros(&t[n].f, 8); /* padding: the frame is long enough */
	t[n++].want = PKT_MALFORMED_EXTHDR_TRUNCATED;

	t[n].what = "exthdr: fewer than 8 bytes for a routing header";
	ip = bad_ipv6(&t[n], IPPROTO_ROUTING);
	zeros(&t[n].f, 7);
	ipv6_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_EXTHDR_TRUNCATED;

	t[n].what = "exthdr: AH length past the payload";
	ip = bad_ipv6(&t[n], IPPROTO_AH);
	ah(&t[n].f, IPPROTO_TCP, 4); /* 24 bytes */
	ipv6_fix(&t[n].f, ip);
	t[n].f.b[ip + 41] = 5; /* says 28 */
	t[n++].want = PKT_MALFORMED_EXTHDR_TRUNCATED;

	t[n].what = "exthdr: PKT_MAX_EXTHDR + 1 headers";
	ip = bad_ipv6(&t[n], IPPROTO_DSTOPTS);
	for (int i = 0; i <= PKT_MAX_EXTHDR; i++)
		ext(&t[n].f, i < PKT_MAX_EXTHDR ? IPPROTO_DSTOPTS : IPPROTO_UDP,
		    0);
	udp(&t[n].f, 1, 2);
	ipv6_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_EXTHDR_TOO_LONG;

	t[n].what = "tcp: 19 bytes of header";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_TCP, "1.1.1.1", "2.2.2.2", 0, 0);
	zeros(&t[n].f, 19);
	ipv4_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_TCP_TRUNCATED;

	t[n].what = "tcp: header only in the Ethernet padding";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_TCP, "1.1.1.1", "2.2.2.2", 0, 0);
	ipv4_fix(&t[n].f, ip); /* total length 20 */
	tcp(&t[n].f, 1, 2);
	t[n++].want = PKT_MALFORMED_TCP_TRUNCATED;

	t[n].what = "udp: 7 bytes of header (IPv6)";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	zeros(&t[n].f, 7);
	ipv6_fix(&t[n].f, ip);
	t[n++].want = PKT_MALFORMED_UDP_TRUNCATED;

	t[n].what = "udp: IPv4 total length 27";
	bad_ipv4_udp(&t[n], 7);
	zeros(&t[n].f, 20);
	t[n++].want = PKT_MALFORMED_UDP_TRUNCATED;

	t[n].what = "bth: UDP 4791 with 11 bytes of BTH";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_UDP, "1.1.1.1", "2.2.2.2", 0, 0);
	u = udp(&t[n].f, 1, ROCEV2_UDP_PORT);
	zeros(&t[n].f, 11);
	udp_fix(&t[n].f, u);
	ipv4_fix(&t[n].f, ip);
	zeros(&t[n].f, 10); /* padding is not BTH */
	t[n++].want = PKT_MALFORMED_BTH_TRUNCATED;

	t[n].what = "bth: UDP 4791, the UDP length cuts the BTH";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_UDP, "1.1.1.1", "2.2.2.2", 0, 0);
	u = udp(&t[n].f, 1, ROCEV2_UDP_PORT);
	bth(&t[n].f, 0x0a, 1);
	ipv4_fix(&t[n].f, ip);
	set16(&t[n].f, u + 4, 8 + 11);
	t[n++].want = PKT_MALFORMED_BTH_TRUNCATED;

	t[n].what = "udp: length 7";
	bad_ipv4_udp(&t[n], 8);
	set16(&t[n].f, 34 + 4, 7);
	t[n++].want = PKT_MALFORMED_UDP_BAD_LEN;

	t[n].what = "udp: length one past the datagram (IPv6)";
	ip = bad_ipv6(&t[n], IPPROTO_UDP);
	u = udp(&t[n].f, 1, 2);
	zeros(&t[n].f, 4);
	ipv6_fix(&t[n].f, ip);
	set16(&t[n].f, u + 4, 13);
	t[n++].want = PKT_MALFORMED_UDP_BAD_LEN;

	t[n].what = "tcp: data offset 4";
	eth(&t[n].f, 0, NULL, ETHERTYPE_IPV4);
	ip = ipv4(&t[n].f, 0, IPPROTO_TCP, "1.1.1.1", "2.2.2.2", 0, 0);
	tcp(&t[n].f, 1, 2);
	ipv4_fix(&t[n].f, ip);
	t[n].f.b[34 + 12] = 4 << 4;
	t[n++].want = PKT_MALFORMED_TCP_BAD_DOFF;

	t[n].what = "tcp: data offset 6, header past the datagram (IPv6)";
	ip = bad_ipv6(&t[n], IPPROTO_TCP);
	tcp(&t[n].f, 1, 2);
	ipv6_fix(&t[n].f, ip);
	t[n].f.b[54 + 12] = 6 << 4;
	zeros(&t[n].f, 4); /* padding is not TCP options */
	t[n++].want = PKT_MALFORMED_TCP_BAD_DOFF;

	assert_true(n <= sizeof(t) / sizeof(t[0]));
	for (uint32_t i = 0; i < n; i++) {
		int rc = parse(&t[i].f, &m);

		if (rc != t[i].want)
			fail_msg("%s: got %s, want %s", t[i].what,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(t[i].want));
		seen[rc]++;
	}
	/* every reason has a frame */
	for (int r = 1; r < PKT_MALFORMED_MAX; r++)
		if (!seen[r])
			fail_msg("no frame for reason %d (%s)", r,
				 pkt_malformed_name(r));
}

static void test_malformed_names(void **state)
{
	assert_string_equal(pkt_malformed_name(PKT_OK), "ok");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_RUNT), "runt");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_VLAN_TRUNCATED),
			    "vlan_truncated");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_BTH_TRUNCATED),
			    "bth_truncated");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_UDP_BAD_LEN),
			    "udp_bad_len");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_TCP_BAD_DOFF),
			    "tcp_bad_doff");
	assert_string_equal(pkt_malformed_name(-1), "?");
	assert_string_equal(pkt_malformed_name(PKT_MALFORMED_MAX), "?");
	/* all named, all distinct */
	for (int i = 0; i < PKT_MALFORMED_MAX; i++) {
		assert_non_null(pkt_malformed_name(i));
		assert_string_not_equal(pkt_malformed_name(i), "?");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(pkt_malformed_name(i),
						pkt_malformed_name(j));
	}
}

/* ---- truncation sweep ---- */

static int want_raw(uint32_t len)
{
	if (len < 14)
		return PKT_MALFORMED_RUNT;
	if (len < 22)
		return PKT_MALFORMED_VLAN_TRUNCATED;
	if (len < 62)
		return PKT_MALFORMED_IPV6_TRUNCATED;
	if (len < 134)
		return PKT_MALFORMED_IPV6_BAD_PLEN;
	return PKT_OK;
}

static int want_fixed(uint32_t len)
{
	if (len < 94)
		return PKT_MALFORMED_EXTHDR_TRUNCATED;
	if (len < 102)
		return PKT_MALFORMED_UDP_TRUNCATED;
	if (len < 114)
		return PKT_MALFORMED_BTH_TRUNCATED;
	return PKT_OK;
}

static void test_truncation_sweep(void **state)
{
	struct fb full, f;
	struct pkt_meta m;
	uint32_t len;
	int rc;

	full_roce_frame(&full);
	for (len = 0; len <= full.n; len++) {
		/* The frame cut at len: the IPv6 payload length now lies. */
		rc = parse_n(full.b, len, &m);
		if (rc != want_raw(len))
			fail_msg("cut at %u: got %s, want %s", len,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(want_raw(len)));
		if (len < 62)
			continue;
		/* ...and with the payload length fixed up to match: the
		 * extension headers, UDP and BTH are cut in turn. */
		f = full;
		f.n = len;
		ipv6_fix(&f, 22);
		rc = parse(&f, &m);
		if (rc != want_fixed(len))
			fail_msg("cut at %u, plen fixed: got %s, want %s", len,
				 pkt_malformed_name(rc),
				 pkt_malformed_name(want_fixed(len)));
		/* What was parsed before the fault is filled in. */
		assert_int_equal(m.vlan_id, 500);
		assert_int_equal(m.pcp, 3);
		assert_int_equal(m.dscp, 26);
		assert_int_equal(m.ecn, 1);
		if (rc == PKT_OK) {
			assert_int_equal(m.l4_off, 94);
			assert_int_equal(m.sport, 0xf000);
			assert_int_equal(m.bth_opcode, BTH_OPCODE_CNP);
			assert_int_equal(m.bth_dqpn, 0x123456);
			assert_int_equal(m.bth_psn, 0x123);
			assert_int_equal(m.bth_flags, PKT_BTH_BECN);
			assert_true(m.flags & PKT_F_FRAG);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_reasons),
		cmocka_unit_test(test_malformed_names),
		cmocka_unit_test(test_truncation_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
