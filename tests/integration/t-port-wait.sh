#!/usr/bin/env bash
# A gateway that starts before its NIC (xdplane(8), EXIT STATUS;
# port_wait in xdplane.yaml(5)): a port whose interface does not exist yet
# is waited for, with systemd told which (STATUS=) and its start timeout
# extended; when the interface appears 5 s later the gateway comes up and
# forwards. A bad key with the same missing port still exits EX_CONFIG
# (78) at once, and a port that does not come within port_wait exits
# EX_TEMPFAIL (75), which the units do not prevent from restarting.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
XD="$XDPLANE_BUILD/control/xdplane"
NSOCK="$TB_DIR/notify.sock"

# The B side's veth pair, as tb_build makes it: gone, then created again.
drop_b() { ip -n "$TB_B" link del b0; }
create_b() {
	ip link add b0 netns "$TB_B" address $TB_MAC_B type veth \
		peer name gw1 netns "$TB_GW" || tb_die "veth b0-gw1"
	ip -n "$TB_B" addr add $TB_IP_B/24 dev b0
	ip netns exec "$TB_B" ethtool -K b0 tx off >/dev/null 2>&1
	ip -n "$TB_B" link set dev b0 xdpdrv \
		obj "$XDPLANE_BUILD/tests/tools/xdp_pass.o" sec xdp || tb_die "xdp on b0"
	ip -n "$TB_B" link set b0 up
	ip -n "$TB_GW" link set gw1 up
}
# timed NAME [xdplane args]: run in GW, "<status> <seconds>" on stdout
timed() {
	local name=$1 rc=0 t0 t1
	shift
	t0=$(date +%s.%N)
	tb_exec GW timeout 30 "$XD" "$@" >"$TB_DIR/$name.out" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
}

# 1. gw1 missing at start, created 5 s later: up and forwarding.
drop_b
tb_config "$TB_DIR/gw.yaml"
tb_spawn notify GW python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
s.settimeout(60)
while True:
    msg = s.recv(4096).decode()
    print(time.monotonic(), repr(msg), flush=True)
    if "READY=1" in msg:
        break
' "$NSOCK"
LISTENER=$TB_LAST_PID
for _ in $(seq 50); do grep -q ready "$TB_DIR/notify.log" && break; sleep 0.1; done
NOTIFY_SOCKET="$NSOCK" tb_spawn gw GW "$XD" -c "$TB_DIR/gw.yaml"
TB_GW_PID=$TB_LAST_PID
sleep 5
kill -0 "$TB_GW_PID" 2>/dev/null ||
	tb_fail "the daemon exited with gw1 missing: $(cat "$TB_DIR/gw.log")"
grep -q "waiting for port gw1 (ports\[1\].interface)" "$TB_DIR/notify.log" ||
	tb_fail "no STATUS= naming the missing port: $(cat "$TB_DIR/notify.log")"
grep -q "EXTEND_TIMEOUT_USEC=" "$TB_DIR/notify.log" ||
	tb_fail "the start timeout is not extended while waiting"
grep -q "ports\[1\].interface: no interface gw1 yet" "$TB_DIR/gw.log" ||
	tb_fail "the wait is not logged: $(cat "$TB_DIR/gw.log")"
create_b
for _ in $(seq 100); do
	grep -q 'forwarding started' "$TB_DIR/gw.log" && break
	kill -0 "$TB_GW_PID" 2>/dev/null || break
	sleep 0.1
done
grep -q 'forwarding started' "$TB_DIR/gw.log" ||
	tb_fail "no start after gw1 appeared: $(cat "$TB_DIR/gw.log")"
after=$(sed -n 's/.*gw1 appeared after \([0-9]*\) ms.*/\1/p' "$TB_DIR/gw.log")
tb_wait_exit $LISTENER 10 || tb_fail "no READY=1 after the wait"
ip netns exec "$TB_A" ping -c 5 -i 0.2 -W 2 $TB_IP_B >/dev/null ||
	tb_fail "no forwarding after the late port"
tb_stop_gw || tb_fail "daemon exit status $?"
tb_pass "gw1 created 5 s after the start: waited ${after} ms (STATUS= named it), then forwarded"

# 2. A bad key and the same missing port: EX_CONFIG at once.
drop_b
tb_config "$TB_DIR/bad.yaml" "rings: {fil: 4096}"
read -r rc secs < <(timed bad -c "$TB_DIR/bad.yaml")
[ "$rc" -eq 78 ] || tb_fail "bad key: exit $rc, want 78: $(cat "$TB_DIR/bad.out")"
awk -v s="$secs" 'BEGIN { exit !(s < 2) }' || tb_fail "bad key: exit after $secs s, not at once"
grep -q "bad.yaml:[0-9]*:[0-9]*: .*fil" "$TB_DIR/bad.out" ||
	tb_fail "bad key: $(cat "$TB_DIR/bad.out")"
tb_pass "bad key with a port missing: exit 78 after $secs s"

# 3. The bound: port_wait 2s, gw1 never comes: EX_TEMPFAIL, nothing left.
tb_config "$TB_DIR/bound.yaml" "port_wait: 2s"
tb_spawn notify2 GW python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
s.settimeout(30)
while True:
    msg = s.recv(4096).decode()
    print(repr(msg), flush=True)
    if "exiting" in msg:
        break
' "$NSOCK.2"
for _ in $(seq 50); do grep -q ready "$TB_DIR/notify2.log" && break; sleep 0.1; done
read -r rc secs < <(NOTIFY_SOCKET="$NSOCK.2" timed bound -c "$TB_DIR/bound.yaml")
grep -q "STATUS=no port gw1 (ports\[1\].interface) after port_wait 2 s; exiting 75" "$TB_DIR/notify2.log" ||
	tb_fail "bound: no STATUS= at the bound: $(cat "$TB_DIR/notify2.log")"
[ "$rc" -eq 75 ] || tb_fail "bound: exit $rc, want 75: $(cat "$TB_DIR/bound.out")"
awk -v s="$secs" 'BEGIN { exit !(s >= 2 && s < 10) }' ||
	tb_fail "bound: exit after $secs s, want about 2"
grep -q "no interface gw1 after port_wait 2000 ms" "$TB_DIR/bound.out" &&
	grep -q "bound.yaml:3:[0-9]*: ports\[1\].interface: no such interface 'gw1'" "$TB_DIR/bound.out" ||
	tb_fail "bound: $(cat "$TB_DIR/bound.out")"
[ -z "$(tb_xdp_prog GW gw0)" ] || tb_fail "bound: a program was left on gw0"
# --check still says a missing interface is an error in the file here
tb_exec GW "$XD" --check -c "$TB_DIR/bound.yaml" >"$TB_DIR/check.out" 2>&1 && rc=0 || rc=$?
[ "$rc" -eq 78 ] || tb_fail "--check with gw1 missing: exit $rc, want 78"
# the units restart after 75 (not in RestartPreventExitStatus=)
for u in xdplane.service xdplane@.service; do
	got=$(sed -n 's/^RestartPreventExitStatus=//p' "$XDPLANE_BUILD/config/systemd/$u")
	case " $got " in *" 75 "*) tb_fail "$u prevents a restart after 75" ;; esac
done
tb_pass "port_wait 2s, gw1 never created: exit 75 after $secs s; --check: 78"
