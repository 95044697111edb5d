#!/usr/bin/env bash
# The collectives benchmark harness (bench/run) works end to end and never
# leaves its testbed behind:
#  - a short all-reduce through xdplane with storage cross-traffic completes:
#    exit 0, every rank's sums verified (the runs.csv row is ok), storage
#    bytes arrived, the table, CSVs and plots are written;
#  - interrupted (SIGINT, then SIGTERM in a second run) while its 12
#    namespaces and ~20 processes are up: it exits 130, and no namespace,
#    generator or daemon of it is left.
# No rates are asserted: this machine's numbers are bench/README.md's.
set -euo pipefail
: "${XDPLANE_BUILD:?}"
SRC=${XDPLANE_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=$(mktemp -d /tmp/t-bench-run.XXXXXX)
RUNPID=""
cleanup() {
	[ -n "$RUNPID" ] && kill -KILL "$RUNPID" 2>/dev/null || true
	rm -rf "$OUT"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

small=(--quick --model 256KiB --chunk 32KiB --iters 2 --storage-flows 2
	--burst-bytes 64KiB --timeout 60 --build "$XDPLANE_BUILD")

# leftovers of a run whose python pid was $1: namespaces and processes
leftovers() {
	local prefix="xc$(($1 % 100000))"
	ip netns list | awk '{print $1}' | grep "^${prefix}" || true
	pgrep -f "$OUT/$2" || true
}

# 1. a complete run
python3 "$SRC/bench/run" allreduce-xdplane "${small[@]}" --out "$OUT/full" \
	>"$OUT/full.out" 2>"$OUT/full.err" &
RUNPID=$!
rc=0
wait $RUNPID || rc=$?
pid=$RUNPID
RUNPID=""
[ $rc -eq 0 ] || { cat "$OUT/full.err" >&2; fail "bench/run exit status $rc"; }
grep -q '^| allreduce-xdplane |.*| 1/1 |$' "$OUT/full.out" ||
	{ cat "$OUT/full.out" >&2; fail "no ok table row"; }
python3 - "$OUT/full/runs.csv" <<'EOF' || fail "runs.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1, rows
r = rows[0]
assert r["ok"] == "True", r
assert float(r["coll_s"]) > 0, r
assert int(r["verify_errors"]) == 0, r
assert float(r["storage_mbps"]) > 0, r
print(f"ok: collective {float(r['coll_s']):.3f} s/iteration, storage "
      f"{float(r['storage_mbps']):.1f} Mbit/s", file=sys.stderr)
EOF
for f in table.md summary.csv env.json plots/completion.png \
	plots/throughput-allreduce-xdplane.png plots/queue-allreduce-xdplane.png \
	plots/latency-cdf-allreduce.png; do
	[ -s "$OUT/full/$f" ] || fail "missing $f"
done
[ -z "$(leftovers $pid full)" ] || fail "left behind after a complete run: $(leftovers $pid full)"
echo "ok: complete run, outputs written, nothing left" >&2

# 2. interrupted runs: SIGINT (Ctrl-C) and SIGTERM (systemd, timeout)
for sig in INT TERM; do
	python3 "$SRC/bench/run" allreduce-fifo "${small[@]}" --model 4MiB \
		--out "$OUT/int-$sig" >"$OUT/int-$sig.out" 2>"$OUT/int-$sig.err" &
	RUNPID=$!
	prefix="xc$((RUNPID % 100000))"
	# until the hosts' generators run
	for _ in $(seq 300); do
		pgrep -f "$OUT/int-$sig/logs/.*rank7" >/dev/null && break
		sleep 0.1
	done
	n=$(ip netns list | awk '{print $1}' | grep -c "^${prefix}" || true)
	[ "$n" -ge 12 ] || fail "SIG$sig: expected the testbed up, $n namespaces"
	kill -"$sig" $RUNPID
	rc=0
	wait $RUNPID || rc=$?
	pid=$RUNPID
	RUNPID=""
	[ $rc -eq 130 ] || { cat "$OUT/int-$sig.err" >&2; fail "SIG$sig: exit $rc, want 130"; }
	left=$(leftovers $pid "int-$sig")
	[ -z "$left" ] || fail "SIG$sig: left behind: $left"
	echo "ok: SIG$sig with $n namespaces up: exit 130, nothing left" >&2
done
