#!/usr/bin/env bash
# systemd integration without systemd: the daemon started the way a
# Type=notify unit with WatchdogSec= starts it (NOTIFY_SOCKET,
# WATCHDOG_USEC) tells a listening datagram socket, in order:
# READY=1 once it forwards, WATCHDOG=1 while its workers turn,
# RELOADING=1 (with MONOTONIC_USEC) then READY=1 around a reload that
# changes something, nothing for a reload that changes nothing, and
# STOPPING=1 on SIGTERM.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
SOCK="$TB_DIR/ctl.sock"
NSOCK="$TB_DIR/notify.sock"
CTL="$XDPLANE_BUILD/control/xdplanectl"
cfg() {
	tb_config "$TB_DIR/gw.yaml" "control: {socket: \"$SOCK\", metrics_listen: \"\", stats_interval_ms: 200}" \
		"classes: [{name: default, quantum: $1}]"
}
cfg 9000
tb_spawn notify GW python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
s.settimeout(30)
while True:
    msg = s.recv(4096).decode()
    print(time.monotonic(), repr(msg), flush=True)
    if "STOPPING=1" in msg:
        break
' "$NSOCK"
LISTENER=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/notify.log" && break; sleep 0.1; done
NOTIFY_SOCKET="$NSOCK" WATCHDOG_USEC=2000000 tb_start_gw gw "$TB_DIR/gw.yaml"
for _ in $(seq 50); do grep -q "READY=1" "$TB_DIR/notify.log" && break; sleep 0.1; done
grep -q "READY=1" "$TB_DIR/notify.log" || tb_fail "no READY=1"
sleep 1.5
pings=$(grep -c "WATCHDOG=1" "$TB_DIR/notify.log" || true)
[ "$pings" -ge 4 ] || tb_fail "only $pings watchdog pings in 1.5 s at a 200 ms tick"

"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "no-change reload"
cfg 4000
"$CTL" -s "$SOCK" reload >/dev/null || tb_fail "reload"
tb_stop_gw || tb_fail "daemon exit status $?"
tb_wait_exit $LISTENER 10 || tb_fail "listener did not see STOPPING=1"
# the sequence, watchdog pings left out
seq=$(grep -v WATCHDOG "$TB_DIR/notify.log" | grep -o "'[^']*'" | sed 's/MONOTONIC_USEC=[0-9]*/MONOTONIC_USEC=N/' | tr '\n' ' ')
echo "notifications: $seq" >&2
[ "$seq" = "'READY=1\\nSTATUS=forwarding' 'RELOADING=1\\nMONOTONIC_USEC=N' 'READY=1' 'STOPPING=1' " ] ||
	tb_fail "unexpected notification sequence"
tb_pass "READY, $pings+ WATCHDOG pings, RELOADING/READY around one real reload, STOPPING"
