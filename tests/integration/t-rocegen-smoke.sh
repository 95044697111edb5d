#!/usr/bin/env bash
# rocegen (bench/coll) end to end on real sockets: 4 processes, one per
# rank, in a namespace of their own (4 addresses on its lo), run
#  - a ring all-reduce (3 iterations): every rank exits 0, verifies its
#    sums, received exactly 2 (N-1)/N x model per iteration, no ICRC error,
#    a latency histogram that adds up, a timeline with rows;
#  - a parameter server job: the server received 3 x model per iteration,
#    each worker 1 x model;
#  - a rank missing: the others give up at --timeout-s, exit 1 and still
#    write their JSON (timed_out);
#  - an idle rank answers a CE-marked packet with an ACK and a CNP (valid
#    ICRC, DSCP 48) and drops a bad ICRC; stopped by SIGTERM it exits 0
#    with its JSON written.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
GEN="$XDPLANE_BUILD/bench/coll/rocegen"
[ -x "$GEN" ] || tb_fail "no $GEN (build first)"
NS=$TB_A # removed by tb_cleanup
ip netns add "$NS"
ip -n "$NS" link set lo up
HOSTS="$TB_DIR/hosts"
: >"$HOSTS"
for r in 0 1 2 3; do
	ip -n "$NS" addr add "127.0.9.$((r + 1))/32" dev lo
	echo "$r 127.0.9.$((r + 1))" >>"$HOSTS"
done

# run_job NAME RANKS ARGS...: start one rocegen per rank in RANKS, wait for
# all; their exit codes in $TB_DIR/NAME.rcs
run_job() {
	local name=$1 ranks=$2 start r
	shift 2
	start=$(($("$GEN" --print-clock) + 300000000))
	local pids=()
	for r in $ranks; do
		tb_spawn "$name-$r" "$NS" "$GEN" --rank "$r" --hosts "$HOSTS" \
			--start-at "$start" --out "$TB_DIR/$name-$r.json" \
			--timeline "$TB_DIR/$name-$r.csv" --linger-ms 200 "$@"
		pids+=("$TB_LAST_PID")
	done
	local rcs=""
	for pid in "${pids[@]}"; do
		local rc=0
		wait "$pid" || rc=$?
		rcs="$rcs $rc"
	done
	echo "$rcs" >"$TB_DIR/$name.rcs"
	echo "$name: exit codes$rcs" >&2
}

# check NAME PYTHON-EXPR-PER-RANK...: python checks over the ranks' JSON
check() {
	python3 - "$TB_DIR" "$@" <<'EOF'
import json, sys
d, name, nranks, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
model, iters = int(sys.argv[5]), int(sys.argv[6])
bad = []
def want(cond, what):
    if not cond:
        bad.append(what)
for r in range(nranks):
    j = json.load(open(f"{d}/{name}-{r}.json"))
    t = j["totals"]
    its = j["iterations"]
    want(j["rank"] == r and j["job"] == kind, f"rank {r}: identity")
    want(j["completed"] and len(its) == iters, f"rank {r}: {len(its)} iterations")
    want(all(i["end_ns"] > i["start_ns"] > 0 for i in its), f"rank {r}: times")
    want(all(its[k]["start_ns"] >= its[k - 1]["end_ns"] for k in range(1, len(its))),
         f"rank {r}: iterations overlap")
    for k in ("verify_errors", "icrc_bad", "protocol_errors", "post_errors", "malformed"):
        want(t[k] == 0, f"rank {r}: {k} {t[k]}")
    if kind == "allreduce":
        exp = 2 * (nranks - 1) * (model // nranks) * iters
    elif r == 1:  # the server
        exp = (nranks - 1) * model * iters
    else:
        exp = model * iters
    want(t["message_bytes_received"] == exp,
         f"rank {r}: received {t['message_bytes_received']} bytes, want {exp}")
    want(t["data_packets_sent"] > 0 and t["acks_sent"] > 0, f"rank {r}: no traffic")
    lat = j["latency_us"]
    want(lat["samples"] == t["data_packets_received"], f"rank {r}: latency samples")
    want(sum(c for _, c in j["latency_hist"]) == lat["samples"], f"rank {r}: histogram")
    want(0 < lat["p50"] <= lat["p99"] <= lat["max"] + 1e-9, f"rank {r}: percentiles {lat}")
    rows = open(f"{d}/{name}-{r}.csv").read().splitlines()
    want(rows[0] == "t_ns,qp_peer,dir,bytes,packets,rate_bps,cnps,retrans"
         and len(rows) > 2, f"rank {r}: timeline")
    tx = sum(int(x.split(",")[3]) for x in rows[1:] if x.split(",")[2] == "tx")
    want(tx == t["data_bytes_sent"], f"rank {r}: timeline tx {tx} != {t['data_bytes_sent']}")
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
}

run_job ar "0 1 2 3" --job allreduce --model 256KiB --chunk 16KiB --iters 3 \
	--line-rate 200Mbit --timeout-s 60
[ "$(cat "$TB_DIR/ar.rcs")" = " 0 0 0 0" ] || tb_fail "allreduce exit codes $(cat "$TB_DIR/ar.rcs")"
check ar 4 allreduce 262144 3 || tb_fail "allreduce results"
tb_pass "allreduce: 4 ranks x 3 iterations verified"

run_job ps "0 1 2 3" --job ps --server 1 --model 96KiB --chunk 32KiB --iters 2 \
	--line-rate 200Mbit --cc dcqcn --timeout-s 60
[ "$(cat "$TB_DIR/ps.rcs")" = " 0 0 0 0" ] || tb_fail "ps exit codes $(cat "$TB_DIR/ps.rcs")"
check ps 4 ps 98304 2 || tb_fail "ps results"
tb_pass "ps: incast to rank 1 and back, byte counts right"

# rank 3 never starts: the ring stalls, everyone gives up after 2 s
run_job stall "0 1 2" --job allreduce --model 64KiB --iters 1 --timeout-s 2
[ "$(cat "$TB_DIR/stall.rcs")" = " 1 1 1" ] || tb_fail "stalled ring exit codes $(cat "$TB_DIR/stall.rcs")"
python3 -c '
import json, sys
for r in range(3):
    j = json.load(open(f"{sys.argv[1]}/stall-{r}.json"))
    assert j["timed_out"] and not j["completed"] and j["exit_status"] == 1, j
    # rank 2 sends to the missing rank 3: nothing acknowledged
    assert r != 2 or j["totals"]["timeouts"] > 0, j["totals"]
' "$TB_DIR" || tb_fail "stalled ring JSON"
tb_pass "a missing rank: timeouts, exit 1, JSON written"

# An idle rank answers like a NIC (tests/lib/rocegen_nic.py plays rank 1):
# ACK and CNP for a CE-marked packet, a bad ICRC dropped and counted.
tb_spawn idle "$NS" "$GEN" --rank 0 --hosts "$HOSTS" --job idle \
	--out "$TB_DIR/idle.json"
pid=$TB_LAST_PID
sleep 0.3
ip netns exec "$NS" python3 "$XDPLANE_SOURCE/tests/lib/rocegen_nic.py" \
	127.0.9.2 127.0.9.1 || tb_fail "the idle rank's answers"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || tb_fail "idle rank exit status $rc after SIGTERM"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
t = j["totals"]
assert j["interrupted"], j
assert t["icrc_bad"] == 1 and t["ce_seen"] == 1 and t["cnps_sent"] == 1, t
assert t["acks_sent"] == 1 and t["data_packets_received"] == 1, t
' "$TB_DIR/idle.json" || tb_fail "idle JSON"
tb_pass "idle rank: ACK + CNP for a CE mark, bad ICRC dropped; SIGTERM: exit 0"
