#!/usr/bin/env bash
# bind_mode auto on a zero-copy capable driver: the daemon binds zero-copy,
# and says so in its start-up log, `xdplanectl status`, /metrics; the
# kernel's view (ss --xdp, xsk_diag) shows both ports' sockets with
# zero-copy UMEMs.
source /xdplane/tests/lib.sh
vm_config
vm_start_gw
line=$(grep -a 'AF_XDP bind mode' "$TEST_DIR/gw.log")
grep -q 'bind mode: zero-copy' <<<"$line" || vm_fail "start-up log: $line"
vm_ok "start-up log: zero-copy"
js=$(xdplanectl --json status)
bm=$(grep -o '"bind_mode": *"[a-z-]*"' <<<"$js" | head -n1)
vm_note "xdplanectl $bm"
grep -q zerocopy <<<"$bm" || vm_fail "xdplanectl status: $bm"
vm_ok "xdplanectl status: $bm"
wget -q -O "$TEST_DIR/metrics.txt" "http://$METRICS/metrics" || vm_fail "GET /metrics"
m=$(grep -o 'bind_mode="[a-z]*"' "$TEST_DIR/metrics.txt" | sort -u)
vm_note "metrics $m"
[ "$m" = 'bind_mode="zerocopy"' ] || vm_fail "/metrics: $m"
vm_ok "/metrics: $m"
ss --xdp -a -e >"$TEST_DIR/ss.log" 2>&1 || true
cat "$TEST_DIR/ss.log"
zc=$(grep -o 'zc:1' "$TEST_DIR/ss.log" | wc -l)
socks=$(grep -c 'ifindex' "$TEST_DIR/ss.log" || true)
vm_note "ss --xdp sockets $socks zc:1 $zc"
for p in gw0 gw1; do
	grep -q "$p" "$TEST_DIR/ss.log" || vm_fail "ss --xdp: no socket on $p"
done
[ "$zc" -ge 2 ] || vm_fail "ss --xdp: $zc zero-copy UMEM entries, want >= 2"
vm_ok "ss --xdp: $socks sockets, zc:1 on $zc"
vm_stop_gw
