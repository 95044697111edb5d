// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_pfc.c - libFuzzer target for the 802.1Qbb parser and the pause
 * state machine (pfc.h). The input is split: byte 0 chooses the link
 * speed, bytes 1..2 the watchdog, and the rest is a sequence of records
 * [2-byte time step][1-byte length][frame bytes] fed to pfc_parse() (from
 * a heap copy of exactly that length, so ASan catches any read past it)
 * and, when they parse, to pfc_rx_frame(); each step also ticks.
 * Invariants checked: a parsed frame rebuilt with pfc_build() parses to
 * the same frame; after an XOFF that was not ignored the priority's
 * deadline is not earlier than now; a priority is never both paused and
 * ignored; paused time never exceeds the time elapsed; the XOFF/XON
 * hysteresis never sends XON without an XOFF before it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "pfc.h"

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c))                                                      \
			abort();                                               \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t speeds[4] = {1000000000ull, 10000000000ull,
					   25000000000ull, 100000000000ull};
	struct pfc_rx_cfg cfg;
	struct pfc_rx s;
	struct pfc_tx tx = {0};
	struct pfc_tx_cfg tc = {.xoff = 10000, .xon = 5000, .quanta = 0xffff};
	uint64_t now = 1, start = 1;
	size_t i = 3;
	bool xoff_seen = false;

	if (size < 3)
		return 0;
	cfg.link_bps = speeds[data[0] & 3];
	cfg.watchdog_ns = (uint64_t)(data[1] | data[2] << 8) * 1000;
	cfg.restore_ns = cfg.watchdog_ns / 2;
	tc.refresh_ns = pfc_refresh_ns(tc.quanta, cfg.link_bps);
	pfc_rx_init(&s, &cfg);
	while (i + 3 <= size) {
		uint64_t step = (uint64_t)(data[i] | data[i + 1] << 8) * 97;
		size_t len = data[i + 2];
		struct pfc_frame f, g;
		uint8_t *buf, re[PFC_FRAME_LEN], storms = 0;
		enum pfc_tx_action a;

		i += 3;
		if (len > size - i)
			len = size - i;
		now += step;
		buf = malloc(len ? len : 1);
		if (!buf)
			return 0;
		memcpy(buf, data + i, len);
		i += len;
		if (pfc_parse(buf, len, &f) == PFC_OK) {
			CHECK(pfc_build(re, sizeof(re), buf + 6, f.vector,
					f.quanta) == PFC_FRAME_LEN);
			CHECK(pfc_parse(re, sizeof(re), &g) == PFC_OK);
			CHECK(f.vector == g.vector &&
			      !memcmp(f.quanta, g.quanta, sizeof(f.quanta)));
			pfc_rx_frame(&s, &f, now, &storms);
			for (unsigned int p = 0; p < PFC_PRIOS; p++) {
				bool ign = s.ignore_until[p] &&
					   now < s.ignore_until[p];

				if ((f.vector >> p & 1) && f.quanta[p] && !ign)
					CHECK(pfc_rx_until(&s, p) >= now);
			}
		}
		free(buf);
		pfc_rx_tick(&s, now, &storms);
		for (unsigned int p = 0; p < PFC_PRIOS; p++) {
			if (s.ignore_until[p] && now < s.ignore_until[p])
				CHECK(!(s.paused >> p & 1));
			CHECK(ctr_read(&s.ctr.paused_ns[p]) <= now - start);
		}
		CHECK(!s.paused || pfc_rx_next_ns(&s) != UINT64_MAX);
		/* the sender side, with the length as queue depth (x 100) */
		a = pfc_tx_decide(&tx, &tc, (uint64_t)len * 100, now);
		if (a == PFC_TX_XON)
			CHECK(xoff_seen && tx.xoff);
		if (a == PFC_TX_XOFF)
			xoff_seen = true;
		pfc_tx_commit(&tx, &tc, a, now);
	}
	return 0;
}
