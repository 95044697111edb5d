// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xgen - IPv4/UDP traffic generator for veth test beds: BPF_PROG_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES runs xgen.bpf.c, which redirects every frame to
 * --dev. The frames enter the ring of --dev's peer as xdp_frames, the way a
 * NIC would deliver them (the peer needs NAPI: an XDP program or GRO on).
 *
 *   xgen --dev IF --src-mac M --dst-mac M --src-ip A --dst-ip B
 *        [--sport N] [--dport N] [--sport-range N] --size BYTES
 *        [--rate PPS] --duration SEC [--cpu N] [--repeat N]
 *
 * Every BPF_PROG_RUN call sleeps in its set-up and tear-down (page pool), so
 * calls are long: --repeat frames per call (8M by default). The duration is
 * enforced by a timer signal that interrupts the running call.
 *
 * With XDPLANE_BENCH_REFUSE_PROG_RUN=1 in the environment every call fails
 * with EPERM, as on a kernel that refuses live frames.
 *
 * At exit it prints one line: "xgen: sent N frames in T s (...)". "Sent"
 * counts frames handed to the egress device; frames its peer dropped on a
 * full ring are visible only in the peer's counters (tx_queue_0_xdp_xmit_err
 * of --dev in ethtool -S).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "gen_frame.h"

#define XGEN_HDR_LEN GEN_HDR_LEN
#define XGEN_MIN_SIZE 60
#define XGEN_MAX_SIZE 1514
#define XGEN_DEF_REPEAT (8u << 20)
/* Set to 1: every BPF_PROG_RUN call fails with EPERM, as on a kernel that
 * refuses live frames (bench/fwd then falls back to xskgen). */
#define XGEN_REFUSE_ENV "XDPLANE_BENCH_REFUSE_PROG_RUN"

/* Same layout as in xgen.bpf.c (checked by size at load). */
struct xgen_conf {
	uint64_t hdr[6];
	uint64_t gap_ns;
	uint32_t ifindex;
	uint16_t sport;
	uint16_t sport_range;
};

struct xgen_state {
	uint64_t sent;
	uint64_t seq;
	uint64_t next_ns;
	uint64_t idle;
};

/* The BPF object, embedded by bench/CMakeLists.txt. */
extern const char xgen_bpf_obj[];
extern const char xgen_bpf_obj_end[];

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: xgen --dev IF --src-mac MAC --dst-mac MAC\n"
	      "            --src-ip A --dst-ip B [--sport N] [--dport N]\n"
	      "            [--sport-range N] --size BYTES [--rate PPS]\n"
	      "            --duration SEC [--cpu N] [--repeat N]\n",
	      f);
	fprintf(f,
		"  --size         Ethernet frame without FCS, %d..%d\n"
		"  --rate         frames per second, 0 = flat out (default)\n"
		"  --sport-range  cycle the UDP source port over N ports\n"
		"  --repeat       frames per BPF_PROG_RUN call (default %u)\n"
		"  --cpu          pin to this CPU\n",
		XGEN_MIN_SIZE, XGEN_MAX_SIZE, XGEN_DEF_REPEAT);
}

static struct bpf_map *find_internal_map(struct bpf_object *obj,
					 const char *suffix)
{
	size_t sl = strlen(suffix);
	struct bpf_map *map;

	for (map = bpf_object__next_map(obj, NULL); map;
	     map = bpf_object__next_map(obj, map)) {
		const char *name = bpf_map__name(map);
		size_t nl = strlen(name);

		if (nl >= sl && !strcmp(name + nl - sl, suffix))
			return map;
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		GEN_COMMON_OPTIONS,
		{"repeat", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{}};
	struct gen_opts g;
	unsigned long repeat = XGEN_DEF_REPEAT;
	const char *why;
	struct xgen_conf conf = {0};
	struct xgen_state st = {0};
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *rodata, *bss;
	struct sigaction sa = {0};
	struct itimerval itv = {0};
	uint8_t frame[XGEN_MAX_SIZE];
	unsigned long calls = 0;
	uint32_t batch = 0; /* 0: the kernel's default (64) */
	bool failed = false;
	const char *env = getenv(XGEN_REFUSE_ENV);
	bool refuse = env && !strcmp(env, "1");
	double t0, t1;
	int ifindex, prog_fd, err, c;
	uint32_t zero = 0;

	gen_opts_init(&g, XGEN_MIN_SIZE, XGEN_MAX_SIZE);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int r = gen_opts_parse(&g, c, optarg);

		if (r > 0)
			continue;
		if (r < 0)
			goto bad;
		switch (c) {
		case 'n':
			if (gen_parse_ulong(optarg, UINT32_MAX, &repeat) ||
			    !repeat)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		continue;
	bad:
		fprintf(stderr, "xgen: invalid value for --%s: '%s'\n",
			gen_opt_name(opts, c), optarg);
		return 2;
	}
	why = gen_opts_check(&g);
	if (optind != argc || (why && !*why)) {
		usage(stderr);
		return 2;
	}
	if (why) {
		fprintf(stderr, "xgen: %s\n", why);
		return 2;
	}
	ifindex = (int)if_nametoindex(g.dev);
	if (!ifindex) {
		fprintf(stderr, "xgen: no device %s: %s\n", g.dev,
			strerror(errno));
		return 1;
	}

	gen_build_frame(frame, g.size, g.smac, g.dmac, g.sip, g.dip,
			(uint16_t)g.sport, (uint16_t)g.dport);
	memcpy(conf.hdr, frame, XGEN_HDR_LEN);
	conf.gap_ns = g.rate ? 1000000000ull / g.rate : 0;
	if (g.rate && !conf.gap_ns)
		conf.gap_ns = 1;
	conf.ifindex = (uint32_t)ifindex;
	conf.sport = (uint16_t)g.sport;
	conf.sport_range = (uint16_t)g.sport_range;

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	obj = bpf_object__open_mem(
		xgen_bpf_obj, (size_t)(xgen_bpf_obj_end - xgen_bpf_obj), NULL);
	if (!obj) {
		fprintf(stderr, "xgen: open BPF object: %s\n", strerror(errno));
		return 1;
	}
	rodata = find_internal_map(obj, ".rodata");
	bss = find_internal_map(obj, ".bss");
	prog = bpf_object__find_program_by_name(obj, "xgen");
	if (!rodata || !bss || !prog) {
		fprintf(stderr,
			"xgen: BPF object lacks .rodata, .bss or xgen\n");
		return 1;
	}
	err = bpf_map__set_initial_value(rodata, &conf, sizeof(conf));
	if (err) {
		fprintf(stderr, "xgen: .rodata layout mismatch: %s\n",
			strerror(-err));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "xgen: load BPF object: %s\n", strerror(-err));
		return 1;
	}
	prog_fd = bpf_program__fd(prog);

	if (g.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)g.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "xgen: pin to CPU %ld: %s\n", g.cpu,
				strerror(errno));
			return 1;
		}
	}

	/* No SA_RESTART: the signal must end the running BPF_PROG_RUN. */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	itv.it_value.tv_sec = (time_t)g.duration;
	itv.it_value.tv_usec =
		(suseconds_t)((g.duration - (double)(time_t)g.duration) * 1e6);
	if (!itv.it_value.tv_sec && !itv.it_value.tv_usec)
		itv.it_value.tv_usec = 1;

	/* The kernel runs the program on batches of frames and flushes the
	 * redirected ones at the end of each batch (64 by default), checking
	 * for signals between batches: when pacing, keep the batch within
	 * about 10 us of traffic so that frames leave on time. */
	if (g.rate)
		batch = g.rate >= 1000000 ? 64
					  : (uint32_t)(g.rate / 100000) + 1;

	t0 = now_s();
	setitimer(ITIMER_REAL, &itv, NULL);
	while (!stop) {
		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame,
			    .data_size_in = (uint32_t)g.size,
			    .repeat = (uint32_t)repeat, .batch_size = batch,
			    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

		if (refuse) {
			/* The refusal of a kernel without live frames, for
			 * the harness's fallback test. */
			err = -1;
			errno = EPERM;
		} else {
			err = bpf_prog_test_run_opts(prog_fd, &run);
		}
		calls++;
		if (err && errno != EINTR) {
			fprintf(stderr, "xgen: BPF_PROG_RUN: %s%s\n",
				strerror(errno),
				refuse ? " (simulated: " XGEN_REFUSE_ENV " set)"
				       : "");
			failed = true;
			break;
		}
	}
	t1 = now_s();

	if (bpf_map_lookup_elem(bpf_map__fd(bss), &zero, &st)) {
		fprintf(stderr, "xgen: read state: %s\n", strerror(errno));
		bpf_object__close(obj);
		return 1;
	}
	printf("xgen: sent %llu frames in %.3f s (%.3f Mpps, %.2f Gbit/s of "
	       "%lu-byte frames, %lu calls%s)\n",
	       (unsigned long long)st.sent, t1 - t0, st.sent / (t1 - t0) / 1e6,
	       st.sent * g.size * 8.0 / (t1 - t0) / 1e9, g.size, calls,
	       g.rate ? ", paced" : "");
	bpf_object__close(obj);
	return failed ? 1 : 0;
}
