// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xsink - attach a counting XDP program (xsink.bpf.c, native mode) to a
 * device and print what it receives.
 *
 *   xsink --dev IF [--pass] [--interval SEC] [--duration SEC] [--quiet]
 *
 * Frames are dropped after counting, or passed to the stack with --pass.
 * An XDP program already on the device is replaced; a later xsink (e.g.
 * --pass for a latency test) may replace this one in turn, the device
 * keeping its NAPI instance all along. At exit (SIGINT, SIGTERM or
 * --duration) the program is detached only if it is still the attached one,
 * and the totals are printed:
 *
 *   xsink: total packets N bytes M seconds T
 *
 * Without --quiet, a line per --interval (default 1 s) gives the rate.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

struct xsink_count {
	uint64_t packets;
	uint64_t bytes;
};

extern const char xsink_bpf_obj[];
extern const char xsink_bpf_obj_end[];

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_counts(int map_fd, int ncpus, struct xsink_count *vals,
		       struct xsink_count *sum)
{
	uint32_t zero = 0;
	int i;

	if (bpf_map_lookup_elem(map_fd, &zero, vals))
		return -errno;
	sum->packets = 0;
	sum->bytes = 0;
	for (i = 0; i < ncpus; i++) {
		sum->packets += vals[i].packets;
		sum->bytes += vals[i].bytes;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xsink --dev IF [--pass] [--interval SEC] "
		   "[--duration SEC] [--quiet]\n");
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dev", required_argument, NULL, 'i'},
		{"pass", no_argument, NULL, 'p'},
		{"interval", required_argument, NULL, 'I'},
		{"duration", required_argument, NULL, 't'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{}};
	const char *dev = NULL;
	bool quiet = false;
	uint32_t pass = 0;
	double interval = 1.0, duration = 0, t0, tlast, deadline;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *rodata, *counts;
	struct xsink_count *vals, sum, last = {0};
	struct sigaction sa = {0};
	struct bpf_prog_info info = {0};
	uint32_t info_len = sizeof(info);
	int ifindex, prog_fd, map_fd, ncpus, err, c;
	char *end;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			dev = optarg;
			break;
		case 'p':
			pass = 1;
			break;
		case 'I':
			interval = strtod(optarg, &end);
			if (end == optarg || *end || interval <= 0) {
				fprintf(stderr, "xsink: bad --interval\n");
				return 2;
			}
			break;
		case 't':
			duration = strtod(optarg, &end);
			if (end == optarg || *end || duration <= 0) {
				fprintf(stderr, "xsink: bad --duration\n");
				return 2;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !dev) {
		usage(stderr);
		return 2;
	}
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex) {
		fprintf(stderr, "xsink: no device %s: %s\n", dev,
			strerror(errno));
		return 1;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		fprintf(stderr, "xsink: cannot count CPUs\n");
		return 1;
	}
	vals = calloc((size_t)ncpus, sizeof(*vals));
	if (!vals)
		return 1;

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	obj = bpf_object__open_mem(xsink_bpf_obj,
				   (size_t)(xsink_bpf_obj_end - xsink_bpf_obj),
				   NULL);
	if (!obj) {
		fprintf(stderr, "xsink: open BPF object: %s\n",
			strerror(errno));
		return 1;
	}
	rodata = find_internal_map(obj, ".rodata");
	counts = bpf_object__find_map_by_name(obj, "xsink_counts");
	prog = bpf_object__find_program_by_name(obj, "xsink");
	if (!rodata || !counts || !prog) {
		fprintf(stderr, "xsink: BPF object incomplete\n");
		return 1;
	}
	err = bpf_map__set_initial_value(rodata, &pass, sizeof(pass));
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "xsink: load BPF object: %s\n", strerror(-err));
		return 1;
	}
	prog_fd = bpf_program__fd(prog);
	map_fd = bpf_map__fd(counts);
	bpf_obj_get_info_by_fd(prog_fd, &info, &info_len);

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	/* No UPDATE_IF_NOEXIST: replace whatever program is attached. */
	err = bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_DRV_MODE, NULL);
	if (err) {
		fprintf(stderr, "xsink: attach to %s (native): %s\n", dev,
			strerror(-err));
		return 1;
	}
	printf("xsink: attached to %s (prog id %u, %s)\n", dev, info.id,
	       pass ? "pass" : "drop");
	fflush(stdout);

	t0 = tlast = now_s();
	deadline = duration > 0 ? t0 + duration : 0;
	while (!stop) {
		double t, wait = interval;

		if (deadline) {
			t = now_s();
			if (t >= deadline)
				break;
			if (deadline - t < wait)
				wait = deadline - t;
		}
		poll(NULL, 0, (int)(wait * 1000));
		if (stop || quiet)
			continue;
		t = now_s();
		if (read_counts(map_fd, ncpus, vals, &sum))
			continue;
		printf("xsink: %s %.3f Mpps %.3f Gbit/s (packets %llu)\n", dev,
		       (sum.packets - last.packets) / (t - tlast) / 1e6,
		       (sum.bytes - last.bytes) * 8.0 / (t - tlast) / 1e9,
		       (unsigned long long)sum.packets);
		fflush(stdout);
		last = sum;
		tlast = t;
	}

	if (read_counts(map_fd, ncpus, vals, &sum))
		memset(&sum, 0, sizeof(sum));
	{
		/* Only if ours is still attached (XDP_FLAGS_REPLACE). */
		LIBBPF_OPTS(bpf_xdp_attach_opts, dopts, .old_prog_fd = prog_fd);

		bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, &dopts);
	}
	printf("xsink: total packets %llu bytes %llu seconds %.3f\n",
	       (unsigned long long)sum.packets, (unsigned long long)sum.bytes,
	       now_s() - t0);
	bpf_object__close(obj);
	free(vals);
	return 0;
}
