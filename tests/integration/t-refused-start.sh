#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A start refused after it changed a port leaves the ports as it found
# them: every MTU (ports[].mtu) and channel count (queues_set_channels)
# start-up set is put back, whichever later step fails. On veths with 4
# queues each, the gateway's ports first lowered to 2 channels, MTU 1500:
#  (a) ports[0].mtu 2000 is set, then ports[1].mtu 9000 is refused by
#      gw1's driver (veth: at most one page while its peer b0 runs a
#      single-buffer XDP program): gw0 is back at MTU 1500;
#  (b) both MTUs set (2000, 1600) and gw0's channels raised from 2 to 4
#      (queues: 4, queues_set_channels), then gw1's refused (veth: a
#      device's TX queues at most its peer's RX queues while the peer
#      runs XDP; b0 has 2): gw0 is back at 2 channels, both at MTU 1500;
#  (c) everything set (MTU 2000, both ports from 2 to 1 channel), the
#      gateway opened, then the control socket cannot be created: both
#      ports back at 2 channels and MTU 1500, no program left attached.
set -euo pipefail
source "$(dirname "$0")/../lib/testbed.sh"
XDPLANE="$XDPLANE_BUILD/control/xdplane"

tb_init
tb_build --queues 4
# the gateway's ports at 2 channels (gw1 before its peer b0: veth keeps a
# device running XDP at no fewer RX queues than its peer has TX queues)
tb_exec GW ethtool -L gw0 rx 2 tx 2 || tb_fail "ethtool -L gw0 rx 2 tx 2"
tb_exec GW ethtool -L gw1 rx 2 tx 2 || tb_fail "ethtool -L gw1 rx 2 tx 2"
tb_exec B ethtool -L b0 rx 2 tx 2 || tb_fail "ethtool -L b0 rx 2 tx 2"

channels() { # NS DEV: the current RX channel count
	ip netns exec "$(tb_ns "$1")" ethtool -l "$2" |
		awk '/^Current/ { cur = 1 } cur && $1 == "RX:" { print $2; exit }'
}
mtu() { ip -n "$TB_GW" -j link show "$1" | jq '.[0].mtu'; }

# refused NAME WANT: start the daemon with $TB_DIR/NAME.yaml; it must exit
# non-zero (not time out) and say WANT
refused() {
	local name=$1 want=$2 rc=0
	tb_exec GW timeout 30 "$XDPLANE" -c "$TB_DIR/$name.yaml" \
		>"$TB_DIR/$name.log" 2>&1 || rc=$?
	cat "$TB_DIR/$name.log" >&2
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || tb_fail "$name: exit status $rc, want a refusal"
	grep -qaE -- "$want" "$TB_DIR/$name.log" || tb_fail "$name: the refusal does not say '$want'"
}

# untouched NAME: both ports as the test set them up
untouched() {
	local p
	for p in gw0 gw1; do
		[ "$(mtu $p)" = 1500 ] ||
			tb_fail "$1: the refused start left $p at MTU $(mtu $p), want 1500"
		[ "$(channels GW $p)" = 2 ] ||
			tb_fail "$1: the refused start left $p at $(channels GW $p) channels, want 2"
	done
	[ -z "$(tb_xdp_prog GW gw0)$(tb_xdp_prog GW gw1)" ] ||
		tb_fail "$1: the refused start left an XDP program attached"
}
untouched setup

# --- (a) port 1's MTU refused after port 0's was set -------------------------
cat >"$TB_DIR/mtu.yaml" <<YAML
ports:
  - {interface: gw0, mtu: 2000}
  - {interface: gw1, mtu: 9000}
queues: 2
control: {socket: "$TB_DIR/mtu.sock", metrics_listen: ""}
YAML
refused mtu "gw1: cannot set the MTU to 9000"
grep -qa "gw0: MTU set to 2000 (was 1500)" "$TB_DIR/mtu.log" ||
	tb_fail "(a): gw0's MTU was not set first: the test proves nothing"
untouched "(a)"
tb_pass "(a) gw1's MTU refused after gw0's was set: gw0 back at MTU 1500"

# --- (b) port 1's channels refused after port 0's were set -------------------
cat >"$TB_DIR/chan.yaml" <<YAML
ports:
  - {interface: gw0, mtu: 2000}
  - {interface: gw1, mtu: 1600}
queues: 4
queues_set_channels: true
control: {socket: "$TB_DIR/chan.sock", metrics_listen: ""}
YAML
refused chan "gw1: cannot set the channels from 2 to 4"
grep -qa "gw0: channels set from 2 to 4" "$TB_DIR/chan.log" ||
	tb_fail "(b): gw0's channels were not set first: the test proves nothing"
untouched "(b)"
tb_pass "(b) gw1's channels refused after gw0's were set: gw0 back at 2 channels, both at MTU 1500"

# --- (c) the gateway opened, the control socket refused ----------------------
# one queue: the hosts send on one TX queue (veth attaches XDP to a device
# only with as many RX queues as its peer has TX queues)
tb_exec A ethtool -L a0 tx 1 || tb_fail "ethtool -L a0 tx 1"
tb_exec B ethtool -L b0 tx 1 || tb_fail "ethtool -L b0 tx 1"
: >"$TB_DIR/notadir"
cat >"$TB_DIR/late.yaml" <<YAML
ports:
  - {interface: gw0, mtu: 2000}
  - interface: gw1
queues: 1
queues_set_channels: true
control: {socket: "$TB_DIR/notadir/ctl.sock", metrics_listen: ""}
YAML
refused late "notadir"
grep -qa "AF_XDP bind mode" "$TB_DIR/late.log" ||
	tb_fail "(c): the gateway did not open: the test proves nothing"
untouched "(c)"
tb_pass "(c) refused after the gateway opened: both ports back at 2 channels and MTU 1500"
