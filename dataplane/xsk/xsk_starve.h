/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xsk_starve.h - is a bound AF_XDP socket starved by its driver? A pure
 * decision per (port, queue), made by the control thread from samples it
 * takes at its stats tick (gw_starve.c): never on a worker.
 *
 * A zero-copy driver receives into frames it takes from the socket's fill
 * ring, and only when it runs (NAPI). A driver that has run out of frames
 * asks to be woken (XDP_RING_NEED_WAKEUP on the fill ring) and receives
 * nothing until it is: a lost wake-up, a queue reset that dropped the
 * pool's state or a driver quirk leaves the socket bound and silent while
 * frames wait for it in the fill ring.
 *
 * The signature, held for a whole window (XSK_STARVE_WINDOW_NS):
 *   - the socket delivered nothing (the RX task's packets did not move);
 *   - the kernel took nothing from the fill ring (its consumer index did
 *     not move) although frames are posted there (producer != consumer);
 *   - and there is evidence that the driver should have taken some: it
 *     asks to be woken (a driver holding buffers clears the flag), or the
 *     socket counted frames it could not place (XDP_STATISTICS rx_dropped,
 *     rx_ring_full, rx_fill_ring_empty_descs), or the port's device
 *     counted frames it dropped (rx_missed_errors, rx_fifo_errors,
 *     rx_over_errors, rx_dropped) while no queue of the port delivered
 *     anything (the device counters are per port: they cannot say which
 *     queue).
 * Not starvation:
 *   - a quiet link: no evidence (a driver that holds its buffers and
 *     receives nothing; its consumer index is published lazily, so an
 *     unmoved index alone says nothing);
 *   - the gateway's own UMEM exhaustion: nothing posted on the fill ring
 *     (producer == consumer), the frames being held elsewhere in the
 *     gateway (tests/integration/t-fault-umem.sh);
 *   - the gateway's own backlog: descriptors wait on the RX ring (the RX
 *     task does not take them: a stalled worker, health worker_stalled),
 *     so the kernel drops for a full RX ring, not for want of a wake-up;
 *   - frames flowing, or the consumer index moving.
 *
 * A starved socket stays starved until the signature breaks: the socket
 * delivers, the kernel takes from the fill ring, or -- when the driver
 * had asked to be woken -- it no longer asks and nothing was lost since
 * the last sample (it took buffers; the consumer index shows it only at
 * its next RX flush). Otherwise no evidence for a while (the sender
 * stopped) does not end it. While it lasts the caller
 * kicks the driver at each sample (XSK_STARVE_KICK: xsk_queue_kick()),
 * and after XSK_STARVE_GIVEUP_NS of kicks without effect it is told so
 * once (XSK_STARVE_GAVE_UP).
 *
 * Threads: one owner per struct (the control thread). Syscalls: none;
 * the clock is the sample's, so the unit test runs it on a fake clock.
 */
#ifndef XDPLANE_XSK_STARVE_H
#define XDPLANE_XSK_STARVE_H

#include <stdbool.h>
#include <stdint.h>

/* How long the starvation signature must hold before it is reported:
 * 2 s, two samples at the default stats interval (control.
 * stats_interval_ms, 1000), long enough that a driver's own retry (e.g.
 * virtio-net's refill work, every 0.5 s) is not reported. */
#define XSK_STARVE_WINDOW_NS (2 * 1000000000ull)
/* Kicks without effect for this long: say that they did not help. */
#define XSK_STARVE_GIVEUP_NS (10 * 1000000000ull)

/* What the control thread reads of one socket at one time. Counters are
 * cumulative; the detector works on their differences. */
struct xsk_starve_sample {
	uint64_t now_ns;
	uint64_t rx_packets; /* the socket delivered (RX task's packets) */
	uint64_t port_rx_packets; /* the same, summed over the port's queues */
	uint32_t fill_prod, fill_cons; /* the fill ring's indices */
	bool need_wakeup; /* the fill ring's XDP_RING_NEED_WAKEUP */
	uint32_t rx_pending; /* descriptors on the RX ring, not yet taken */
	uint64_t xsk_lost; /* XDP_STATISTICS rx_dropped + rx_ring_full +
			    * rx_fill_ring_empty_descs */
	uint64_t dev_drops; /* the port device's rx_missed_errors +
			     * rx_fifo_errors + rx_over_errors + rx_dropped */
};

enum xsk_starve_state {
	XSK_STARVE_FLOWING, /* delivered, or the kernel took from the fill */
	XSK_STARVE_QUIET, /* nothing, and no evidence of arrivals */
	XSK_STARVE_EXHAUSTED, /* nothing posted on the fill ring: the
			       * gateway's own frames are elsewhere */
	XSK_STARVE_BACKLOG, /* the RX ring holds frames the RX task has not
			     * taken: the gateway's side */
	XSK_STARVE_SUSPECT, /* the signature, not yet for a window */
	XSK_STARVE_STARVED, /* the signature for a window or more */
};

/* What the caller does after a sample. */
enum xsk_starve_action {
	XSK_STARVE_NONE,
	XSK_STARVE_BEGAN, /* starved now: report, count, kick */
	XSK_STARVE_KICK, /* still starved: kick again */
	XSK_STARVE_GAVE_UP, /* still starved after GIVEUP_NS of kicks: say
			     * so (once), and kick again */
	XSK_STARVE_ENDED, /* recovered: frames flow or the kernel took */
};

/* The evidence of the current episode (since the signature began). */
struct xsk_starve_evidence {
	uint64_t since_ns; /* when the signature began */
	uint32_t posted; /* frames on the fill ring, at the last sample */
	uint32_t fill_cons; /* the kernel's consumer index, unmoved */
	bool need_wakeup; /* the driver asked to be woken, at the last
			   * sample */
	bool asked; /* ...at any sample of the episode */
	uint64_t xsk_lost; /* the socket's lost frames during it */
	uint64_t dev_drops; /* the device's drops counted as evidence */
};

struct xsk_starve {
	uint64_t window_ns, giveup_ns;
	bool primed; /* has a previous sample */
	struct xsk_starve_sample last;
	enum xsk_starve_state state;
	uint64_t starved_at; /* when STARVED began */
	bool gave_up; /* GAVE_UP said for this episode */
	const char *why; /* what ended the last state: a phrase */
	struct xsk_starve_evidence ev;
	/* counters: the control thread is their only writer */
	uint64_t episodes; /* times STARVED began */
	uint64_t kicks; /* wake-ups the caller issued for it */
	uint64_t recovered; /* episodes that ended */
};

/* window_ns, giveup_ns: 0 for the defaults above. */
void xsk_starve_init(struct xsk_starve *s, uint64_t window_ns,
		     uint64_t giveup_ns);
/* Take a sample, decide. The first sample only records. */
enum xsk_starve_action xsk_starve_update(struct xsk_starve *s,
					 const struct xsk_starve_sample *x);
static inline bool xsk_starve_is_starved(const struct xsk_starve *s)
{
	return s->state == XSK_STARVE_STARVED;
}
/* "flowing", "quiet", "exhausted", "backlog", "suspect", "starved". */
const char *xsk_starve_state_name(enum xsk_starve_state st);

#endif
