// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_parse_head.c - libFuzzer target for pkt_parse_head(), the parser of
 * a multi-buffer chain's first frame (dataplane/xsk/frame_chain.h).
 *
 * Input: 2 bytes (little-endian) choose how many bytes of the packet are
 * readable (the first frame), the rest is the packet. Only those bytes are
 * copied into a buffer of exactly that size, so AddressSanitizer catches a
 * read past the first frame. Invariant: when the head parse succeeds, the
 * parse of the whole packet succeeds with the same result (every header
 * was inside the head, so the two saw the same bytes). A lying L4 length
 * field (udp_bad_len, tcp_bad_doff) is a property of the packet, not of
 * the head: the head parse reports it exactly when the whole parse does
 * and the head holds the L4 header (UDP 8, TCP 20 bytes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pkt_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkt_meta mh, mf;
	uint32_t len, head;
	uint8_t *buf;
	int rh, rf;

	if (size < 2 || size - 2 > 65535)
		return 0;
	len = (uint32_t)(size - 2);
	head = (uint32_t)(data[0] | data[1] << 8) % (len + 1);
	buf = malloc(head ? head : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, head);
	rh = pkt_parse_head(buf, head, len, &mh);
	rf = pkt_parse(data + 2, len, &mf);
	if (rh == PKT_OK && (rf != PKT_OK || memcmp(&mh, &mf, sizeof(mh))))
		abort();
	if ((rh == PKT_MALFORMED_UDP_BAD_LEN ||
	     rh == PKT_MALFORMED_TCP_BAD_DOFF) &&
	    (rf != rh || memcmp(&mh, &mf, sizeof(mh))))
		abort();
	if (rf == PKT_MALFORMED_UDP_BAD_LEN && head >= mf.l4_off + 8u &&
	    rh != rf)
		abort();
	if (rf == PKT_MALFORMED_TCP_BAD_DOFF && head >= mf.l4_off + 20u &&
	    rh != rf)
		abort();
	free(buf);
	return 0;
}
