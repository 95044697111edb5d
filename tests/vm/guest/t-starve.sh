#!/usr/bin/env bash
# A bound zero-copy socket whose driver is never woken: detected, counted,
# made loud, and recovered by the gateway's own wake-up.
#
# Part 0, the world first, no fault: link down/up and `ethtool -G` (the
# RX ring halved) of gw0 while its sockets are bound. The gateway must
# forward again afterwards (ping), or have reported starvation. On igb
# and virtio-net neither starved the socket, so the rest provokes it by
# fault injection.
#
# Fault injection: XDPLANE_TEST_STARVE=gw0 (test only, xdplane(8)) mutes
# gw0's sockets: the worker never wakes their driver to fill (no fill
# wake-up, not polled; TX kicks stay). The daemon fills its fill rings
# after the bind, the usual order, so a driver that found the ring empty
# at the bind waits for a wake-up that never comes (igb: the
# fill-after-bind quirk of the anchors) -- until a frame sent on the same
# queue wakes it.
#
# Part 1, kicks on: the detector finds gw0's sockets starved (log line
# naming port, queue, mode and the evidence; rx_starved_episodes; health
# degraded, rx_starved), wakes the driver (rx_starve_kicks), the socket
# receives again ("receives again"), UDP crosses, health is ok after.
# Part 2, XDPLANE_TEST_STARVE_NOKICK=1 (the detector's wake-ups withheld
# too): the starvation lasts, /healthz answers 503 with reason rx_starved
# for as long as it does, the gauge rx_starved stays up, and after 10 s the
# log says it is still starved. Never a silent gateway forwarding
# nothing.
source /xdplane/tests/lib.sh

# gw0's counter KEY as `xdplanectl --json stats` shows it: the first
# "KEY": N, the first port's (gw0, before gw1), which comes before its
# queues' (the sum over them).
gw0_counter() {
	xdplanectl --json stats 2>/dev/null >"$TEST_DIR/stats.json" || true
	tr -d ' \n' <"$TEST_DIR/stats.json" | grep -o "\"$1\":[0-9]*" | head -n1 | cut -d: -f2 || true
}
healthz() { # prints the HTTP status of /healthz
	if wget -q -O "$TEST_DIR/healthz.txt" "http://$METRICS/healthz" 2>"$TEST_DIR/healthz.err"; then
		echo 200
	else
		grep -o '[0-9][0-9][0-9]' "$TEST_DIR/healthz.err" | head -n1
	fi
}
diag() {
	echo "--- diag: $1"
	xdplanectl status 2>&1 | grep -E 'health|bind' || true
	for f in rx_packets rx_dropped rx_missed_errors rx_fifo_errors rx_over_errors; do
		printf '%s=%s ' "$f" "$(cat /sys/class/net/gw0/statistics/$f)"
	done
	echo
	ethtool -S gw0 2>/dev/null | grep -Ei 'rx_queue_[0-9]_(packets|drops|alloc)|missed|no_buffer|rnbc|fifo' | tr -s ' ' | tr '\n' ' ' || true
	echo
	xdplanectl stats 2>&1 | head -n 12 || true
}
udp_run() { # udp_run N PORT: N datagrams h1 -> h2 at 100/s; prints those received
	local n=$1 port=$2 res
	vm_in h2 udpcheck recv --bind "$H2:$port" --expect "$n" --seed 5 --timeout-ms 8000 --json >"$TEST_DIR/udp$port.log" 2>&1 &
	local recv=$!
	for _ in $(seq 50); do grep -q ready "$TEST_DIR/udp$port.log" && break; sleep 0.1; done
	vm_in h1 udpcheck send --to "$H2:$port" --count "$n" --min 64 --max 512 --rate 100 --seed 5 >/dev/null 2>&1 || true
	wait $recv || true
	res=$(grep -a '^{' "$TEST_DIR/udp$port.log" | tail -n1 || true)
	grep -o '"ok": *[0-9]*' <<<"$res" | grep -o '[0-9]*$' || echo 0
}

# ---- part 0: what the world does to a bound port, no fault ----
# Link down/up and a ring resize (ethtool -G) of gw0 while its sockets are
# bound: afterwards the gateway forwards again, or it says it is starved.
vm_config
vm_start_gw
vm_in h1 ping -c 2 -W 5 "$H2" >/dev/null || vm_fail "part 0: no ping before"
world() { # world NAME CMD...: run it on the bound port, then ping
	local name=$1 t ok=no rep
	shift
	if ! "$@" >"$TEST_DIR/world.log" 2>&1; then
		vm_note "part 0 $name: refused ($(head -c 120 "$TEST_DIR/world.log"))"
		return 0
	fi
	for t in $(seq 15); do
		if vm_in h1 ping -c 1 -W 1 "$H2" >/dev/null 2>&1; then ok=yes; break; fi
	done
	rep=$(grep -c 'AF_XDP socket starved' "$TEST_DIR/gw.log" || true)
	vm_note "part 0 $name: ping after it $ok (try $t), starvation reports so far $rep"
	[ $ok = yes ] || [ "$rep" -gt 0 ] || vm_fail "part 0 $name: silent: no forwarding, nothing reported"
}
flap() { ip link set gw0 down && sleep 1 && ip link set gw0 up; }
world "link down/up" flap
rx=$(ethtool -g gw0 2>/dev/null | awk '/^Current/{c=1} c&&/^RX:/{print $2; exit}')
world "ethtool -G rx $((${rx:-256} / 2))" ethtool -G gw0 rx $((${rx:-256} / 2))
diag "part 0"
vm_stop_gw

# ---- part 1: the detector's wake-up recovers the socket ----
export XDPLANE_TEST_STARVE=gw0
vm_config
vm_start_gw
grep -q 'bind mode: zero-copy' "$TEST_DIR/gw.log" || vm_fail "not zero-copy"
grep -a 'TEST FAULT' "$TEST_DIR/gw.log"
saw503=0
for _ in $(seq 100); do
	[ "$(healthz)" = 503 ] && xdplanectl status 2>&1 | grep -q 'health.*rx_starved' && saw503=1
	grep -q 'AF_XDP socket starved' "$TEST_DIR/gw.log" && grep -q 'receives again' "$TEST_DIR/gw.log" && break
	sleep 0.2
done
diag "part 1, after detection"
grep -a 'AF_XDP socket starved\|receives again\|health:' "$TEST_DIR/gw.log" || true
line=$(grep -a 'AF_XDP socket starved' "$TEST_DIR/gw.log" | head -n1 || true)
[ -n "$line" ] || vm_fail "no starvation reported within 20 s of the start"
grep -q 'port gw0 queue [0-9]* (zero-copy)' <<<"$line" || vm_fail "the log line names no port, queue, mode: $line"
grep -q 'health: degraded: .*rx_starved' "$TEST_DIR/gw.log" || vm_fail "health never degraded with rx_starved"
grep -q 'receives again' "$TEST_DIR/gw.log" || vm_fail "no recovery after the wake-up"
ep=$(gw0_counter rx_starved_episodes)
kicks=$(gw0_counter rx_starve_kicks)
vm_note "part 1 episodes ${ep:-?} kicks ${kicks:-?} 503 seen by polling $saw503"
[ "${ep:-0}" -ge 1 ] || vm_fail "rx_starved_episodes ${ep:-?}"
[ "${kicks:-0}" -ge 1 ] || vm_fail "rx_starve_kicks ${kicks:-?}"
got=$(udp_run 500 9100)
diag "part 1, after UDP"
ep2=$(gw0_counter rx_starved_episodes)
vm_note "part 1 udp sent 500 received $got episodes during it $((ep2 - ep))"
[ "$got" -gt 0 ] || vm_fail "nothing forwarded after the recovery"
# A muted socket's driver may run dry again under traffic (nothing wakes
# it but the detector): every loss must then have been reported.
[ "$got" -eq 500 ] || [ "$ep2" -gt "$ep" ] || vm_fail "$((500 - got)) datagrams lost and no starvation reported"
for _ in $(seq 25); do [ "$(healthz)" = 200 ] && break; sleep 0.2; done
[ "$(healthz)" = 200 ] || vm_fail "part 1: /healthz not 200 after the recovery: $(xdplanectl status | grep health)"
vm_ok "part 1: starved socket reported (episodes $ep2, kicks $(gw0_counter rx_starve_kicks)) and recovered by the wake-up; $got of 500 datagrams"
vm_stop_gw

# ---- part 2: the detector's wake-ups withheld: it lasts, and stays loud ----
export XDPLANE_TEST_STARVE_NOKICK=1
vm_start_gw
for _ in $(seq 100); do
	grep -q 'AF_XDP socket starved' "$TEST_DIR/gw.log" && break
	sleep 0.2
done
grep -q 'AF_XDP socket starved' "$TEST_DIR/gw.log" || vm_fail "part 2: no starvation reported"
got=$(udp_run 200 9200)
n503=0
for _ in 1 2 3; do
	code=$(healthz)
	[ "$code" = 503 ] && n503=$((n503 + 1))
	sleep 1
done
st=$(xdplanectl status 2>&1 | grep health || true)
diag "part 2"
starved=$(gw0_counter rx_starved)
vm_note "part 2 udp sent 200 received $got; /healthz 503 $n503 of 3; rx_starved $starved; $st"
[ "$n503" -eq 3 ] || vm_fail "/healthz not 503 throughout the starvation ($n503 of 3)"
grep -q rx_starved <<<"$st" || vm_fail "xdplanectl status: $st"
[ "${starved:-0}" -ge 1 ] || vm_fail "gauge rx_starved ${starved:-?}"
for _ in $(seq 60); do
	grep -q 'still starved after' "$TEST_DIR/gw.log" && break
	sleep 0.5
done
grep -a 'still starved after' "$TEST_DIR/gw.log" || vm_fail "no 'still starved after' line"
vm_ok "part 2: starvation lasting: 503 rx_starved throughout, $got of 200 forwarded, reported"
vm_stop_gw
