// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udpcheck.c - byte-exact UDP delivery check, used by the integration tests
 * and the benchmarks to prove that the gateway delivers every datagram
 * unchanged (no loss, no corruption, no duplication; reordering is counted
 * but tolerated).
 *
 *   udpcheck send --to ADDR:PORT --count N [--min 18] [--max BYTES] ...
 *   udpcheck recv --bind ADDR:PORT --expect N [--timeout-ms 3000] ...
 *   udpcheck selftest
 *
 * Protocol. Sender and receiver share a seed (--seed, default 1). Datagram i
 * (0 <= i < N) is a UDP payload of len(i) bytes, min <= len(i) <= max:
 * len(0) = min, len(1) = max, otherwise min + H(seed, i) mod (max - min + 1);
 * with --sweep (both sides) len(i) = min + i mod (max - min + 1): every
 * size in turn.
 * Its content is fully determined by (seed, i, len):
 *
 *   offset  size  field (network byte order)
 *        0     4  magic 0x55445043 ("UDPC")
 *        4     4  sequence number i
 *        8     2  length of the whole UDP payload (len)
 *       10     8  checksum: keyed 64-bit hash of (seed, i, len, bytes 18..len)
 *       18   len-18  pseudo-random bytes, xorshift64* seeded from
 *                 splitmix64(seed, i, len), each 64-bit output stored
 *                 little-endian
 *
 * The receiver takes seq and len from the header, regenerates the datagram
 * and compares all len bytes; any difference (or a datagram whose size does
 * not match its length field, a bad magic, a seq >= N) counts as corrupt.
 * A seq that already arrived intact counts as a duplicate; an intact
 * datagram whose seq is below the highest seq seen so far counts as
 * reordered. missing = N - (distinct seqs received intact).
 */
#include "udpcheck.h"

/* ---- usage -------------------------------------------------------------- */

/* printf format; at most 68 columns per line */
static const char usage_fmt[] =
	"usage: udpcheck send --to ADDR:PORT --count N [--min BYTES]\n"
	"                     [--max BYTES] [--rate PPS] [--seed S] [--frag]\n"
	"       udpcheck recv --bind ADDR:PORT --expect N [--timeout-ms MS]\n"
	"                     [--seed S] [--min BYTES --max BYTES]\n"
	"                     [--linger-ms MS] [--json]\n"
	"       udpcheck selftest\n"
	"\n"
	"Byte-exact UDP delivery check. The sender emits N datagrams of\n"
	"mixed sizes whose content is a function of (seed, seq, length);\n"
	"the receiver regenerates each one and compares every byte.\n"
	"\n"
	"ADDR:PORT  numeric: 10.0.0.1:9000, [fd00::1]:9000, [fe80::1%%eth0]:9\n"
	"send:\n"
	"  --to ADDR:PORT    destination\n"
	"  --count N         datagrams to send (seq 0..N-1)\n"
	"  --min BYTES       smallest UDP payload, >= %u (default %u)\n"
	"  --max BYTES       largest UDP payload (default %u for IPv4, %u\n"
	"                    for IPv6): payload = MTU - 28 (IPv4) or\n"
	"                    MTU - 48 (IPv6). Datagram 0 has --min bytes,\n"
	"                    datagram 1 --max bytes, the rest are uniform\n"
	"                    in [min, max]\n"
	"  --sweep           every size in turn: min, min + 1, ..., max,\n"
	"                    min, ... (the receiver needs it too)\n"
	"  --rate PPS        pacing in packets/s (default %u), with bursts\n"
	"                    of at most 256 when the sender falls behind;\n"
	"                    0 = unpaced, as fast as the socket takes\n"
	"                    them: this may overrun the receiver, whose\n"
	"                    drops then count as missing\n"
	"  --seed S          content seed, must match the receiver's\n"
	"                    (default %u)\n"
	"  --frag            allow IP fragmentation (default: DF set, and a\n"
	"                    datagram above the path MTU fails: EMSGSIZE)\n"
	"recv:\n"
	"  --bind ADDR:PORT  local address ([::]:PORT takes IPv4 too)\n"
	"  --expect N        datagrams expected (seq 0..N-1)\n"
	"  --timeout-ms MS   stop after MS without a datagram (default %u;\n"
	"                    0 = never)\n"
	"  --seed S          content seed (default %u)\n"
	"  --min/--max BYTES also check every length against the sender's\n"
	"                    size choice for these bounds (default: off)\n"
	"  --linger-ms MS    keep listening MS after the last expected\n"
	"                    datagram, to catch late duplicates (default 0)\n"
	"  --json            print the result as one JSON object on stdout\n"
	"                    (the summary line then goes to stderr)\n"
	"  Prints \"udpcheck: ready\" on stderr once bound. Stops after N\n"
	"  distinct intact datagrams, the idle timeout or SIGINT/SIGTERM,\n"
	"  then prints the line\n"
	"  udpcheck: received=R ok=K corrupt=C duplicate=D reordered=O\n"
	"  missing=M\n"
	"  (one line). Exit 0 iff ok == N, corrupt == 0, duplicate == 0.\n"
	"selftest: checks the generator, and that the verifier catches\n"
	"  corrupted, truncated, extended and misattributed datagrams.\n"
	"\n"
	"Exit status: 0 success, 1 check failed or error, 2 bad usage.\n";

static void usage(FILE *f)
{
	fprintf(f, usage_fmt, UC_HDR_LEN, UC_HDR_LEN, UC_DEF_MAX_V4,
		UC_DEF_MAX_V6, UC_DEF_RATE, UC_DEF_SEED, UC_DEF_TIMEOUT_MS,
		UC_DEF_SEED);
}

__attribute__((noreturn)) static void bad_usage(const char *msg,
						const char *arg)
{
	if (msg)
		fprintf(stderr, "udpcheck: %s%s%s\n", msg, arg ? ": " : "",
			arg ? arg : "");
	usage(stderr);
	exit(2);
}

/* ---- main --------------------------------------------------------------- */

enum {
	OPT_TO = 256,
	OPT_COUNT,
	OPT_MIN,
	OPT_MAX,
	OPT_RATE,
	OPT_SEED,
	OPT_FRAG,
	OPT_BIND,
	OPT_EXPECT,
	OPT_TIMEOUT,
	OPT_LINGER,
	OPT_JSON,
	OPT_SWEEP,
};

int main(int argc, char **argv)
{
	static const struct option send_lo[] = {
		{"to", required_argument, NULL, OPT_TO},
		{"count", required_argument, NULL, OPT_COUNT},
		{"min", required_argument, NULL, OPT_MIN},
		{"max", required_argument, NULL, OPT_MAX},
		{"rate", required_argument, NULL, OPT_RATE},
		{"seed", required_argument, NULL, OPT_SEED},
		{"frag", no_argument, NULL, OPT_FRAG},
		{"sweep", no_argument, NULL, OPT_SWEEP},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct option recv_lo[] = {
		{"bind", required_argument, NULL, OPT_BIND},
		{"expect", required_argument, NULL, OPT_EXPECT},
		{"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
		{"linger-ms", required_argument, NULL, OPT_LINGER},
		{"seed", required_argument, NULL, OPT_SEED},
		{"min", required_argument, NULL, OPT_MIN},
		{"max", required_argument, NULL, OPT_MAX},
		{"json", no_argument, NULL, OPT_JSON},
		{"sweep", no_argument, NULL, OPT_SWEEP},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct send_opts so = {
		.min = UC_HDR_LEN, .rate = UC_DEF_RATE, .seed = UC_DEF_SEED};
	struct recv_opts ro = {.timeout_ms = UC_DEF_TIMEOUT_MS,
			       .seed = UC_DEF_SEED,
			       .min = UC_HDR_LEN};
	const struct option *lo;
	const char *cmd;
	bool is_send, have_count = false, have_min = false;
	int c;

	if (argc < 2)
		bad_usage(NULL, NULL);
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "selftest")) {
		if (argc != 2)
			bad_usage("selftest takes no arguments", NULL);
		return do_selftest();
	}
	if (!strcmp(cmd, "send"))
		is_send = true;
	else if (!strcmp(cmd, "recv"))
		is_send = false;
	else
		bad_usage("unknown command", cmd);
	lo = is_send ? send_lo : recv_lo;

	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		bool ok = true;

		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case OPT_TO:
			ok = so.have_to = nu_parse_addr("udpcheck", optarg,
							&so.to, &so.tolen);
			break;
		case OPT_BIND:
			ok = ro.have_bind = nu_parse_addr(
				"udpcheck", optarg, &ro.bind, &ro.bindlen);
			break;
		case OPT_COUNT:
			ok = have_count =
				nu_parse_u64(optarg, 1, UINT32_MAX, &so.count);
			break;
		case OPT_EXPECT:
			ok = have_count =
				nu_parse_u64(optarg, 1, UINT32_MAX, &ro.expect);
			break;
		case OPT_MIN:
			ok = have_min =
				nu_parse_u64(optarg, UC_HDR_LEN, UC_MAX_V6,
					     is_send ? &so.min : &ro.min);
			break;
		case OPT_MAX:
			ok = nu_parse_u64(optarg, UC_HDR_LEN, UC_MAX_V6,
					  is_send ? &so.max : &ro.max);
			break;
		case OPT_RATE:
			ok = nu_parse_u64(optarg, 0, 100000000, &so.rate);
			break;
		case OPT_SEED:
			ok = nu_parse_u64(optarg, 0, UINT64_MAX,
					  is_send ? &so.seed : &ro.seed);
			break;
		case OPT_FRAG:
			so.frag = true;
			break;
		case OPT_TIMEOUT:
			ok = nu_parse_u64(optarg, 0, 86400000, &ro.timeout_ms);
			break;
		case OPT_LINGER:
			ok = nu_parse_u64(optarg, 0, 86400000, &ro.linger_ms);
			break;
		case OPT_JSON:
			ro.json = true;
			break;
		case OPT_SWEEP:
			sweep_sizes = true;
			break;
		default:
			bad_usage(NULL, NULL);
		}
		if (!ok)
			bad_usage("invalid value", optarg);
	}
	if (optind != argc)
		bad_usage("unexpected argument", argv[optind]);

	if (is_send) {
		uint64_t cap =
			so.to.ss_family == AF_INET ? UC_MAX_V4 : UC_MAX_V6;

		if (!so.have_to || !have_count)
			bad_usage("send needs --to and --count", NULL);
		if (!so.max)
			so.max = so.to.ss_family == AF_INET ? UC_DEF_MAX_V4
							    : UC_DEF_MAX_V6;
		if (so.max > cap)
			bad_usage("--max exceeds the largest UDP payload",
				  NULL);
		if (so.min > so.max)
			bad_usage("--min is larger than --max", NULL);
		return do_send(&so);
	}
	if (!ro.have_bind || !have_count)
		bad_usage("recv needs --bind and --expect", NULL);
	if (have_min && !ro.max)
		bad_usage("recv: --min needs --max", NULL);
	if (ro.max && ro.min > ro.max)
		bad_usage("--min is larger than --max", NULL);
	return do_recv(&ro);
}
