// SPDX-License-Identifier: BSD-2-Clause
/*
 * ring_bench.c - throughput of a single-producer single-consumer ring
 * between two pinned threads: the dataplane's spsc_ring.h (the ring that
 * carries frame descriptors from RX tasks to egress tasks) against
 * Concurrency Kit's ck_ring SPSC, in the same process, runs interleaved.
 *
 * What is measured: items per second and ns per item through a ring of
 * 1024 slots (-s), 64-bit items (the values 1..N, pointer-sized), the
 * producer pinned to one CPU and the consumer to another, from the moment
 * the producer starts to the moment the consumer has taken the last item.
 * Both sides spin (cpu_relax(), i.e. PAUSE) when the ring is full / empty,
 * like the dataplane's busy-polling workers. Per burst size b:
 *  - xdplane: <ring>_enqueue(items, b) / <ring>_dequeue(items, b), the
 *    burst API (a partial enqueue is retried with what is left);
 *  - ck_ring: it has no burst API. "Burst" b means the producer makes b
 *    ck_ring_enqueue_spsc() calls in a loop (each retried until it
 *    succeeds) and the consumer up to b ck_ring_dequeue_spsc() calls,
 *    stopping at the first that finds the ring empty. A ck_ring of size
 *    1024 holds at most 1023 items (one slot is left empty).
 * Repetitions (-r) run the pairs (xdplane b, ck b) interleaved, the order
 * inside each pair alternating between repetitions; each (ring, burst) is
 * run once with 1 M items first as a warm-up (not reported). Reported:
 * median and min-max over the repetitions, and the ratio xdplane/ck of
 * the median Mitems/s with the min-max of the per-repetition ratios.
 *
 * Correctness: the consumer checks that it gets 1, 2, ..., N in order and
 * their sum; any mismatch fails the program (exit 1).
 *
 * What is not measured: element sizes other than 8 bytes (the dataplane's
 * handoff ring carries 16-byte struct frame_desc), several producers or
 * consumers, latency (one item's trip), the cost of waking a sleeping
 * consumer, what the threads do with the items (nothing here), and
 * hyperthread siblings or cross-socket pairs: the result is for the two
 * CPUs given. On a VM both the vCPU placement and the neighbours' load
 * move the numbers: only compare numbers from one run.
 */
#include <ck_ring.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bits.h"
#include "spsc_ring.h"

DEFINE_SPSC_RING(u64_ring, uint64_t)

#define MAX_BURST 256
#define MAX_BURSTS 16
#define WARMUP_ITEMS 1000000ull

enum impl { IMPL_XDP, IMPL_CK, IMPL_N };

static const char *const impl_name[IMPL_N] = {"xdplane spsc", "ck_ring spsc"};

struct run {
	enum impl impl;
	uint32_t burst;
	uint64_t n;
	int cpu[2]; /* producer, consumer */
	struct u64_ring *xr;
	struct ck_ring *cr;
	struct ck_ring_buffer *cbuf;
	_Atomic int ready;
	_Atomic int go;
	int err[2]; /* pthread_setaffinity_np() result per side */
	uint64_t t0, t1; /* producer start, consumer end */
	uint64_t sum; /* of the items the consumer took */
	uint64_t bad; /* items out of order */
	uint64_t first_bad, first_bad_want;
	uint64_t full_polls, empty_polls;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Both threads pinned and ready, then go. */
static int start_line(struct run *r, int side)
{
	r->err[side] = pin(r->cpu[side]);
	atomic_fetch_add(&r->ready, 1);
	while (!atomic_load_explicit(&r->go, memory_order_acquire))
		cpu_relax();
	return r->err[0] || r->err[1];
}

static void produce_xdp(struct run *r)
{
	uint64_t items[MAX_BURST], next = 1, full = 0;
	const uint64_t n = r->n;

	while (next <= n) {
		uint32_t k = (uint32_t)MIN((uint64_t)r->burst, n - next + 1);
		uint32_t done = 0, m;

		for (uint32_t i = 0; i < k; i++)
			items[i] = next + i;
		while (done < k) {
			m = u64_ring_enqueue(r->xr, items + done, k - done);
			if (!m) {
				full++;
				cpu_relax();
			}
			done += m;
		}
		next += k;
	}
	r->full_polls = full;
}

static void produce_ck(struct run *r)
{
	uint64_t next = 1, full = 0;
	const uint64_t n = r->n;

	while (next <= n) {
		uint32_t k = (uint32_t)MIN((uint64_t)r->burst, n - next + 1);

		for (uint32_t i = 0; i < k; i++) {
			while (!ck_ring_enqueue_spsc(
				r->cr, r->cbuf,
				(void *)(uintptr_t)(next + i))) {
				full++;
				cpu_relax();
			}
		}
		next += k;
	}
	r->full_polls = full;
}

static void *producer(void *arg)
{
	struct run *r = arg;

	if (start_line(r, 0))
		return NULL;
	r->t0 = now_ns();
	if (r->impl == IMPL_XDP)
		produce_xdp(r);
	else
		produce_ck(r);
	return NULL;
}

/* Check and sum what the consumer took. */
static inline void take(struct run *r, const uint64_t *items, uint32_t m,
			uint64_t *want, uint64_t *sum)
{
	for (uint32_t i = 0; i < m; i++) {
		uint64_t v = items[i];

		if (unlikely(v != *want)) {
			if (!r->bad++) {
				r->first_bad = v;
				r->first_bad_want = *want;
			}
		}
		*sum += v;
		(*want)++;
	}
}

static void consume_xdp(struct run *r, uint64_t *want, uint64_t *sum)
{
	uint64_t items[MAX_BURST], empty = 0;
	const uint64_t n = r->n;

	while (*want <= n) {
		uint32_t m = u64_ring_dequeue(r->xr, items, r->burst);

		if (!m) {
			empty++;
			cpu_relax();
			continue;
		}
		take(r, items, m, want, sum);
	}
	r->empty_polls = empty;
}

static void consume_ck(struct run *r, uint64_t *want, uint64_t *sum)
{
	uint64_t items[MAX_BURST], empty = 0;
	const uint64_t n = r->n;

	while (*want <= n) {
		uint32_t m = 0;
		void *p;

		while (m < r->burst && ck_ring_dequeue_spsc(r->cr, r->cbuf, &p))
			items[m++] = (uint64_t)(uintptr_t)p;
		if (!m) {
			empty++;
			cpu_relax();
			continue;
		}
		take(r, items, m, want, sum);
	}
	r->empty_polls = empty;
}

static void *consumer(void *arg)
{
	struct run *r = arg;
	uint64_t want = 1, sum = 0;

	if (start_line(r, 1))
		return NULL;
	if (r->impl == IMPL_XDP)
		consume_xdp(r, &want, &sum);
	else
		consume_ck(r, &want, &sum);
	r->t1 = now_ns();
	r->sum = sum;
	return NULL;
}

struct rings {
	uint32_t size;
	struct u64_ring *xr;
	struct ck_ring *cr;
	struct ck_ring_buffer *cbuf;
};

/* One timed run; returns elapsed ns, exits on a failure. */
static uint64_t run_once(struct rings *rg, enum impl impl, uint32_t burst,
			 uint64_t n, const int cpu[2], uint64_t *empty_polls)
{
	struct run r;
	pthread_t th[2];
	uint64_t want_sum;
	int e;

	memset(&r, 0, sizeof(r));
	r.impl = impl;
	r.burst = burst;
	r.n = n;
	r.cpu[0] = cpu[0];
	r.cpu[1] = cpu[1];
	if (impl == IMPL_XDP) {
		if (u64_ring_init(rg->xr, rg->size)) {
			fprintf(stderr, "ring_bench: ring init failed\n");
			exit(1);
		}
		r.xr = rg->xr;
	} else {
		ck_ring_init(rg->cr, rg->size);
		memset(rg->cbuf, 0, sizeof(*rg->cbuf) * rg->size);
		r.cr = rg->cr;
		r.cbuf = rg->cbuf;
	}
	atomic_init(&r.ready, 0);
	atomic_init(&r.go, 0);
	e = pthread_create(&th[1], NULL, consumer, &r);
	if (!e) {
		e = pthread_create(&th[0], NULL, producer, &r);
		if (e) {
			atomic_store(&r.go, 1);
			r.err[0] = e; /* the consumer returns at once */
			pthread_join(th[1], NULL);
		}
	}
	if (e) {
		fprintf(stderr, "ring_bench: pthread_create: %s\n",
			strerror(e));
		exit(1);
	}
	while (atomic_load(&r.ready) < 2)
		cpu_relax();
	atomic_store_explicit(&r.go, 1, memory_order_release);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	if (impl == IMPL_XDP)
		u64_ring_fini(rg->xr);
	for (int s = 0; s < 2; s++) {
		if (r.err[s]) {
			fprintf(stderr,
				"ring_bench: cannot pin the %s to CPU %d: %s\n",
				s ? "consumer" : "producer", cpu[s],
				strerror(r.err[s]));
			exit(1);
		}
	}
	want_sum = n % 2 ? (n + 1) / 2 * n : n / 2 * (n + 1);
	if (r.bad || r.sum != want_sum) {
		fprintf(stderr,
			"ring_bench: FAIL: %s burst %u: %llu items out of "
			"order "
			"(first: got %llu, want %llu), sum %llu, want %llu\n",
			impl_name[impl], burst, (unsigned long long)r.bad,
			(unsigned long long)r.first_bad,
			(unsigned long long)r.first_bad_want,
			(unsigned long long)r.sum,
			(unsigned long long)want_sum);
		exit(1);
	}
	if (empty_polls)
		*empty_polls = r.empty_polls;
	return r.t1 - r.t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stat3 {
	double med, min, max;
};

static struct stat3 stats(const double *v, int n)
{
	double s[n];
	struct stat3 r;

	memcpy(s, v, sizeof(s));
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	r.min = s[0];
	r.max = s[n - 1];
	r.med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ring_bench [-n ITEMS] [-r REPS] [-b B1,B2,...] [-p "
		"CPU] "
		"[-c CPU]\n"
		"                  [-s SLOTS] [-v] [-h]\n"
		"Items/s through an SPSC ring between two pinned threads: the\n"
		"dataplane's spsc_ring.h against ck_ring (Concurrency Kit), "
		"interleaved.\n"
		"  -n ITEMS  64-bit items per run (default 20000000)\n"
		"  -r REPS   repetitions (default 5)\n"
		"  -b LIST   burst sizes, 1..%d (default 1,8,32)\n"
		"  -p CPU    producer CPU (default 0)\n"
		"  -c CPU    consumer CPU (default 1)\n"
		"  -s SLOTS  ring size, a power of two >= 2 (default 1024)\n"
		"  -v        also print ns/item and empty polls of every run\n"
		"  -h        this help\n"
		"Prints a markdown table; exits 1 if an item is lost, "
		"duplicated or out of order.\n",
		MAX_BURST);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 20000000, reps = 5, size = 1024, v;
	uint32_t bursts[MAX_BURSTS] = {1, 8, 32};
	int nb = 3, cpu[2] = {0, 1}, verbose = 0, o;
	struct rings rg;

	while ((o = getopt(argc, argv, "n:r:b:p:c:s:vh")) != -1) {
		switch (o) {
		case 'n':
			if (parse_u64(optarg, &n) || !n || n > (1ull << 40))
				goto bad;
			break;
		case 'r':
			if (parse_u64(optarg, &reps) || !reps || reps > 1000)
				goto bad;
			break;
		case 'b': {
			char *s = strdup(optarg), *tok, *save = NULL;

			nb = 0;
			for (tok = strtok_r(s, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (nb == MAX_BURSTS || parse_u64(tok, &v) ||
				    !v || v > MAX_BURST) {
					free(s);
					goto bad;
				}
				bursts[nb++] = (uint32_t)v;
			}
			free(s);
			if (!nb)
				goto bad;
			break;
		}
		case 'p':
		case 'c':
			if (parse_u64(optarg, &v) || v >= CPU_SETSIZE)
				goto bad;
			cpu[o == 'c'] = (int)v;
			break;
		case 's':
			if (parse_u64(optarg, &size) || size < 2 ||
			    size > (1u << 24) || !is_pow2(size))
				goto bad;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc || cpu[0] == cpu[1]) {
		if (cpu[0] == cpu[1])
			fprintf(stderr, "ring_bench: -p and -c must differ\n");
		goto bad;
	}

	rg.size = (uint32_t)size;
	rg.xr = aligned_alloc(128, (sizeof(*rg.xr) + 127) / 128 * 128);
	rg.cr = aligned_alloc(128, (sizeof(*rg.cr) + 127) / 128 * 128);
	rg.cbuf = aligned_alloc(128, sizeof(*rg.cbuf) * size);
	if (!rg.xr || !rg.cr || !rg.cbuf) {
		fprintf(stderr, "ring_bench: out of memory\n");
		return 1;
	}

	/* [burst][impl][rep] */
	double *mips = calloc((size_t)nb * IMPL_N * reps, sizeof(double));
	double *nspi = calloc((size_t)nb * IMPL_N * reps, sizeof(double));

	if (!mips || !nspi) {
		fprintf(stderr, "ring_bench: out of memory\n");
		return 1;
	}

#define AT(b, i, r) (((size_t)(b)*IMPL_N + (size_t)(i)) * reps + (r))
	/* warm-up: each (ring, burst) once, not reported */
	for (int b = 0; b < nb; b++)
		for (int i = 0; i < IMPL_N; i++)
			run_once(&rg, (enum impl)i, bursts[b],
				 MIN(n, WARMUP_ITEMS), cpu, NULL);

	for (uint64_t r = 0; r < reps; r++) {
		for (int b = 0; b < nb; b++) {
			for (int k = 0; k < IMPL_N; k++) {
				/* alternate which ring goes first */
				int i = (int)((k + r) % IMPL_N);
				uint64_t empty;
				uint64_t ns =
					run_once(&rg, (enum impl)i, bursts[b],
						 n, cpu, &empty);

				nspi[AT(b, i, r)] = (double)ns / (double)n;
				mips[AT(b, i, r)] =
					(double)n * 1e3 / (double)ns;
				if (verbose)
					fprintf(stderr,
						"rep %llu %-12s burst %3u: "
						"%8.3f ns/item %8.2f Mitems/s, "
						"consumer empty polls %llu\n",
						(unsigned long long)r,
						impl_name[i], bursts[b],
						nspi[AT(b, i, r)],
						mips[AT(b, i, r)],
						(unsigned long long)empty);
			}
		}
	}

	printf("ring_bench: %llu items of 8 B per run, ring of %llu slots, "
	       "producer on CPU %d, consumer on CPU %d, %llu repetitions "
	       "(interleaved), checksum and order verified.\n",
	       (unsigned long long)n, (unsigned long long)size, cpu[0], cpu[1],
	       (unsigned long long)reps);
	printf("xdplane: burst enqueue/dequeue. ck_ring has no burst API: its "
	       "\"burst\" b is b single-item ck_ring_enqueue_spsc() calls in a "
	       "loop, and up to b ck_ring_dequeue_spsc() calls (stopping at "
	       "empty); it holds %llu items.\n\n",
	       (unsigned long long)size - 1);
	printf("| burst | xdplane spsc Mitems/s (median [min-max]) | "
	       "xdplane ns/item | ck_ring spsc Mitems/s | ck_ring ns/item | "
	       "ratio xdplane/ck |\n");
	printf("| ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int b = 0; b < nb; b++) {
		struct stat3 m[IMPL_N], t[IMPL_N], q;
		double ratio[reps];

		for (int i = 0; i < IMPL_N; i++) {
			m[i] = stats(&mips[AT(b, i, 0)], (int)reps);
			t[i] = stats(&nspi[AT(b, i, 0)], (int)reps);
		}
		for (uint64_t r = 0; r < reps; r++)
			ratio[r] = mips[AT(b, IMPL_XDP, r)] /
				   mips[AT(b, IMPL_CK, r)];
		q = stats(ratio, (int)reps);
		printf("| %u | %.1f [%.1f-%.1f] | %.2f [%.2f-%.2f] | "
		       "%.1f [%.1f-%.1f] | %.2f [%.2f-%.2f] | "
		       "%.2f [%.2f-%.2f] |\n",
		       bursts[b], m[IMPL_XDP].med, m[IMPL_XDP].min,
		       m[IMPL_XDP].max, t[IMPL_XDP].med, t[IMPL_XDP].min,
		       t[IMPL_XDP].max, m[IMPL_CK].med, m[IMPL_CK].min,
		       m[IMPL_CK].max, t[IMPL_CK].med, t[IMPL_CK].min,
		       t[IMPL_CK].max, m[IMPL_XDP].med / m[IMPL_CK].med, q.min,
		       q.max);
	}
	printf("\nEvery cell: median [min-max] over the repetitions. "
	       "ratio: median Mitems/s of xdplane over that of ck_ring "
	       "(> 1: xdplane faster); [min-max] of the per-repetition "
	       "ratios.\n");
	free(mips);
	free(nspi);
	free(rg.xr);
	free(rg.cr);
	free(rg.cbuf);
	return 0;
bad:
	usage(stderr);
	return 2;
}
