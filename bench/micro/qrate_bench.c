// SPDX-License-Identifier: BSD-2-Clause
/*
 * qrate_bench.c - what holding a port's rate across its queues costs the
 * egress pass: the queue rebalancer (run/qrate.h: private buckets, parts
 * re-split every 1 ms) against a port-wide shared token bucket (one
 * atomic word all queues charge), and against nothing (each queue its
 * fixed part).
 *
 * What is measured: ns per frame of an egress pass without I/O, in T
 * threads (1 or 2, pinned to CPUs -c), each one queue of the same port
 * with its own scheduler (one FIFO class, the port shaped at 10 Tbit/s
 * so that no bucket ever holds a frame back: the cost, not the shaping,
 * is measured). A pass: read CLOCK_MONOTONIC, enqueue a batch of B
 * frames (-b, 1500 B), dequeue them, then per variant:
 *  - fixed: nothing (each queue its even part, no port-wide rate);
 *  - qrate: qrate_poll() before the dequeue and qrate_publish() after,
 *    on the port's shared struct qrate_port (demand
 *    published every 250 us, a split every 1 ms by whichever thread finds
 *    it due, parts applied by each: the real thing);
 *  - shared/pass: a port-wide bucket in one shared atomic word: the
 *    pass refills it (fetch_add of rate x elapsed, capped) and charges
 *    the batch (one fetch_sub), i.e. 2 atomic RMWs on a shared line per
 *    pass;
 *  - shared/frame: the same charged per frame (fetch_sub per frame), as
 *    a shared bucket must if each frame's conformance is decided on its
 *    own.
 * Frames per thread: -n; repetitions -r (variants interleaved, median
 * and min-max reported, and each variant's difference to fixed, of the
 * medians and of the minimums: on a loaded machine the minimums are the
 * runs the neighbours disturbed least). With T = 2 both threads run the same variant at
 * once: the shared line bounces between their cores.
 *
 * What is not measured: I/O, classification, the worker's sleep and
 * wake-ups, frames held back by the shaper, more than two cores (the
 * bouncing grows with the queues sharing the line), NUMA. On a VM the
 * neighbours move the numbers: compare within one run only.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "qrate.h"

#define MAX_T 2
#define LEN 1500

enum variant { V_FIXED, V_QRATE, V_SHARED_PASS, V_SHARED_FRAME, V_N };

static const char *const vname[V_N] = {"fixed", "qrate", "shared/pass",
				       "shared/frame"};

struct shared_bucket {
	int64_t tokens __attribute__((aligned(CACHELINE)));
	uint64_t last_ns;
};

struct job {
	enum variant v;
	uint32_t t; /* this thread's queue */
	uint32_t n_threads;
	uint64_t frames;
	uint32_t batch;
	int cpu;
	struct sched *s;
	struct qrate_queue *qq;
	struct shared_bucket *sb;
	pthread_barrier_t *bar;
	uint64_t ns;
	uint64_t sent;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The shared bucket's refill: rate x elapsed since the last refill, by
 * whichever thread moves last_ns (CAS), capped at the burst. */
static void sb_refill(struct shared_bucket *sb, uint64_t now)
{
	uint64_t last = __atomic_load_n(&sb->last_ns, __ATOMIC_RELAXED);
	int64_t add, t;

	if (now <= last ||
	    !__atomic_compare_exchange_n(&sb->last_ns, &last, now, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	add = (int64_t)((now - last) * 1250); /* 10 Tbit/s: 1250 B/ns */
	t = __atomic_add_fetch(&sb->tokens, add, __ATOMIC_RELAXED);
	if (t > (1 << 24))
		__atomic_store_n(&sb->tokens, 1 << 24, __ATOMIC_RELAXED);
}

static void *run(void *arg)
{
	struct job *j = arg;
	struct frame_desc out[256];
	uint64_t addr = 0, t0, sent = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(j->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(j->bar);
	t0 = now_ns();
	while (sent < j->frames) {
		uint64_t now = now_ns();
		uint32_t n;

		for (uint32_t i = 0; i < j->batch; i++) {
			struct frame_desc d = {
				.addr = addr++,
				.len = LEN,
				.meta = frame_meta_pack(0, ECN_NOT_ECT,
							ECN_L3_NONE, 0),
			};

			sched_enqueue(j->s, &d, NULL, now);
		}
		if (j->v == V_QRATE)
			qrate_poll(j->qq, j->s, true, now);
		n = sched_dequeue(j->s, out, j->batch, now);
		switch (j->v) {
		case V_FIXED:
			break;
		case V_QRATE:
			qrate_publish(j->qq, j->s, now);
			break;
		case V_SHARED_PASS:
			sb_refill(j->sb, now);
			if (__atomic_load_n(&j->sb->tokens, __ATOMIC_RELAXED) >=
			    0)
				__atomic_fetch_sub(&j->sb->tokens,
						   (int64_t)n * LEN,
						   __ATOMIC_RELAXED);
			break;
		case V_SHARED_FRAME:
			sb_refill(j->sb, now);
			for (uint32_t i = 0; i < n; i++)
				if (__atomic_load_n(&j->sb->tokens,
						    __ATOMIC_RELAXED) >= 0)
					__atomic_fetch_sub(&j->sb->tokens,
							   (int64_t)out[i].len,
							   __ATOMIC_RELAXED);
			break;
		default:
			break;
		}
		sent += n;
	}
	j->ns = now_ns() - t0;
	j->sent = sent;
	return NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void usage(const char *p)
{
	fprintf(stderr,
		"usage: %s [-n FRAMES] [-r REPS] [-b BATCH] [-c CPU0,CPU1]\n"
		"  ns per frame of an egress pass: fixed parts, the queue\n"
		"  rebalancer, a port-wide shared bucket (per pass, per "
		"frame); 1 and 2 threads\n",
		p);
}

int main(int argc, char **argv)
{
	uint64_t frames = 4000000;
	uint32_t reps = 5, batch = 32;
	int cpu[MAX_T] = {0, 1}, o;
	static struct qos_policy pol;
	static double res[MAX_T + 1][V_N][64];
	static struct frame_desc drain[256];

	while ((o = getopt(argc, argv, "n:r:b:c:h")) != -1) {
		switch (o) {
		case 'n':
			frames = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			reps = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			batch = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			if (sscanf(optarg, "%d,%d", &cpu[0], &cpu[1]) != 2) {
				usage(argv[0]);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return o == 'h' ? 0 : 2;
		}
	}
	if (!reps || reps > 64 || !batch || batch > 256 || !frames) {
		usage(argv[0]);
		return 2;
	}
	pol.port[0].rate_bps = 10000000000000ull;
	pol.port[0].burst = 1u << 24;
	pol.port[1] = pol.port[0];
	pol.n_classes = 1;
	snprintf(pol.classes[0].name, sizeof(pol.classes[0].name), "bulk");
	pol.classes[0].quantum = LEN;
	pol.classes[0].limit_packets = 4096;
	pol.classes[0].limit_bytes = 64u << 20;

	for (uint32_t r = 0; r < reps; r++) {
		for (uint32_t nt = 1; nt <= MAX_T; nt++) {
			for (int v = 0; v < V_N; v++) {
				struct qrate_port *qp =
					aligned_alloc(CACHELINE, sizeof(*qp));
				struct shared_bucket *sb =
					aligned_alloc(CACHELINE, sizeof(*sb));
				struct sched s[MAX_T];
				struct qrate_queue qq[MAX_T];
				struct job j[MAX_T];
				pthread_t th[MAX_T];
				pthread_barrier_t bar;
				double ns = 0;

				if (!qp || !sb)
					return 1;
				memset(sb, 0, sizeof(*sb));
				sb->tokens = 1 << 24;
				sb->last_ns = now_ns();
				qrate_init(qp, nt);
				pthread_barrier_init(&bar, NULL, nt);
				for (uint32_t t = 0; t < nt; t++) {
					if (sched_init_reloadable(&s[t], &pol,
								  0, 4096, 0) ||
					    sched_set_queue_share(&s[t], nt,
								  &pol, 0, 0))
						return 1;
					qrate_attach(&qq[t], qp, t);
					j[t] = (struct job){
						.v = (enum variant)v,
						.t = t,
						.n_threads = nt,
						.frames = frames,
						.batch = batch,
						.cpu = cpu[t],
						.s = &s[t],
						.qq = &qq[t],
						.sb = sb,
						.bar = &bar,
					};
					pthread_create(&th[t], NULL, run,
						       &j[t]);
				}
				for (uint32_t t = 0; t < nt; t++) {
					pthread_join(th[t], NULL);
					ns += (double)j[t].ns /
					      (double)j[t].sent;
				}
				res[nt][v][r] = ns / nt;
				if (v == V_QRATE && nt == MAX_T &&
				    !ctr_read(&qp->splits)) {
					fprintf(stderr,
						"qrate: no split ran\n");
					return 1;
				}
				for (uint32_t t = 0; t < nt; t++) {
					while (sched_dequeue(&s[t], drain, 256,
							     UINT64_MAX / 2))
						;
					sched_fini(&s[t]);
				}
				pthread_barrier_destroy(&bar);
				free(qp);
				free(sb);
			}
		}
	}
	printf("| threads | variant | ns/frame median | min | max | vs fixed "
	       "(median) | vs fixed (min) |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- |\n");
	for (uint32_t nt = 1; nt <= MAX_T; nt++) {
		double base, base_min;

		qsort(res[nt][V_FIXED], reps, sizeof(double), cmp_dbl);
		base = res[nt][V_FIXED][reps / 2];
		base_min = res[nt][V_FIXED][0];
		for (int v = 0; v < V_N; v++) {
			double *x = res[nt][v];

			if (v)
				qsort(x, reps, sizeof(double), cmp_dbl);
			printf("| %u | %s | %.2f | %.2f | %.2f | %+.2f ns | "
			       "%+.2f ns |\n",
			       nt, vname[v], x[reps / 2], x[0], x[reps - 1],
			       x[reps / 2] - base, x[0] - base_min);
		}
	}
	return 0;
}
