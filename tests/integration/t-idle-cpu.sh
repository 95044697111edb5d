#!/usr/bin/env bash
# An idle gateway uses under 2 % of one core over 10 s (utime + stime of all
# its threads, from /proc/PID/stat).
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
tb_init
tb_build
tb_config "$TB_DIR/gw.yaml"
tb_start_gw gw "$TB_DIR/gw.yaml"
# Some traffic first, so the workers have been busy and gone back to sleep.
ip netns exec "$TB_A" ping -c 20 -i 0.05 -W 1 $TB_IP_B >/dev/null || tb_fail "ping"
sleep 1
pid=$(tb_daemon_pid)
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks)
s0=$(date +%s.%N)
sleep 10
t1=$(ticks)
s1=$(date +%s.%N)
pct=$(echo "scale=3; 100 * ($t1 - $t0) / $hz / ($s1 - $s0)" | bc)
echo "idle CPU: $pct % of one core over $(echo "$s1 - $s0" | bc) s" >&2
[ "$(echo "$pct < 2" | bc)" -eq 1 ] || tb_fail "idle gateway used $pct % of a core"
tb_stop_gw || tb_fail "daemon exit status $?"
tb_pass "idle CPU $pct % < 2 %"
