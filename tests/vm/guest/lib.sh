# shellcheck shell=bash disable=SC2034
# Shared by the guest tests (sourced; bash). The guest's topology is set up
# by /init: h1 (netns h1, 10.9.0.1, fd00:9::1) --- gw0 [xdplane] gw1 ---
# h2 (netns h2, 10.9.0.2, fd00:9::2), and of virtio-net devices that
# refuse zero-copy h3 (10.9.1.3) --- gw2 [] gw3 --- h4 (10.9.1.4). Each
# test runs in $TEST_DIR, whose
# *.log files /init prints when the test fails.
set -euo pipefail
export XDPLANE_CONTROL_SOCKET=/run/xdplane/control.sock
METRICS=127.0.0.1:9100
H1=10.9.0.1
H2=10.9.0.2
H1_6=fd00:9::1
H2_6=fd00:9::2
GW_PID=

vm_fail() {
	echo "FAIL: $*"
	[ -n "$GW_PID" ] && kill -9 "$GW_PID" 2>/dev/null
	exit 1
}
vm_ok() { echo "ok: $*"; }
# vm_note KEY VALUE: a figure for the summary ("figure: KEY VALUE").
vm_note() { echo "figure: $*"; }

# vm_config [key: value lines...]: $TEST_DIR/gw.yaml, ports $PORT0 and
# $PORT1 (default gw0 and gw1).
vm_config() {
	local l
	{
		echo "ports:"
		echo "  - interface: ${PORT0:-gw0}"
		echo "  - interface: ${PORT1:-gw1}"
		echo "umem: {frames: 16384, frame_size: 4096}"
		echo "rings: {fill: 1024, completion: 1024, rx: 1024, tx: 1024, handoff: 1024}"
		echo "control: {socket: \"$XDPLANE_CONTROL_SOCKET\", metrics_listen: \"$METRICS\"}"
		for l in "$@"; do echo "$l"; done
	} >"$TEST_DIR/gw.yaml"
}

# vm_start_gw: start the daemon on $TEST_DIR/gw.yaml, wait until it
# forwards; prints its bind mode line.
vm_start_gw() {
	mkdir -p /run/xdplane
	xdplane -c "$TEST_DIR/gw.yaml" >"$TEST_DIR/gw.log" 2>&1 &
	GW_PID=$!
	for _ in $(seq 300); do
		if grep -q 'forwarding started' "$TEST_DIR/gw.log"; then
			grep -a 'AF_XDP bind mode' "$TEST_DIR/gw.log"
			return 0
		fi
		kill -0 "$GW_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TEST_DIR/gw.log"
	vm_fail "the gateway did not start"
}

# vm_stop_gw: SIGTERM, wait (30 s), exit status 0, and the census at stop
# found every frame of the UMEM ("figure: census ...").
vm_stop_gw() {
	local rc=0 line
	kill -TERM "$GW_PID"
	for _ in $(seq 300); do
		kill -0 "$GW_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$GW_PID" 2>/dev/null && vm_fail "the daemon did not stop in 30 s"
	wait "$GW_PID" || rc=$?
	GW_PID=
	[ $rc -eq 0 ] || vm_fail "daemon exit status $rc"
	line=$(grep -a '^final-stats: ' "$TEST_DIR/gw.log" | tail -n1)
	[ -n "$line" ] || vm_fail "no final-stats line"
	vm_json_frames "$line"
}

# vm_json_frames LINE: the census of the final-stats line.
vm_json_frames() {
	local frames total missing
	frames=$(grep -o '"frames":{[^}]*}' <<<"$1" | head -n1)
	total=$(grep -o '"total":[0-9]*' <<<"$frames" | cut -d: -f2)
	missing=$(grep -o '"missing":[0-9]*' <<<"$frames" | cut -d: -f2)
	vm_note "census $frames"
	[ -n "$missing" ] || vm_fail "no census in final-stats"
	[ "$missing" -eq 0 ] || vm_fail "census: $missing of $total frames missing"
	vm_ok "census at stop: all ${total:-?} frames found"
}

# vm_in NS CMD...: run in a host's namespace.
vm_in() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}
