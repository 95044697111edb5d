#!/usr/bin/env bash
# DCQCN in the gateway does not turn a descheduled worker into a slow
# collective: bench/run's all-reduce (8 RoCE hosts whose NICs run DCQCN,
# storage cross-traffic) through xdplane's classes and through the same
# classes with `dcqcn: true`, the daemon stopped for 5 ms at random
# intervals of mean 100 ms in both (bench/run --stall 5:100), the two
# scenarios alternating, two repetitions each. Asserted, side by side in
# one run: the DCQCN class's median collective time within 1.15x of the
# plain classes' (and every repetition within 1.5x), and it drops no
# RoCE frame. The numbers (times, gateway marks, CNPs the hosts got, the
# RoCE queue, the stalls) are printed.
set -euo pipefail
: "${XDPLANE_BUILD:?}"
SRC=${XDPLANE_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=$(mktemp -d /tmp/t-dcqcn-stall.XXXXXX)
RUNPID=""
cleanup() {
	[ -n "$RUNPID" ] && kill -TERM "$RUNPID" 2>/dev/null && wait "$RUNPID" || true
	rm -rf "$OUT"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$SRC/bench/run" allreduce-xdplane allreduce-dcqcn --quick --reps 2 \
	--stall 5:100 --no-plots --timeout 40 --build "$XDPLANE_BUILD" \
	--out "$OUT/run" >"$OUT/run.out" 2>"$OUT/run.err" &
RUNPID=$!
rc=0
wait $RUNPID || rc=$?
RUNPID=""
[ $rc -eq 0 ] || { tail -20 "$OUT/run.err" >&2; fail "bench/run exit status $rc"; }
python3 - "$OUT/run/runs.csv" <<'PY' || fail "dcqcn slower than the plain classes under stalls"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    assert r["ok"] == "True", r
    assert int(r["stalls"]) > 0, r
    by.setdefault(r["scenario"], {})[r["rep"]] = r
plain, dc = by["allreduce-xdplane"], by["allreduce-dcqcn"]
ratios = []
for rep in sorted(dc):
    a, b = plain[rep], dc[rep]
    ratios.append(float(b["coll_s"]) / float(a["coll_s"]))
    for n, r in (("xdplane", a), ("dcqcn", b)):
        print(f"rep {rep} {n}: {float(r['coll_s']):.3f} s, {r['stalls']} "
              f"stalls ({r['stalled_ms']} ms), gw marks {r['gw_marks']}, "
              f"host CNPs {r['cnps_received']}, RoCE queue max "
              f"{float(r['q_gw1_max_kb']):.0f} KB, drops {r['gw_roce_drops']}",
              file=sys.stderr)
med = statistics.median(ratios)
print("dcqcn / xdplane: " + ", ".join(f"{x:.2f}x" for x in ratios)
      + f", median {med:.2f}x", file=sys.stderr)
assert all(int(r["gw_roce_drops"]) == 0 for r in dc.values())
assert med <= 1.15 and max(ratios) <= 1.5, ratios
PY
echo "ok" >&2
