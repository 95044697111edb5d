// SPDX-License-Identifier: BSD-2-Clause
/*
 * pfc.c - see pfc.h. Pure: no I/O, no clock, no allocation.
 */
#include <string.h>
#include "bits.h"
#include "counters.h"
#include "pfc.h"

uint32_t pfc_headroom_bytes(uint64_t link_bps, uint32_t cable_m, uint32_t mtu)
{
	unsigned __int128 bits =
		2ull * ((uint64_t)mtu + PFC_FRAME_OVERHEAD) * 8 +
		(64 + 20) * 8 + PFC_RESPONSE_BITS + PFC_PHY_DELAY_BITS;
	/* round trip: 2 * L * 5 ns at link_bps, rounded up */
	unsigned __int128 prop =
		(unsigned __int128)2 * cable_m * PFC_NS_PER_M * link_bps;
	uint64_t bytes;

	bits += (prop + 999999999u) / 1000000000u;
	bytes = (uint64_t)((bits + 7) / 8);
	return bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
}

uint64_t pfc_refresh_ns(uint16_t quanta, uint64_t link_bps)
{
	return pfc_quanta_ns(quanta, link_bps) / 2;
}

void pfc_rx_init(struct pfc_rx *s, const struct pfc_rx_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
}

void pfc_rx_set_cfg(struct pfc_rx *s, const struct pfc_rx_cfg *cfg)
{
	s->cfg = *cfg;
}

/* Priority p's pause ends at `end` (>= since). */
static void end_pause(struct pfc_rx *s, unsigned int p, uint64_t end)
{
	if (end > s->since[p])
		ctr_add(&s->ctr.paused_ns[p], end - s->since[p]);
	s->paused &= (uint8_t) ~(1u << p);
}

uint8_t pfc_rx_tick(struct pfc_rx *s, uint64_t now_ns, uint8_t *storms)
{
	uint8_t ended = 0, st = 0;

	for (unsigned int m = s->paused; m; m &= m - 1) {
		unsigned int p = (unsigned int)__builtin_ctz(m);

		if (s->cfg.watchdog_ns &&
		    now_ns - s->since[p] >= s->cfg.watchdog_ns &&
		    s->until[p] > s->since[p] + s->cfg.watchdog_ns) {
			/* still paused at the watchdog deadline: a storm */
			end_pause(s, p, s->since[p] + s->cfg.watchdog_ns);
			s->ignore_until[p] = now_ns + s->cfg.restore_ns;
			if (!s->ignore_until[p])
				s->ignore_until[p] = 1;
			ctr_add(&s->ctr.storms[p], 1);
			st |= (uint8_t)(1u << p);
			ended |= (uint8_t)(1u << p);
		} else if (now_ns >= s->until[p]) {
			end_pause(s, p, s->until[p]);
			ended |= (uint8_t)(1u << p);
		}
	}
	if (storms)
		*storms = st;
	return ended;
}

uint8_t pfc_rx_frame(struct pfc_rx *s, const struct pfc_frame *f,
		     uint64_t now_ns, uint8_t *storms)
{
	uint8_t changed = pfc_rx_tick(s, now_ns, storms);

	ctr_add(&s->ctr.rx_frames, 1);
	for (unsigned int m = f->vector; m; m &= m - 1) {
		unsigned int p = (unsigned int)__builtin_ctz(m);
		uint16_t q = f->quanta[p];

		ctr_add(&s->ctr.rx_prio[p], 1);
		if (!q)
			ctr_add(&s->ctr.rx_xon[p], 1);
		if (s->ignore_until[p]) {
			if (now_ns < s->ignore_until[p]) {
				ctr_add(&s->ctr.ignored[p], 1);
				continue;
			}
			s->ignore_until[p] = 0; /* restored */
		}
		if (!q) {
			if (s->paused >> p & 1) {
				end_pause(s, p, now_ns);
				changed |= (uint8_t)(1u << p);
			}
			continue;
		}
		if (!(s->paused >> p & 1)) {
			s->since[p] = now_ns;
			s->paused |= (uint8_t)(1u << p);
		}
		s->until[p] = now_ns + pfc_quanta_ns(q, s->cfg.link_bps);
		changed |= (uint8_t)(1u << p);
	}
	return changed;
}

uint64_t pfc_rx_next_ns(const struct pfc_rx *s)
{
	uint64_t t = UINT64_MAX;

	for (unsigned int m = s->paused; m; m &= m - 1) {
		unsigned int p = (unsigned int)__builtin_ctz(m);
		uint64_t d = s->until[p];

		if (s->cfg.watchdog_ns)
			d = MIN(d, s->since[p] + s->cfg.watchdog_ns);
		t = MIN(t, d);
	}
	return t;
}
