#!/usr/bin/env bash
# The collectives benchmark harness (bench/run) works end to end and never
# leaves its testbed behind:
#  - a short all-reduce through xdplane with storage cross-traffic completes:
#    exit 0, every rank's sums verified (the runs.csv row is ok), storage
#    bytes arrived, the table, CSVs and plots are written;
#  - interrupted (SIGINT, then SIGTERM in a second run) while its 12
#    namespaces and ~20 processes are up: it exits 130, and no namespace,
#    generator or daemon of it is left;
#  - the spine variant (a FIFO beyond the gateway, cross-traffic joining
#    there): its 16 namespaces come up, the spine's queue, the gateway's
#    /metrics and the cross-traffic are recorded, and it is removed.
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

# 3. the spine testbed (bench/lib/spine.py): 16 namespaces (the spine, the
#    cross-traffic's source and sink on top of the 13), the spine's TBF and
#    the gateway's /metrics sampled, the cross-traffic delivered, the
#    effective-rate plot written, and nothing left. handshaped needs no
#    daemon feature beyond today's (no adaptive key).
python3 "$SRC/bench/run" allreduce-spine-handshaped "${small[@]}" \
	--cross 0:0.2 --out "$OUT/spine" >"$OUT/spine.out" 2>"$OUT/spine.err" &
RUNPID=$!
prefix="xc$((RUNPID % 100000))"
n=0
for _ in $(seq 300); do
	n=$(ip netns list | awk '{print $1}' | grep -c "^${prefix}" || true)
	[ "$n" -ge 16 ] && ip netns list | grep -q "^${prefix}sp" && break
	kill -0 $RUNPID 2>/dev/null || break
	sleep 0.1
done
rc=0
wait $RUNPID || rc=$?
pid=$RUNPID
RUNPID=""
[ $rc -eq 0 ] || { cat "$OUT/spine.err" >&2; fail "spine: bench/run exit status $rc"; }
[ "$n" -ge 16 ] || fail "spine: expected 16 namespaces up, saw $n"
grep -q '^| allreduce-spine-handshaped |.*| 1/1 |$' "$OUT/spine.out" ||
	{ cat "$OUT/spine.out" >&2; fail "spine: no ok table row"; }
python3 - "$OUT/spine" <<'EOF2' || fail "spine outputs"
import csv, glob, sys
d = sys.argv[1]
r = list(csv.DictReader(open(f"{d}/runs.csv")))[0]
assert r["ok"] == "True", r
assert float(r["spine_avail_mbps"]) > 0, r
assert r["spine_q_p99_kb"] != "", r
for name in ("spine.csv", "metrics.csv", "xd-timeline.csv"):
    f = glob.glob(f"{d}/logs/*-{name}")
    assert f and sum(1 for _ in open(f[0])) > 2, name
x = glob.glob(f"{d}/logs/*-xd.json")
assert x and '"udp_datagrams":0,' not in open(x[0]).read(), "no cross-traffic"
print(f"ok: spine queue p99 {float(r['spine_q_p99_kb']):.0f} KB, "
      f"storage {float(r['storage_mbps']):.1f} Mbit/s", file=sys.stderr)
EOF2
[ -s "$OUT/spine/plots/effrate-allreduce-spine-handshaped-r1.png" ] ||
	fail "spine: no effective-rate plot"
[ -z "$(leftovers $pid spine)" ] || fail "spine: left behind: $(leftovers $pid spine)"
echo "ok: spine testbed built ($n namespaces), measured and removed" >&2
