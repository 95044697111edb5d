#!/usr/bin/env bash
# The forwarding benchmark (bench/fwd) on a kernel that refuses BPF_PROG_RUN
# with live frames (simulated with XDPLANE_BENCH_REFUSE_PROG_RUN=1: xgen
# fails with EPERM as such a kernel makes it fail):
#  - it says in one line why xgen cannot run and measures with xskgen, the
#    AF_XDP TX generator, instead: exit 0, no traceback, the table names
#    xskgen, the xdplane and bridge rows forwarded (gw egress > 0);
#  - it prints "point k of N" with the time left;
#  - --gen both says that xskgen is the only generator measured;
#  - no namespace or process of it is left.
# No rates are compared: each row is only required to forward.
set -euo pipefail
: "${XDPLANE_BUILD:?}"
SRC=${XDPLANE_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=$(mktemp -d /tmp/t-bench-fwd-fallback.XXXXXX)
RUNPID=""
cleanup() {
	[ -n "$RUNPID" ] && kill -TERM "$RUNPID" 2>/dev/null && wait "$RUNPID" || true
	rm -rf "$OUT"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

export XDPLANE_BENCH_REFUSE_PROG_RUN=1
short=(--sizes 60 --warmup 1 --duration 1 --lat-count 0 --idle-wait 5
	--settle 0 --retries 0 --build "$XDPLANE_BUILD")

# fwd NAME ARGS...: run bench/fwd, output in $OUT/NAME{,.out,.err}; checks
# the exit status, the traceback and what is left behind
fwd() {
	local name=$1 rc=0 pid
	shift
	python3 "$SRC/bench/fwd" "${short[@]}" --out "$OUT/$name" "$@" \
		>"$OUT/$name.out" 2>"$OUT/$name.err" &
	RUNPID=$!
	wait $RUNPID || rc=$?
	pid=$RUNPID
	RUNPID=""
	cat "$OUT/$name.err" >&2
	cat "$OUT/$name.out"
	! grep -q Traceback "$OUT/$name.err" || fail "$name: traceback"
	[ $rc -eq 0 ] || fail "$name: bench/fwd exit status $rc"
	! ip netns list | grep -q "^xfwd${pid}" ||
		fail "$name: namespaces left: $(ip netns list | grep "^xfwd${pid}")"
	! pgrep -f "$OUT/$name/" >/dev/null || fail "$name: processes left"
}

# 1. auto: the refusal detected, xskgen measures both rows
fwd auto --rows xdplane,bridge
out=$OUT/auto.out
grep -q '^generator: xskgen (AF_XDP TX, copy mode); xgen refused: .*Operation not permitted (simulated' "$out" ||
	fail "auto: no one-line reason naming xskgen"
grep -q '^| forwarder (gateway on CPU [0-9]*; generator xskgen (AF_XDP TX, copy mode)) |' "$out" ||
	fail "auto: the table does not name xskgen"
grep -q 'point 2 of 2: .*, about .* left' "$OUT/auto.err" ||
	fail "auto: no progress line"
python3 - "$OUT/auto/summary.csv" <<'PY' || fail "auto: summary"
import csv, sys
rows = {r["row"]: r for r in csv.DictReader(open(sys.argv[1]))}
for name in ("xdplane", "bridge"):
    r = rows[name]
    assert r["gen"] == "xskgen", r
    for k in ("gw_egress_pps_median", "b_rx_pps_median", "offered_pps_median"):
        assert float(r[k]) > 0, (name, k, r[k])
    print(f"ok: {name} with xskgen: gw egress "
          f"{float(r['gw_egress_pps_median']) / 1e6:.3f} Mpps",
          file=sys.stderr)
PY

# 2. both: only xskgen runs, and the output says so
fwd both --rows bridge --gen both
grep -q '^generator: xskgen (AF_XDP TX, copy mode), the only one measured; xgen refused' \
	"$OUT/both.out" || fail "both: does not say xskgen is the only one"
echo "ok: refusal reported, xskgen measured, nothing left" >&2
