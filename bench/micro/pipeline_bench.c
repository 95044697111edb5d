// SPDX-License-Identifier: BSD-2-Clause
/*
 * pipeline_bench.c - the per-packet work of xdplane's forwarding path
 * without I/O, in one thread: ns per packet.
 *
 * What is measured, per burst of 32 frames (as rx_task_poll() and
 * egress_task_poll() do it, minus the AF_XDP rings):
 *  - RX: for each frame, pkt_parse() + classify() + frame_meta_pack() into a
 *    struct frame_desc; then handoff_ring_enqueue() of the burst;
 *  - egress: read the clock once; handoff_ring_dequeue() (up to 32);
 *    sched_enqueue() each; sched_dequeue() up to 32; "transmit" each frame
 *    dequeued: count it (packets, bytes) and put its frame back on the free
 *    list the RX side takes frames from (a plain FIFO array).
 * The frames are real Ethernet/IPv4 frames of one size (-s), built once in
 * a pool (-P, default 1024 frames, 2 KiB apart like a UMEM) with a fixed
 * mix per 32: 1 RoCEv2 CNP (UDP 4791, BTH opcode 0x81, DSCP 48), 12 RoCEv2
 * data (UDP 4791, DSCP 26, ECT(0)), 4 UDP 4789 with DSCP 26 and ECT(0)
 * (RoCE in a tunnel), 5 other UDP (2 ECT(0)), 4 NFS (TCP to and from port
 * 2049), 2 iSCSI (TCP 3260), 3 NVMe/TCP (TCP 4420), 1 ICMP echo. Every
 * burst carries exactly this mix (the scheduler drains each burst).
 *
 * Configurations (-C): 1 class (the default config: one FIFO, no rules);
 * 4 classes cnp/roce/default/storage with the shipped config's 10 rules,
 * ceilings (cnp 5 %, roce 90 %) and ECN/RED on roce, but default and
 * storage share a level (DWRR, quanta 9000/4500: the shipped file has
 * storage one level below); 8 classes: cnp + mgmt (ICMP) at level 0, roce
 * + roce_tunnel (DSCP 26) at 1 (DWRR), default at 2, nfs (min 10 %) +
 * iscsi + nvme at 3 (DWRR), 11 rules. Port 100 Gbit/s (-R), overhead 24,
 * bursts as the config's defaults (max(32 KiB, rate x 200 us)).
 *
 * Clock (-k): "fake" (default): a counter that advances, once per burst,
 * by the wire time of the 32 frames generated (len + 24 bytes each) at the
 * port rate, i.e. the input arrives at exactly line rate. Neither the port
 * shaper nor any ceiling (the mix keeps every class below its ceiling)
 * ever blocks, nothing is dropped, nothing is ECN-marked at the default
 * sizes (RED starts at 30 KB of RoCE queue; a burst carries at most
 * 16 x 1500 B of RoCE; above ~1900 B RED marks, still without drops: all
 * RoCE frames are ECT(0)), and the run is deterministic (callgrind). "real":
 * clock_gettime(CLOCK_MONOTONIC) once per burst, like the egress task (its
 * cost, ~30 ns per burst on the dev VM, is included); if the loop runs
 * faster than the port rate the shaper does block and queues build and
 * drop (reported), so use -R above the achieved rate to avoid that.
 *
 * Also measured, each alone on the same frames and configuration (the
 * "breakdown"; their sum is not the pipeline's time, see README.md):
 *  - parse+classify: pkt_parse + classify + frame_meta_pack, 32 per burst;
 *  - handoff ring: enqueue 32 pre-built descriptors, dequeue 32 (one
 *    thread: the ring's cache lines never move between cores);
 *  - scheduler: clock + sched_enqueue x 32 + sched_dequeue(32) on
 *    pre-built descriptors (each dequeued one is written back to the
 *    pre-built array: a frame RED marked CE keeps its CE meta).
 *
 * -p adds what rx_task.c does not do: prefetch the 32 frames' first cache
 * line before parsing the burst (to see what that would buy with a large,
 * cache-cold pool).
 *
 * What is not measured: the AF_XDP rings (RX peek/release, TX reserve/
 * submit, fill and completion rings), syscalls and kicks, the return ring
 * to the RX task, the frame pool's stack, the tasks' own counters, the
 * cross-core transfer of the handoff ring and of the frames (ring_bench
 * measures the former), frames arriving cache-cold from DMA (the default
 * pool is small enough for its headers to stay cache-resident: use -P to
 * grow it), multi-port and multi-queue polling, and queueing under
 * congestion (no backlog builds up in fake mode).
 *
 * Build: the numbers are meant for a release build (the default,
 * RelWithDebInfo, XDPLANE_ASSERTS off). A build with XDPLANE_ASSERTS (as
 * tests/run and CI configure theirs) checks the scheduler's invariants
 * after every call; the program prints a note before its table then.
 *
 * Checks (exit 1 on failure): every pool frame parses and classifies to the
 * class the mix says; after each run the scheduler is drained and every
 * frame must be back on the free list exactly once, the packets the
 * scheduler took plus its drops must equal the packets generated, its sent
 * counters must equal the transmit counts, and in fake mode nothing may be
 * dropped and each class must have received exactly its share of the mix.
 */
#include "pipeline_bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stat3 {
	double med, min, max;
};

static struct stat3 stats(double *v, int n)
{
	struct stat3 r;

	qsort(v, (size_t)n, sizeof(double), cmp_double);
	r.min = v[0];
	r.max = v[n - 1];
	r.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pipeline_bench [-n PACKETS] [-r REPS] [-C 1,4,8] "
		"[-s 64,1500] [-P FRAMES]\n"
		"                      [-k fake|real] [-R BPS] [-S STAGES] "
		"[-c CPU] [-p] [-h]\n"
		"ns per packet of parse + classify + handoff ring + egress "
		"scheduler, no I/O.\n"
		"  -n PACKETS  per run and stage, rounded up to a multiple of "
		"32 (default 4000000)\n"
		"  -r REPS     repetitions (default 5)\n"
		"  -C LIST     class configurations: 1, 4, 8 (default 1,4,8)\n"
		"  -s LIST     frame sizes, bytes, 60..9000 (default 64,1500)\n"
		"  -P FRAMES   frames in the pool, a power of two >= 64 "
		"(default 1024)\n"
		"  -k CLOCK    fake (default): advances by the wire time of "
		"each burst at the\n"
		"              port rate; real: CLOCK_MONOTONIC once per "
		"burst\n"
		"  -R BPS      port rate, bits/s, suffix k/M/G/T allowed "
		"(default 100G)\n"
		"  -S STAGES   which to run: pipeline,parse,ring,sched "
		"(default all)\n"
		"  -c CPU      pin the thread to CPU (default: not pinned)\n"
		"  -p          RX loops prefetch the burst's 32 frame headers "
		"before parsing\n"
		"              (an experiment: rx_task.c does not)\n"
		"  -h          this help\n"
		"Prints a markdown table; exits 1 if a check fails (lost or "
		"duplicated frames,\n"
		"wrong class, counters that disagree, drops with the fake "
		"clock).\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' ? -1 : 0;
}

static int parse_rate(const char *s, uint64_t *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || d <= 0)
		return -1;
	switch (*end) {
	case 'k':
		d *= 1e3;
		end++;
		break;
	case 'M':
		d *= 1e6;
		end++;
		break;
	case 'G':
		d *= 1e9;
		end++;
		break;
	case 'T':
		d *= 1e12;
		end++;
		break;
	}
	if (*end || d < 1e6 || d > (double)TB_MAX_RATE)
		return -1;
	*v = (uint64_t)d;
	return 0;
}

static int parse_list(const char *arg, uint64_t *out, int max, uint64_t lo,
		      uint64_t hi)
{
	char *s = strdup(arg), *tok, *save = NULL;
	int n = 0;

	if (!s)
		return -1;
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max || parse_u64(tok, &out[n]) || out[n] < lo ||
		    out[n] > hi) {
			free(s);
			return -1;
		}
		n++;
	}
	free(s);
	return n;
}

int main(int argc, char **argv)
{
	uint64_t npkts = 4000000, reps = 5, pool = 1024, rate = 100000000000ull;
	uint64_t classes[MAX_LIST] = {1, 4, 8}, sizes[MAX_LIST] = {64, 1500};
	int n_cls = 3, n_sz = 2, o, cpu = -1;
	bool stage_on[ST_N] = {true, true, true, true}, real = false;
	bool prefetch = false;
	uint64_t v, bursts, max_len = 0;
	struct ctx *x;

	while ((o = getopt(argc, argv, "n:r:C:s:P:k:R:S:c:ph")) != -1) {
		switch (o) {
		case 'n':
			if (parse_u64(optarg, &npkts) || !npkts ||
			    npkts > (1ull << 40))
				goto bad;
			break;
		case 'r':
			if (parse_u64(optarg, &reps) || !reps || reps > 1000)
				goto bad;
			break;
		case 'C':
			n_cls = parse_list(optarg, classes, MAX_LIST, 1, 8);
			if (n_cls <= 0)
				goto bad;
			for (int i = 0; i < n_cls; i++)
				if (classes[i] != 1 && classes[i] != 4 &&
				    classes[i] != 8)
					goto bad;
			break;
		case 's':
			n_sz = parse_list(optarg, sizes, MAX_LIST, 60, 9000);
			if (n_sz <= 0)
				goto bad;
			break;
		case 'P':
			if (parse_u64(optarg, &pool) || pool < 2 * BURST ||
			    pool > (1u << 20) || !is_pow2(pool))
				goto bad;
			break;
		case 'k':
			if (!strcmp(optarg, "real"))
				real = true;
			else if (!strcmp(optarg, "fake"))
				real = false;
			else
				goto bad;
			break;
		case 'R':
			if (parse_rate(optarg, &rate))
				goto bad;
			break;
		case 'S': {
			char *s = strdup(optarg), *tok, *save = NULL;

			memset(stage_on, 0, sizeof(stage_on));
			for (tok = strtok_r(s, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				int i;

				for (i = 0; i < ST_N; i++)
					if (!strcmp(tok, stage_name[i]))
						break;
				if (i == ST_N) {
					free(s);
					goto bad;
				}
				stage_on[i] = true;
			}
			free(s);
			break;
		}
		case 'c':
			if (parse_u64(optarg, &v) || v >= CPU_SETSIZE)
				goto bad;
			cpu = (int)v;
			break;
		case 'p':
			prefetch = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr,
				"pipeline_bench: cannot pin to CPU %d: %s\n",
				cpu, strerror(errno));
			return 1;
		}
	}
	bursts = (npkts + BURST - 1) / BURST;
	for (int i = 0; i < n_sz; i++)
		max_len = MAX(max_len, sizes[i]);

	x = aligned_alloc(CACHELINE,
			  (sizeof(*x) + CACHELINE - 1) / CACHELINE * CACHELINE);
	if (!x)
		goto oom;
	memset(x, 0, sizeof(*x));
	x->pool = (uint32_t)pool;
	x->stride_shift = 11; /* 2 KiB frames, or larger for jumbo sizes */
	while ((1ull << x->stride_shift) < max_len)
		x->stride_shift++;
	x->base = aligned_alloc(4096, pool << x->stride_shift);
	x->pre = calloc(pool, sizeof(*x->pre));
	x->free = calloc(pool, sizeof(*x->free));
	x->free_mask = (uint32_t)pool - 1;
	x->real_clock = real;
	x->prefetch = prefetch;
	x->rate = rate;
	if (!x->base || !x->pre || !x->free ||
	    handoff_ring_init(&x->ring, HANDOFF_SLOTS))
		goto oom;

	int n_rows = n_cls * n_sz;
	double *res = calloc((size_t)n_rows * ST_N * reps, sizeof(double));
	struct config *cf = malloc(sizeof(*cf));

	if (!res || !cf)
		goto oom;
#define RES(row, st, r) res[((size_t)(row)*ST_N + (st)) * reps + (r)]

	printf("pipeline_bench: %llu packets per run and stage, %llu "
	       "repetitions, bursts of %d, pool of %llu frames %u B apart, "
	       "port %.1f Gbit/s (overhead %d B), %s clock%s%s.\n\n",
	       (unsigned long long)(bursts * BURST), (unsigned long long)reps,
	       BURST, (unsigned long long)pool, 1u << x->stride_shift,
	       (double)rate / 1e9, OVERHEAD,
	       real ? "real (CLOCK_MONOTONIC once per burst)"
		    : "fake (advances by each burst's wire time)",
	       cpu >= 0 ? "" : ", thread not pinned",
	       prefetch ? ", RX prefetches headers (-p)" : "");
	if (DP_ASSERTS_ON)
		printf("NOTE: built with XDPLANE_ASSERTS (as tests/run and CI "
		       "configure it): the scheduler checks its invariants "
		       "after every call. Not release numbers: use a build "
		       "without it (the default) to compare with the "
		       "goal.\n\n");
	fflush(stdout);

	for (int ci = 0; ci < n_cls; ci++) {
		if (config_build(cf, (unsigned int)classes[ci], rate))
			goto bad;
		for (int si = 0; si < n_sz; si++) {
			int row = ci * n_sz + si;
			uint32_t len = (uint32_t)sizes[si];

			/* wire time of a burst: 32 (len + 24) * 8 bits */
			uint64_t bits_e9 = (uint64_t)BURST * (len + OVERHEAD) *
					   8 * 1000000000ull;

			x->clk_q = bits_e9 / rate;
			x->clk_r = bits_e9 % rate;
			ctx_setup(x, cf, len);
			for (uint64_t r = 0; r < reps; r++)
				for (int st = 0; st < ST_N; st++)
					if (stage_on[st])
						RES(row, st, r) = run_stage(
							x, (enum stage)st,
							bursts);
		}
	}

	printf("goal: < %.0f ns/packet on this machine (pipeline median; "
	       "no assertion, the machine is noisy)\n\n",
	       GOAL_NS);
	printf("| classes | frame B | pipeline ns/pkt (median [min-max]) | "
	       "Mpps | parse+classify ns/pkt | handoff ring ns/pkt | "
	       "scheduler ns/pkt | sum of parts | goal < %.0f ns |\n",
	       GOAL_NS);
	printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :-: "
	       "|\n");
	for (int ci = 0; ci < n_cls; ci++) {
		for (int si = 0; si < n_sz; si++) {
			int row = ci * n_sz + si;
			struct stat3 s[ST_N];
			char cell[ST_N][64];
			double sum = 0;

			for (int st = 0; st < ST_N; st++) {
				if (!stage_on[st]) {
					snprintf(cell[st], sizeof(cell[st]),
						 "-");
					continue;
				}
				s[st] = stats(&RES(row, st, 0), (int)reps);
				snprintf(cell[st], sizeof(cell[st]),
					 "%.1f [%.1f-%.1f]", s[st].med,
					 s[st].min, s[st].max);
				if (st != ST_PIPE)
					sum += s[st].med;
			}
			printf("| %llu | %llu | %s | ",
			       (unsigned long long)classes[ci],
			       (unsigned long long)sizes[si], cell[ST_PIPE]);
			if (stage_on[ST_PIPE])
				printf("%.1f | ", 1e3 / s[ST_PIPE].med);
			else
				printf("- | ");
			printf("%s | %s | %s | ", cell[ST_PARSE], cell[ST_RING],
			       cell[ST_SCHED]);
			if (stage_on[ST_PARSE] && stage_on[ST_RING] &&
			    stage_on[ST_SCHED])
				printf("%.1f | ", sum);
			else
				printf("- | ");
			if (stage_on[ST_PIPE])
				printf("%s |\n", s[ST_PIPE].med < GOAL_NS
							 ? "PASS"
							 : "MISS");
			else
				printf("- |\n");
		}
	}
	printf("\nAll checks passed (frames, classes, counters%s).\n",
	       real ? "" : ", no drops");
	handoff_ring_fini(&x->ring);
	free(res);
	free(cf);
	free(x->base);
	free(x->pre);
	free(x->free);
	free(x);
	return 0;
oom:
	fprintf(stderr, "pipeline_bench: out of memory\n");
	return 1;
bad:
	usage(stderr);
	return 2;
}
