/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * phase_clock.h - the phase clock of one job on one egress port, learned
 * passively from the bytes the job sends through the port: its iteration
 * period T, the length C of its communication phase, the bytes B it sends
 * per iteration and the next predicted onset of its communication phase
 * with the spread of the onsets around their predictions. A pure module:
 * no I/O, no clock of its own; every call takes now_ns from its caller (the
 * gateway's mono_ns(), a fake clock in the unit tests).
 *
 * Model. A data-parallel training job alternates compute (its collective
 * flows quiet) and communication (a burst); the burst starts once per
 * iteration. Time is cut into bins of bin_ns; the owner adds each packet's
 * bytes to the bin of its time. The control thread reads closed bins in
 * order:
 *  - a bin is active if it holds at least max(active_bps x bin, active_frac x
 *    L) bytes, where L is the burst level (a moving average of the bytes of
 *    active bins, gain 1/16); otherwise idle;
 *  - an onset is an active bin after at least max(idle_bins, gap_frac x
 *    G) idle ones, G the longest idle run of the previous iteration (its
 *    compute gap; 0 after an iteration longer than max_period_ns), and at
 *    least min_period_ns after the previous onset: a burst after a
 *    shorter pause is part of the same comm phase (the buckets of a
 *    bucketed all-reduce, compute between them). A compute gap that
 *    shrinks below gap_frac of the last at once costs an iteration: the
 *    merged one's longest pause is the new G;
 *  - an iteration is the time between two onsets; its comm phase runs from
 *    its onset to its last active bin; its bytes are all its bins';
 *  - a run: an interval I between onsets is a hit if it lies within
 *    tolerance x P of the candidate period P (the median of the run's last
 *    k intervals); a miss starts a new run with P = I. An interval outside
 *    [min_period_ns, max_period_ns] ends the run. So a hit is an onset
 *    within tolerance x P of its prediction (previous onset + P);
 *  - shape (what a training job looks like and periodic storage does not):
 *    every iteration of the run has quiet gaps (the rule above: storage
 *    streams whose low level stays above active_frac of their high level
 *    have no idle bins, so no onsets), a duty C / T <= max_duty (writers
 *    pausing briefly have more) and bytes per iteration steady (max / min
 *    over the whole run <= 1 + bytes_tol: flushes of whatever is dirty
 *    vary; a periodic flusher's run never ends, so one odd size refuses
 *    it for good, and only its first k + 1 flushes can pass by chance);
 *    the period lies in [min_period_ns, max_period_ns] (checkpoints every
 *    minutes lie above). Storage bursts of a training job's shape (equal
 *    sizes, quiet gaps, a period in range) cannot be told from a job by
 *    timing: the job key (a registration, the collective classes' host
 *    groups) keeps them out;
 *  - lock (SEARCHING or LOST -> LOCKED): k hits in a row, every iteration
 *    of them job-shaped, and the normalized autocorrelation of the binned
 *    bytes at lag P over the last four periods at least acf_min (the
 *    bytes themselves repeat with the period, not only the onsets).
 *    Lock takes k + 2 onsets: k + 1 iterations (5 by default).
 *    Once locked (LOCKED or LOST), k - 1 hits do if every iteration of
 *    the run carries the bytes per iteration it was locked to (within
 *    bytes_tol): the same job at a new pace relocks within k iterations;
 *  - locked: the prediction t = last hit + T (T below); the window
 *    t +- tolerance x T is a hit if an onset falls in it (its
 *    residual kept, t = onset + T), a miss if it passes without one (t +=
 *    T: one late or early onset costs one miss, not the lock; a job that
 *    stops misses every window); an onset outside the window counts for
 *    nothing; miss_max misses in a row -> LOST; so does a run of hits
 *    enough to lock (above) at a period off T by more than the
 *    tolerance (it locks to it at once);
 *  - LOST -> SEARCHING after forget_periods x T without a hit (the period
 *    is forgotten); LOST -> LOCKED as from SEARCHING.
 * Estimates (valid while LOCKED, kept while LOST): T the mean interval
 * over the run's last 9 onsets (all hits: the median's robustness, the
 * mean's resolution finer than a bin, a lag of 4 iterations behind a
 * drift), C and B the medians of its last k iterations, the next onset
 * t, the spread the median absolute residual of the last k hits (MAD
 * around 0: residuals are relative to the prediction). A reader away
 * longer than the ring starts over (a lock is lost, the run forgotten).
 *
 * Invariants: the owner's bin index never decreases (a packet stamped
 * before the open bin counts in the open bin); a bin is published (closed)
 * once; the reader consumes bins in order, each once; every estimate
 * comes from bins the reader consumed; states change only in
 * phase_clock_update().
 *
 * Ownership (one writer, one reader, no lock):
 *  - the owner of the port's egress scheduler calls phase_clock_add() for
 *    every packet (or burst) of the job: a compare and an add on the open
 *    bin in a ring of 32-bit counters (relaxed loads and stores, no
 *    read-modify-write); on a new bin it zeroes the bins it skips and
 *    publishes the index of the open bin. It writes w.* only.
 *  - the control thread calls phase_clock_update() (every 100 ms to 1 s;
 *    the ring covers bins x bin_ns, at least 4 x max_period_ns, so up to
 *    that between calls loses nothing) and reads the estimate. It writes
 *    everything but w.*. It reads the bins below the published index, and
 *    the open bin and those after it only once now_ns is settle_ns past
 *    their end (the owner stamps a pass's packets at the pass's start:
 *    bytes of a worker stalled longer than that are not counted; bins
 *    after the open one are zero). It copies them to its own history and then
 *    checks the owner's claim (a seqlock: the owner announces a bin index
 *    before it reuses slots, the reader rereads it after its copies) and
 *    counts the bins it lost to slots reused under it as zero (lost_bins).
 *  - init / fini: one thread, while neither side runs.
 * The ring and the history are allocated once at init; no call allocates
 * after it. Params are read only and must pass phase_clock_params_check().
 * How the design was reached: docs/decisions/0022-phase-clock.md.
 */
#ifndef XDPLANE_PHASE_CLOCK_H
#define XDPLANE_PHASE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "bits.h"

/*
 * Parameters, defaults as phase_clock_params_default() sets them:
 *  bin_ns          ns per bin: the resolution of onsets and lengths.
 *                  1 ms (10 us .. 10 ms: a bin counts up to 4 GiB, 3.4
 *                  Tbit/s over 10 ms).
 *  bins            bins in the ring and the history, a power of two, 64 ..
 *                  2^20; bins x bin_ns >= 4 x max_period_ns. 8192.
 *  min_period_ns   shortest period, ns; >= (idle_bins + 2) bins. 10 ms.
 *  max_period_ns   longest period, ns. 2 s.
 *  active_bps      bit/s: a bin below this rate is idle whatever the burst
 *                  level. 10 Mbit/s (1250 bytes in a 1 ms bin).
 *  active_frac     0..1: a bin below this fraction of the burst level is
 *                  idle. 0.25.
 *  idle_bins       g: idle bins before an onset, >= 1. 5.
 *  k               hits in a row to lock; also the window of the medians.
 *                  2 .. 16. 4 (3: a run of 4 equal intervals among
 *                  Poisson bursts comes about once in 5000 onsets).
 *  tolerance       0 .. 0.5, of the period: how far an onset may fall from
 *                  its prediction and still be a hit. 0.1.
 *  miss_max        misses in a row that unlock, >= 1. 2.
 *  acf_min         -1 .. 1: autocorrelation at lag T needed to lock. 0.5.
 *  max_duty        0 .. 1: C / T above this is not a job's iteration. 0.8.
 *  bytes_tol       >= 0: max / min bytes per iteration over a run above
 *                  1 + this is not a job. 0.3.
 *  forget_periods  LOST -> SEARCHING after this many periods without a
 *                  hit, >= 1. 8.
 *  gap_frac        0 .. 0.9: an onset needs an idle run of at least this
 *                  fraction of the previous iteration's longest (and
 *                  idle_bins). 0.25.
 *  settle_ns       ns after its end that the reader takes a bin the owner
 *                  has not closed as final (the owner idle, or stalled):
 *                  longer than the owner's longest pass. 2 ms (bin_ns ..
 *                  1 s).
 */
struct phase_clock_params {
	uint64_t bin_ns;
	uint32_t bins;
	uint64_t min_period_ns;
	uint64_t max_period_ns;
	double active_bps;
	double active_frac;
	uint32_t idle_bins;
	uint32_t k;
	double tolerance;
	uint32_t miss_max;
	double acf_min;
	double max_duty;
	double bytes_tol;
	uint32_t forget_periods;
	double gap_frac;
	uint64_t settle_ns;
};

#define PHASE_CLOCK_K_MAX 16
#define PHASE_CLOCK_RUN_MAX 8 /* intervals in the period's mean */

enum phase_clock_state {
	PHASE_CLOCK_SEARCHING = 0,
	PHASE_CLOCK_LOCKED,
	PHASE_CLOCK_LOST,
};

/* What the control thread exports. Times in ns of the caller's clock. */
struct phase_clock_est {
	enum phase_clock_state state;
	uint64_t period_ns; /* T: 0 while SEARCHING */
	uint64_t comm_ns; /* C */
	uint64_t bytes_per_iter; /* B */
	uint64_t next_onset_ns; /* t: 0 unless LOCKED */
	uint64_t spread_ns; /* median |residual| of the last k hits */
	int64_t last_error_ns; /* the last onset's residual while LOCKED (or
				  how late it was when its window passed) */
	double acf; /* autocorrelation at lag T when last checked */
	/* counts since init */
	uint64_t bytes; /* bytes in the bins consumed */
	uint64_t onsets; /* onsets detected */
	uint64_t locks; /* transitions to LOCKED */
	uint64_t unlocks; /* LOCKED -> LOST */
	uint64_t refused; /* runs of k hits refused (shape, acf) */
	uint64_t lost_bins; /* bins the reader could not read in time */
};

/* The owner's side: one cache line, written by the owner only. */
struct phase_clock_writer {
	uint32_t *ring;
	uint32_t mask;
	uint64_t bin_ns;
	uint64_t open; /* index (now_ns / bin_ns) of the open bin */
	uint64_t open_end_ns; /* (open + 1) x bin_ns */
	uint64_t pub; /* bins < pub are closed: release store, acquire load */
	uint64_t claim; /* slots of bins <= claim - bins may be reused */
} __cacheline_aligned;

struct phase_clock_iter {
	uint64_t onset_bin;
	uint64_t bytes;
	uint32_t comm_bins;
	uint32_t bins;
};

struct phase_clock {
	struct phase_clock_writer w;
	/* everything below: the control thread's */
	struct phase_clock_params p __cacheline_aligned;
	uint32_t *hist; /* bins copied from the ring, by index & w.mask */
	uint64_t first_bin; /* the bin of init */
	uint64_t next_bin; /* first bin not consumed */
	uint64_t active_min; /* active_bps over one bin, bytes */
	double level; /* burst level L, bytes per active bin */
	uint32_t idle_run; /* idle bins in a row */
	bool seen_onset;
	uint64_t gap_ref; /* G: the last iteration's longest idle run */
	uint64_t iter_max_idle; /* the longest idle run since the onset */
	struct phase_clock_iter cur; /* the iteration since the last onset */
	uint64_t last_active_bin;
	/* the run: its last k intervals (bins) and iterations */
	uint32_t run; /* hits in a row */
	uint64_t cand_bins; /* candidate period P, bins; 0: none */
	uint64_t ivl[PHASE_CLOCK_K_MAX];
	uint64_t ron[PHASE_CLOCK_RUN_MAX + 1]; /* the run's last onsets */
	uint32_t n_ron;
	struct phase_clock_iter it[PHASE_CLOCK_K_MAX + 1];
	uint32_t n_ivl, n_it;
	bool run_duty_ok; /* every iteration of the run: duty <= max_duty */
	uint64_t run_min_bytes, run_max_bytes; /* over the whole run */
	/* locked */
	uint64_t pred_ns; /* the next predicted onset */
	uint32_t misses;
	uint64_t last_hit_ns;
	int64_t resid[PHASE_CLOCK_K_MAX];
	uint32_t n_resid;
	struct phase_clock_est est;
};

void phase_clock_params_default(struct phase_clock_params *p);
/* 0, or -1 with *why naming the first bad field (a static string). */
int phase_clock_params_check(const struct phase_clock_params *p,
			     const char **why);
/* 0 or -EINVAL (params) / -ENOMEM. now_ns starts the first bin. */
int phase_clock_init(struct phase_clock *pc, const struct phase_clock_params *p,
		     uint64_t now_ns);
void phase_clock_fini(struct phase_clock *pc);

/* Owner: the open bin moved on (out of line). */
void phase_clock_advance(struct phase_clock_writer *w, uint64_t now_ns);

/* Owner, per packet or burst: bytes sent at now_ns. */
static inline void phase_clock_add(struct phase_clock_writer *w,
				   uint64_t now_ns, uint32_t bytes)
{
	uint32_t *slot;

	if (unlikely(now_ns >= w->open_end_ns))
		phase_clock_advance(w, now_ns);
	slot = &w->ring[w->open & w->mask];
	__atomic_store_n(slot, *slot + bytes, __ATOMIC_RELAXED);
}

/* Control thread: consume the bins closed by now_ns, update the estimate
 * and return it (valid until the next call). */
const struct phase_clock_est *phase_clock_update(struct phase_clock *pc,
						 uint64_t now_ns);

const char *phase_clock_state_name(enum phase_clock_state s);

#endif
