/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * remark.h - marking for the fabric beyond: rewrite the DSCP and the
 * 802.1Q PCP of a frame as it leaves in a class that sets them
 * (qos_class.set_dscp, set_pcp), so that the switches beyond queue it, and
 * pause it with PFC, at the priority the gateway chose.
 *
 * DSCP: the upper six bits of the IPv4 TOS byte (the header checksum
 * updated incrementally, RFC 1624: it verifies afterwards) or of the IPv6
 * traffic class (no checksum); the ECN bits are kept (a CE mark of the
 * scheduler survives). The L3 header is where the frame's meta says
 * (frame_meta.h: L3 kind and offset, from the RX parse); a frame whose
 * header is not there (version field, IHL, or fewer bytes than the header
 * in the frame) is left as it is (REMARK_INVALID). A frame with no IP
 * header (ARP, ...) is left as it is (REMARK_DSCP_NOT_IP). No TCP/UDP
 * checksum covers these bits: L4 checksums stay valid.
 *
 * PCP: the three top bits of the outermost tag's TCI (TPID 0x8100 or
 * 0x88a8: the S-tag of a QinQ frame), the DEI and the VID kept. An
 * untagged frame is not given a tag (REMARK_PCP_UNTAGGED); a tag cut by
 * the frame end is REMARK_INVALID. The PCP depends on the frame's tag
 * alone: a tagged frame gets it whatever its L3 (not IP, no L3 offset in
 * its meta, or an IP header not where the meta says).
 *
 * Pure: any thread, no state, no system calls. Reads and writes only
 * frame[0..len): len is the bytes of the first frame (a chain's headers
 * are all in its first frame, frame_chain.h).
 */
#ifndef XDPLANE_REMARK_H
#define XDPLANE_REMARK_H

#include <stdint.h>

#define REMARK_NONE 0xffu /* remark_cfg.dscp / pcp: leave it */

/* What a class rewrites (REMARK_NONE: that field is left alone). */
struct remark_cfg {
	uint8_t dscp; /* 0..63 */
	uint8_t pcp; /* 0..7 */
};

/* remark_frame() outcome, a bit set. */
enum remark_result {
	REMARK_DSCP = 1u << 0, /* the frame leaves with the class's DSCP */
	REMARK_PCP = 1u << 1, /* ...with the class's PCP in its outer tag */
	REMARK_PCP_UNTAGGED = 1u << 2, /* PCP set, the frame has no tag */
	REMARK_DSCP_NOT_IP = 1u << 3, /* DSCP set, the frame is not IP */
	REMARK_INVALID = 1u << 4, /* a header not where the meta says, or
				   * cut short: that field left alone */
};

/* Rewrite frame[0..len) as cfg says; l3, l3off from the frame's meta
 * (frame_meta_l3, frame_meta_l3off). Returns enum remark_result bits. A
 * field that already has the value is not written (and counts as set). */
unsigned int remark_frame(uint8_t *frame, uint32_t len, unsigned int l3,
			  unsigned int l3off, const struct remark_cfg *cfg);

#endif
