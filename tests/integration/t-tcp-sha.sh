#!/usr/bin/env bash
# A 1 GiB TCP transfer across the gateway arrives with the same SHA-256.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
SIZE=${SIZE:-1073741824}
tb_init
tb_build
tb_config "$TB_DIR/gw.yaml"
tb_start_gw gw "$TB_DIR/gw.yaml"

# Random content, generated once: the sender reads it from a file so that
# its hash is known.
head -c "$SIZE" /dev/urandom >"$TB_DIR/src.bin"
want=$(sha256sum "$TB_DIR/src.bin" | cut -d' ' -f1)
tb_spawn sink B sh -c "socat -u TCP-LISTEN:9001,reuseaddr - | sha256sum >'$TB_DIR/got.sha'"
SINK=$TB_LAST_PID
for _ in $(seq 50); do
	ip netns exec "$TB_B" ss -ltn | grep -q ':9001 ' && break
	sleep 0.1
done
start=$(date +%s.%N)
timeout 300 ip netns exec "$TB_A" socat -u FILE:"$TB_DIR/src.bin" TCP:$TB_IP_B:9001 ||
	tb_fail "transfer failed"
tb_wait_exit $SINK 60 || tb_fail "receiver did not finish"
secs=$(echo "$(date +%s.%N) - $start" | bc)
got=$(cut -d' ' -f1 "$TB_DIR/got.sha")
rm -f "$TB_DIR/src.bin"
[ "$got" = "$want" ] || tb_fail "SHA-256 differs: sent $want, received $got"
tb_stop_gw || tb_fail "daemon exit status $?"
tb_pass "1 GiB TCP transfer intact ($want) in ${secs}s"
