#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Prometheus on another host scrapes the gateway, as xdplane(8), MONITORING
# documents it: the shipped configuration (config/xdplane.yaml, adaptive
# egress on) with its ports renamed to the testbed's and
# control.metrics_listen on a management address, 192.0.2.10 on a veth of
# its own to host A (the "Prometheus host", 192.0.2.20):
#  - a scrape from A answers 200 and passes `promtool check metrics`;
#  - the listener is bound to that address only: 127.0.0.1:9470 inside the
#    gateway's namespace refuses the connection;
#  - every metric the shipped alerting rules and Grafana dashboard name is
#    in what the running daemon serves (tests/tools/check_monitoring.py
#    --exposition on the scrape), and the scrape example passes
#    `promtool check config` with the job the rules watch.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
command -v promtool >/dev/null || tb_fail "promtool missing (.ci/deps fetches it)"
SRC=$XDPLANE_SOURCE
MGMT_GW=192.0.2.10 MGMT_PROM=192.0.2.20
tb_init
tb_build
ip link add mgmt0 netns "$TB_GW" type veth peer name mgmt1 netns "$TB_A"
ip -n "$TB_GW" addr add $MGMT_GW/24 dev mgmt0
ip -n "$TB_A" addr add $MGMT_PROM/24 dev mgmt1
ip -n "$TB_GW" link set mgmt0 up
ip -n "$TB_A" link set mgmt1 up
ip -n "$TB_GW" link set lo up

# the shipped file, as an operator edits it: the ports' names, the socket
# of this test, the management address for the metrics
sed -e 's/^  - interface: eth1$/  - interface: gw0/' \
	-e 's/^  - interface: eth2$/  - interface: gw1/' \
	-e "s|^  socket: .*|  socket: $TB_DIR/gw.sock|" \
	-e "s|^  metrics_listen: .*|  metrics_listen: \"$MGMT_GW:9470\"|" \
	"$SRC/config/xdplane.yaml" >"$TB_DIR/gw.yaml"
grep -q "metrics_listen: \"$MGMT_GW:9470\"" "$TB_DIR/gw.yaml" || tb_fail "sed of metrics_listen"
grep -q 'adaptive: {mode: on}' "$TB_DIR/gw.yaml" || tb_fail "the shipped file has adaptive egress off"
tb_start_gw gw "$TB_DIR/gw.yaml"
grep -q "metrics: http://$MGMT_GW:9470/metrics" "$TB_DIR/gw.log" || tb_fail "metrics listener not logged"

code=$(tb_exec A curl -s --max-time 5 -o "$TB_DIR/remote.txt" -w '%{http_code}' "http://$MGMT_GW:9470/metrics") || true
[ "$code" = 200 ] || tb_fail "scrape from the Prometheus host: HTTP $code"
n=$(grep -c '^xdplane_' "$TB_DIR/remote.txt")
promtool check metrics <"$TB_DIR/remote.txt" >"$TB_DIR/lint.txt" 2>&1 ||
	{ cat "$TB_DIR/lint.txt" >&2; tb_fail "promtool check metrics"; }
tb_pass "scrape of http://$MGMT_GW:9470/metrics from the other host: 200, $n samples, promtool check metrics clean"

rc=0
tb_exec GW curl -s --max-time 5 -o /dev/null "http://127.0.0.1:9470/metrics" || rc=$?
[ "$rc" = 7 ] || tb_fail "127.0.0.1:9470 in the gateway's namespace: curl exit $rc (want 7, refused)"
tb_pass "the listener is on the management address only (127.0.0.1:9470 refused)"

grep -q '^xdplane_adaptive_enabled{port="gw1"} 1$' "$TB_DIR/remote.txt" ||
	tb_fail "xdplane_adaptive_enabled of gw1 is not 1: $(grep adaptive_enabled "$TB_DIR/remote.txt")"
python3 "$SRC/tests/tools/check_monitoring.py" --exposition "$TB_DIR/remote.txt" \
	--rules "$SRC/config/prometheus/xdplane.rules.yml" \
	--dashboard "$SRC/config/grafana/xdplane.json" \
	--scrape "$SRC/config/prometheus/prometheus.yml" \
	--rules-test "$SRC/tests/monitoring/rules.test.yml" >&2 ||
	tb_fail "the shipped rules or dashboard name a metric the running daemon does not serve"
tb_pass "the shipped rules and dashboard name only metrics the running daemon serves"
