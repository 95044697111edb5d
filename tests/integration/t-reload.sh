#!/usr/bin/env bash
# Live reload under continuous traffic. hostA sends a sequenced UDP stream
# (udpcheck) to hostB through the gateway while the configuration file is
# rewritten and reloaded 100 times through the control socket: every reload
# changes the class rates (ceilings, weights) and the rule that classifies
# the stream (roce -> storage -> a class that exists only for that reload
# and is removed by the next one). Shown:
#  - every reload is applied: generation +1 each time, the new ceiling is
#    what the daemon reports right after the reload returns;
#  - counters are continuous: port and class counters never go back;
#  - no frame lost or leaked: every datagram arrives byte-identical, and the
#    frame census at stop finds every UMEM frame exactly once;
#  - the new rates are in force: after the 100 reloads, a saturating flow
#    in one class measured under ceilings 10 and 30 Mbit/s (reload between
#    the two) leaves at a ratio of 3 (within 15 %). (Low rates: the shared
#    2-core machine must be able to fill the higher one.)
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
RELOADS=${RELOADS:-100}
RATE=${RATE:-2000} # datagrams/s of the checked stream
tb_init
tb_build
SOCK="$TB_DIR/ctl.sock"
CFG="$TB_DIR/gw.yaml"

# write_cfg ROCE_CEIL_MBIT STREAM_CLASS QUANTUM
write_cfg() {
	local extra=""
	[ "$2" = extra ] && extra="  - {name: extra, level: 2, quantum: 1500}"
	cat >"$CFG.tmp" <<YAML
ports:
  - interface: gw0
  - interface: gw1
control: {socket: "$SOCK", metrics_listen: ""}
workers: {cpus: [0]}
classes:
  - {name: roce, level: 1, ceil: ${1}Mbit, ceil_burst: 30KB}
  - {name: default, level: 2, quantum: $3}
  - {name: storage, level: 3, ceil: $((200 + $1))Mbit}
$extra
rules:
  - {class: roce, match: {proto: udp, dport: 4791}}
  - {class: $2, match: {proto: udp, dport: 9000}}
default_class: default
YAML
	mv "$CFG.tmp" "$CFG" # the daemon never reads a half-written file
}

write_cfg 100 roce 9000
tb_start_gw gw "$CFG"

N=$((RATE * 30))
UC="$XDPLANE_BUILD/tests/tools/udpcheck"
tb_spawn recv B "$UC" recv --bind $TB_IP_B:9000 --expect $N --seed 3 --timeout-ms 5000 --json
RECV=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/recv.log" && break; sleep 0.1; done
tb_spawn send A "$UC" send --to $TB_IP_B:9000 --count $N --min 18 --max 600 --rate $RATE --seed 3
SEND=$TB_LAST_PID
sleep 1

export XDPLANE_TB_DIR=$TB_DIR
cat >"$TB_DIR/reloads.py" <<'PY'
import os, subprocess, sys, time
sys.path.insert(0, os.environ["XDPLANE_SOURCE"] + "/tests/lib")
from xdpctl import Ctl, port, klass

reloads, sock, send_pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
ctl = Ctl(sock)
gen0 = ctl.call("status")["config"]["generation"]
last = {}
def check_monotonic(stats, when):
    for p in stats["ports"]:
        keys = {("rx", p["name"]): p["rx_packets"], ("tx", p["name"]): p["tx_packets"]}
        for c in p["classes"]:
            if c["name"] != "extra":
                keys[("sent", p["name"], c["name"])] = c["sent_packets"]
                keys[("enq", p["name"], c["name"])] = c["enq_packets"]
        for k, v in keys.items():
            if v < last.get(k, 0):
                sys.exit(f"FAIL: counter {k} went back from {last[k]} to {v} {when}")
            last[k] = v

check_monotonic(ctl.call("stats"), "before the reloads")
classes = ["roce", "storage", "extra"]
t0 = time.monotonic()
for i in range(1, reloads + 1):
    ceil = 20 + (i % 7) * 10
    cls = classes[i % 3]
    subprocess.run(["bash", os.environ["XDPLANE_TB_DIR"] + "/write_cfg.sh", str(ceil), cls,
                    str(1500 + 100 * i)], check=True)
    r = ctl.call("reload")
    if not r["applied"] or r["generation"] != gen0 + i:
        sys.exit(f"FAIL: reload {i}: {r}")
    st = ctl.call("stats")
    eg = port(st, "gw1")
    got = klass(eg, "roce")["ceil_bps"]
    if got != ceil * 1000000:
        sys.exit(f"FAIL: reload {i}: roce ceiling {got}, expected {ceil}Mbit")
    if (cls == "extra") != any(c["name"] == "extra" for c in eg["classes"]):
        sys.exit(f"FAIL: reload {i}: class extra present={cls == 'extra'} not reflected")
    check_monotonic(st, f"after reload {i}")
took = time.monotonic() - t0
try:
    os.kill(send_pid, 0)
except ProcessLookupError:
    sys.exit(f"FAIL: the sender finished before the {reloads} reloads did "
             f"({took:.1f} s): not under traffic; lower RELOADS or raise the count")
print(f"{reloads} reloads in {took:.2f} s ({1000 * took / reloads:.1f} ms each incl. stats), "
      f"generation {gen0} -> {gen0 + reloads}", flush=True)
PY
# the config writer, callable from the Python driver
{
	echo 'CFG="'"$CFG"'"; SOCK="'"$SOCK"'"'
	declare -f write_cfg
	echo 'write_cfg "$@"'
} >"$TB_DIR/write_cfg.sh"
python3 "$TB_DIR/reloads.py" "$RELOADS" "$SOCK" "$SEND" || tb_fail "reload loop"

rc=0
tb_wait_exit $SEND 120 || tb_fail "sender status $?"
tb_wait_exit $RECV 30 || rc=$?
res=$(grep -a '^{' "$TB_DIR/recv.log" | tail -n1)
ok=$(jq .ok <<<"$res")
corrupt=$(jq .corrupt <<<"$res")
missing=$(jq .missing <<<"$res")
dups=$(jq .duplicate <<<"$res")
echo "stream: ok=$ok missing=$missing corrupt=$corrupt duplicate=$dups of $N" >&2
[ "$ok" -eq "$N" ] && [ "$missing" -eq 0 ] && [ "$corrupt" -eq 0 ] ||
	tb_fail "frames lost across reloads: $ok of $N delivered, $missing missing"
[ $rc -eq 0 ] || tb_fail "udpcheck receiver status $rc"
tb_pass "$RELOADS reloads under $RATE datagrams/s: all $N delivered byte-identical, counters continuous"

# --- the new rates are in force: one class, ceilings 20 and 60 Mbit/s ---
FG="taskset -c 1 nice -n 19 $XDPLANE_BUILD/tests/tools/flowgen"
measure() { # measure CEIL_MBIT -> bits/s the roce class sent on gw1
	write_cfg "$1" roce 9000
	"$XDPLANE_BUILD/control/xdplanectl" -s "$SOCK" reload >/dev/null || tb_fail "reload to ${1}Mbit"
	tb_spawn "fg$1" A $FG send --to $TB_IP_B:4791 --rate 60000000 --size 1000 --duration 3 --roce
	sleep 1
	python3 - "$SOCK" <<'PY'
import os, sys, time
sys.path.insert(0, os.environ["XDPLANE_SOURCE"] + "/tests/lib")
from xdpctl import Ctl, port, klass
ctl = Ctl(sys.argv[1])
def sample():
    s = ctl.call("stats", {"port": "gw1"})
    return s["now_mono_ns"], klass(port(s, "gw1"), "roce")["sent_bytes"]
t0, b0 = sample()
time.sleep(1.5)
t1, b1 = sample()
print(int((b1 - b0) * 8e9 / (t1 - t0)))
PY
	tb_wait_exit "$TB_LAST_PID" 10 || true
}
lo=$(measure 10)
hi=$(measure 30)
ratio=$(python3 -c "print(f'{$hi / $lo:.3f}')")
echo "roce class at ceiling 10Mbit: $lo bit/s; at 30Mbit: $hi bit/s; ratio $ratio (expect 3)" >&2
python3 -c "import sys; sys.exit(0 if abs($hi / $lo - 3) <= 0.45 else 1)" ||
	tb_fail "rates after reload: ratio $ratio, expected 3 +- 15 %"
tb_pass "new ceilings in force: 10 -> 30 Mbit/s gives x$ratio"

tb_stop_gw || tb_fail "daemon exit status $?"
missing=$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"] + s["frames"]["strays"]')
[ "$missing" -eq 0 ] || tb_fail "frame census after reloads: $missing frames missing or doubled"
gen=$(tb_stats gw.log 's["generation"]')
[ "$gen" -eq $((RELOADS + 3)) ] || tb_fail "final generation $gen, expected $((RELOADS + 3))"
tb_pass "frame census clean after $gen generations"
