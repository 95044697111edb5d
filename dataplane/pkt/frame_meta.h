/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * frame_meta.h - what the RX task learned about a frame, packed into
 * frame_desc.meta for the egress side (scheduler, flow queues), so that
 * the frame is parsed once.
 */
#ifndef XDPLANE_FRAME_META_H
#define XDPLANE_FRAME_META_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "pkt_parse.h"

/*
 * frame_desc.meta, packed by the RX task from its parse:
 *   bits 0-3   class id (index into qos_policy.classes)
 *   bits 4-5   ECN codepoint of the frame (enum ecn_codepoint)
 *   bits 6-7   L3 kind (enum ecn_l3: 0 none, 1 IPv4, 2 IPv6)
 *   bits 8-15  offset of the L3 header from the frame start, bytes
 *   bits 16-23 offset of the L4 header from the L3 header, bytes (0: no
 *              L4 header, or further than 255 bytes)
 *   bit  24    the L4 header is UDP to port 4791 with a RoCEv2 BTH
 *   bit  25    the packet is a chain of UMEM frames (multi-buffer): addr
 *              is its first frame, len the whole packet (frame_chain.h)
 *   bit  26    a MAC control frame (PFC, pfc.h) built by the gateway:
 *              the egress task puts it on its TX ring at once, bypassing
 *              the scheduler (it must not wait behind paused or shaped
 *              classes); the other bits are 0
 *   bit  27    a frame built by the gateway for this port on another
 *              worker (a CNP, egress.h): only the length is set; the
 *              egress task that takes it parses and classifies it under
 *              the policy generation it runs (class ids are not carried
 *              between workers)
 *   bit  28    the L4 header is TCP (set with the L4 offset): the egress
 *              side's path monitor looks at TCP and RoCE packets only,
 *              and skips the rest without touching the frame
 *   bits 29-31 reserved, 0
 */
#define FRAME_META_CLASS_SHIFT 0
#define FRAME_META_ECN_SHIFT 4
#define FRAME_META_L3_SHIFT 6
#define FRAME_META_L3OFF_SHIFT 8
#define FRAME_META_L4DELTA_SHIFT 16
#define FRAME_META_BTH (1u << 24)
#define FRAME_META_CHAIN (1u << 25)
#define FRAME_META_CTRL (1u << 26)
#define FRAME_META_UNCLASSIFIED (1u << 27)
#define FRAME_META_TCP (1u << 28)

static inline uint32_t frame_meta_pack(unsigned int class_id, unsigned int ecn,
				       unsigned int l3, unsigned int l3off)
{
	return (class_id & 0xfu) << FRAME_META_CLASS_SHIFT |
	       (ecn & 3u) << FRAME_META_ECN_SHIFT |
	       (l3 & 3u) << FRAME_META_L3_SHIFT |
	       (l3off & 0xffu) << FRAME_META_L3OFF_SHIFT;
}

static inline unsigned int frame_meta_class(uint32_t meta)
{
	return (meta >> FRAME_META_CLASS_SHIFT) & 0xfu;
}

static inline unsigned int frame_meta_ecn(uint32_t meta)
{
	return (meta >> FRAME_META_ECN_SHIFT) & 3u;
}

static inline unsigned int frame_meta_l3(uint32_t meta)
{
	return (meta >> FRAME_META_L3_SHIFT) & 3u;
}

static inline unsigned int frame_meta_l3off(uint32_t meta)
{
	return (meta >> FRAME_META_L3OFF_SHIFT) & 0xffu;
}

static inline uint32_t frame_meta_set_ecn(uint32_t meta, unsigned int ecn)
{
	return (meta & ~(3u << FRAME_META_ECN_SHIFT)) |
	       (ecn & 3u) << FRAME_META_ECN_SHIFT;
}

/* The L4 header bits of a frame (its offset, BTH, TCP): l4_off 0 means
 * none. */
static inline uint32_t frame_meta_l4(unsigned int l3off, unsigned int l4off,
				     bool bth, bool tcp)
{
	unsigned int d = l4off > l3off ? l4off - l3off : 0;

	if (d > 0xff || !d)
		return 0;
	return (uint32_t)d << FRAME_META_L4DELTA_SHIFT |
	       (bth ? FRAME_META_BTH : 0) | (tcp ? FRAME_META_TCP : 0);
}

/* The L4 bits of a frame pkt_parse() accepted. */
static inline uint32_t frame_meta_l4_of(const struct pkt_meta *m)
{
	return frame_meta_l4(m->l3_off, m->l4_off, (m->flags & PKT_F_BTH) != 0,
			     (m->flags & PKT_F_PORTS) &&
				     m->proto == IPPROTO_TCP);
}

/* A frame the path monitor may take as a departure: TCP or a RoCEv2 BTH
 * (pathmon_dep_of decides the rest from the headers). */
static inline bool frame_meta_tcp_or_bth(uint32_t meta)
{
	return (meta & (FRAME_META_TCP | FRAME_META_BTH)) != 0;
}

/* Offset of the L4 header from the frame start, 0: none. */
static inline unsigned int frame_meta_l4off(uint32_t meta)
{
	unsigned int d = (meta >> FRAME_META_L4DELTA_SHIFT) & 0xffu;

	return d ? frame_meta_l3off(meta) + d : 0;
}

#endif
