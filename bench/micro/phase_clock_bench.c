// SPDX-License-Identifier: BSD-2-Clause
/*
 * phase_clock_bench.c - what the phase clock's per-packet add
 * (jobs/phase_clock.h, phase_clock_add()) costs the thread that owns a
 * port's scheduler.
 *
 * What is measured: ns per packet of a loop over N packets of 1500 B with
 * synthetic timestamps (spaced as at -g Gbit/s), in one thread (pinned to
 * -c), per variant:
 *  - base: the timestamp and one single-writer counter add (ctr_add of
 *    the bytes, as the egress task counts a class's bytes): what the
 *    loop costs without the clock;
 *  - clock/1: base + phase_clock_add() on one clock (one job on the
 *    port), 1 ms bins;
 *  - clock/16: base + phase_clock_add() on one of 16 clocks, taken in
 *    turn (16 jobs on the port: 16 rings, their open bins in 16 lines).
 * The bins move on every 1 ms of synthetic time (phase_clock_advance(),
 * zeroing one slot and publishing the index), included. Repetitions -r,
 * variants interleaved; the median and the minimum per variant and the
 * difference of each to base. After each run the control thread's update
 * consumes the bins and must find every byte added (exit 1 if not).
 *
 * Then, apart, the control thread's side: ns per phase_clock_update()
 * consuming 100 ms of bins of a locked job (the median of 300).
 *
 * What is not measured: looking the job up (jobs/job_table.h), cache
 * misses from the rest of the pipeline. On a VM the neighbours move the
 * numbers: compare within one run only.
 */
#include <getopt.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "mono_clock.h"
#include "phase_clock.h"

#define LEN 1500u
#define CLOCKS 16
#define REPS_MAX 64

enum variant { V_BASE, V_CLOCK1, V_CLOCK16, V_N };

static const char *const vname[V_N] = {"base", "clock/1", "clock/16"};

static struct phase_clock pcs[CLOCKS];
static ctr_t bytes_ctr;

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The control thread's side: ns per phase_clock_update() that consumes
 * 100 ms of bins of a job (period 100 ms, 40 ms of 10 Gbit/s bursts),
 * locked after the first second; the median over 300 updates.
 */
static double run_update(void)
{
	struct phase_clock_params p;
	struct phase_clock *pc = &pcs[0];
	double ns[300];
	uint64_t t = 1000000000ull, step = 100000000ull, i, u, x;

	phase_clock_params_default(&p);
	if (phase_clock_init(pc, &p, t))
		exit(2);
	for (u = 0; u < 300; u++) {
		/* 100 ms: a burst of 40 ms, packets 1.2 us apart */
		for (x = 0; x < 40000000ull; x += 1200)
			phase_clock_add(&pc->w, t + x, LEN);
		t += step;
		i = mono_ns();
		phase_clock_update(pc, t);
		ns[u] = (double)(mono_ns() - i);
	}
	if (pc->est.state != PHASE_CLOCK_LOCKED) {
		fprintf(stderr, "phase_clock_bench: update: not locked\n");
		exit(1);
	}
	phase_clock_fini(pc);
	qsort(ns, 300, sizeof(double), cmp_d);
	return ns[150];
}

/* The loops, one function each (callgrind: --toggle-collect=loop_*). */
__attribute__((noinline)) static uint64_t loop_base(uint64_t n, uint64_t t,
						    uint64_t gap_ns)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		t += gap_ns;
		ctr_add(&bytes_ctr, LEN);
	}
	return t;
}

__attribute__((noinline)) static uint64_t loop_clock1(uint64_t n, uint64_t t,
						      uint64_t gap_ns)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		t += gap_ns;
		ctr_add(&bytes_ctr, LEN);
		phase_clock_add(&pcs[0].w, t, LEN);
	}
	return t;
}

__attribute__((noinline)) static uint64_t loop_clock16(uint64_t n, uint64_t t,
						       uint64_t gap_ns)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		t += gap_ns;
		ctr_add(&bytes_ctr, LEN);
		phase_clock_add(&pcs[i % CLOCKS].w, t, LEN);
	}
	return t;
}

/* One run: ns per packet. */
static double run(enum variant v, uint64_t n, uint64_t gap_ns, int *bad)
{
	struct phase_clock_params p;
	uint64_t t0, t1, t = 1000000000ull, added = 0, got = 0;
	unsigned c, nc = v == V_CLOCK16 ? CLOCKS : 1;

	phase_clock_params_default(&p);
	for (c = 0; c < nc; c++)
		if (phase_clock_init(&pcs[c], &p, t)) {
			fprintf(stderr, "phase_clock_bench: init failed\n");
			exit(2);
		}
	t0 = mono_ns();
	if (v == V_BASE)
		t = loop_base(n, t, gap_ns);
	else if (v == V_CLOCK1)
		t = loop_clock1(n, t, gap_ns);
	else
		t = loop_clock16(n, t, gap_ns);
	t1 = mono_ns();
	if (v != V_BASE) {
		added = n * LEN;
		for (c = 0; c < nc; c++) {
			/* consume in steps within the ring (8.192 s) */
			uint64_t u;

			for (u = 1000000000ull; u < t + 3000000;
			     u += 1000000000)
				phase_clock_update(&pcs[c], u);
			phase_clock_update(&pcs[c], t + 3000000);
			got += pcs[c].est.bytes;
		}
		if (got != added) {
			fprintf(stderr,
				"phase_clock_bench: %s: %llu bytes added, %llu "
				"consumed\n",
				vname[v], (unsigned long long)added,
				(unsigned long long)got);
			*bad = 1;
		}
	}
	for (c = 0; c < nc; c++)
		phase_clock_fini(&pcs[c]);
	return (double)(t1 - t0) / (double)n;
}

static void usage(void)
{
	printf("usage: phase_clock_bench [-n PACKETS] [-r REPS] [-g GBIT/S] "
	       "[-c CPU]\n"
	       "  ns per packet of phase_clock_add() (jobs/phase_clock.h)\n"
	       "  against the loop without it; defaults -n 4000000 -r 7 "
	       "-g 10 -c 0\n");
}

int main(int argc, char **argv)
{
	double ns[V_N][REPS_MAX], med[V_N], min[V_N], gbps = 10.0;
	uint64_t n = 4000000, gap;
	int reps = 7, cpu = 0, o, r, v, bad = 0;
	cpu_set_t set;

	while ((o = getopt(argc, argv, "n:r:g:c:h")) != -1) {
		switch (o) {
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'g':
			gbps = atof(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	if (!n || reps < 1 || reps > REPS_MAX || !(gbps > 0.0)) {
		usage();
		return 2;
	}
	gap = (uint64_t)(LEN * 8.0 / gbps);
	if (!gap)
		gap = 1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("phase_clock_bench: sched_setaffinity (not pinned)");
	for (v = 0; v < V_N; v++) /* warm-up */
		run(v, n / 4, gap, &bad);
	for (r = 0; r < reps; r++)
		for (v = 0; v < V_N; v++) {
			int w = (v + r) % V_N; /* rotate the order */

			ns[w][r] = run(w, n, gap, &bad);
		}
	for (v = 0; v < V_N; v++) {
		qsort(ns[v], reps, sizeof(double), cmp_d);
		med[v] = ns[v][reps / 2];
		min[v] = ns[v][0];
	}
	printf("%llu packets of %u B at %.0f Gbit/s (%llu ns apart), 1 ms "
	       "bins, %d reps, CPU %d\n\n",
	       (unsigned long long)n, LEN, gbps, (unsigned long long)gap, reps,
	       cpu);
	printf("| variant | ns/pkt median | ns/pkt min | vs base (median) | "
	       "vs base (min) |\n| --- | --- | --- | --- | --- |\n");
	for (v = 0; v < V_N; v++)
		printf("| %s | %.2f | %.2f | %+.2f | %+.2f |\n", vname[v],
		       med[v], min[v], med[v] - med[V_BASE],
		       min[v] - min[V_BASE]);
	printf("\ncontrol thread: %.0f ns per update consuming 100 ms of "
	       "1 ms bins of a locked job (median of 300)\n",
	       run_update());
	return bad;
}
