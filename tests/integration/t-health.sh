#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Health that tells the truth: /healthz on the running daemon answers 503
# with the reason, on one line, while
#  (1) the last reload was refused (until a reload is applied),
#  (2) a port's link is down (until it is up again),
#  (3) a worker has stalled: one worker thread is stopped by itself
#      (ptrace: PTRACE_SEIZE + PTRACE_INTERRUPT stop that thread only; a
#      SIGSTOP would stop the whole process, /healthz included) for more
#      than 3 s, then let go,
#  (4) traffic takes the fail-open path: the running gateway's gw0 is
#      raised from 1 to 2 channels (ethtool -L, as an operator would, then
#      down and up: see below) and
#      host A's frames are steered (XPS) onto TX queue 1, so they arrive on
#      gw0's RX queue 1, which has no socket: the XDP program forwards them
#      in the kernel (ping still crosses), /healthz says fail_open and
#      queue_without_socket; the channels lowered again and 5 s without
#      such frames, it is 200 again;
#  (5) a port's interface is deleted (port_gone, to the end);
# and 200 "ok" after each recovery (1-4). The same reasons show in
# `xdplanectl status` (human and --json) and as xdplane_degraded{reason} on
# /metrics, with xdplane_port_up. Also: the workers' busy + idle seconds
# grow with the wall clock (their own accounting, not the CPU time a
# polling thread always has) and busy grows under traffic; the process's
# RSS and CPU seconds are exported.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
CTL="$XDPLANE_BUILD/control/xdplanectl"
ADDR=127.0.0.1:19472
tb_init
SOCK="$TB_DIR/ctl.sock"
tb_build --queues 2
# veth attaches XDP only on a device with at least as many RX queues as
# its peer has TX queues: the hosts send on 1 queue until (4)
ip netns exec "$TB_A" ethtool -L a0 tx 1 || tb_fail "ethtool -L a0 tx 1"
ip netns exec "$TB_B" ethtool -L b0 tx 1 || tb_fail "ethtool -L b0 tx 1"
cat >"$TB_DIR/gw.yaml" <<YAML
ports:
  - interface: gw0
  - interface: gw1
queues: 1
queues_set_channels: true
control: {socket: "$SOCK", metrics_listen: "$ADDR", stats_interval_ms: 200}
classes:
  - {name: default, level: 0}
default_class: default
YAML
cp "$TB_DIR/gw.yaml" "$TB_DIR/good.yaml"
ip -n "$TB_GW" link set lo up
tb_start_gw gw "$TB_DIR/gw.yaml"

healthz() { # -> "CODE BODY"
	tb_exec GW curl -s --max-time 5 -o "$TB_DIR/hz.txt" -w '%{http_code}' "http://$ADDR/healthz" || echo 000
	printf ' %s' "$(cat "$TB_DIR/hz.txt" 2>/dev/null)"
}
# wait_health CODE PATTERN SECONDS: until /healthz answers CODE with a body
# matching PATTERN (grep -E); fails with the last answer otherwise
# wait_log PATTERN SECONDS: the daemon's log has the line within SECONDS
wait_log() {
	local t=$(($2 * 10))
	until grep -q "$1" "$TB_DIR/gw.log"; do
		t=$((t - 1))
		[ $t -gt 0 ] || return 1
		sleep 0.1
	done
}

wait_health() {
	local code=$1 pat=$2 t=$(($3 * 5)) got
	while :; do
		got=$(healthz)
		[ "${got%% *}" = "$code" ] && grep -Eq -- "$pat" <<<"${got#* }" && break
		t=$((t - 1))
		[ $t -gt 0 ] || tb_fail "/healthz: want $code /$pat/, got: $got"
		sleep 0.2
	done
	echo "  /healthz: $got" >&2
	[ "$(wc -l <"$TB_DIR/hz.txt")" -eq 1 ] || tb_fail "/healthz body is not one line"
}
metric() { # NAME{labels} -> value
	tb_exec GW curl -s --max-time 5 "http://$ADDR/metrics" | awk -v k="$1" '$1 == k {print $2}'
}
status_json() { "$CTL" -s "$SOCK" --json status; }
jget() { python3 -c 'import json,sys; s=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

wait_health 200 '^ok$' 10
[ "$(metric xdplane_up)" = 1 ] || tb_fail "xdplane_up is not 1"
for r in worker_stalled port_down port_gone fail_open queue_without_socket reload_failed; do
	[ "$(metric "xdplane_degraded{reason=\"$r\"}")" = 0 ] || tb_fail "xdplane_degraded{reason=\"$r\"} is not 0"
done
[ "$(status_json | jget 's["health"]["state"]')" = ok ] || tb_fail "status --json: health not ok"
"$CTL" -s "$SOCK" status | grep -Eq '^health +ok$' || tb_fail "status: no 'health ok' line"
tb_pass "healthy: /healthz 200 ok, every xdplane_degraded 0, status says ok"

# --- the workers' own busy/idle accounting, the process ----------------
busy_idle() { # -> "busy idle" summed over the workers
	tb_exec GW curl -s --max-time 5 "http://$ADDR/metrics" | awk '
		/^xdplane_worker_busy_seconds_total\{/ { b += $2 }
		/^xdplane_worker_idle_seconds_total\{/ { i += $2 }
		END { printf "%.6f %.6f\n", b, i }'
}
nw=$(status_json | jget 's["workers"]')
read -r b0 i0 <<<"$(busy_idle)"
t0=$(date +%s.%N)
ip netns exec "$TB_A" ping -q -c 200 -i 0.01 -W 1 $TB_IP_B >/dev/null || tb_fail "ping A -> B"
read -r b1 i1 <<<"$(busy_idle)"
t1=$(date +%s.%N)
python3 - "$nw" "$b0" "$i0" "$b1" "$i1" "$t0" "$t1" <<'PY' || tb_fail "worker busy/idle seconds"
import sys
nw, b0, i0, b1, i1, t0, t1 = (float(x) for x in sys.argv[1:])
acc, wall = (b1 - b0) + (i1 - i0), nw * (t1 - t0)
print(f"  {nw:.0f} workers: busy +{b1 - b0:.4f} s, idle +{i1 - i0:.3f} s over {t1 - t0:.2f} s",
      file=sys.stderr)
# a worker accounts its whole wall-clock time, busy or idle (the scrapes
# bracket the interval loosely: a worker's last pass may lag a second)
ok = b1 > b0 and 0.5 * wall - 2 * nw <= acc <= wall + 2 * nw and b1 - b0 < acc
sys.exit(0 if ok else 1)
PY
rss=$(metric process_resident_memory_bytes)
cpu=$(metric process_cpu_seconds_total)
python3 -c "import sys; sys.exit(0 if float('$rss') > 1e6 and float('$cpu') > 0 else 1)" ||
	tb_fail "process_resident_memory_bytes $rss, process_cpu_seconds_total $cpu"
tb_pass "workers' busy + idle seconds follow the wall clock, busy grew with traffic; RSS $rss B, CPU $cpu s"

# --- (1) a refused reload ---------------------------------------------------
echo "classes: [{name: default, level: nine}]" >>"$TB_DIR/gw.yaml"
rc=0
"$CTL" -s "$SOCK" reload 2>"$TB_DIR/reload.err" || rc=$?
[ $rc -eq 1 ] || tb_fail "a bad file's reload: exit $rc"
wait_health 503 '^degraded: reload_failed: last reload refused: .*gw.yaml' 5
[ "$(metric 'xdplane_degraded{reason="reload_failed"}')" = 1 ] || tb_fail "xdplane_degraded{reload_failed} not 1"
"$CTL" -s "$SOCK" status | grep -Eq '^health +DEGRADED: reload_failed: ' || tb_fail "status: no DEGRADED reload_failed line"
[ "$(status_json | jget 's["health"]["reasons"][0]["reason"]')" = reload_failed ] ||
	tb_fail "status --json: no reload_failed reason"
cp "$TB_DIR/good.yaml" "$TB_DIR/gw.yaml"
"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "reload of the good file"
wait_health 200 '^ok$' 5
tb_pass "(1) refused reload: 503 reload_failed (/healthz, status, metrics); applied reload: 200"

# --- (2) a port down ---------------------------------------------------------
ip -n "$TB_GW" link set gw1 down
wait_health 503 '^degraded: port_down: link down: gw1$' 5
[ "$(metric 'xdplane_port_up{port="gw1"}')" = 0 ] || tb_fail "xdplane_port_up{gw1} not 0"
[ "$(metric 'xdplane_port_up{port="gw0"}')" = 1 ] || tb_fail "xdplane_port_up{gw0} not 1"
[ "$(metric 'xdplane_degraded{reason="port_down"}')" = 1 ] || tb_fail "xdplane_degraded{port_down} not 1"
ip -n "$TB_GW" link set gw1 up
wait_health 200 '^ok$' 10
[ "$(metric 'xdplane_port_up{port="gw1"}')" = 1 ] || tb_fail "xdplane_port_up{gw1} not 1 again"
ip netns exec "$TB_A" ping -q -c 3 -i 0.2 -W 2 $TB_IP_B >/dev/null || tb_fail "ping after the port came back"
tb_pass "(2) port down: 503 port_down, xdplane_port_up 0; up again: 200, forwarding"

# --- (3) a stalled worker ------------------------------------------------
tid=""
for t in /proc/"$TB_GW_PID"/task/*; do
	[ "$(cat "$t/comm" 2>/dev/null)" = xdplane-w0 ] && tid=${t##*/}
done
[ -n "$tid" ] || tb_fail "no thread xdplane-w0 in $TB_GW_PID"
cat >"$TB_DIR/freeze.py" <<'PY'
# freeze.py TID RELEASE_FILE: stop one thread (only it) until RELEASE_FILE
# exists (at most 30 s); the kernel lets it go when this process exits.
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT, WALL = 17, 0x4206, 0x4207, 0x40000000
tid = int(sys.argv[1])
for req in (PTRACE_SEIZE, PTRACE_INTERRUPT):
    if libc.ptrace(req, tid, None, None):
        sys.exit(f"ptrace {req:#x}: {os.strerror(ctypes.get_errno())}")
os.waitpid(tid, WALL)
print("stopped", flush=True)
end = time.monotonic() + 30
while not os.path.exists(sys.argv[2]) and time.monotonic() < end:
    time.sleep(0.05)
libc.ptrace(PTRACE_DETACH, tid, None, None)
PY
python3 "$TB_DIR/freeze.py" "$tid" "$TB_DIR/release" >"$TB_DIR/freeze.log" 2>&1 &
FREEZE=$!
TB_PIDS+=("$FREEZE")
for _ in $(seq 50); do grep -q stopped "$TB_DIR/freeze.log" && break; sleep 0.1; done
grep -q stopped "$TB_DIR/freeze.log" || tb_fail "could not stop worker 0: $(cat "$TB_DIR/freeze.log")"
t0=$(date +%s.%N)
wait_health 503 '^degraded: worker_stalled: worker 0 made no progress for [3-9]\.[0-9] s$' 10
# the last heartbeat seen may be one stats tick (0.2 s) older than the stop
python3 -c "import sys, time; sys.exit(time.time() - $t0 < 2.7)" || tb_fail "stall reported before 3 s"
[ "$(metric 'xdplane_degraded{reason="worker_stalled"}')" = 1 ] || tb_fail "xdplane_degraded{worker_stalled} not 1"
"$CTL" -s "$SOCK" status | grep -Eq '^health +DEGRADED: worker_stalled: ' || tb_fail "status: no worker_stalled"
# the log says it at the next stats tick (/healthz judges each request):
# the worker stays stopped until then
wait_log "health: degraded: worker_stalled" 3 || tb_fail "no log line for the stall"
touch "$TB_DIR/release"
wait $FREEZE || tb_fail "freeze.py failed: $(cat "$TB_DIR/freeze.log")"
wait_health 200 '^ok$' 5
wait_log "health: ok again" 3 || tb_fail "no log line for the recovery"
tb_pass "(3) worker 0 stopped alone for > 3 s: 503 worker_stalled (/healthz, status, metrics, log); let go: 200"

# --- (4) frames on a queue without a socket: the fail-open path -----------
ip netns exec "$TB_GW" ethtool -L gw0 rx 2 tx 2 || tb_fail "ethtool -L gw0 rx 2 tx 2"
ip netns exec "$TB_A" ethtool -L a0 tx 2 || tb_fail "ethtool -L a0 tx 2"
mask=$(printf '%x' $(((1 << $(nproc)) - 1)))
ip netns exec "$TB_A" sh -c "echo 0 > /sys/class/net/a0/queues/tx-0/xps_cpus &&
	echo $mask > /sys/class/net/a0/queues/tx-1/xps_cpus" || tb_fail "XPS on a0"
# veth (kernel 6.x) runs XDP on an RX queue added while the device is up
# only once it is opened again: down and up, as a NIC reset would
ip -n "$TB_GW" link set gw0 down
ip -n "$TB_GW" link set gw0 up
sleep 1 # the carrier comes back
ip netns exec "$TB_A" ping -q -c 20 -i 0.05 -W 2 $TB_IP_B >/dev/null ||
	tb_fail "ping on the fail-open path (the kernel should forward it)"
wait_health 503 '^degraded: fail_open: gw0: [0-9]+ frames forwarded unshaped by the kernel; queue_without_socket: gw0: ' 5
[ "$(metric 'xdplane_degraded{reason="fail_open"}')" = 1 ] || tb_fail "xdplane_degraded{fail_open} not 1"
fo=$(metric 'xdplane_xdp_verdicts_total{port="gw0",verdict="failopen_redirect"}')
[ "${fo:-0}" -ge 20 ] || tb_fail "failopen_redirect on gw0: $fo, want >= 20"
# back to one channel: no queue without a socket; 5 s after the last such
# frame the health is ok again
ip netns exec "$TB_A" ethtool -L a0 tx 1 || tb_fail "ethtool -L a0 tx 1"
ip netns exec "$TB_GW" ethtool -L gw0 rx 1 tx 1 || tb_fail "ethtool -L gw0 rx 1 tx 1"
sleep 1
ip netns exec "$TB_A" ping -q -c 3 -i 0.2 -W 2 $TB_IP_B >/dev/null || tb_fail "ping after the channels went back"
wait_health 200 '^ok$' 12
fo2=$(metric 'xdplane_xdp_verdicts_total{port="gw0",verdict="failopen_redirect"}')
[ "$fo2" = "$fo" ] || tb_fail "frames still on the fail-open path: $fo -> $fo2"
tb_pass "(4) $fo frames on a queue without a socket: 503 fail_open + queue_without_socket; channels back: 200"

# --- (5) a port that vanishes (its veth deleted): degraded for good ------
ip -n "$TB_GW" link del gw1
wait_health 503 'port_gone: interface vanished: gw1' 5
[ "$(metric 'xdplane_port_up{port="gw1"}')" = 0 ] || tb_fail "xdplane_port_up{gw1} not 0 after the deletion"
[ "$(metric 'xdplane_degraded{reason="port_gone"}')" = 1 ] || tb_fail "xdplane_degraded{port_gone} not 1"
tb_pass "(5) port deleted: 503 port_gone (the daemon restarts when it comes back: t-fault-peer-ns)"

tb_stop_gw || tb_fail "daemon exit status $?"
missing=$(tb_stats gw.log 's["frames"]["missing"] + s["frames"]["doubles"]')
[ "$missing" -eq 0 ] || tb_fail "frame census: $missing"
tb_pass "clean stop, census clean"
