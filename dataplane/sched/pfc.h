/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pfc.h - IEEE 802.1Qbb priority-based flow control: the pause
 * state of one port's eight priorities (receiving side, with a watchdog),
 * the XOFF/XON hysteresis of one lossless queue (sending side), and the
 * headroom a lossless queue needs. A pure module: no I/O, no clock of its
 * own (every call takes now_ns), no allocation; unit tests drive it with a
 * fake clock.
 *
 * Ownership: a struct pfc_rx belongs to the egress task of the port it
 * pauses (the only writer; other threads may read its counters with
 * ctr_read()); a struct pfc_tx to the egress task whose queue it watches.
 *
 * The frame, its parser and builder are in pkt/pfc_frame.h.
 *
 * Receiving side (struct pfc_rx): a frame enabling priority p with time q
 * pauses p until now + q quanta (q = 0: p resumes now); a frame that comes
 * while p is paused replaces the deadline (refresh, or an early XON).
 * paused_ns[p] counts the time p spent paused, added when each pause ends
 * (expiry, XON or watchdog). A pause is continuous from the first XOFF
 * until it ends; refreshes do not restart it.
 *
 * Watchdog (as switches' PFC watchdogs: SONiC pfcwd, Arista, Cisco): a
 * priority continuously paused for watchdog_ns or longer is declared a
 * pause storm: it is unpaused at once, the caller drops the frames queued
 * for it (pfc_rx_tick() reports it in *storms), and PFC frames for it are
 * ignored (counted) for restore_ns; after that they are honoured again.
 * watchdog_ns 0 turns the watchdog off. The storm is noticed at the first
 * pfc_rx_frame() or pfc_rx_tick() at or after the deadline (the egress
 * task calls tick every pass while a priority is paused and wakes for
 * pfc_rx_next_ns()).
 *
 * Sending side (struct pfc_tx, one lossless queue): queue bytes >= xoff
 * with no XOFF outstanding: send XOFF with the configured quanta; while
 * an XOFF is outstanding and the bytes stay above xon, send it again every
 * refresh_ns (half the pause it asks for, so the peer never resumes in
 * between); bytes <= xon: send XON (quanta 0). pfc_tx_decide() says what
 * to send, pfc_tx_commit() records that it went out (a frame that could
 * not be sent is decided again at the next pass).
 *
 * Headroom (bytes a lossless queue must still absorb after it crossed
 * xoff), pfc_headroom_bytes(), in bits at link speed R over a cable of L m:
 *   2 * (MTU + 46) * 8   one maximal frame in flight on each side: ours,
 *                        which delays the PFC frame, and the peer's, which
 *                        it finishes (46 = Ethernet header 14 + two VLAN
 *                        tags 8, a QinQ frame (FRAME_L2_MAX, frame_chain.h)
 *                        + FCS 4 + preamble/SFD 8 + inter-frame gap 12)
 * + (64 + 20) * 8        the PFC frame itself, with preamble and gap
 * + 3840                 the peer's response time allowed by 802.1Qbb
 *                        (Annex N: 3840 bit times at 10G-100G)
 * + 2048                 PHY/PCS delays of both ends (802.3 clause 44/80
 *                        delay constraints, rounded up)
 * + 2 * L * 5 ns * R     round-trip propagation (5 ns/m in fibre/copper)
 * rounded up to bytes. Examples (MTU 9000, 100 m): 10 Gbit/s 20,162 B;
 * 25 Gbit/s 22,037 B; 100 Gbit/s 31,412 B. xoff = limit - headroom.
 */
#ifndef XDPLANE_PFC_H
#define XDPLANE_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "counters.h"
#include "pfc_frame.h"

#define PFC_RESPONSE_BITS 3840
#define PFC_PHY_DELAY_BITS 2048
#define PFC_FRAME_OVERHEAD 46 /* bytes on the wire around an MTU (QinQ) */
#define PFC_NS_PER_M 5 /* propagation, one way */

/* Bytes of headroom (formula above). */
uint32_t pfc_headroom_bytes(uint64_t link_bps, uint32_t cable_m, uint32_t mtu);

/* ---- receiving side: the pause state of one port ---- */

struct pfc_rx_cfg {
	uint64_t link_bps; /* for the quanta */
	uint64_t watchdog_ns; /* 0: no watchdog */
	uint64_t restore_ns; /* PFC ignored this long after a storm */
};

struct pfc_rx_counters {
	ctr_t rx_frames; /* valid PFC frames taken */
	ctr_t rx_prio[PFC_PRIOS]; /* frames with priority n enabled */
	ctr_t rx_xon[PFC_PRIOS]; /* ...of which with time 0 */
	ctr_t ignored[PFC_PRIOS]; /* enabled while ignored after a storm */
	ctr_t paused_ns[PFC_PRIOS]; /* time paused, added at each pause end */
	ctr_t storms[PFC_PRIOS]; /* watchdog: pause storms declared */
};

struct pfc_rx {
	struct pfc_rx_cfg cfg;
	uint8_t paused; /* bit n: priority n paused (until[n] > last now) */
	uint64_t until[PFC_PRIOS]; /* pause deadline (valid when paused) */
	uint64_t since[PFC_PRIOS]; /* start of the continuous pause */
	uint64_t ignore_until[PFC_PRIOS]; /* after a storm; 0: none */
	struct pfc_rx_counters ctr;
};

void pfc_rx_init(struct pfc_rx *s, const struct pfc_rx_cfg *cfg);
/* New parameters (reload); the pause state is kept. */
void pfc_rx_set_cfg(struct pfc_rx *s, const struct pfc_rx_cfg *cfg);
/* A received frame at now_ns. Returns the priorities whose deadline
 * changed (paused, refreshed or resumed): the caller re-reads
 * pfc_rx_until() for them. Expiries and storms due at now are handled
 * first (as pfc_rx_tick(), *storms gets them; storms may be NULL). */
uint8_t pfc_rx_frame(struct pfc_rx *s, const struct pfc_frame *f,
		     uint64_t now_ns, uint8_t *storms);
/* Expiries and the watchdog at now_ns: returns the priorities that
 * stopped being paused, with those unpaused by the watchdog also in
 * *storms (may be NULL). */
uint8_t pfc_rx_tick(struct pfc_rx *s, uint64_t now_ns, uint8_t *storms);
/* Priority p's pause deadline: 0 when not paused. */
static inline uint64_t pfc_rx_until(const struct pfc_rx *s, unsigned int p)
{
	return p < PFC_PRIOS && (s->paused >> p & 1) ? s->until[p] : 0;
}
static inline bool pfc_rx_paused(const struct pfc_rx *s, unsigned int p,
				 uint64_t now_ns)
{
	return pfc_rx_until(s, p) > now_ns;
}
/* When pfc_rx_tick() has something to do next (an expiry or a watchdog
 * deadline); UINT64_MAX when nothing is paused. */
uint64_t pfc_rx_next_ns(const struct pfc_rx *s);

/* ---- sending side: the hysteresis of one lossless queue ---- */

struct pfc_tx_cfg {
	uint32_t xoff; /* bytes: at or above, send XOFF */
	uint32_t xon; /* bytes: at or below, send XON; < xoff */
	uint16_t quanta; /* time in XOFF frames, > 0 */
	uint64_t refresh_ns; /* resend XOFF this often while above xon */
};

enum pfc_tx_action {
	PFC_TX_NONE = 0,
	PFC_TX_XOFF = 1,
	PFC_TX_XON = 2,
};

struct pfc_tx {
	bool xoff; /* an XOFF is outstanding */
	uint64_t refresh_at;
};

/* Refresh period for a pause of `quanta` at link_bps: half of it. */
uint64_t pfc_refresh_ns(uint16_t quanta, uint64_t link_bps);

/* What to send for a queue of qbytes at now_ns. */
static inline enum pfc_tx_action pfc_tx_decide(const struct pfc_tx *s,
					       const struct pfc_tx_cfg *c,
					       uint64_t qbytes, uint64_t now_ns)
{
	if (!s->xoff)
		return qbytes >= c->xoff ? PFC_TX_XOFF : PFC_TX_NONE;
	if (qbytes <= c->xon)
		return PFC_TX_XON;
	return now_ns >= s->refresh_at ? PFC_TX_XOFF : PFC_TX_NONE;
}

/* The decided frame went out at now_ns. */
static inline void pfc_tx_commit(struct pfc_tx *s, const struct pfc_tx_cfg *c,
				 enum pfc_tx_action a, uint64_t now_ns)
{
	if (a == PFC_TX_XOFF) {
		s->xoff = true;
		s->refresh_at = now_ns + c->refresh_ns;
	} else if (a == PFC_TX_XON) {
		s->xoff = false;
	}
}

#endif
